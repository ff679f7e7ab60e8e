/**
 * Statement lowering and the function as a whole: parameters claimed from
 * r1-r5, blocks, if/else, rotated loops (test at the bottom, as clang
 * emits), `#pragma unroll`, switch (on a local with its labels at the
 * top: an if-chain in source order; else a compare chain), goto and labels,
 * return (straight into r0, or to the end of an inlined body), locals'
 * initialisers. FuncGen is the class index.ts drives.
 */
import type { Expr, Init, Stmt, Sym } from '../ast';
import { alignOf, isInt, isPtr, sizeOf, type FuncType, type IntType, type Member } from '../types';
import { CgError, type Addr } from './frame';
import { constOf, sizeField, wrapInt, endsFlow, inductionPlan } from './tree';
import { CallGen } from './calls';
import * as O from '../../isa/opcodes';

/** Generate one BPF function (the entry program or a subprogram). */
export class FuncGen extends CallGen {
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
    this.checkLabels(this.fnLabels);
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
  protected override stmt(s: Stmt): void {
    const pos = this.stmtPosByFn.get(this.curFn)?.get(s);
    // Inside ({ … }) positions are the liveness pass's order, not necessarily evaluation order (an operand holding
    // a statement expression is evaluated first): registers are freed at the enclosing statement instead.
    if (pos !== undefined && this.stmtExprDepth === 0) this.expire(pos, this.curFn);
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
  protected stmtInner(s: Stmt): void {
    switch (s.k) {
      case 'empty': return;
      case 'asm':
        // asm volatile("" ::: "memory"): a barrier to the compiler only; we keep no values in registers across statements it could reorder.
        if (s.text.trim() === '') return;
        this.fail(`inline assembly is not supported on BPF here: asm("${s.text.length > 40 ? `${s.text.slice(0, 40)}…` : s.text}") is reached from '${this.fn.name}'`, s.span, 'cc-asm');
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
        const members = this.splitStructs.get(s.sym);
        if (members) {
          this.initSplit(this.assignSplitHome(s.sym, members), members, s.init);
          return;
        }
        this.assignHome(s.sym);
        if (s.init && !this.oversized.has(s.sym)) this.initLocal(s.sym, s.init);
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
        if (this.labelPos[l] !== -1) this.fail(`redefinition of label '${s.name}'`, s.span, 'sema-label-redefinition');
        this.place(l);
        return;
      }
      case 'goto': {
        const l = this.labelFor(s.name);
        if (!this.gotoSpans.has(l)) this.gotoSpans.set(l, s.span);
        this.jmp(l);
        return;
      }
    }
  }
  protected labelFor(name: string): number {
    const map = this.inlineStack.length ? this.inlineStack[this.inlineStack.length - 1]!.labels : this.fnLabels;
    let l = map.get(name);
    if (l === undefined) { l = this.newLabel(); map.set(name, l); }
    return l;
  }
  protected loopBody(body: Stmt, brk: number, cont: number): void {
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
  protected tryUnroll(s: Stmt & { k: 'for' | 'while' }): boolean {
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
  protected ret(s: Stmt & { k: 'return' }): void {
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
  protected switchStmt(s: Stmt & { k: 'switch' }): void {
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
    const is64 = sizeOf(s.e.ty) === 8;
    const signed = (s.e.ty as IntType).signed;
    const local = this.evalStatic(s.e) === undefined ? readsLocal(s.e) : undefined;
    const arms = local && switchArms(s.body, cases.length + (def ? 1 : 0));
    if (local && arms) return this.switchChain(s, arms, local, end, is64, signed);
    const v = this.expr(s.e);
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
  /**
   * A switch on a local whose case labels all sit at the top of its body, as
   * an if/else-if chain in source order: each arm's test (`==` to the body for
   * all its values but the last, `!=` to the next arm's test for the last)
   * falls into that arm's body, and an arm that falls through jumps over the
   * next test. The verifier explores a branch's fall-through first, so the
   * arms are explored in the order written, each entered first on the path
   * that tested it, as an if-chain is. A compare chain ahead of all the
   * bodies (the other lowering) has it explore the default first and the
   * cases last to first, every body entered by a path just popped off the
   * stack; inside a loop, where the kernel adds few checkpoints, that left
   * the arrivals of a multi-value case unpruned and the pointer states of
   * the last case (often the narrowest) checked first, a few times the work
   * (xdp-tutorial's IPv6 extension-header loop: 3.6x clang's). The value is
   * read again at each test: tests run back to back, never after a body, so
   * a local still holds the value the switch read.
   */
  protected switchChain(s: Stmt & { k: 'switch' }, arms: SwitchArm[], sym: Sym, end: number, is64: boolean, signed: boolean): void {
    const home = this.homes.get(sym);
    if (!home) this.fail(`internal: '${sym.name}' has no location here`, s.e.span, 'cc-internal');
    const savedTop = this.stackTop;
    const tests = arms.map((a) => (a.isDefault ? -1 : this.newLabel()));
    const bodies = arms.map(() => this.newLabel());
    const defIdx = arms.findIndex((a) => a.isDefault);
    const missAfter = (k: number): number => {
      for (let j = k + 1; j < arms.length; j++) if (!arms[j]!.isDefault) return tests[j]!;
      return defIdx >= 0 ? bodies[defIdx]! : end;
    };
    // The default arm first: the tests of the others come before its body runs.
    if (arms[0]?.isDefault) this.jmp(missAfter(0));
    this.breakTargets.push(end);
    arms.forEach((a, k) => {
      if (!a.isDefault) {
        if (k > 0 && !arms[k - 1]!.ends) this.jmp(bodies[k]!);
        this.place(tests[k]!);
        // The bodies before this test may have ended the local's live range (its register freed, its home
        // gone): no path reaches the test through them, so where the local was still holds it.
        const now = this.homes.get(sym);
        this.homes.set(sym, home);
        const held = home.k === 'reg' && this.regOwner[home.r] === 'free';
        if (held) this.regOwner[home.r] = 'local';
        const r = this.toReg(this.expr(s.e), s.e.ty);
        a.values.forEach((value, i) => {
          if (i < a.values.length - 1) this.cmpJump('==', r, { k: 'imm', v: value }, is64, signed, bodies[k]!);
          else this.cmpJump('!=', r, { k: 'imm', v: value }, is64, signed, missAfter(k));
        });
        this.release(r);
        if (held) this.regOwner[home.r] = 'free';
        if (now) this.homes.set(sym, now);
        else this.homes.delete(sym);
      }
      this.place(bodies[k]!);
      let dead = false;
      for (const b of a.stmts) {
        if (dead && !this.diags.hasErrors && b.k !== 'label' && b.k !== 'empty' && b.k !== 'decl') {
          this.diags.warning('sema-unreachable', 'code will never be executed', b.span);
          dead = false;
        }
        this.stmt(b);
        if (endsFlow(b)) dead = true;
        else if (b.k === 'label' || b.k === 'block') dead = false;
      }
    });
    this.breakTargets.pop();
    this.place(end);
    this.stackTop = savedTop;
  }
  // ---- locals ----------------------------------------------------------------------
  /** A split struct's initialiser (split.ts: whole members only): each member's slot, in the order written, the rest zeroed. */
  protected initSplit(slots: Map<number, number>, members: Member[], init: Init | undefined): void {
    if (!init) return;
    const set = new Set<number>();
    for (const p of init.parts) {
      const v = this.expr(p.e);
      this.storeVal({ base: 'fp', off: slots.get(p.offset)! }, sizeOf(p.type), v, p.type);
      this.release(v);
      set.add(p.offset);
    }
    if (!init.zero) return;
    for (const m of members) if (!set.has(m.offset)) this.emit(O.BPF_ST | O.BPF_MEM | sizeField(sizeOf(m.type)), 10, 0, slots.get(m.offset)!, 0);
  }
  protected initLocal(sym: Sym, init: Init): void {
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
    // A scalar local that lives on the stack is spilled and reloaded as a whole register.
    const scalar = !sym.addressTaken && (isInt(sym.type) || isPtr(sym.type));
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
      if (c !== undefined && sizeOf(p.type) === 1 && !scalar) {
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
      this.storeVal({ ...addr, off: addr.off + p.offset }, scalar && p.offset === 0 ? 8 : sizeOf(p.type), v, p.type);
      this.release(v);
    }
  }
}

/** One arm of a switch: the values its labels name (none for the default's), then its statements. */
interface SwitchArm {
  values: bigint[];
  isDefault: boolean;
  stmts: Stmt[];
  /** Its last statement leaves (break, return, continue, goto): it does not fall into the next arm. */
  ends: boolean;
}

/** The local e reads (through integer conversions only): reading it again costs nothing and sees the same value. */
function readsLocal(e: Expr): Sym | undefined {
  while (e.k === 'cast' && isInt(e.ty) && isInt(e.e.ty)) e = e.e;
  return e.k === 'var' && !e.sym.global && isInt(e.ty) ? e.sym : undefined;
}

/**
 * A switch body as arms, when every one of its `labels` case and default
 * labels is at its top level (`case 1: case 2: x;` parses as nested blocks,
 * flattened here); undefined when one is nested deeper (Duff's device) or a
 * statement comes before the first label.
 */
function switchArms(body: Stmt, labels: number): SwitchArm[] | undefined {
  if (body.k !== 'block') return undefined;
  const arms: SwitchArm[] = [];
  let found = 0;
  const flatten = (st: Stmt): boolean => {
    if (st.k === 'block' && (st.body[0]?.k === 'case' || st.body[0]?.k === 'default')) {
      const l = st.body[0];
      let arm = arms[arms.length - 1];
      if (!arm || arm.stmts.length) arms.push((arm = { values: [], isDefault: false, stmts: [], ends: false }));
      if (l.k === 'case') arm.values.push(l.value);
      else arm.isDefault = true;
      found++;
      return st.body.slice(1).every(flatten);
    }
    const arm = arms[arms.length - 1];
    if (!arm) return st.k === 'empty';
    arm.stmts.push(st);
    return true;
  };
  if (!body.body.every(flatten) || found !== labels) return undefined;
  for (const a of arms) {
    const last = a.stmts[a.stmts.length - 1];
    a.ends = last !== undefined && endsFlow(last);
    // A default arm that also names values needs no test: every value no other arm names reaches it.
    if (a.isDefault) a.values = [];
  }
  return arms;
}
