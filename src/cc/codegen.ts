/**
 * Code generation: the typed tree to eBPF the kernel verifier accepts.
 *
 * What the verifier needs shapes every choice here:
 *  - packet bounds checks stay pointer comparisons on registers
 *    (`r2 = r1; r2 += 14; if r2 > r3 goto …`), never folded into integer
 *    arithmetic the verifier cannot follow;
 *  - ctx fields are read with the width of their declared type (32-bit
 *    loads of data/data_end), and casts through (long) add no code;
 *  - map keys live on the stack and map values are null-checked exactly as
 *    written (no check is added or removed: unsafe C reaches the verifier
 *    unsafe);
 *  - pointers are spilled with full 8-byte stores.
 *
 * Registers: locals whose live range holds no call sit in r1-r5, locals
 * that span calls in r6-r9, the rest (and every aggregate or
 * address-taken local) on the stack; temporaries come from r0-r5.
 * `static __always_inline` functions (and all static functions not marked
 * noinline, as clang -O2 would) are inlined; others become bpf-to-bpf calls.
 */
import type { Expr, Init, Stmt, Sym } from './ast';
import { type DiagnosticBag, type Span } from './diagnostics';
import { computeLiveness, type LiveRange } from './liveness';
import { peephole, removeUnreachable } from './peephole';
import { evalBinary } from './sema';
import { T, alignOf, isInt, isPtr, sizeOf, type FuncType, type IntType, type Member, type Type } from './types';
import * as O from '../isa/opcodes';
import type { Insn } from '../isa/insn';

/** An emitted instruction, with its jump target label before linking. */
export interface EmittedInsn {
  insn: Insn;
  span: Span;
  /** Jump target (label id) for jumps; callee symbol for bpf-to-bpf calls. */
  label?: number;
  callee?: Sym;
  /** lddw of a map address: map index. */
  map?: number;
}

export interface MapRef {
  sym: Sym;
  index: number;
}

type Val =
  | { k: 'imm'; v: bigint }
  | { k: 'reg'; r: number; temp: boolean; zext?: boolean; /** Known: the value fits in this many low bits (unsigned). */ bits?: number }
  | { k: 'fp'; off: number }
  | { k: 'map'; idx: number }
  /** A (non-temporary) register plus a constant: pointer arithmetic not yet materialised. */
  | { k: 'regoff'; r: number; off: number };

type Home = { k: 'reg'; r: number } | { k: 'stack'; off: number };

interface Addr {
  base: 'fp' | 'reg' | 'map';
  reg?: number;
  /** The base register is a temporary to free after use. */
  temp?: boolean;
  off: number;
  map?: number;
}

interface InlineCtx {
  fn: Sym;
  end: number;
  labels: Map<string, number>;
  retReg: number;
  returned: boolean;
}

const TEMP_ORDER = [1, 2, 3, 4, 5, 0];
const LOCAL_CALLER_ORDER = [5, 4, 3];
const CALLEE_SAVED = [6, 7, 8, 9];
const MAX_INLINE_DEPTH = 16;

class CgError extends Error {}

export interface ProgramContext {
  diags: DiagnosticBag;
  maps: Map<Sym, number>;
  /** Functions that become bpf-to-bpf subprograms, in the order they are needed. */
  subprogs: Sym[];
  inlineable(fn: Sym): boolean;
  /** Run the peephole pass (default on). */
  optimize?: boolean;
}

/** Generate one BPF function (the entry program or a subprogram). */
export class FuncGen {
  out: EmittedInsn[] = [];
  private labelPos: number[] = [];
  private regOwner: ('free' | 'temp' | 'local' | 'reserved')[] = new Array(11).fill('free');
  private homes = new Map<Sym, Home>();
  private ranges = new Map<Sym, LiveRange>();
  private constBind = new Map<Sym, bigint>();
  private stackTop = 0;
  maxStack = 0;
  private span: Span;
  private breakTargets: number[] = [];
  private continueTargets: number[] = [];
  private inlineStack: InlineCtx[] = [];
  private fnLabels = new Map<string, number>();
  private localsByFn = new Map<Sym, Sym[]>();
  private stmtPosByFn = new Map<Sym, Map<Stmt, number>>();
  private curFn: Sym;
  private callCache = new Map<Sym, boolean>();
  /** Inlined parameters that share a register with the caller's value (never freed by the callee). */
  private borrowed = new Set<Sym>();
  /** Single-assignment pointer locals that are another local plus a constant. */
  private aliases = new Map<Sym, { base: Sym; off: bigint }>();

  constructor(private ctx: ProgramContext, private fn: Sym) {
    this.span = fn.span;
    this.curFn = fn;
  }

  private get diags(): DiagnosticBag {
    return this.ctx.diags;
  }

  // ---- emission --------------------------------------------------------------
  private emit(code: number, dst = 0, src = 0, off = 0, imm = 0, extra?: Partial<EmittedInsn>): void {
    this.out.push({ insn: { code, dst, src, off, imm: imm | 0 }, span: this.span, ...extra });
  }
  private newLabel(): number {
    this.labelPos.push(-1);
    return this.labelPos.length - 1;
  }
  private place(l: number): void {
    this.labelPos[l] = this.out.length;
  }
  private jmp(l: number): void {
    this.emit(O.BPF_JMP | O.BPF_JA, 0, 0, 0, 0, { label: l });
  }
  private fail(msg: string, span = this.span, code = 'cc-unsupported'): never {
    this.diags.error(code, msg, span);
    throw new CgError(msg);
  }

  /** Resolve label jumps to offsets; drop jumps to the next instruction. */
  finish(): void {
    if (this.ctx.optimize !== false) peephole(this.out, this.labelPos);
    removeUnreachable(this.out, this.labelPos);
    // Remove `ja +0` (a jump to the very next slot) repeatedly, fixing label positions.
    for (;;) {
      const kill = this.out.findIndex((e, i) => e.label !== undefined && e.insn.code === (O.BPF_JMP | O.BPF_JA) && this.labelPos[e.label] === i + 1);
      if (kill < 0) break;
      this.out.splice(kill, 1);
      for (let l = 0; l < this.labelPos.length; l++) if (this.labelPos[l]! > kill) this.labelPos[l]!--;
    }
    this.out.forEach((e, i) => {
      if (e.label !== undefined) {
        const target = this.labelPos[e.label]!;
        e.insn.off = target - (i + 1);
        if (e.insn.off < -32768 || e.insn.off > 32767) this.diags.error('cc-jump-range', 'jump offset out of range (program too large)', e.span);
      }
    });
  }

  // ---- registers ---------------------------------------------------------------
  private allocTemp(avoid: number[] = []): number {
    for (const r of TEMP_ORDER) if (this.regOwner[r] === 'free' && !avoid.includes(r)) { this.regOwner[r] = 'temp'; return r; }
    this.fail('expression too complex: out of registers (split it into several statements)', this.span, 'cc-out-of-registers');
  }
  private release(v: Val): void {
    if (v.k === 'reg' && v.temp && this.regOwner[v.r] === 'temp') this.regOwner[v.r] = 'free';
  }
  private freeRegCount(): number {
    return [0, 1, 2, 3, 4, 5].filter((r) => this.regOwner[r] === 'free').length;
  }

  private allocStack(size: number, align: number): number {
    const a = Math.max(8, align);
    this.stackTop = Math.ceil((this.stackTop + size) / a) * a;
    this.maxStack = Math.max(this.maxStack, this.stackTop);
    return -this.stackTop;
  }

  private assignHome(sym: Sym, incoming?: number): void {
    const t = sym.type;
    const range = this.ranges.get(sym);
    const scalarLike = isInt(t) || isPtr(t);
    if (!scalarLike || sym.addressTaken) {
      this.homes.set(sym, { k: 'stack', off: this.allocStack(Math.max(1, sizeOf(t)), alignOf(t)) });
      return;
    }
    if (!range || range.lastUse <= range.decl && incoming === undefined) {
      // Never read: still give it a place so stores stay harmless.
      this.homes.set(sym, { k: 'stack', off: this.allocStack(8, 8) });
      return;
    }
    if (!range.crossesCall) {
      if (incoming !== undefined && this.regOwner[incoming] === 'free') {
        this.regOwner[incoming] = 'local';
        this.homes.set(sym, { k: 'reg', r: incoming });
        return;
      }
      if (this.freeRegCount() > 3) {
        for (const r of LOCAL_CALLER_ORDER) if (this.regOwner[r] === 'free') {
          this.regOwner[r] = 'local';
          this.homes.set(sym, { k: 'reg', r });
          return;
        }
      }
    }
    for (const r of CALLEE_SAVED) if (this.regOwner[r] === 'free') {
      this.regOwner[r] = 'local';
      this.homes.set(sym, { k: 'reg', r });
      return;
    }
    this.homes.set(sym, { k: 'stack', off: this.allocStack(8, 8) });
  }

  /** Free the registers of this function's locals whose live range ended before `pos`. */
  private expire(pos: number, fnSym: Sym): void {
    for (const s of this.localsByFn.get(fnSym) ?? []) {
      const r = this.ranges.get(s);
      const h = this.homes.get(s);
      if (r && h?.k === 'reg' && r.lastUse < pos && this.regOwner[h.r] === 'local' && !this.borrowed.has(s)) {
        this.regOwner[h.r] = 'free';
        this.homes.set(s, { k: 'stack', off: 1 }); // dead: any later use is a liveness bug, caught below
        this.homes.delete(s);
      }
    }
  }

  // ---- the function ------------------------------------------------------------
  /** Does evaluating e involve a call (so temporaries must not be live across it)? */
  containsCall(e: Expr | undefined): boolean {
    if (!e) return false;
    switch (e.k) {
      case 'call': {
        if (e.fn.k === 'addr' && e.fn.e.k === 'var' && e.fn.e.sym.kind === 'func') {
          const f = e.fn.e.sym;
          if (this.ctx.inlineable(f)) return true; // inlined bodies use r0 for their result
        }
        return true;
      }
      case 'stmtexpr': return true;
      case 'num': case 'str': case 'var': return false;
      case 'unary': case 'deref': case 'addr': case 'cast': case 'member': case 'incdec': return this.containsCall(e.e);
      case 'binary': case 'logical': case 'assign': case 'comma': return this.containsCall(e.l) || this.containsCall(e.r);
      case 'cond': return this.containsCall(e.c) || this.containsCall(e.t) || this.containsCall(e.f);
      case 'builtin': return e.args.some((a) => this.containsCall(a));
      case 'inline': return true;
    }
  }

  /** Whether a function's body (transitively) makes a real call. */
  private fnCalls(f: Sym, depth = 0): boolean {
    const c = this.callCache.get(f);
    if (c !== undefined) return c;
    if (depth > MAX_INLINE_DEPTH || !f.body) return true;
    this.callCache.set(f, true);
    let found = false;
    const visitE = (e: Expr | undefined): void => {
      if (!e || found) return;
      if (e.k === 'call') {
        const callee = this.calleeSym(e);
        if (!callee || !this.ctx.inlineable(callee) || this.fnCalls(callee, depth + 1)) { found = true; return; }
      }
      if (e.k === 'stmtexpr') e.body.forEach(visitS);
      for (const v of Object.values(e)) if (v && typeof v === 'object' && 'k' in v && 'ty' in v) visitE(v as Expr);
      if (e.k === 'call' || e.k === 'builtin') e.args.forEach(visitE);
    };
    const visitS = (s: Stmt | undefined): void => {
      if (!s || found) return;
      switch (s.k) {
        case 'expr': visitE(s.e); break;
        case 'decl': s.init?.parts.forEach((p) => visitE(p.e)); break;
        case 'block': s.body.forEach(visitS); break;
        case 'if': visitE(s.c); visitS(s.t); visitS(s.f); break;
        case 'while': case 'dowhile': visitE(s.c); visitS(s.body); break;
        case 'for': visitS(s.init); visitE(s.c); visitE(s.step); visitS(s.body); break;
        case 'switch': visitE(s.e); visitS(s.body); break;
        case 'return': visitE(s.e); break;
      }
    };
    visitS(f.body);
    this.callCache.set(f, found);
    return found;
  }

  private calleeSym(e: Expr & { k: 'call' }): Sym | undefined {
    const f = e.fn;
    if (f.k === 'addr' && f.e.k === 'var' && f.e.sym.kind === 'func') return f.e.sym;
    return undefined;
  }

  private isRealCall = (e: Expr): boolean => {
    if (e.k !== 'call') return false;
    const callee = this.calleeSym(e);
    if (callee && this.ctx.inlineable(callee)) return this.fnCalls(callee);
    return true;
  };

  private prepare(fn: Sym): void {
    this.findAliases(fn);
    const aliasBase = new Map<Sym, Sym>();
    for (const [a, x] of this.aliases) aliasBase.set(a, x.base);
    const lv = computeLiveness(fn.params ?? [], fn.body!, this.isRealCall, aliasBase);
    for (const [s, r] of lv.ranges) this.ranges.set(s, r);
    this.stmtPosByFn.set(fn, lv.stmtPos);
    this.localsByFn.set(fn, [...lv.ranges.keys()]);
  }

  /**
   * Locals assigned once, at their declaration, from a constant or from
   * another such pointer plus a constant (`struct ethhdr *eth = data;`,
   * `struct iphdr *iph = data + sizeof(*eth);`) need no register of their
   * own: reads use the constant, or the base register with the offset
   * folded into each access — the addressing clang's optimiser arrives at.
   */
  private findAliases(fn: Sym): void {
    const written = new Set<Sym>();
    const noteWrites = (e: Expr): void => {
      if ((e.k === 'assign' && e.l.k === 'var') ) written.add(e.l.sym);
      if (e.k === 'incdec' && e.e.k === 'var') written.add(e.e.sym);
      if (e.k === 'addr' && e.e.k === 'var') written.add(e.e.sym);
    };
    walkExprs(fn.body!, noteWrites);
    const decls: (Stmt & { k: 'decl' })[] = [];
    walkStmts(fn.body!, (st) => { if (st.k === 'decl') decls.push(st); });
    const params = new Set(fn.params ?? []);
    const stable = (b: Sym): boolean => !b.global && !written.has(b) && !b.addressTaken && (params.has(b) || decls.some((d) => d.sym === b));
    const declCount = new Map<Sym, number>();
    for (const d of decls) declCount.set(d.sym, (declCount.get(d.sym) ?? 0) + 1);
    for (const d of decls) {
      const sym = d.sym;
      if (written.has(sym) || sym.addressTaken || declCount.get(sym) !== 1 || !d.init || d.init.parts.length !== 1 || d.init.zero) continue;
      if (!(isInt(sym.type) || isPtr(sym.type))) continue;
      const e = d.init.parts[0]!.e;
      const c = this.staticConst(e);
      if (c !== undefined) {
        this.constBind.set(sym, wrapInt(c, sym.type));
        continue;
      }
      if (!isPtr(sym.type)) continue;
      const a = this.aliasOf(e, stable);
      if (a) this.aliases.set(sym, a);
    }
  }

  /** The value of e when it is constant given the constant-bound locals (unrolled induction variables, single-assignment constants). */
  private evalStatic(e: Expr, depth = 0): bigint | undefined {
    if (depth > 64) return undefined;
    switch (e.k) {
      case 'num': return isInt(e.ty) ? e.value : undefined;
      case 'var': return this.constBind.get(e.sym);
      case 'cast': {
        if (!isInt(e.ty) || !isInt(e.e.ty)) return undefined;
        const v = this.evalStatic(e.e, depth + 1);
        return v === undefined ? undefined : wrapInt(v, e.ty);
      }
      case 'unary': {
        const v = this.evalStatic(e.e, depth + 1);
        if (v === undefined) return undefined;
        if (e.op === '!') return v === 0n ? 1n : 0n;
        return wrapInt(e.op === '-' ? -v : ~v, e.ty);
      }
      case 'logical': {
        const l = this.evalStatic(e.l, depth + 1);
        if (l === undefined) return undefined;
        if (e.op === '&&' && l === 0n) return 0n;
        if (e.op === '||' && l !== 0n) return 1n;
        const r = this.evalStatic(e.r, depth + 1);
        return r === undefined ? undefined : r !== 0n ? 1n : 0n;
      }
      case 'binary': {
        if (!isInt(e.l.ty) || !isInt(e.r.ty)) return undefined;
        const l = this.evalStatic(e.l, depth + 1);
        if (l === undefined) return undefined;
        const r = this.evalStatic(e.r, depth + 1);
        return r === undefined ? undefined : evalBinary(e.op, l, r, e.l.ty, e.ty);
      }
      default: return undefined;
    }
  }

  private staticConst(e: Expr): bigint | undefined {
    const c = constOf(e);
    if (c !== undefined) return c;
    if (e.k === 'var' && this.constBind.has(e.sym)) return this.constBind.get(e.sym);
    if (e.k === 'cast' && e.ty.k === 'int' && e.e.ty.k === 'int') {
      const v = this.staticConst(e.e);
      return v === undefined ? undefined : wrapInt(v, e.ty);
    }
    return undefined;
  }

  /** `base + constant` for a pointer expression over a stable local, through pointer casts. */
  private aliasOf(e: Expr, stable: (s: Sym) => boolean): { base: Sym; off: bigint } | undefined {
    if (e.k === 'cast' && isPtr(e.ty) && (isPtr(e.e.ty) || (isInt(e.e.ty) && e.e.ty.size === 8))) return this.aliasOf(e.e, stable);
    if (e.k === 'var' && isPtr(e.ty)) {
      if (this.aliases.has(e.sym)) return this.aliases.get(e.sym);
      return stable(e.sym) ? { base: e.sym, off: 0n } : undefined;
    }
    if (e.k === 'binary' && (e.op === '+' || e.op === '-') && isPtr(e.ty) && isPtr(e.l.ty)) {
      const c = this.staticConst(e.r);
      if (c === undefined) return undefined;
      const inner = this.aliasOf(e.l, stable);
      if (!inner) return undefined;
      const delta = BigInt.asIntN(64, c) * BigInt(sizeOf((e.l.ty as { to: Type }).to)) * (e.op === '-' ? -1n : 1n);
      const off = inner.off + delta;
      if (off < -32768n || off > 32767n) return undefined;
      return { base: inner.base, off };
    }
    return undefined;
  }

  generate(): void {
    const fn = this.fn;
    this.prepare(fn);
    this.span = fn.span;
    const params = fn.params ?? [];
    if (params.length > 5) this.fail(`function '${fn.name}' has ${params.length} parameters; BPF passes at most 5 in registers`, fn.span, 'cc-too-many-args');
    // Incoming arguments are in r1..r5: claim them first so nothing clobbers them.
    params.forEach((_, i) => (this.regOwner[i + 1] = 'reserved'));
    const moves: [Sym, number][] = [];
    params.forEach((p, i) => {
      this.regOwner[i + 1] = 'free';
      const r = this.ranges.get(p);
      if (!p.addressTaken && r && !r.crossesCall && (isInt(p.type) || isPtr(p.type))) {
        this.assignHome(p, i + 1);
      } else moves.push([p, i + 1]);
      if (this.homes.get(p)?.k !== 'reg' || (this.homes.get(p) as { r: number }).r !== i + 1) this.regOwner[i + 1] = 'reserved';
    });
    for (const [p, reg] of moves) {
      this.regOwner[reg] = 'free';
      this.assignHome(p);
      const h = this.homes.get(p)!;
      if (h.k === 'reg') this.emit(O.BPF_ALU64 | O.BPF_MOV | O.BPF_X, h.r, reg);
      else this.store(sizeOf(p.type) === 8 || !p.addressTaken ? 8 : sizeOf(p.type), 'fp', 10, h.off, { k: 'reg', r: reg, temp: false });
    }
    try {
      this.stmt(fn.body!);
    } catch (e) {
      if (!(e instanceof CgError)) throw e;
      return;
    }
    // Falling off the end: a void function returns; an int function returns garbage in C, 0 here.
    const last = this.out[this.out.length - 1];
    if (!last || last.insn.code !== (O.BPF_JMP | O.BPF_EXIT) || this.labelPos.some((p) => p === this.out.length)) {
      const ret = (fn.type as FuncType).ret;
      if (ret.k !== 'void' && !this.diags.hasErrors) this.diags.warning('sema-return-type', `non-void function does not return a value in all control paths`, { ...this.span, line: fn.body!.span.endLine, col: fn.body!.span.endCol - 1 });
      this.emit(O.BPF_ALU64 | O.BPF_MOV | O.BPF_K, 0, 0, 0, 0);
      this.emit(O.BPF_JMP | O.BPF_EXIT);
    }
    if (this.maxStack > O.MAX_BPF_STACK) this.diags.error('cc-stack-limit', `Looks like the BPF stack limit is exceeded: '${fn.name}' needs ${this.maxStack} bytes, the limit is ${O.MAX_BPF_STACK}`, fn.span);
  }

  // ---- statements ----------------------------------------------------------------
  private stmt(s: Stmt): void {
    const pos = this.stmtPosByFn.get(this.curFn)?.get(s);
    if (pos !== undefined) this.expire(pos, this.curFn);
    const saved = this.span;
    if (s.k !== 'block') this.span = s.span;
    try {
      this.stmtInner(s);
    } catch (e) {
      if (!(e instanceof CgError)) throw e;
      // Reported; reset registers and carry on to find more errors.
      for (let r = 0; r <= 5; r++) if (this.regOwner[r] === 'temp') this.regOwner[r] = 'free';
    }
    this.span = saved;
  }

  private stmtInner(s: Stmt): void {
    switch (s.k) {
      case 'empty': return;
      case 'case': case 'default': {
        const l = this.caseLabels[this.caseLabels.length - 1]?.get(s);
        if (l === undefined) this.fail(`'${s.k}' statement not in switch statement`, s.span, 'sema-case');
        this.place(l);
        return;
      }
      case 'expr': {
        const v = this.expr(s.e, true);
        this.release(v);
        return;
      }
      case 'decl': {
        if (this.aliases.has(s.sym) || (this.constBind.has(s.sym) && !this.homes.has(s.sym))) return;
        this.assignHome(s.sym);
        if (s.init) this.initLocal(s.sym, s.init);
        return;
      }
      case 'block': {
        const savedTop = this.stackTop;
        let dead = false;
        for (const b of s.body) {
          if (dead && !this.diags.hasErrors && b.k !== 'label' && !(b.k === 'block' && (b.body[0]?.k === 'case' || b.body[0]?.k === 'default' || b.body[0]?.k === 'label')) && b.k !== 'empty' && b.k !== 'decl') {
            this.diags.warning('sema-unreachable', 'code will never be executed', b.span);
            dead = false;
          }
          this.stmt(b);
          if (b.k === 'return' || b.k === 'break' || b.k === 'continue' || b.k === 'goto') dead = true;
          else if (b.k === 'label' || b.k === 'block') dead = false;
        }
        this.stackTop = savedTop;
        return;
      }
      case 'if': {
        const c = this.evalStatic(s.c);
        if (c !== undefined) {
          if (c !== 0n) this.stmt(s.t);
          else if (s.f) this.stmt(s.f);
          return;
        }
        const elseL = this.newLabel();
        this.branch(s.c, elseL, false);
        this.stmt(s.t);
        if (s.f) {
          const end = this.newLabel();
          if (!endsFlow(s.t)) this.jmp(end);
          this.place(elseL);
          this.stmt(s.f);
          this.place(end);
        } else this.place(elseL);
        return;
      }
      case 'while': {
        if (this.tryUnroll(s)) return;
        const top = this.newLabel(), end = this.newLabel(), cont = this.newLabel();
        const c = constOf(s.c);
        if (c === 0n) return;
        // Rotated loop: test at the bottom, as clang emits, one jump per iteration.
        if (c === undefined) this.branch(s.c, end, false);
        this.place(top);
        this.loopBody(s.body, end, cont);
        this.place(cont);
        if (c === undefined) this.branch(s.c, top, true);
        else this.jmp(top);
        this.place(end);
        return;
      }
      case 'dowhile': {
        const top = this.newLabel(), end = this.newLabel(), cont = this.newLabel();
        this.place(top);
        this.loopBody(s.body, end, cont);
        this.place(cont);
        const c = constOf(s.c);
        if (c === undefined) this.branch(s.c, top, true);
        else if (c !== 0n) this.jmp(top);
        this.place(end);
        return;
      }
      case 'for': {
        const savedTop = this.stackTop;
        if (s.init) this.stmt(s.init);
        if (!this.tryUnroll(s)) {
          const top = this.newLabel(), end = this.newLabel(), cont = this.newLabel();
          const c = s.c ? constOf(s.c) : 1n;
          if (c !== 0n) {
            if (c === undefined) this.branch(s.c!, end, false);
            this.place(top);
            this.loopBody(s.body, end, cont);
            this.place(cont);
            if (s.step) this.release(this.expr(s.step, true));
            if (c === undefined) this.branch(s.c!, top, true);
            else this.jmp(top);
            this.place(end);
          }
        }
        this.stackTop = savedTop;
        return;
      }
      case 'break': {
        const t = this.breakTargets[this.breakTargets.length - 1];
        if (t === undefined) this.fail("'break' statement not in loop or switch statement", s.span, 'sema-break');
        this.jmp(t);
        return;
      }
      case 'continue': {
        const t = this.continueTargets[this.continueTargets.length - 1];
        if (t === undefined) this.fail("'continue' statement not in loop statement", s.span, 'sema-continue');
        this.jmp(t);
        return;
      }
      case 'return': return this.ret(s);
      case 'switch': return this.switchStmt(s);
      case 'label': {
        const l = this.labelFor(s.name);
        this.place(l);
        return;
      }
      case 'goto': {
        this.jmp(this.labelFor(s.name));
        return;
      }
    }
  }

  private labelFor(name: string): number {
    const map = this.inlineStack.length ? this.inlineStack[this.inlineStack.length - 1]!.labels : this.fnLabels;
    let l = map.get(name);
    if (l === undefined) { l = this.newLabel(); map.set(name, l); }
    return l;
  }

  private loopBody(body: Stmt, brk: number, cont: number): void {
    this.breakTargets.push(brk);
    this.continueTargets.push(cont);
    this.stmt(body);
    this.breakTargets.pop();
    this.continueTargets.pop();
  }

  /**
   * `#pragma unroll` over a loop with a constant trip count: emit the body
   * once per iteration with the induction variable as a constant.
   */
  private tryUnroll(s: Stmt & { k: 'for' | 'while' }): boolean {
    if (s.unroll === undefined || s.unroll === 'none') return false;
    const plan = s.k === 'for' ? inductionPlan(s) : undefined;
    if (!plan) {
      this.diags.warning('cc-loop-not-unrolled', 'loop not unrolled: the trip count is not a compile-time constant; emitted as a bounded loop', s.span);
      return false;
    }
    const { sym, values } = plan;
    if (values.length > 4096) {
      this.diags.warning('cc-loop-not-unrolled', `loop not unrolled: ${values.length} iterations is too many; emitted as a bounded loop`, s.span);
      return false;
    }
    const end = this.newLabel();
    for (const v of values) {
      this.constBind.set(sym, v);
      const cont = this.newLabel();
      this.loopBody((s as { body: Stmt }).body, end, cont);
      this.place(cont);
    }
    this.constBind.delete(sym);
    this.place(end);
    // The variable leaves the loop with its final value, should anything read it after.
    const h = this.homes.get(sym);
    if (h && plan.final !== undefined && (this.ranges.get(sym)?.lastUse ?? 0) > (this.stmtPosByFn.get(this.curFn)?.get(s) ?? Infinity)) {
      this.storeLocal(sym, { k: 'imm', v: plan.final });
    }
    return true;
  }

  private ret(s: Stmt & { k: 'return' }): void {
    const inl = this.inlineStack[this.inlineStack.length - 1];
    if (inl) {
      if (s.e) {
        const v = this.expr(s.e);
        this.moveTo(v, inl.retReg, s.e.ty);
        this.release(v);
      }
      inl.returned = true;
      this.jmp(inl.end);
      return;
    }
    if (s.e?.k === 'cond' && constOf(s.e.c) === undefined) {
      // return c ? a : b: two returns, each arm straight into r0.
      const elseL = this.newLabel();
      this.branch(s.e.c, elseL, false);
      this.ret({ ...s, e: s.e.t });
      this.place(elseL);
      this.ret({ ...s, e: s.e.f });
      return;
    }
    if (s.e) {
      const v = this.expr(s.e);
      this.moveTo(v, 0, s.e.ty);
      this.release(v);
    }
    this.emit(O.BPF_JMP | O.BPF_EXIT);
  }

  private switchStmt(s: Stmt & { k: 'switch' }): void {
    const cases: { value: bigint; node: Stmt; label: number }[] = [];
    let def: { node: Stmt; label: number } | undefined;
    const collect = (st: Stmt | undefined): void => {
      if (!st) return;
      switch (st.k) {
        case 'case': {
          if (cases.some((c) => c.value === st.value)) this.diags.error('sema-duplicate-case', `duplicate case value '${st.value}'`, st.span);
          cases.push({ value: st.value, node: st, label: this.newLabel() });
          return;
        }
        case 'default': def = { node: st, label: this.newLabel() }; return;
        case 'block': st.body.forEach(collect); return;
        case 'if': collect(st.t); collect(st.f); return;
        case 'while': case 'dowhile': case 'for': collect(st.body); return;
        default: return;
      }
    };
    collect(s.body);
    const end = this.newLabel();
    const v = this.expr(s.e);
    const is64 = sizeOf(s.e.ty) === 8;
    const signed = (s.e.ty as IntType).signed;
    if (v.k === 'imm') {
      const hit = cases.find((c) => c.value === wrapInt(v.v, s.e.ty));
      this.jmp(hit ? hit.label : def ? def.label : end);
    } else {
      const r = this.toReg(v, s.e.ty);
      for (const c of cases) this.cmpJump('==', r, { k: 'imm', v: c.value }, is64, signed, c.label);
      this.release(r);
      this.jmp(def ? def.label : end);
    }
    const labelOf = new Map<Stmt, number>(cases.map((c) => [c.node, c.label]));
    if (def) labelOf.set(def.node, def.label);
    this.caseLabels.push(labelOf);
    this.breakTargets.push(end);
    this.stmt(s.body);
    this.breakTargets.pop();
    this.caseLabels.pop();
    this.place(end);
  }
  private caseLabels: Map<Stmt, number>[] = [];

  // ---- locals ----------------------------------------------------------------------
  private initLocal(sym: Sym, init: Init): void {
    const h = this.homes.get(sym)!;
    if (h.k === 'reg') {
      const p = init.parts[0];
      const v = p ? this.expr(p.e) : { k: 'imm' as const, v: 0n };
      this.moveTo(v, h.r, sym.type);
      this.release(v);
      return;
    }
    const size = sizeOf(sym.type);
    if (init.zero) {
      // Zero what the parts do not cover, 8 bytes at a time where they are untouched.
      const covered = new Uint8Array(size);
      for (const p of init.parts) if (!p.bit) for (let i = 0; i < sizeOf(p.type) && p.offset + i < size; i++) covered[p.offset + i] = 1;
      let o = 0;
      while (o < size) {
        let w = 8;
        while (w > 1 && (o % w !== 0 || o + w > size || covered.subarray(o, o + w).every((x) => x === 1))) w >>= 1;
        if (covered.subarray(o, o + w).every((x) => x === 1)) { o += w; continue; }
        this.emit(O.BPF_ST | O.BPF_MEM | sizeField(w), 10, 0, h.off + o, 0);
        o += w;
      }
    }
    const addr: Addr = { base: 'fp', off: h.off };
    // Merge constant byte parts into wider immediate stores (strings, byte arrays).
    const parts = [...init.parts];
    for (let i = 0; i < parts.length; i++) {
      const p = parts[i]!;
      if (p.type.k === 'struct' || p.type.k === 'array') {
        const src = this.addrOf(p.e);
        this.copyMem({ ...addr, off: addr.off + p.offset }, src, sizeOf(p.type), Math.min(8, alignOf(p.type)));
        this.freeAddr(src);
        continue;
      }
      if (p.bit) {
        this.storeBitfield({ ...addr, off: addr.off + p.offset }, p.bit, this.expr(p.e));
        continue;
      }
      const c = constOf(p.e);
      if (c !== undefined && sizeOf(p.type) === 1) {
        // Gather a run of constant bytes into 4-byte (or 2-byte) stores.
        let w = 1;
        for (const cand of [4, 2]) {
          if ((h.off + p.offset) % cand !== 0) continue;
          const run = parts.slice(i, i + cand);
          if (run.length === cand && run.every((q, j) => q.offset === p.offset + j && sizeOf(q.type) === 1 && !q.bit && constOf(q.e) !== undefined)) { w = cand; break; }
        }
        let v = 0n;
        for (let j = w - 1; j >= 0; j--) v = (v << 8n) | (constOf(parts[i + j]!.e)! & 0xffn);
        this.emit(O.BPF_ST | O.BPF_MEM | sizeField(w), 10, 0, h.off + p.offset, Number(BigInt.asIntN(32, v)));
        i += w - 1;
        continue;
      }
      const v = this.expr(p.e);
      // A scalar local that lives on the stack is spilled and reloaded as a whole register.
      const whole = !sym.addressTaken && (isInt(sym.type) || isPtr(sym.type)) && p.offset === 0;
      this.storeVal({ ...addr, off: addr.off + p.offset }, whole ? 8 : sizeOf(p.type), v, p.type);
      this.release(v);
    }
  }

  private storeLocal(sym: Sym, v: Val): void {
    const h = this.homes.get(sym);
    if (!h) return;
    if (h.k === 'reg') this.moveTo(v, h.r, sym.type);
    else this.storeVal({ base: 'fp', off: h.off }, sym.addressTaken ? sizeOf(sym.type) : 8, v, sym.type);
  }

  // ---- values --------------------------------------------------------------------
  /** Put v into register r (converting nothing: v already has the target's representation). */
  private moveTo(v: Val, r: number, ty: Type): void {
    const is64 = sizeOf(ty) === 8 || ty.k !== 'int';
    switch (v.k) {
      case 'imm': return this.loadImm(r, v.v, is64);
      case 'reg':
        if (v.r !== r) this.emit((is64 ? O.BPF_ALU64 : O.BPF_ALU) | O.BPF_MOV | O.BPF_X, r, v.r);
        return;
      case 'fp':
        this.emit(O.BPF_ALU64 | O.BPF_MOV | O.BPF_X, r, 10);
        if (v.off) this.emit(O.BPF_ALU64 | O.BPF_ADD | O.BPF_K, r, 0, 0, v.off);
        return;
      case 'regoff':
        if (v.r !== r) this.emit(O.BPF_ALU64 | O.BPF_MOV | O.BPF_X, r, v.r);
        if (v.off) this.emit(O.BPF_ALU64 | O.BPF_ADD | O.BPF_K, r, 0, 0, v.off);
        return;
      case 'map':
        this.emit(O.BPF_LD | O.BPF_IMM | O.BPF_DW, r, O.BPF_PSEUDO_MAP_FD, 0, 0, { map: v.idx });
        this.out.push({ insn: { code: 0, dst: 0, src: 0, off: 0, imm: 0 }, span: this.span });
        return;
    }
  }

  /** v + off for a pointer value, without code when the base is a register we do not own. */
  private offsetVal(v: Val, off: number): Val {
    if (off === 0) return v;
    switch (v.k) {
      case 'fp': return { k: 'fp', off: v.off + off };
      case 'regoff': return { k: 'regoff', r: v.r, off: v.off + off };
      case 'reg':
        if (!v.temp) return { k: 'regoff', r: v.r, off };
        this.emit(O.BPF_ALU64 | O.BPF_ADD | O.BPF_K, v.r, 0, 0, off);
        return { ...v, zext: false };
      case 'imm': return { k: 'imm', v: BigInt.asUintN(64, v.v + BigInt(off)) };
      case 'map': return v;
    }
  }

  private loadImm(r: number, v: bigint, is64: boolean): void {
    if (!is64) return this.emit(O.BPF_ALU | O.BPF_MOV | O.BPF_K, r, 0, 0, Number(BigInt.asIntN(32, v)));
    const s = BigInt.asIntN(64, v);
    if (s >= -(1n << 31n) && s < 1n << 31n) return this.emit(O.BPF_ALU64 | O.BPF_MOV | O.BPF_K, r, 0, 0, Number(s));
    if (s >= 0n && s < 1n << 32n) return this.emit(O.BPF_ALU | O.BPF_MOV | O.BPF_K, r, 0, 0, Number(BigInt.asIntN(32, s)));
    const u = BigInt.asUintN(64, v);
    this.out.push({ insn: { code: O.BPF_LD | O.BPF_IMM | O.BPF_DW, dst: r, src: 0, off: 0, imm: Number(BigInt.asIntN(32, u & 0xffffffffn)) }, span: this.span });
    this.out.push({ insn: { code: 0, dst: 0, src: 0, off: 0, imm: Number(BigInt.asIntN(32, u >> 32n)) }, span: this.span });
  }

  /** A register holding v that the caller may modify. */
  private owned(v: Val, ty: Type, avoid: number[] = []): Val & { k: 'reg' } {
    if (v.k === 'reg' && v.temp && !avoid.includes(v.r)) return { ...v, bits: undefined };
    const r = this.allocTemp(avoid);
    this.moveTo(v, r, ty);
    this.release(v);
    // The copy is about to be modified in place: what was known of its bits no longer holds.
    return { k: 'reg', r, temp: true, zext: v.k === 'imm' ? BigInt.asUintN(64, v.v) < 1n << 32n : v.k === 'reg' && (sizeOf(ty) < 8 ? true : v.zext) };
  }

  /** v in some register (possibly a local's home, read-only). */
  private toReg(v: Val, ty: Type): Val & { k: 'reg' } {
    if (v.k === 'reg') return v;
    return this.owned(v, ty);
  }

  // ---- expressions ----------------------------------------------------------------
  /** Evaluate e; `discard` when only side effects matter. */
  expr(e: Expr, discard = false): Val {
    switch (e.k) {
      case 'num': return { k: 'imm', v: e.value };
      case 'str': this.fail('string literals need a .rodata map, which is not supported; use a char array on the stack', e.span);
      case 'var': return this.readVar(e.sym, e.span);
      case 'cast': return this.convert(this.expr(e.e, discard), e.e.ty, e.ty);
      case 'unary': {
        if (e.op === '!') return this.condValue(e);
        const v = this.expr(e.e);
        if (v.k === 'imm') return { k: 'imm', v: wrapInt(e.op === '-' ? -v.v : ~v.v, e.ty) };
        const is64 = sizeOf(e.ty) === 8;
        const r = this.owned(v, e.ty);
        if (e.op === '-') this.emit((is64 ? O.BPF_ALU64 : O.BPF_ALU) | O.BPF_NEG, r.r);
        else this.emit((is64 ? O.BPF_ALU64 : O.BPF_ALU) | O.BPF_XOR | O.BPF_K, r.r, 0, 0, -1);
        return { ...r, zext: !is64, bits: undefined };
      }
      case 'binary': {
        if (['==', '!=', '<', '>', '<=', '>='].includes(e.op)) return this.condValue(e);
        return this.binary(e);
      }
      case 'logical': return this.condValue(e);
      case 'addr': {
        const a = this.addrOf(e.e);
        return this.addrToVal(a);
      }
      case 'deref': case 'member': {
        if (e.ty.k === 'struct' || e.ty.k === 'array' || e.ty.k === 'func') {
          return this.addrToVal(this.addrOf(e));
        }
        const a = this.addrOf(e);
        if (e.k === 'member' && e.m.bitWidth !== undefined) return this.loadBitfield(a, e.m);
        return this.load(a, e.ty);
      }
      case 'assign': return this.assign(e, discard);
      case 'incdec': return this.incdec(e, discard);
      case 'cond': {
        const c = this.evalStatic(e.c);
        if (c !== undefined) return this.expr(c !== 0n ? e.t : e.f, discard);
        if (discard || e.ty.k === 'void') {
          const elseL = this.newLabel(), end = this.newLabel();
          this.branch(e.c, elseL, false);
          this.release(this.expr(e.t, true));
          this.jmp(end);
          this.place(elseL);
          this.release(this.expr(e.f, true));
          this.place(end);
          return { k: 'imm', v: 0n };
        }
        return this.select(e.c, e.t, e.f, e.ty);
      }
      case 'comma': {
        this.release(this.expr(e.l, true));
        return this.expr(e.r, discard);
      }
      case 'call': return this.call(e, discard);
      case 'stmtexpr': return this.stmtExpr(e, discard);
      case 'builtin': return this.builtin(e, discard);
      case 'inline': this.fail('internal: unexpected inline node', e.span);
    }
  }

  private readVar(sym: Sym, span: Span): Val {
    const b = this.constBind.get(sym);
    if (b !== undefined) return { k: 'imm', v: b };
    const al = this.aliases.get(sym);
    if (al) {
      const v = this.readVar(al.base, span);
      return this.offsetVal(v, Number(al.off));
    }
    if (sym.global) {
      const m = this.ctx.maps.get(sym);
      if (m !== undefined) return { k: 'map', idx: m };
      const c = sym.init && sym.init.parts.length === 1 && isInt(sym.type) ? constOf(sym.init.parts[0]!.e) : undefined;
      if (c !== undefined) return { k: 'imm', v: c };
      if (sym.kind === 'func') this.fail(`taking the address of function '${sym.name}' is not supported`, span);
      this.fail(`global variable '${sym.name}' is not supported (it would need a .data/.bss map); use a map`, span, 'cc-global-var');
    }
    const h = this.homes.get(sym);
    if (!h) this.fail(`internal: '${sym.name}' has no location here`, span, 'cc-internal');
    // Small unsigned locals always hold their narrowed value (assignment narrows).
    const bits = isInt(sym.type) && !sym.type.signed && sym.type.size < 4 ? sym.type.size * 8 : undefined;
    if (h.k === 'reg') return { k: 'reg', r: h.r, temp: false, zext: bits !== undefined, bits };
    if (sym.type.k === 'struct' || sym.type.k === 'array') return { k: 'fp', off: h.off };
    const v = this.load({ base: 'fp', off: h.off }, sym.type, sym.addressTaken ? undefined : 8);
    return v.k === 'reg' && bits !== undefined ? { ...v, bits, zext: true } : v;
  }

  private addrToVal(a: Addr): Val {
    if (a.base === 'fp') return { k: 'fp', off: a.off };
    if (a.base === 'map') {
      if (a.off !== 0) this.fail('pointer arithmetic on a map is not allowed');
      return { k: 'map', idx: a.map! };
    }
    if (a.off === 0) return { k: 'reg', r: a.reg!, temp: !!a.temp };
    if (!a.temp) return { k: 'regoff', r: a.reg!, off: a.off };
    const r = this.owned({ k: 'reg', r: a.reg!, temp: !!a.temp }, T.ulong);
    this.emit(O.BPF_ALU64 | O.BPF_ADD | O.BPF_K, r.r, 0, 0, a.off);
    return r;
  }

  private freeAddr(a: Addr): void {
    if (a.base === 'reg' && a.temp) this.release({ k: 'reg', r: a.reg!, temp: true });
  }

  /** The address of an lvalue, folding constant offsets into the access. */
  addrOf(e: Expr): Addr {
    switch (e.k) {
      case 'var': {
        const s = e.sym;
        if (s.global) {
          const m = this.ctx.maps.get(s);
          if (m !== undefined) return { base: 'map', off: 0, map: m };
          this.fail(`global variable '${s.name}' is not supported (it would need a .data/.bss map); use a map`, e.span, 'cc-global-var');
        }
        const h = this.homes.get(s);
        if (!h) this.fail(`internal: '${s.name}' has no location here`, e.span, 'cc-internal');
        if (h.k !== 'stack') this.fail(`internal: '${s.name}' is in a register but its address is needed`, e.span, 'cc-internal');
        return { base: 'fp', off: h.off };
      }
      case 'member': {
        const a = this.addrOf(e.e);
        return { ...a, off: a.off + e.offset };
      }
      case 'deref': return this.pointerAddr(e.e);
      case 'cast': if (e.e.ty.k === e.ty.k && (e.ty.k === 'struct' || e.ty.k === 'array')) return this.addrOf(e.e); break;
      case 'stmtexpr': case 'call': case 'assign': case 'cond': case 'comma': {
        // An rvalue struct (e.g. a struct-returning expression): not addressable on BPF here.
        const v = this.expr(e);
        if (v.k === 'fp') return { base: 'fp', off: v.off };
        if (v.k === 'reg') return { base: 'reg', reg: v.r, temp: v.temp, off: 0 };
        break;
      }
      case 'str': this.fail('string literals need a .rodata map, which is not supported; use a char array on the stack', e.span);
    }
    this.fail('expression is not addressable', e.span);
  }

  /** Address of *p, with p + constant folded into the offset. */
  private pointerAddr(p: Expr): Addr {
    if (p.k === 'binary' && (p.op === '+' || p.op === '-') && isPtr(p.ty)) {
      const c = constOf(p.r);
      if (c !== undefined) {
        const scale = BigInt(sizeOf((p.ty as { to: Type }).to));
        const delta = (p.op === '+' ? c : -c) * scale;
        const inner = this.pointerAddr(p.l);
        const off = BigInt(inner.off) + BigInt.asIntN(64, delta);
        if (off >= -32768n && off <= 32767n && inner.base !== 'map') return { ...inner, off: Number(off) };
        const v = this.addrToVal(inner);
        const r = this.owned(v, T.ulong);
        this.aluImm(O.BPF_ADD, r.r, BigInt.asIntN(64, delta), true);
        return { base: 'reg', reg: r.r, temp: true, off: 0 };
      }
    }
    if (p.k === 'cast' && isPtr(p.ty) && isPtr(p.e.ty)) return this.pointerAddr(p.e);
    if (p.k === 'addr') return this.addrOf(p.e);
    const v = this.expr(p);
    switch (v.k) {
      case 'fp': return { base: 'fp', off: v.off };
      case 'map': return { base: 'map', off: 0, map: v.idx };
      case 'reg': return { base: 'reg', reg: v.r, temp: v.temp, off: 0 };
      case 'regoff': return { base: 'reg', reg: v.r, temp: false, off: v.off };
      case 'imm': {
        const r = this.owned(v, T.ulong);
        return { base: 'reg', reg: r.r, temp: true, off: 0 };
      }
    }
  }

  private baseReg(a: Addr): number {
    if (a.base === 'fp') return 10;
    if (a.base === 'map') this.fail('a map is not memory the program can read or write directly; use bpf_map_lookup_elem');
    return a.reg!;
  }

  /** Load a scalar; `width` overrides the access size (8 for register-sized stack homes). */
  private load(a: Addr, ty: Type, width?: number): Val {
    const size = width ?? sizeOf(ty);
    const base = this.baseReg(a);
    this.freeAddr(a);
    const r = this.allocTemp();
    this.emit(O.BPF_LDX | O.BPF_MEM | sizeField(size), r, base, a.off);
    let v: Val & { k: 'reg' } = { k: 'reg', r, temp: true, zext: size < 8, bits: size < 8 && !(isInt(ty) && ty.signed && size < 4) ? size * 8 : undefined };
    if (isInt(ty) && ty.signed && size < 4) {
      // Sign-extend small signed loads into the 32-bit value the promotion expects.
      const sh = 32 - size * 8;
      this.emit(O.BPF_ALU | O.BPF_LSH | O.BPF_K, r, 0, 0, sh);
      this.emit(O.BPF_ALU | O.BPF_ARSH | O.BPF_K, r, 0, 0, sh);
      v = { ...v, zext: true };
    }
    return v;
  }

  private storeVal(a: Addr, size: number, v: Val, _ty: Type): void {
    const base = this.baseReg(a);
    if (v.k === 'imm') {
      const s = BigInt.asIntN(64, v.v);
      if (size < 8 || (s >= -(1n << 31n) && s < 1n << 31n)) {
        this.emit(O.BPF_ST | O.BPF_MEM | sizeField(size), base, 0, a.off, Number(BigInt.asIntN(32, size < 8 ? BigInt.asIntN(size * 8, v.v) : s)));
        this.freeAddr(a);
        return;
      }
    }
    const r = this.toReg(v, size === 8 ? T.ulong : T.uint);
    this.emit(O.BPF_STX | O.BPF_MEM | sizeField(size), base, r.r, a.off);
    if (r !== v) this.release(r);
    this.freeAddr(a);
  }

  private store(size: number, _base: 'fp', _reg: number, off: number, v: Val): void {
    this.storeVal({ base: 'fp', off }, size, v, T.ulong);
  }

  private loadBitfield(a: Addr, m: Member): Val {
    const unit = sizeOf(m.type);
    const v = this.load(a, unitType(unit)) as Val & { k: 'reg' };
    const is64 = unit === 8;
    const cls = is64 ? O.BPF_ALU64 : O.BPF_ALU;
    const bits = unit * 8 < 32 ? 32 : unit * 8;
    const signed = (m.type as IntType).signed;
    const lsh = bits - m.bitOffset! - m.bitWidth!;
    if (signed) {
      if (lsh) this.emit(cls | O.BPF_LSH | O.BPF_K, v.r, 0, 0, lsh);
      if (bits - m.bitWidth!) this.emit(cls | O.BPF_ARSH | O.BPF_K, v.r, 0, 0, bits - m.bitWidth!);
    } else {
      if (m.bitOffset) this.emit(cls | O.BPF_RSH | O.BPF_K, v.r, 0, 0, m.bitOffset);
      if (m.bitOffset! + m.bitWidth! < unit * 8) this.aluImm(O.BPF_AND, v.r, (1n << BigInt(m.bitWidth!)) - 1n, is64);
    }
    return { ...v, zext: !is64, bits: signed ? undefined : m.bitWidth };
  }

  private storeBitfield(a: Addr, m: Member, v: Val): void {
    const unit = sizeOf(m.type);
    const is64 = unit === 8;
    const mask = ((1n << BigInt(m.bitWidth!)) - 1n) << BigInt(m.bitOffset!);
    const keep = { ...a, temp: false };
    const old = this.load(keep, unitType(unit)) as Val & { k: 'reg' };
    this.aluImm(O.BPF_AND, old.r, BigInt.asUintN(unit * 8, ~mask), is64);
    if (v.k === 'imm') {
      const bitsV = (BigInt.asUintN(64, v.v) << BigInt(m.bitOffset!)) & mask;
      if (bitsV) this.aluImm(O.BPF_OR, old.r, bitsV, is64);
    } else {
      const nv = this.owned(v, m.type, [old.r]);
      this.aluImm(O.BPF_AND, nv.r, (1n << BigInt(m.bitWidth!)) - 1n, is64);
      if (m.bitOffset) this.emit((is64 ? O.BPF_ALU64 : O.BPF_ALU) | O.BPF_LSH | O.BPF_K, nv.r, 0, 0, m.bitOffset);
      this.emit((is64 ? O.BPF_ALU64 : O.BPF_ALU) | O.BPF_OR | O.BPF_X, old.r, nv.r);
      this.release(nv);
    }
    this.storeVal(a, unit, old, m.type);
    this.release(old);
  }

  /** dst op= imm, loading the immediate into a register when it does not fit. */
  private aluImm(op: number, dst: number, imm: bigint, is64: boolean): void {
    const s = is64 ? BigInt.asIntN(64, imm) : BigInt.asIntN(32, imm);
    if (s >= -(1n << 31n) && s < 1n << 31n) {
      this.emit((is64 ? O.BPF_ALU64 : O.BPF_ALU) | op | O.BPF_K, dst, 0, 0, Number(s));
      return;
    }
    const t = this.allocTemp([dst]);
    this.loadImm(t, imm, is64);
    this.emit((is64 ? O.BPF_ALU64 : O.BPF_ALU) | op | O.BPF_X, dst, t);
    this.release({ k: 'reg', r: t, temp: true });
  }

  /** Convert a value of type `from` to type `to`, per the register conventions above. */
  private convert(v: Val, from: Type, to: Type): Val {
    if (to.k === 'void') { this.release(v); return { k: 'imm', v: 0n }; }
    if (v.k === 'imm') return { k: 'imm', v: to.k === 'int' ? wrapInt(v.v, to) : BigInt.asUintN(64, v.v) };
    if (to.k === 'int' && to.kind === 'bool') {
      if (from.k === 'int' && from.kind === 'bool') return v;
      const r = this.allocTemp();
      const l = this.newLabel();
      this.emit(O.BPF_ALU64 | O.BPF_MOV | O.BPF_K, r, 0, 0, 1);
      const src = this.toReg(v, from);
      this.emit((sizeOf(from) === 8 || from.k === 'ptr' ? O.BPF_JMP : O.BPF_JMP32) | O.BPF_JNE | O.BPF_K, src.r, 0, 0, 0, { label: l });
      this.emit(O.BPF_ALU64 | O.BPF_MOV | O.BPF_K, r, 0, 0, 0);
      this.place(l);
      this.release(src);
      return { k: 'reg', r, temp: true, zext: true };
    }
    if (v.k === 'regoff' && to.k === 'int' && to.size < 8) v = this.owned(v, T.ulong);
    if (v.k !== 'reg') return v; // addresses: pointer-sized already
    const fs = from.k === 'int' ? from.size : 8;
    const ts = to.k === 'int' ? to.size : 8;
    const fsigned = from.k === 'int' && from.signed;
    if (ts === 8) {
      if (fs === 8) return v;
      if (fsigned) {
        const r = this.owned(v, from);
        this.emit(O.BPF_ALU64 | O.BPF_LSH | O.BPF_K, r.r, 0, 0, 32);
        this.emit(O.BPF_ALU64 | O.BPF_ARSH | O.BPF_K, r.r, 0, 0, 32);
        return { ...r, zext: false };
      }
      if (v.zext) return v;
      const r = v.temp ? v.r : this.allocTemp();
      this.emit(O.BPF_ALU | O.BPF_MOV | O.BPF_X, r, v.r);
      return { k: 'reg', r, temp: true, zext: true };
    }
    if (ts === 4) return fs === 8 ? { ...v, zext: false } : v;
    // Narrowing to 8 or 16 bits: keep the 32-bit value correctly extended.
    // Wider or equal and the representation still holds: zero-extended values fit any wider
    // type; sign-extended ones only a signed one.
    const tsigned = (to as IntType).signed;
    if ((fs < ts && (!fsigned || tsigned)) || (fs === ts && fsigned === tsigned)) return v;
    if (v.bits !== undefined && v.bits < ts * 8 + ((to as IntType).signed ? 0 : 1)) return v;
    const r = this.owned(v, from);
    const bits = ts * 8;
    if ((to as IntType).signed) {
      this.emit(O.BPF_ALU | O.BPF_LSH | O.BPF_K, r.r, 0, 0, 32 - bits);
      this.emit(O.BPF_ALU | O.BPF_ARSH | O.BPF_K, r.r, 0, 0, 32 - bits);
    } else this.emit(O.BPF_ALU | O.BPF_AND | O.BPF_K, r.r, 0, 0, (1 << bits) - 1);
    return { ...r, zext: true, bits: (to as IntType).signed ? undefined : bits };
  }

  private binary(e: Expr & { k: 'binary' }): Val {
    const ty = e.ty;
    // Pointer arithmetic: scale the integer side.
    if (isPtr(ty) && isPtr(e.l.ty)) {
      const scale = sizeOf((e.l.ty as { to: Type }).to);
      const [lv, rv] = this.evalPair(e.l, e.r);
      if (rv.k === 'imm') {
        const delta = BigInt.asIntN(64, rv.v * BigInt(scale)) * (e.op === '-' ? -1n : 1n);
        if ((lv.k === 'fp' || lv.k === 'regoff' || (lv.k === 'reg' && !lv.temp)) && delta >= -32768n && delta < 32768n) return this.offsetVal(lv, Number(delta));
        if (delta === 0n) return lv;
        const r = this.owned(lv, ty);
        this.aluImm(O.BPF_ADD, r.r, delta, true);
        return r;
      }
      const l = this.owned(lv, ty, rv.k === 'reg' ? [rv.r] : []);
      const idx = scale !== 1 ? this.scale(this.owned(rv, T.long, [l.r]), scale) : this.toReg(rv, T.long);
      this.emit(O.BPF_ALU64 | (e.op === '-' ? O.BPF_SUB : O.BPF_ADD) | O.BPF_X, l.r, idx.r);
      this.release(idx);
      return l;
    }
    if (isPtr(e.l.ty) && isPtr(e.r.ty)) {
      // Pointer difference, in elements.
      const [lv, rv] = this.evalPair(e.l, e.r);
      const l = this.owned(lv, T.long);
      const r = this.toReg(rv, T.long);
      this.emit(O.BPF_ALU64 | O.BPF_SUB | O.BPF_X, l.r, r.r);
      this.release(r);
      const size = sizeOf((e.l.ty as { to: Type }).to);
      if (size > 1) {
        if ((size & (size - 1)) === 0) this.emit(O.BPF_ALU64 | O.BPF_ARSH | O.BPF_K, l.r, 0, 0, Math.log2(size));
        else this.emit(O.BPF_ALU64 | O.BPF_DIV | O.BPF_K, l.r, 0, 1, size);
      }
      return { ...l, zext: false };
    }
    const is64 = sizeOf(ty) === 8;
    const signed = (ty as IntType).signed;
    let [lv, rv] = this.evalPair(e.l, e.r);
    const commutative = e.op === '+' || e.op === '*' || e.op === '&' || e.op === '|' || e.op === '^';
    if (commutative && lv.k === 'imm' && rv.k !== 'imm') [lv, rv] = [rv, lv];
    if (lv.k === 'imm' && rv.k === 'imm') {
      const v = evalBinary(e.op, lv.v, rv.v, e.l.ty, ty);
      if (v !== undefined) return { k: 'imm', v };
    }
    // Identities that cost nothing to recognise.
    if (rv.k === 'imm') {
      const c = wrapInt(rv.v, ty);
      if ((c === 0n && (e.op === '+' || e.op === '-' || e.op === '|' || e.op === '^' || e.op === '<<' || e.op === '>>')) || (c === 1n && (e.op === '*' || e.op === '/'))) return lv;
    }
    const op = ({ '+': O.BPF_ADD, '-': O.BPF_SUB, '*': O.BPF_MUL, '/': O.BPF_DIV, '%': O.BPF_MOD, '<<': O.BPF_LSH, '>>': signed ? O.BPF_ARSH : O.BPF_RSH, '&': O.BPF_AND, '|': O.BPF_OR, '^': O.BPF_XOR } as Record<string, number>)[e.op]!;
    const sdiv = signed && (e.op === '/' || e.op === '%') ? 1 : 0;
    const bitsOf = (v: Val): number | undefined => (v.k === 'imm' ? (BigInt.asUintN(64, v.v) === 0n ? 0 : BigInt.asUintN(64, v.v).toString(2).length) : v.k === 'reg' ? v.bits : undefined);
    const lb = bitsOf(lv), rb = bitsOf(rv);
    let resultBits: number | undefined;
    if (e.op === '&') resultBits = lb !== undefined && rb !== undefined ? Math.min(lb, rb) : lb ?? rb;
    else if ((e.op === '|' || e.op === '^') && lb !== undefined && rb !== undefined) resultBits = Math.max(lb, rb);
    else if (e.op === '>>' && !signed && lb !== undefined) resultBits = rv.k === 'imm' ? Math.max(0, lb - Number(BigInt.asUintN(8, rv.v))) : lb;
    if (resultBits !== undefined && resultBits >= (is64 ? 64 : 32)) resultBits = undefined;
    const l = this.owned(lv, ty, rv.k === 'reg' ? [rv.r] : []);
    const cls = is64 ? O.BPF_ALU64 : O.BPF_ALU;
    if (rv.k === 'imm') {
      const c = is64 ? BigInt.asIntN(64, rv.v) : BigInt.asIntN(32, rv.v);
      if (!sdiv && (e.op === '*' || e.op === '/') && c > 0n && (c & (c - 1n)) === 0n && !(e.op === '/' && signed)) {
        this.emit(cls | (e.op === '*' ? O.BPF_LSH : O.BPF_RSH) | O.BPF_K, l.r, 0, 0, c.toString(2).length - 1);
      } else if (c >= -(1n << 31n) && c < 1n << 31n) this.emit(cls | op | O.BPF_K, l.r, 0, sdiv, Number(c));
      else {
        const t = this.owned(rv, ty, [l.r]);
        this.emit(cls | op | O.BPF_X, l.r, t.r, sdiv);
        this.release(t);
      }
    } else {
      const r = this.toReg(rv, ty);
      this.emit(cls | op | O.BPF_X, l.r, r.r, sdiv);
      this.release(r);
    }
    return { ...l, zext: !is64, bits: resultBits };
  }

  private scale(idx: Val & { k: 'reg' }, scale: number): Val & { k: 'reg' } {
    if ((scale & (scale - 1)) === 0) this.emit(O.BPF_ALU64 | O.BPF_LSH | O.BPF_K, idx.r, 0, 0, Math.log2(scale));
    else this.emit(O.BPF_ALU64 | O.BPF_MUL | O.BPF_K, idx.r, 0, 0, scale);
    return idx;
  }

  /** Evaluate two operands; the one that calls goes first so no temporary lives across a call. */
  private evalPair(l: Expr, r: Expr): [Val, Val] {
    if (this.containsCall(r) && !this.containsCall(l)) {
      const rv = this.pinIfR0(this.expr(r), r.ty);
      const lv = this.expr(l);
      return [lv, rv];
    }
    const lv = this.expr(l);
    if (this.containsCall(r)) {
      // Both sides call: park the left value on the stack across the right side's call.
      const slot = this.allocStack(8, 8);
      this.storeVal({ base: 'fp', off: slot }, 8, lv, l.ty);
      this.release(lv);
      const rv = this.pinIfR0(this.expr(r), r.ty);
      return [this.load({ base: 'fp', off: slot }, T.ulong, 8), rv];
    }
    return [lv, this.expr(r)];
  }

  /** Move a call's result out of r0 when more code will run before it is used. */
  private pinIfR0(v: Val, ty: Type): Val {
    if (v.k === 'reg' && v.r === 0 && v.temp) {
      const r = this.allocTemp([0]);
      this.moveTo(v, r, ty.k === 'int' ? ty : T.ulong);
      this.release(v);
      return { k: 'reg', r, temp: true, zext: v.zext };
    }
    return v;
  }

  // ---- conditions ----------------------------------------------------------------
  /**
   * c ? t : f into one register. The register is chosen after the condition
   * (which may call) and is free again on the other arm, which is a
   * different path: no value is live across a call in either.
   */
  private select(c: Expr, t: Expr, f: Expr, ty: Type): Val {
    const elseL = this.newLabel(), end = this.newLabel();
    this.branch(c, elseL, false);
    const tv = this.expr(t);
    const r = tv.k === 'reg' && tv.temp ? tv.r : this.allocTemp();
    const small = sizeOf(ty) < 8 && ty.k === 'int';
    // Zero upper half on both arms? A 32-bit move or immediate gives it; a reused register only if it had it.
    let zext = small && (tv.k === 'imm' || (tv.k === 'reg' && (tv.r !== r || !!tv.zext)));
    this.moveTo(tv, r, ty);
    if (tv.k === 'reg' && tv.r !== r) this.release(tv);
    this.jmp(end);
    this.place(elseL);
    this.regOwner[r] = 'free';
    const fv = this.expr(f);
    if (this.regOwner[r] !== 'free' && !(fv.k === 'reg' && fv.r === r)) this.fail('expression too complex: out of registers (split it into several statements)', this.span, 'cc-out-of-registers');
    zext &&= fv.k === 'imm' || (fv.k === 'reg' && (fv.r !== r || !!fv.zext));
    this.moveTo(fv, r, ty);
    if (!(fv.k === 'reg' && fv.r === r)) this.release(fv);
    this.regOwner[r] = 'temp';
    this.place(end);
    return { k: 'reg', r, temp: true, zext };
  }

  private condValue(e: Expr): Val {
    const c = this.evalStatic(e);
    if (c !== undefined) return { k: 'imm', v: c };
    // The short form holds its register across the condition: only when registers are plentiful.
    if (this.containsCall(e) || this.freeRegCount() < 4) return this.select(e, { k: 'num', value: 1n, ty: T.int, span: e.span }, { k: 'num', value: 0n, ty: T.int, span: e.span }, T.int);
    const r = this.allocTemp();
    const l = this.newLabel();
    this.emit(O.BPF_ALU | O.BPF_MOV | O.BPF_K, r, 0, 0, 1);
    this.regOwner[r] = 'reserved';
    this.branch(e, l, true);
    this.emit(O.BPF_ALU | O.BPF_MOV | O.BPF_K, r, 0, 0, 0);
    this.place(l);
    this.regOwner[r] = 'temp';
    return { k: 'reg', r, temp: true, zext: true, bits: 1 };
  }

  /** Jump to `target` when e's truth equals `when`; fall through otherwise. */
  branch(e: Expr, target: number, when: boolean): void {
    const c = this.evalStatic(e);
    if (c !== undefined) {
      if ((c !== 0n) === when) this.jmp(target);
      return;
    }
    switch (e.k) {
      case 'unary':
        if (e.op === '!') return this.branch(e.e, target, !when);
        break;
      case 'logical': {
        if ((e.op === '&&') === when) {
          const skip = this.newLabel();
          this.branch(e.l, skip, !when);
          this.branch(e.r, target, when);
          this.place(skip);
        } else {
          this.branch(e.l, target, when);
          this.branch(e.r, target, when);
        }
        return;
      }
      case 'binary': {
        if (['==', '!=', '<', '>', '<=', '>='].includes(e.op)) {
          const oty = e.l.ty;
          const is64 = sizeOf(oty) === 8 || oty.k !== 'int';
          const signed = oty.k === 'int' && oty.signed;
          const [lv, rv] = this.evalPair(e.l, e.r);
          let op = e.op;
          let a = lv, b = rv;
          if (a.k !== 'reg' && b.k === 'reg') { [a, b] = [b, a]; op = swapCmp(op); }
          if (!when) op = negateCmp(op);
          const ar = this.toReg(a, oty);
          this.cmpJump(op, ar, b, is64, signed, target);
          this.release(ar);
          this.release(b);
          return;
        }
        if (e.op === '&' && when) {
          const [lv, rv] = this.evalPair(e.l, e.r);
          let a = lv, b = rv;
          if (a.k !== 'reg' && b.k === 'reg') [a, b] = [b, a];
          const is64 = sizeOf(e.ty) === 8;
          const ar = this.toReg(a, e.ty);
          this.jumpOp(O.BPF_JSET, ar, b, is64, target);
          this.release(ar);
          this.release(b);
          return;
        }
        break;
      }
      case 'cast':
        if (e.ty.k === 'int' && e.ty.kind === 'bool') return this.branch(e.e, target, when);
        break;
    }
    const v = this.expr(e);
    const is64 = sizeOf(e.ty) === 8 || e.ty.k !== 'int';
    const r = this.toReg(v, e.ty);
    this.cmpJump(when ? '!=' : '==', r, { k: 'imm', v: 0n }, is64, false, target);
    this.release(r);
  }

  private cmpJump(op: string, a: Val & { k: 'reg' }, b: Val, is64: boolean, signed: boolean, target: number): void {
    const code = ({ '==': O.BPF_JEQ, '!=': O.BPF_JNE, '<': signed ? O.BPF_JSLT : O.BPF_JLT, '<=': signed ? O.BPF_JSLE : O.BPF_JLE, '>': signed ? O.BPF_JSGT : O.BPF_JGT, '>=': signed ? O.BPF_JSGE : O.BPF_JGE } as Record<string, number>)[op]!;
    this.jumpOp(code, a, b, is64, target);
  }

  private jumpOp(code: number, a: Val & { k: 'reg' }, b: Val, is64: boolean, target: number): void {
    const cls = is64 ? O.BPF_JMP : O.BPF_JMP32;
    if (b.k === 'imm') {
      const s = is64 ? BigInt.asIntN(64, b.v) : BigInt.asIntN(32, b.v);
      if (s >= -(1n << 31n) && s < 1n << 31n) {
        this.emit(cls | code | O.BPF_K, a.r, 0, 0, Number(s), { label: target });
        return;
      }
    }
    const br = this.toReg(b, is64 ? T.ulong : T.uint);
    this.emit(cls | code | O.BPF_X, a.r, br.r, 0, 0, { label: target });
    if (br !== b) this.release(br);
  }

  // ---- assignment ------------------------------------------------------------------
  private assign(e: Expr & { k: 'assign' }, discard: boolean): Val {
    const lt = e.l.ty;
    if (lt.k === 'struct' || lt.k === 'array') {
      const src = this.addrOf(e.r);
      const dst = this.addrOf(e.l);
      this.copyMem(dst, src, sizeOf(lt), Math.min(8, alignOf(lt)));
      this.freeAddr(src);
      return this.addrToVal(dst);
    }
    const target = e.l;
    // A local kept in a register.
    if (target.k === 'var' && !target.sym.global && this.homes.get(target.sym)?.k === 'reg') {
      const h = this.homes.get(target.sym) as { r: number };
      let v: Val;
      if (e.op === '=') v = this.expr(e.r);
      else v = this.compound(e, this.readVar(target.sym, target.span));
      v = this.narrowForStore(v, e.op === '=' ? e.r.ty : opType(e), lt);
      this.moveTo(v, h.r, lt);
      this.release(v);
      return discard ? { k: 'imm', v: 0n } : { k: 'reg', r: h.r, temp: false };
    }
    // Memory: evaluate a calling right side first, then the address.
    let rv: Val | undefined;
    if (e.op === '=' && this.containsCall(e.r)) rv = this.pinIfR0(this.expr(e.r), e.r.ty);
    const stackHome = target.k === 'var' && !target.sym.global ? this.homes.get(target.sym) : undefined;
    const width = stackHome?.k === 'stack' && target.k === 'var' && !target.sym.addressTaken ? 8 : sizeOf(lt);
    const a = this.addrOf(target);
    const keep: Addr = { ...a, temp: false };
    let v: Val;
    if (e.op === '=') v = rv ?? this.expr(e.r);
    else {
      const cur = target.k === 'member' && target.m.bitWidth !== undefined ? this.loadBitfield(keep, target.m) : this.load(keep, lt, width);
      v = this.compound(e, cur);
    }
    if (target.k === 'member' && target.m.bitWidth !== undefined) {
      this.storeBitfield(a, target.m, v);
      return discard ? { k: 'imm', v: 0n } : v;
    }
    // A whole-register stack home keeps the value as a register would: narrowed to its type.
    if (width === 8 && sizeOf(lt) < 8) v = this.convert(v, e.op === '=' ? e.r.ty : opType(e), lt);
    this.storeVal(a, width, v, lt);
    if (discard) { this.release(v); return { k: 'imm', v: 0n }; }
    return v;
  }

  private narrowForStore(v: Val, from: Type, to: Type): Val {
    return this.convert(v, from, to);
  }

  /** The value of `l op= r` given l's current value. */
  private compound(e: Expr & { k: 'assign' }, cur: Val): Val {
    const bop = e.op.slice(0, -1) as '+';
    const ot = opType(e);
    const lhsConv = this.convert(cur, e.l.ty, isPtr(e.l.ty) ? e.l.ty : ot);
    const fake: Expr = { k: 'binary', op: bop, l: { k: 'num', value: 0n, ty: isPtr(e.l.ty) ? e.l.ty : ot, span: e.span }, r: e.r, ty: isPtr(e.l.ty) ? e.l.ty : ot, span: e.span };
    return this.binaryWith(fake as Expr & { k: 'binary' }, lhsConv);
  }

  /** binary() with the left operand already evaluated. */
  private binaryWith(e: Expr & { k: 'binary' }, lv: Val): Val {
    const saved = this.expr.bind(this);
    let first = true;
    this.expr = (x: Expr, d?: boolean): Val => {
      if (first && x === e.l) { first = false; return lv; }
      return saved(x, d);
    };
    try {
      return this.binary(e);
    } finally {
      this.expr = saved;
    }
  }

  private incdec(e: Expr & { k: 'incdec' }, discard: boolean): Val {
    const ty = e.e.ty;
    const delta = isPtr(ty) ? BigInt(sizeOf(ty.to)) : 1n;
    const d = e.op === '++' ? delta : -delta;
    const is64 = sizeOf(ty) === 8;
    const target = e.e;
    if (target.k === 'var' && !target.sym.global && this.homes.get(target.sym)?.k === 'reg') {
      const h = this.homes.get(target.sym) as { r: number };
      let old: Val | undefined;
      if (!discard && !e.prefix) old = this.owned({ k: 'reg', r: h.r, temp: false }, ty);
      this.aluImm(O.BPF_ADD, h.r, d, is64 || isPtr(ty));
      if (isInt(ty) && ty.size < 4) this.narrowInPlace(h.r, ty);
      if (discard) return { k: 'imm', v: 0n };
      return old ?? { k: 'reg', r: h.r, temp: false };
    }
    const stackHome = target.k === 'var' && !target.sym.global ? this.homes.get(target.sym) : undefined;
    const width = stackHome?.k === 'stack' && target.k === 'var' && !target.sym.addressTaken ? 8 : sizeOf(ty);
    const a = this.addrOf(target);
    const keep = { ...a, temp: false };
    if (target.k === 'member' && target.m.bitWidth !== undefined) {
      const cur = { ...(this.loadBitfield(keep, target.m) as Val & { k: 'reg' }), bits: undefined };
      const old = discard || e.prefix ? undefined : this.owned({ ...cur, temp: false }, ty);
      this.aluImm(O.BPF_ADD, cur.r, d, false);
      this.storeBitfield(a, target.m, { ...cur, temp: false });
      if (discard) { this.release(cur); return { k: 'imm', v: 0n }; }
      if (old) { this.release(cur); return old; }
      return cur;
    }
    const cur = { ...(this.load(keep, ty, width) as Val & { k: 'reg' }), bits: undefined };
    const old = discard || e.prefix ? undefined : this.owned({ ...cur, temp: false }, ty, [cur.r]);
    this.aluImm(O.BPF_ADD, cur.r, d, width === 8);
    this.storeVal(a, width, { ...cur, temp: false }, ty);
    if (discard) { this.release(cur); return { k: 'imm', v: 0n }; }
    if (old) { this.release(cur); return old; }
    if (isInt(ty) && ty.size < 4) this.narrowInPlace(cur.r, ty);
    return cur;
  }

  private narrowInPlace(r: number, ty: IntType): void {
    const bits = ty.size * 8;
    if (ty.signed) {
      this.emit(O.BPF_ALU | O.BPF_LSH | O.BPF_K, r, 0, 0, 32 - bits);
      this.emit(O.BPF_ALU | O.BPF_ARSH | O.BPF_K, r, 0, 0, 32 - bits);
    } else this.emit(O.BPF_ALU | O.BPF_AND | O.BPF_K, r, 0, 0, (1 << bits) - 1);
  }

  // ---- memory blocks -----------------------------------------------------------------
  copyMem(dst: Addr, src: Addr, size: number, align: number): void {
    const sb = this.baseReg(src);
    const db = this.baseReg(dst);
    const t = this.allocTemp([sb, db]);
    let o = 0;
    while (o < size) {
      let w = Math.min(8, align);
      while (w > 1 && o + w > size) w >>= 1;
      this.emit(O.BPF_LDX | O.BPF_MEM | sizeField(w), t, sb, src.off + o);
      this.emit(O.BPF_STX | O.BPF_MEM | sizeField(w), db, t, dst.off + o);
      o += w;
    }
    this.release({ k: 'reg', r: t, temp: true });
    this.freeAddr(dst);
  }

  // ---- calls -------------------------------------------------------------------------
  private call(e: Expr & { k: 'call' }, discard: boolean): Val {
    const callee = this.calleeSym(e);
    let helperId: number | undefined;
    if (!callee) {
      // Through a function pointer: only helper pointers (`static … (*bpf_x)(…) = (void *) ID`).
      let f = e.fn;
      while (f.k === 'cast') f = f.e;
      if (f.k === 'var' && f.sym.helperId !== undefined) helperId = f.sym.helperId;
      else if (f.k === 'num') helperId = Number(f.value);
      else this.fail('calls through function pointers are not supported on BPF (only helper declarations)', e.span);
    } else if (!callee.body) {
      this.fail(`function '${callee.name}' is declared but not defined (BPF programs are linked from one file here)`, e.span, 'cc-undefined-function');
    }
    if (e.args.length > 5) this.fail(`too many arguments: BPF calls take at most 5 (got ${e.args.length})`, e.span, 'cc-too-many-args');
    if (callee && this.ctx.inlineable(callee)) return this.inlineCall(callee, e, discard);
    const saved = this.span;
    this.span = e.span;
    // Arguments that themselves call go first, parked on the stack.
    const parked = new Map<number, number>();
    e.args.forEach((a, i) => {
      if (this.containsCall(a)) {
        const v = this.expr(a);
        const slot = this.allocStack(8, 8);
        this.storeVal({ base: 'fp', off: slot }, 8, this.convert(v, a.ty, a.ty.k === 'int' && a.ty.signed ? T.long : T.ulong), a.ty);
        this.release(v);
        parked.set(i, slot);
      }
    });
    // Any temporary still live would be clobbered by the call: spill it.
    const vals: Val[] = e.args.map((a, i) => {
      if (parked.has(i)) return { k: 'fp', off: 0 } as Val; // placeholder, loaded below
      let v = this.expr(a);
      // Helpers take 64-bit arguments: widen 32-bit values as C's conversion to the parameter type did.
      if (a.ty.k === 'int' && a.ty.size < 8 && v.k === 'reg') v = this.convert(v, a.ty, a.ty.signed ? T.long : T.ulong);
      return v;
    });
    const targets = e.args.map((_, i) => i + 1);
    this.parallelMove(vals, targets, e.args.map((a) => a.ty), parked);
    for (let r = 0; r <= 5; r++) if (this.regOwner[r] === 'temp' && !targets.includes(r)) this.fail('internal: value live across a call', e.span, 'cc-internal');
    for (const t of targets) if (this.regOwner[t] === 'temp') this.regOwner[t] = 'free';
    if (helperId !== undefined) this.emit(O.BPF_JMP | O.BPF_CALL, 0, 0, 0, helperId);
    else {
      if (!this.ctx.subprogs.includes(callee!)) this.ctx.subprogs.push(callee!);
      this.emit(O.BPF_JMP | O.BPF_CALL, 0, O.BPF_PSEUDO_CALL, 0, -1, { callee: callee! });
    }
    this.span = saved;
    if (discard || e.ty.k === 'void') return { k: 'imm', v: 0n };
    if (this.regOwner[0] !== 'free') this.fail('internal: r0 busy at a call', e.span, 'cc-internal');
    this.regOwner[0] = 'temp';
    // A helper returning a 32-bit type leaves its upper bits to the helper; treat them as unknown.
    return { k: 'reg', r: 0, temp: true, zext: false };
  }

  /** Move argument values into r1..rN without clobbering one another. */
  private parallelMove(vals: Val[], targets: number[], types: Type[], parked: Map<number, number>): void {
    const pending = vals.map((v, i) => ({ v, t: targets[i]!, ty: types[i]!, i }));
    // Register-to-register moves first, in an order that reads each source before overwriting it.
    let guard = 0;
    for (;;) {
      const regMoves = pending.filter((p) => p.v.k === 'reg' && !parked.has(p.i) && (p.v as { r: number }).r !== p.t);
      if (regMoves.length === 0 || guard++ > 20) break;
      const sources = new Set(pending.filter((p) => p.v.k === 'reg' && !parked.has(p.i)).map((p) => (p.v as { r: number }).r));
      const ready = regMoves.find((p) => !sources.has(p.t) || pending.every((q) => q === p || q.v.k !== 'reg' || (q.v as { r: number }).r !== p.t || q.t === p.t));
      if (ready) {
        // Before writing the target, move away any *other* live temp sitting there.
        this.claim(ready.t, pending);
        const src = (ready.v as { r: number }).r;
        this.emit(O.BPF_ALU64 | O.BPF_MOV | O.BPF_X, ready.t, src);
        this.release(ready.v);
        ready.v = { k: 'reg', r: ready.t, temp: true };
        this.regOwner[ready.t] = 'temp';
        continue;
      }
      // A cycle: break it through r0.
      const p = regMoves[0]!;
      const src = (p.v as { r: number }).r;
      this.emit(O.BPF_ALU64 | O.BPF_MOV | O.BPF_X, 0, src);
      this.release(p.v);
      p.v = { k: 'reg', r: 0, temp: true };
      this.regOwner[0] = 'temp';
    }
    for (const p of pending) {
      if (parked.has(p.i)) {
        this.claim(p.t, pending);
        this.emit(O.BPF_LDX | O.BPF_MEM | O.BPF_DW, p.t, 10, parked.get(p.i)!);
        this.regOwner[p.t] = 'temp';
        continue;
      }
      if (p.v.k === 'reg') continue;
      this.claim(p.t, pending);
      this.moveTo(p.v, p.t, p.ty.k === 'int' ? (p.ty.size === 8 ? p.ty : T.ulong) : p.ty);
      this.regOwner[p.t] = 'temp';
    }
  }

  /** Make register t writable for an argument, moving a local's value or a stray temp out of the way. */
  private claim(t: number, pending: { v: Val; t: number }[]): void {
    if (this.regOwner[t] === 'free') return;
    const user = pending.find((p) => p.v.k === 'reg' && (p.v as { r: number }).r === t && p.t !== t);
    if (user && this.regOwner[t] === 'temp') {
      const n = this.allocTemp([...pending.map((p) => p.t), t]);
      this.emit(O.BPF_ALU64 | O.BPF_MOV | O.BPF_X, n, t);
      this.regOwner[t] = 'free';
      user.v = { k: 'reg', r: n, temp: true };
    }
  }

  private inlineCall(f: Sym, e: Expr & { k: 'call' }, discard: boolean): Val {
    if (this.inlineStack.some((c) => c.fn === f) || f === this.fn) this.fail(`recursive call to '${f.name}': BPF does not allow recursion`, e.span, 'cc-recursion');
    if (this.inlineStack.length >= MAX_INLINE_DEPTH) this.fail('inlining too deep', e.span);
    if (this.regOwner[0] !== 'free') this.fail('expression too complex around an inlined call (split it into several statements)', e.span, 'cc-out-of-registers');
    if (!this.stmtPosByFn.has(f)) this.prepare(f);
    const params = f.params ?? [];
    // Bind arguments to the parameters (fresh homes per inlined instance).
    const savedHomes = new Map<Sym, Home | undefined>(params.map((p) => [p, this.homes.get(p)]));
    const vals = e.args.map((a) => this.pinIfR0(this.expr(a), a.ty));
    params.forEach((p, i) => {
      const v = vals[i] ?? { k: 'imm', v: 0n };
      // A read-only argument that is already in a register needs no copy when the body never writes it.
      if (v.k === 'reg' && !v.temp && !p.addressTaken && !writes(f.body!, p) && !(this.ranges.get(p)?.crossesCall && v.r < 6)) {
        this.homes.set(p, { k: 'reg', r: v.r });
        this.borrowed.add(p);
        return;
      }
      if (v.k === 'reg' && v.temp && !p.addressTaken && (!(this.ranges.get(p)?.crossesCall) || v.r >= 6) && (isInt(p.type) || isPtr(p.type))) {
        this.regOwner[v.r] = 'local';
        this.homes.set(p, { k: 'reg', r: v.r });
        return;
      }
      this.assignHome(p);
      this.storeLocal(p, v);
      this.release(v);
    });
    const ctx: InlineCtx = { fn: f, end: this.newLabel(), labels: new Map(), retReg: 0, returned: false };
    this.inlineStack.push(ctx);
    const savedFn = this.curFn;
    const savedTop = this.stackTop;
    this.curFn = f;
    const savedBreak = this.breakTargets, savedCont = this.continueTargets;
    this.breakTargets = [];
    this.continueTargets = [];
    this.stmt(f.body!);
    this.breakTargets = savedBreak;
    this.continueTargets = savedCont;
    this.curFn = savedFn;
    this.inlineStack.pop();
    this.place(ctx.end);
    // The callee's locals are dead now.
    for (const s of this.localsByFn.get(f) ?? []) {
      const h = this.homes.get(s);
      if (this.borrowed.delete(s)) { this.homes.delete(s); continue; }
      if (h?.k === 'reg' && this.regOwner[h.r] === 'local' && !savedHomesUsesReg(savedHomes, h.r) && !this.homeInUse(h.r, f)) this.regOwner[h.r] = 'free';
      this.homes.delete(s);
    }
    for (const [p, h] of savedHomes) if (h) this.homes.set(p, h);
    this.stackTop = savedTop;
    if (discard || e.ty.k === 'void') return { k: 'imm', v: 0n };
    this.regOwner[0] = 'temp';
    return { k: 'reg', r: 0, temp: true, zext: sizeOf(e.ty) < 8 };
  }

  /** Is register r the home of a live local of a function other than f? */
  private homeInUse(r: number, f: Sym): boolean {
    for (const [s, h] of this.homes) if (h.k === 'reg' && h.r === r && !(this.localsByFn.get(f) ?? []).includes(s)) return true;
    return false;
  }

  private stmtExpr(e: Expr & { k: 'stmtexpr' }, discard: boolean): Val {
    const body = e.body;
    const savedTop = this.stackTop;
    for (let i = 0; i < body.length - 1; i++) this.stmt(body[i]!);
    const last = body[body.length - 1];
    let v: Val = { k: 'imm', v: 0n };
    if (last) {
      if (last.k === 'expr') v = this.expr(last.e, discard);
      else this.stmt(last);
    }
    this.stackTop = savedTop;
    return v;
  }

  // ---- builtins --------------------------------------------------------------------
  private builtin(e: Expr & { k: 'builtin' }, discard: boolean): Val {
    const n = e.name;
    if (n === '__builtin_unreachable') return { k: 'imm', v: 0n };
    if (n === '__builtin_trap') this.fail('__builtin_trap is not supported on BPF', e.span);
    if (n.startsWith('__builtin_bswap')) {
      const bits = n.endsWith('16') ? 16 : n.endsWith('32') ? 32 : 64;
      const r = this.owned(this.expr(e.args[0]!), e.ty);
      this.emit(O.BPF_ALU | O.BPF_END | O.BPF_TO_BE, r.r, 0, 0, bits);
      return { ...r, zext: bits < 64, bits: bits < 64 ? bits : undefined };
    }
    if (n === '__builtin_memcpy') {
      const size = Number(constOf(e.args[2]!) ?? 0n);
      const align = Math.min(ptrAlign(e.args[0]!), ptrAlign(e.args[1]!), 8);
      const src = this.pointerAddr(e.args[1]!);
      const dst = this.pointerAddr(e.args[0]!);
      this.copyMem({ ...dst, temp: false }, src, size, align);
      this.freeAddr(src);
      if (discard) { this.freeAddr(dst); return { k: 'imm', v: 0n }; }
      return this.addrToVal(dst);
    }
    if (n === '__builtin_memset') {
      const size = Number(constOf(e.args[2]!) ?? 0n);
      const align = Math.min(ptrAlign(e.args[0]!), 8);
      const cv = constOf(e.args[1]!);
      const dst = this.pointerAddr(e.args[0]!);
      const base = this.baseReg(dst);
      let valReg: Val | undefined;
      if (cv === undefined || (cv & 0xffn) !== 0n) {
        const byte = cv !== undefined ? cv & 0xffn : undefined;
        if (byte !== undefined) valReg = this.owned({ k: 'imm', v: byte * 0x0101010101010101n }, T.ulong);
        else {
          const r = this.owned(this.expr(e.args[1]!), T.ulong, [base]);
          this.emit(O.BPF_ALU64 | O.BPF_AND | O.BPF_K, r.r, 0, 0, 0xff);
          this.emit(O.BPF_ALU64 | O.BPF_MUL | O.BPF_K, r.r, 0, 0, 0x01010101);
          const t = this.allocTemp([r.r, base]);
          this.emit(O.BPF_ALU64 | O.BPF_MOV | O.BPF_X, t, r.r);
          this.emit(O.BPF_ALU64 | O.BPF_LSH | O.BPF_K, t, 0, 0, 32);
          this.emit(O.BPF_ALU64 | O.BPF_OR | O.BPF_X, r.r, t);
          this.release({ k: 'reg', r: t, temp: true });
          valReg = r;
        }
      }
      let o = 0;
      while (o < size) {
        let w = Math.min(8, align);
        while (w > 1 && o + w > size) w >>= 1;
        if (valReg) this.emit(O.BPF_STX | O.BPF_MEM | sizeField(w), base, (valReg as { r: number }).r, dst.off + o);
        else this.emit(O.BPF_ST | O.BPF_MEM | sizeField(w), base, 0, dst.off + o, 0);
        o += w;
      }
      if (valReg) this.release(valReg);
      if (discard) { this.freeAddr(dst); return { k: 'imm', v: 0n }; }
      return this.addrToVal(dst);
    }
    if (n.startsWith('__sync_')) return this.atomic(e, discard);
    this.fail(`builtin '${n}' is not supported`, e.span);
  }

  private atomic(e: Expr & { k: 'builtin' }, discard: boolean): Val {
    const n = e.name;
    const vt = e.args[1]!.ty;
    const size = sizeOf((e.args[0]!.ty as { to: Type }).to);
    const is64 = size === 8;
    const code = O.BPF_STX | O.BPF_ATOMIC | sizeField(size);
    if (n === '__sync_val_compare_and_swap' || n === '__sync_bool_compare_and_swap') {
      if (this.regOwner[0] !== 'free') this.fail('expression too complex around a compare-and-swap', e.span, 'cc-out-of-registers');
      this.regOwner[0] = 'reserved';
      const a = this.pointerAddr(e.args[0]!);
      const exp = this.expr(e.args[1]!);
      this.regOwner[0] = 'free';
      this.moveTo(exp, 0, vt);
      this.regOwner[0] = 'reserved';
      this.release(exp);
      const nv = this.toReg(this.expr(e.args[2]!), vt);
      const expKeep = n === '__sync_bool_compare_and_swap' ? this.owned(this.expr(e.args[1]!), vt, [0]) : undefined;
      this.emit(code, this.baseReg(a), nv.r, a.off, O.BPF_CMPXCHG);
      this.release(nv);
      this.freeAddr(a);
      this.regOwner[0] = 'temp';
      if (expKeep) {
        const r = this.allocTemp([0]);
        const l = this.newLabel();
        this.emit(O.BPF_ALU | O.BPF_MOV | O.BPF_K, r, 0, 0, 1);
        this.emit((is64 ? O.BPF_JMP : O.BPF_JMP32) | O.BPF_JEQ | O.BPF_X, 0, expKeep.r, 0, 0, { label: l });
        this.emit(O.BPF_ALU | O.BPF_MOV | O.BPF_K, r, 0, 0, 0);
        this.place(l);
        this.release(expKeep);
        this.release({ k: 'reg', r: 0, temp: true });
        return { k: 'reg', r, temp: true, zext: true };
      }
      return { k: 'reg', r: 0, temp: true, zext: !is64 };
    }
    const kind = n.replace('__sync_', '').replace('fetch_and_', '').replace('_and_fetch', '');
    const fetchFirst = n.includes('fetch_and_') || n === '__sync_lock_test_and_set';
    const opOf: Record<string, number> = { add: O.BPF_ADD, sub: O.BPF_ADD, or: O.BPF_OR, and: O.BPF_AND, xor: O.BPF_XOR, lock_test: O.BPF_XCHG };
    const aop = n === '__sync_lock_test_and_set' ? O.BPF_XCHG : opOf[kind];
    if (aop === undefined) this.fail(`builtin '${n}' is not supported`, e.span);
    const a = this.pointerAddr(e.args[0]!);
    let v = this.expr(e.args[1]!);
    const r = this.owned(v, vt, a.base === 'reg' ? [a.reg!] : []);
    v = r;
    if (kind === 'sub') this.emit((is64 ? O.BPF_ALU64 : O.BPF_ALU) | O.BPF_NEG, r.r);
    const needValue = !discard;
    let keep: (Val & { k: 'reg' }) | undefined;
    if (needValue && !fetchFirst) keep = this.owned({ ...r, temp: false }, vt, a.base === 'reg' ? [a.reg!, r.r] : [r.r]);
    const fetch = needValue || aop === O.BPF_XCHG ? O.BPF_FETCH : 0;
    this.emit(code, this.baseReg(a), r.r, a.off, aop === O.BPF_XCHG ? O.BPF_XCHG : aop | fetch);
    this.freeAddr(a);
    if (!needValue) { this.release(r); return { k: 'imm', v: 0n }; }
    if (keep) {
      // op_and_fetch: the new value is old op operand.
      const alu = ({ [O.BPF_ADD]: O.BPF_ADD, [O.BPF_OR]: O.BPF_OR, [O.BPF_AND]: O.BPF_AND, [O.BPF_XOR]: O.BPF_XOR } as Record<number, number>)[aop]!;
      this.emit((is64 ? O.BPF_ALU64 : O.BPF_ALU) | alu | O.BPF_X, r.r, keep.r);
      this.release(keep);
    }
    return { ...r, zext: !is64 };
  }
}

// ---- helpers ---------------------------------------------------------------------------
function sizeField(size: number): number {
  return size === 1 ? O.BPF_B : size === 2 ? O.BPF_H : size === 4 ? O.BPF_W : O.BPF_DW;
}
function unitType(size: number): Type {
  return size === 1 ? T.uchar : size === 2 ? T.ushort : size === 4 ? T.uint : T.ulong;
}
function wrapInt(v: bigint, t: Type): bigint {
  if (t.k !== 'int') return BigInt.asUintN(64, v);
  if (t.kind === 'bool') return v !== 0n ? 1n : 0n;
  return t.signed ? BigInt.asIntN(t.size * 8, v) : BigInt.asUintN(t.size * 8, v);
}
function swapCmp(op: string): '==' {
  return ({ '==': '==', '!=': '!=', '<': '>', '>': '<', '<=': '>=', '>=': '<=' } as unknown as Record<string, '=='>)[op]!;
}
function negateCmp(op: string): '==' {
  return ({ '==': '!=', '!=': '==', '<': '>=', '>': '<=', '<=': '>', '>=': '<' } as unknown as Record<string, '=='>)[op]!;
}
function opType(e: Expr & { k: 'assign' }): Type {
  // The right operand of a compound assignment carries the operation type (sema converted it).
  return isPtr(e.l.ty) ? T.long : e.r.ty.k === 'int' && e.r.ty.size >= 4 ? e.r.ty : T.int;
}
/** Alignment known for what a pointer expression points to (before any cast to void *). */
function ptrAlign(e: Expr): number {
  let x = e;
  while (x.k === 'cast' && isPtr(x.ty)) {
    if (isPtr(x.e.ty) && (x.e.ty as { to: Type }).to.k !== 'void') return alignOf((x.e.ty as { to: Type }).to);
    x = x.e;
  }
  if (x.k === 'addr') return alignOf(x.e.ty);
  if (isPtr(x.ty) && x.ty.to.k !== 'void') return alignOf(x.ty.to);
  return 1;
}

/** The value of a constant expression node (sema folded them to 'num'). */
export function constOf(e: Expr): bigint | undefined {
  if (e.k === 'num') return e.value;
  if (e.k === 'cast' && e.ty.k === 'int') {
    const v = constOf(e.e);
    return v === undefined ? undefined : wrapInt(v, e.ty);
  }
  return undefined;
}

function endsFlow(s: Stmt): boolean {
  if (s.k === 'return' || s.k === 'break' || s.k === 'continue' || s.k === 'goto') return true;
  if (s.k === 'block' && s.body.length) return endsFlow(s.body[s.body.length - 1]!);
  return false;
}

function savedHomesUsesReg(m: Map<Sym, Home | undefined>, r: number): boolean {
  for (const h of m.values()) if (h?.k === 'reg' && h.r === r) return true;
  return false;
}

/** Does the statement assign to (or take the address of) sym? */
function writes(s: Stmt, sym: Sym): boolean {
  let found = false;
  const ve = (e: Expr | undefined): void => {
    if (!e || found) return;
    if ((e.k === 'assign' && e.l.k === 'var' && e.l.sym === sym) || (e.k === 'incdec' && e.e.k === 'var' && e.e.sym === sym) || (e.k === 'addr' && e.e.k === 'var' && e.e.sym === sym)) { found = true; return; }
    switch (e.k) {
      case 'unary': case 'deref': case 'addr': case 'cast': case 'member': case 'incdec': ve(e.e); break;
      case 'binary': case 'logical': case 'assign': case 'comma': ve(e.l); ve(e.r); break;
      case 'cond': ve(e.c); ve(e.t); ve(e.f); break;
      case 'call': ve(e.fn); e.args.forEach(ve); break;
      case 'builtin': e.args.forEach(ve); break;
      case 'stmtexpr': e.body.forEach(vs); break;
    }
  };
  const vs = (x: Stmt | undefined): void => {
    if (!x || found) return;
    switch (x.k) {
      case 'expr': ve(x.e); break;
      case 'decl': x.init?.parts.forEach((p) => ve(p.e)); break;
      case 'block': x.body.forEach(vs); break;
      case 'if': ve(x.c); vs(x.t); vs(x.f); break;
      case 'while': case 'dowhile': ve(x.c); vs(x.body); break;
      case 'for': vs(x.init); ve(x.c); ve(x.step); vs(x.body); break;
      case 'switch': ve(x.e); vs(x.body); break;
      case 'return': ve(x.e); break;
    }
  };
  vs(s);
  return found;
}

/**
 * For `for (i = A; i < B; i++)`-shaped loops whose body never writes i:
 * the sequence of values i takes, and its value after the loop.
 */
function inductionPlan(s: Stmt & { k: 'for' }): { sym: Sym; values: bigint[]; final?: bigint } | undefined {
  let sym: Sym | undefined;
  let start: bigint | undefined;
  const init = s.init;
  if (init?.k === 'decl' && init.init?.parts.length === 1) { sym = init.sym; start = constOf(init.init.parts[0]!.e); }
  else if (init?.k === 'expr' && init.e.k === 'assign' && init.e.op === '=' && init.e.l.k === 'var') { sym = init.e.l.sym; start = constOf(init.e.r); }
  if (!sym || start === undefined || sym.addressTaken || !isInt(sym.type) || sym.global) return undefined;
  const c = s.c;
  if (!c || c.k !== 'binary') return undefined;
  const isVar = (x: Expr): boolean => {
    let y = x;
    while (y.k === 'cast') y = y.e;
    return y.k === 'var' && y.sym === sym;
  };
  let op = c.op;
  let bound: bigint | undefined;
  if (isVar(c.l)) bound = constOf(c.r);
  else if (isVar(c.r)) { bound = constOf(c.l); op = swapCmp(op); }
  if (bound === undefined) return undefined;
  let step: bigint | undefined;
  const st = s.step;
  if (st?.k === 'incdec' && st.e.k === 'var' && st.e.sym === sym) step = st.op === '++' ? 1n : -1n;
  else if (st?.k === 'assign' && st.l.k === 'var' && st.l.sym === sym && (st.op === '+=' || st.op === '-=')) {
    const k = constOf(st.r);
    if (k !== undefined) step = st.op === '+=' ? k : -k;
  }
  if (!step) return undefined;
  if (writes(s.body, sym)) return undefined;
  const values: bigint[] = [];
  let i = start;
  const test = (x: bigint): boolean => {
    switch (op) {
      case '<': return x < bound!;
      case '<=': return x <= bound!;
      case '>': return x > bound!;
      case '>=': return x >= bound!;
      case '!=': return x !== bound!;
      default: return false;
    }
  };
  while (test(i)) {
    values.push(wrapInt(i, sym.type));
    if (values.length > 4096) break;
    i = wrapInt(i + step, sym.type);
  }
  return { sym, values, final: i };
}

/** Visit every expression in a statement tree (including nested statement expressions). */
function walkExprs(s: Stmt, f: (e: Expr) => void): void {
  const ve = (e: Expr | undefined): void => {
    if (!e) return;
    f(e);
    switch (e.k) {
      case 'unary': case 'deref': case 'addr': case 'cast': case 'member': case 'incdec': ve(e.e); break;
      case 'binary': case 'logical': case 'assign': case 'comma': ve(e.l); ve(e.r); break;
      case 'cond': ve(e.c); ve(e.t); ve(e.f); break;
      case 'call': ve(e.fn); e.args.forEach(ve); break;
      case 'builtin': e.args.forEach(ve); break;
      case 'stmtexpr': e.body.forEach((x) => walkExprs(x, f)); break;
    }
  };
  walkStmts(s, (st) => {
    switch (st.k) {
      case 'expr': ve(st.e); break;
      case 'decl': st.init?.parts.forEach((p) => ve(p.e)); break;
      case 'if': case 'while': case 'dowhile': ve(st.c); break;
      case 'for': ve(st.c); ve(st.step); break;
      case 'switch': ve(st.e); break;
      case 'return': ve(st.e); break;
    }
  });
}

function walkStmts(s: Stmt | undefined, f: (s: Stmt) => void): void {
  if (!s) return;
  f(s);
  switch (s.k) {
    case 'block': s.body.forEach((b) => walkStmts(b, f)); break;
    case 'if': walkStmts(s.t, f); walkStmts(s.f, f); break;
    case 'while': case 'dowhile': walkStmts(s.body, f); break;
    case 'for': walkStmts(s.init, f); walkStmts(s.body, f); break;
    case 'switch': walkStmts(s.body, f); break;
  }
}
