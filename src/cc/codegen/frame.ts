/**
 * Code generation: the typed tree to eBPF the kernel verifier accepts.
 *
 * What the verifier needs shapes every choice:
 *  - packet bounds checks stay pointer comparisons on registers
 *    (`r2 = r1; r2 += 14; if r2 > r3 goto …`), never folded into integer
 *    arithmetic the verifier cannot follow;
 *  - ctx fields are read with the width of their declared type (32-bit
 *    loads of data/data_end), and casts through (long) add no code;
 *  - map keys live on the stack and map values are null-checked exactly as
 *    written (unsafe C reaches the verifier unsafe);
 *  - pointers are spilled with full 8-byte stores.
 *
 * One function's generator is a chain of classes, one job a module:
 *   frame.ts    (this) emitted code and labels, register ownership
 *               (temporaries r0-r5; locals in r1-r5 when their live range
 *               holds no call, r6-r9 when it does, else the stack), stack
 *               slots, each local's home, and the analyses that decide them
 *               (liveness, single-assignment constants and pointer aliases)
 *   expr.ts     expression lowering: values, addressing, loads/stores,
 *               conversions, arithmetic, conditions, assignment
 *   builtins.ts __builtin_* and __sync_* lowering
 *   asm.ts      inline assembly (operands, clobbers, the template assembled)
 *   calls.ts    helper and bpf-to-bpf calls; inlining
 *   stmt.ts     statement lowering and the function (FuncGen, used by index.ts)
 *   tree.ts     pure helpers over the typed tree
 * and passes over the typed tree that decide what the verifier sees:
 *   dse.ts      stores to locals nobody reads removed (clang's DSE)
 *   cse.ts      values read once as clang's GVN reads them (checked
 *               pointer sums, loads an if checks, loads sunk past exits)
 *   split.ts    small struct locals kept one member per stack slot (SROA)
 */
import type { Expr, Stmt, Sym } from '../ast';
import type { DiagnosticBag, Span } from '../diagnostics';
import { computeLiveness, type LiveRange } from '../liveness';
import { compact, peephole, removeUnreachable } from '../peephole';
import { evalBinary } from '../sema';
import { alignOf, isInt, isPtr, sizeOf, type IntType, type Member, type Type } from '../types';
import type { Insn } from '../../isa/insn';
import { constOf, wrapInt, walkExprs, walkStmts } from './tree';
import { reuseCheckedPointers } from './cse';
import { removeDeadStores } from './dse';
import { splittableStructs } from './split';
import * as O from '../../isa/opcodes';

/** A local larger than this is refused where it is declared (any local over 512 bytes is refused with its function). */
const MAX_LOCAL_BYTES = 1 << 16;

/** An emitted instruction, with its jump target label before linking. */
export interface EmittedInsn {
  insn: Insn;
  span: Span;
  /** Jump target (label id) for jumps; callee symbol for bpf-to-bpf calls. */
  label?: number;
  callee?: Sym;
  /** lddw of a map address: map index. */
  map?: number;
  /** lddw of a map value address (BPF_PSEUDO_MAP_VALUE, global data): byte offset in the value. */
  valueOff?: number;
  /** A kfunc call (BPF_PSEUDO_KFUNC_CALL): the kernel function's name. */
  kfunc?: string;
  /** Written by inline asm: kept exactly as written (the peephole pass leaves it alone). */
  pinned?: boolean;
  /** `__builtin_trap()`: an error if it is still reachable once dead code is gone (clang's rule). */
  trap?: boolean;
}

export interface MapRef {
  sym: Sym;
  index: number;
}

export type Val =
  | { k: 'imm'; v: bigint }
  | { k: 'reg'; r: number; temp: boolean; zext?: boolean; /** Known: the value fits in this many low bits (unsigned). */ bits?: number }
  | { k: 'fp'; off: number }
  | { k: 'map'; idx: number }
  /** A (non-temporary) register plus a constant: pointer arithmetic not yet materialised. */
  | { k: 'regoff'; r: number; off: number };

export type Home = { k: 'reg'; r: number } | { k: 'stack'; off: number };

export interface Addr {
  base: 'fp' | 'reg' | 'map';
  reg?: number;
  /** The base register is a temporary to free after use. */
  temp?: boolean;
  off: number;
  map?: number;
  /** A member of a packed struct: the access may sit at any offset (clang then splits it where it is misaligned). */
  packed?: boolean;
}

export interface InlineCtx {
  fn: Sym;
  end: number;
  labels: Map<string, number>;
  retReg: number;
  returned: boolean;
}

export const TEMP_ORDER = [1, 2, 3, 4, 5, 0];
export const LOCAL_CALLER_ORDER = [5, 4, 3];
export const CALLEE_SAVED = [6, 7, 8, 9];
export const MAX_INLINE_DEPTH = 16;
/**
 * A split struct (split.ts) has no bytes of its own: its home is a stand-in
 * offset at or below SPLIT_BASE, SPLIT_STRIDE apart per instance, far
 * outside any real stack offset, which member accesses map to the members'
 * own slots. An instruction that still carried one would be a bug; emit
 * refuses any memory offset outside the 16 bits an instruction holds.
 */
const SPLIT_BASE = -(1 << 24);
const SPLIT_STRIDE = 1 << 12;

/** Thrown after a lowering error is reported: unwinds to the statement, which carries on. */
export class CgError extends Error {}

export interface ProgramContext {
  diags: DiagnosticBag;
  maps: Map<Sym, number>;
  /** Functions that become bpf-to-bpf subprograms, in the order they are needed. */
  subprogs: Sym[];
  inlineable(fn: Sym): boolean;
  /** Run the peephole pass (default on). */
  optimize?: boolean;
  /** Global data: where a global variable lives (undefined: it has no storage, e.g. extern). */
  globalRef?(sym: Sym, span: Span): { map: number; offset: number } | undefined;
  /** A string literal's place in .rodata. */
  stringRef?(bytes: number[]): { map: number; offset: number };
  /** Globals whose initial value is their value (const, or static and never written). */
  foldable?: Set<Sym>;
}

/** Generate one BPF function (the entry program or a subprogram). */
/** Registers, stack and homes of one function, and the analyses that decide them. */
export abstract class FrameGen {
  out: EmittedInsn[] = [];
  protected labelPos: number[] = [];
  protected regOwner: ('free' | 'temp' | 'local' | 'reserved')[] = new Array(11).fill('free');
  protected homes = new Map<Sym, Home>();
  protected ranges = new Map<Sym, LiveRange>();
  protected constBind = new Map<Sym, bigint>();
  protected stackTop = 0;
  /** How many ({ … }) bodies codegen is inside (stmt.ts frees registers only outside them). */
  protected stmtExprDepth = 0;
  maxStack = 0;
  protected span: Span;
  protected breakTargets: number[] = [];
  protected continueTargets: number[] = [];
  protected inlineStack: InlineCtx[] = [];
  protected fnLabels = new Map<string, number>();
  protected localsByFn = new Map<Sym, Sym[]>();
  protected stmtPosByFn = new Map<Sym, Map<Stmt, number>>();
  protected curFn: Sym;
  protected callCache = new Map<Sym, boolean>();
  /** Inlined parameters that share a register with the caller's value (never freed by the callee). */
  protected borrowed = new Set<Sym>();
  /** Single-assignment pointer locals that are another local plus a constant. */
  protected aliases = new Map<Sym, { base: Sym; off: bigint }>();
  /** Inlined pointer parameters bound to a caller's stack address (fp + offset). */
  protected fpBind = new Map<Sym, number>();
  /** Struct locals kept as one stack slot per member (split.ts), with their members. */
  protected splitStructs = new Map<Sym, Member[]>();
  /** Each split instance's stand-in base: its members' slots by member offset. */
  protected splitSlots = new Map<number, Map<number, number>>();
  /** Where each label was first jumped to by a goto (to report a goto to a label never defined). */
  protected gotoSpans = new Map<number, Span>();
  /** Case labels of the switch statements being lowered, innermost last. */
  protected caseLabels: Map<Stmt, number>[] = [];
  constructor(protected ctx: ProgramContext, protected fn: Sym) {
    this.span = fn.span;
    this.curFn = fn;
  }
  protected get diags(): DiagnosticBag {
    return this.ctx.diags;
  }
  // ---- emission --------------------------------------------------------------
  protected emit(code: number, dst = 0, src = 0, off = 0, imm = 0, extra?: Partial<EmittedInsn>): void {
    if (off < -32768 || off > 32767) this.fail(`internal: offset ${off} does not fit an instruction`, this.span, 'cc-internal');
    this.out.push({ insn: { code, dst, src, off, imm: imm | 0 }, span: this.span, ...extra });
  }
  protected newLabel(): number {
    this.labelPos.push(-1);
    return this.labelPos.length - 1;
  }
  protected place(l: number): void {
    this.labelPos[l] = this.out.length;
  }
  protected jmp(l: number): void {
    this.emit(O.BPF_JMP | O.BPF_JA, 0, 0, 0, 0, { label: l });
  }
  protected fail(msg: string, span = this.span, code = 'cc-unsupported'): never {
    this.diags.error(code, msg, span);
    throw new CgError(msg);
  }
  /** Every label a goto names must be defined in the same function (C's rule; clang's message). */
  protected checkLabels(labels: Map<string, number>): void {
    for (const [name, l] of labels) {
      if (this.labelPos[l] === -1) this.diags.error('sema-undeclared-label', `use of undeclared label '${name}'`, this.gotoSpans.get(l) ?? this.span);
    }
  }

  /**
   * Forget what only generation needed once the code is emitted: the
   * analyses are keyed by the function's statements and symbols, and would
   * keep its whole tree alive through the peephole pass and linking.
   */
  releaseAnalyses(): void {
    this.ranges.clear();
    this.homes.clear();
    this.constBind.clear();
    this.localsByFn.clear();
    this.stmtPosByFn.clear();
    this.callCache.clear();
    this.borrowed.clear();
    this.aliases.clear();
    this.fpBind.clear();
    this.splitStructs.clear();
    this.splitSlots.clear();
    this.gotoSpans.clear();
    this.fnLabels.clear();
    this.caseLabels.length = 0;
    this.inlineStack.length = 0;
  }
  /** Resolve label jumps to offsets; drop jumps to the next instruction. */
  finish(): void {
    if (this.ctx.optimize !== false) peephole(this.out, this.labelPos);
    removeUnreachable(this.out, this.labelPos);
    // Remove `ja +0` (a jump to the very next slot), all at once per pass (linear, not quadratic,
    // in the program's size), until removing some makes no other one a `ja +0`.
    const isJa0 = (i: number): boolean => {
      const e = this.out[i]!;
      return e.label !== undefined && !e.pinned && e.insn.code === (O.BPF_JMP | O.BPF_JA) && this.labelPos[e.label] === i + 1;
    };
    while (compact(this.out, this.labelPos, isJa0)) { /* removing some can make others `ja +0` */ }
    // clang rejects a trap only where optimisation leaves it (the default of a switch on a
    // constant, `if (!__builtin_constant_p(len)) __builtin_trap();` after inlining are fine).
    for (const e of this.out) if (e.trap) this.diags.error('cc-trap', "A call to built-in function 'abort' is not supported.", e.span);
    this.out.forEach((e, i) => {
      if (e.label !== undefined) {
        const target = this.labelPos[e.label]!;
        e.insn.off = target - (i + 1);
        if (e.insn.off < -32768 || e.insn.off > 32767) this.diags.error('cc-jump-range', 'jump offset out of range (program too large)', e.span);
      }
    });
  }
  // ---- registers ---------------------------------------------------------------
  protected allocTemp(avoid: number[] = []): number {
    for (const r of TEMP_ORDER) if (this.regOwner[r] === 'free' && !avoid.includes(r)) { this.regOwner[r] = 'temp'; return r; }
    this.fail('expression too complex: out of registers (split it into several statements)', this.span, 'cc-out-of-registers');
  }
  protected release(v: Val): void {
    if (v.k === 'reg' && v.temp && this.regOwner[v.r] === 'temp') this.regOwner[v.r] = 'free';
  }
  protected freeRegCount(): number {
    return [0, 1, 2, 3, 4, 5].filter((r) => this.regOwner[r] === 'free').length;
  }
  /** Locals refused for their size (assignHome): their initialisers are not generated. */
  protected readonly oversized = new Set<Sym>();
  protected allocStack(size: number, align: number): number {
    const a = Math.max(8, align);
    this.stackTop = Math.ceil((this.stackTop + size) / a) * a;
    this.maxStack = Math.max(this.maxStack, this.stackTop);
    return -this.stackTop;
  }
  /**
   * A split struct's declaration (split.ts): a slot of 8 bytes per member,
   * and a stand-in home that member accesses map to them (splitSlot).
   */
  protected assignSplitHome(sym: Sym, members: Member[]): Map<number, number> {
    const base = SPLIT_BASE - this.splitSlots.size * SPLIT_STRIDE;
    const slots = new Map<number, number>();
    for (const m of members) slots.set(m.offset, this.allocStack(8, 8));
    this.splitSlots.set(base, slots);
    this.homes.set(sym, { k: 'stack', off: base });
    return slots;
  }
  /** A stack offset, or a member of a split struct's stand-in: where the bytes are. */
  protected splitSlot(off: number): number {
    if (off >= SPLIT_BASE + SPLIT_STRIDE) return off;
    const base = SPLIT_BASE - Math.ceil((SPLIT_BASE - off) / SPLIT_STRIDE) * SPLIT_STRIDE;
    const slot = this.splitSlots.get(base)?.get(off - base);
    if (slot === undefined) this.fail('internal: a struct kept member by member is accessed between its members', this.span, 'cc-internal');
    return slot;
  }
  protected assignHome(sym: Sym, incoming?: number): void {
    const t = sym.type;
    const range = this.ranges.get(sym);
    const scalarLike = isInt(t) || isPtr(t);
    if (!scalarLike || sym.addressTaken) {
      // Far past the limit (checked for the whole frame when the function is done): said where it is declared,
      // and given a stand-in slot so neither its initialiser nor its uses emit code for all of it.
      if (sizeOf(t) > MAX_LOCAL_BYTES) {
        this.diags.error('cc-stack-limit', `Looks like the BPF stack limit is exceeded: '${sym.name}' alone needs ${sizeOf(t)} bytes, the limit is ${O.MAX_BPF_STACK}`, sym.span);
        this.oversized.add(sym);
        this.homes.set(sym, { k: 'stack', off: this.allocStack(8, 8) });
        return;
      }
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
  protected expire(pos: number, fnSym: Sym): void {
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
  // ---- analyses: what lives where ---------------------------------------------
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
  protected fnCalls(f: Sym, depth = 0): boolean {
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
  protected calleeSym(e: Expr & { k: 'call' }): Sym | undefined {
    const f = e.fn;
    if (f.k === 'addr' && f.e.k === 'var' && f.e.sym.kind === 'func') return f.e.sym;
    return undefined;
  }
  protected isRealCall = (e: Expr): boolean => {
    if (e.k !== 'call') return false;
    const callee = this.calleeSym(e);
    if (callee && this.ctx.inlineable(callee)) return this.fnCalls(callee);
    return true;
  };
  protected prepare(fn: Sym): void {
    removeDeadStores(fn.body!);
    reuseCheckedPointers(fn.body!);
    for (const [s, m] of splittableStructs({ inlineable: (f) => this.ctx.inlineable(f), calleeSym: (e) => this.calleeSym(e) }, fn.body!)) this.splitStructs.set(s, m);
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
  protected findAliases(fn: Sym): void {
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
  protected evalStatic(e: Expr, depth = 0): bigint | undefined {
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
      case 'builtin': return e.name === '__builtin_constant_p' ? (this.evalStatic(e.args[0]!, depth + 1) !== undefined ? 1n : 0n) : undefined;
      default: return undefined;
    }
  }
  protected staticConst(e: Expr): bigint | undefined {
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
  protected aliasOf(e: Expr, stable: (s: Sym) => boolean): { base: Sym; off: bigint } | undefined {
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
  // ---- values --------------------------------------------------------------------
  /** Put v into register r (converting nothing: v already has the target's representation). */
  protected moveTo(v: Val, r: number, ty: Type): void {
    const is64 = sizeOf(ty) === 8 || ty.k !== 'int';
    switch (v.k) {
      case 'imm': return this.loadImm(r, v.v, is64);
      case 'reg':
        if (v.r !== r) this.emit((is64 ? O.BPF_ALU64 : O.BPF_ALU) | O.BPF_MOV | O.BPF_X, r, v.r);
        return;
      case 'fp':
        if (v.off < SPLIT_BASE + SPLIT_STRIDE) this.fail('internal: the address of a struct kept member by member is needed', this.span, 'cc-internal');
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
  protected offsetVal(v: Val, off: number): Val {
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
  protected loadImm(r: number, v: bigint, is64: boolean): void {
    if (!is64) return this.emit(O.BPF_ALU | O.BPF_MOV | O.BPF_K, r, 0, 0, Number(BigInt.asIntN(32, v)));
    const s = BigInt.asIntN(64, v);
    if (s >= -(1n << 31n) && s < 1n << 31n) return this.emit(O.BPF_ALU64 | O.BPF_MOV | O.BPF_K, r, 0, 0, Number(s));
    if (s >= 0n && s < 1n << 32n) return this.emit(O.BPF_ALU | O.BPF_MOV | O.BPF_K, r, 0, 0, Number(BigInt.asIntN(32, s)));
    const u = BigInt.asUintN(64, v);
    this.out.push({ insn: { code: O.BPF_LD | O.BPF_IMM | O.BPF_DW, dst: r, src: 0, off: 0, imm: Number(BigInt.asIntN(32, u & 0xffffffffn)) }, span: this.span });
    this.out.push({ insn: { code: 0, dst: 0, src: 0, off: 0, imm: Number(BigInt.asIntN(32, u >> 32n)) }, span: this.span });
  }
  /** A register holding v that the caller may modify. */
  protected owned(v: Val, ty: Type, avoid: number[] = []): Val & { k: 'reg' } {
    if (v.k === 'reg' && v.temp && !avoid.includes(v.r)) return { ...v, bits: undefined };
    const r = this.allocTemp(avoid);
    this.moveTo(v, r, ty);
    this.release(v);
    // The copy is about to be modified in place: what was known of its bits no longer holds.
    return { k: 'reg', r, temp: true, zext: v.k === 'imm' ? BigInt.asUintN(64, v.v) < 1n << 32n : v.k === 'reg' && (sizeOf(ty) < 8 ? true : v.zext) };
  }
  /** v in some register (possibly a local's home, read-only). */
  protected toReg(v: Val, ty: Type): Val & { k: 'reg' } {
    if (v.k === 'reg') return v;
    return this.owned(v, ty);
  }
  /** dst op= imm, loading the immediate into a register when it does not fit. */
  protected aluImm(op: number, dst: number, imm: bigint, is64: boolean): void {
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
  protected narrowInPlace(r: number, ty: IntType): void {
    const bits = ty.size * 8;
    if (ty.signed) {
      this.emit(O.BPF_ALU | O.BPF_LSH | O.BPF_K, r, 0, 0, 32 - bits);
      this.emit(O.BPF_ALU | O.BPF_ARSH | O.BPF_K, r, 0, 0, 32 - bits);
    } else this.emit(O.BPF_ALU | O.BPF_AND | O.BPF_K, r, 0, 0, (1 << bits) - 1);
  }
}
