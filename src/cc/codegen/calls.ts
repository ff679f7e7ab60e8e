/**
 * Calls: helper calls and bpf-to-bpf calls (arguments moved into r1-r5 in
 * parallel, calling arguments parked on the stack first, values the
 * enclosing expression holds in r0-r5 saved in r6-r9 or on the stack and put
 * back after the call), and inlining — every static function not
 * marked noinline is expanded in place as clang -O2 would, its parameters
 * bound to the caller's registers where the body never writes them.
 */
import type { Expr, Stmt, Sym } from '../ast';
import { T, alignOf, isInt, isPtr, sizeOf, type Type } from '../types';
import { CALLEE_SAVED, MAX_INLINE_DEPTH, type Val, type Home, type InlineCtx } from './frame';
import { helperIdOf, savedHomesUsesReg, wrapInt, writes } from './tree';
import { AsmGen } from './asm';
import * as O from '../../isa/opcodes';

export abstract class CallGen extends AsmGen {
  protected abstract stmt(s: Stmt): void;

  // ---- calls -------------------------------------------------------------------------
  protected override call(e: Expr & { k: 'call' }, discard: boolean): Val {
    const callee = this.calleeSym(e);
    let helperId: number | undefined;
    if (!callee) {
      // Through a function pointer: only helper pointers (`static … (*bpf_x)(…) = (void *) ID`).
      helperId = helperIdOf(e.fn);
      if (helperId === undefined) this.fail('calls through function pointers are not supported on BPF (only helper declarations)', e.span);
    } else if (!callee.body && callee.attrs.section === '.ksyms') {
      // A kfunc (`extern ... __ksym`): BPF_PSEUDO_KFUNC_CALL, named in the spec's kfunc_relocs (the
      // kernel's BTF id is the loader's to fill in; the VM binds the name).
    } else if (!callee.body) {
      this.fail(`function '${callee.name}' is declared but not defined (BPF programs are linked from one file here)`, e.span, 'cc-undefined-function');
    }
    // Inlined bodies take any number of arguments; only a real call is limited to r1-r5.
    if (callee && this.ctx.inlineable(callee)) return this.inlineCall(callee, e, discard);
    if (e.args.length > 5) this.fail(`too many arguments: BPF calls take at most 5 (got ${e.args.length})`, e.span, 'cc-too-many-args');
    const saved = this.span;
    this.span = e.span;
    // Values the enclosing expression already holds in r0-r5 (an earlier argument of an
    // inlined call, the left operand of `a + f()`, a field of an initialiser, …) would be
    // clobbered by the call: save them (in a free callee-saved register, else on the stack)
    // before the arguments are evaluated, and put them back where their owners expect them after.
    const held = this.saveCallerSaved();
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
    // A local homed in an argument register holds no value across the call (its live range holds
    // none: it is the local this call initialises, or dead): the argument may overwrite it, but the
    // register stays that local's, or a later local would be given it while the first still lives there.
    const localTargets = targets.filter((t) => this.regOwner[t] === 'local');
    this.parallelMove(vals, targets, e.args.map((a) => a.ty), parked);
    for (let r = 0; r <= 5; r++) if (this.regOwner[r] === 'temp' && !targets.includes(r)) this.fail('internal: value live across a call', e.span, 'cc-internal');
    for (const t of targets) if (this.regOwner[t] === 'temp') this.regOwner[t] = localTargets.includes(t) ? 'local' : 'free';
    if (helperId !== undefined) this.emit(O.BPF_JMP | O.BPF_CALL, 0, 0, 0, helperId);
    else if (!callee!.body && callee!.attrs.section === '.ksyms') this.emit(O.BPF_JMP | O.BPF_CALL, 0, O.BPF_PSEUDO_KFUNC_CALL, 0, 0, { kfunc: callee!.name });
    else {
      if (!this.ctx.subprogs.includes(callee!)) this.ctx.subprogs.push(callee!);
      this.emit(O.BPF_JMP | O.BPF_CALL, 0, O.BPF_PSEUDO_CALL, 0, -1, { callee: callee! });
    }
    let result: Val = { k: 'imm', v: 0n };
    if (!discard && e.ty.k !== 'void') {
      if (this.regOwner[0] !== 'free') this.fail('internal: r0 busy at a call', e.span, 'cc-internal');
      this.regOwner[0] = 'temp';
      // A helper returning a 32-bit type leaves its upper bits to the helper; treat them as unknown.
      result = { k: 'reg', r: 0, temp: true, zext: false };
      // r0 itself held a value: the result moves out of its way.
      if (held.some((h) => h.r === 0)) {
        const r = this.allocTemp([0, ...held.map((h) => h.r)]);
        this.emit(O.BPF_ALU64 | O.BPF_MOV | O.BPF_X, r, 0);
        this.regOwner[0] = 'free';
        result = { k: 'reg', r, temp: true, zext: false };
      }
    }
    this.restoreCallerSaved(held);
    this.span = saved;
    return result;
  }
  /** Move every temporary held in r0-r5 out of the way of a call; see restoreCallerSaved. */
  protected saveCallerSaved(): { r: number; own: 'temp' | 'reserved'; to: Home }[] {
    const held: { r: number; own: 'temp' | 'reserved'; to: Home }[] = [];
    for (let r = 0; r <= 5; r++) {
      const own = this.regOwner[r];
      if (own !== 'temp' && own !== 'reserved') continue;
      const cs = CALLEE_SAVED.find((c) => this.regOwner[c] === 'free');
      let to: Home;
      if (cs !== undefined) {
        this.regOwner[cs] = 'reserved';
        this.emit(O.BPF_ALU64 | O.BPF_MOV | O.BPF_X, cs, r);
        to = { k: 'reg', r: cs };
      } else {
        to = { k: 'stack', off: this.allocStack(8, 8) };
        this.emit(O.BPF_STX | O.BPF_MEM | O.BPF_DW, 10, r, to.off);
      }
      this.regOwner[r] = 'free';
      held.push({ r, own, to });
    }
    return held;
  }
  /** Put the values saveCallerSaved moved back into the registers their owners hold them in. */
  protected restoreCallerSaved(held: { r: number; own: 'temp' | 'reserved'; to: Home }[]): void {
    for (const h of held) {
      if (this.regOwner[h.r] !== 'free') this.fail('internal: register busy after a call', this.span, 'cc-internal');
      if (h.to.k === 'reg') {
        this.emit(O.BPF_ALU64 | O.BPF_MOV | O.BPF_X, h.r, h.to.r);
        this.regOwner[h.to.r] = 'free';
      } else this.emit(O.BPF_LDX | O.BPF_MEM | O.BPF_DW, h.r, 10, h.to.off);
      this.regOwner[h.r] = h.own;
    }
  }
  /** Move argument values into r1..rN without clobbering one another. */
  protected parallelMove(vals: Val[], targets: number[], types: Type[], parked: Map<number, number>): void {
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
  protected claim(t: number, pending: { v: Val; t: number }[]): void {
    if (this.regOwner[t] === 'free') return;
    const user = pending.find((p) => p.v.k === 'reg' && (p.v as { r: number }).r === t && p.t !== t);
    if (user && this.regOwner[t] === 'temp') {
      const n = this.allocTemp([...pending.map((p) => p.t), t]);
      this.emit(O.BPF_ALU64 | O.BPF_MOV | O.BPF_X, n, t);
      this.regOwner[t] = 'free';
      user.v = { k: 'reg', r: n, temp: true };
    }
  }
  protected inlineCall(f: Sym, e: Expr & { k: 'call' }, discard: boolean): Val {
    if (this.inlineStack.some((c) => c.fn === f) || f === this.fn) this.fail(`recursive call to '${f.name}': BPF does not allow recursion`, e.span, 'cc-recursion');
    if (this.inlineStack.length >= MAX_INLINE_DEPTH) this.fail('inlining too deep', e.span);
    if (this.regOwner[0] !== 'free') this.fail('expression too complex around an inlined call (split it into several statements)', e.span, 'cc-out-of-registers');
    if (!this.stmtPosByFn.has(f)) this.prepare(f);
    const params = f.params ?? [];
    // Bind arguments to the parameters (fresh homes per inlined instance).
    const savedHomes = new Map<Sym, Home | undefined>(params.map((p) => [p, this.homes.get(p)]));
    // Arguments in temporaries stay there until bound, unless registers run short: then the
    // value goes to a stack slot that becomes the parameter's home (a spill, not an error).
    const parkedAt = new Map<number, number>();
    const vals = e.args.map((a, i): Val => {
      const v = this.expr(a);
      const p = params[i];
      if (v.k === 'reg' && v.temp && i < e.args.length - 1 && this.freeRegCount() < 2 && p && !p.addressTaken && (isInt(p.type) || isPtr(p.type))) {
        const slot = this.allocStack(8, 8);
        this.storeVal({ base: 'fp', off: slot }, 8, v, a.ty);
        this.release(v);
        parkedAt.set(i, slot);
        return { k: 'imm', v: 0n };
      }
      return this.pinIfR0(v, a.ty);
    });
    const savedConst = new Map<Sym, bigint | undefined>(params.map((p) => [p, this.constBind.get(p)]));
    const savedFp = new Map<Sym, number | undefined>(params.map((p) => [p, this.fpBind.get(p)]));
    params.forEach((p, i) => {
      const slot = parkedAt.get(i);
      if (slot !== undefined) {
        this.homes.set(p, { k: 'stack', off: slot });
        return;
      }
      const v = vals[i] ?? { k: 'imm', v: 0n };
      // A struct passed by value: the parameter is a copy of the argument's bytes (the value of a
      // struct expression is its address), which the body may change without the caller seeing it.
      if (p.type.k === 'struct' && v.k !== 'imm') {
        this.assignHome(p);
        const h = this.homes.get(p);
        if (h?.k !== 'stack') this.fail(`internal: struct parameter '${p.name}' has no stack home`, e.span, 'cc-internal');
        const src = this.valAddr(v);
        this.copyMem({ base: 'fp', off: h.off }, src, sizeOf(p.type), Math.min(8, alignOf(p.type)));
        this.freeAddr(src);
        return;
      }
      // A constant argument to a parameter the body never writes is that constant throughout
      // (what lets memcpy(dst, src, len) in a helper expand once `len` is known).
      if (v.k === 'imm' && !p.addressTaken && !writes(f.body!, p) && (isInt(p.type) || isPtr(p.type))) {
        this.constBind.set(p, wrapInt(v.v, p.type));
        return;
      }
      // Likewise the address of a caller's stack object: reads are fp + offset, and tests
      // of it against NULL fold, as clang folds them after inlining.
      if (v.k === 'fp' && !p.addressTaken && !writes(f.body!, p) && isPtr(p.type)) {
        this.fpBind.set(p, v.off);
        return;
      }
      // A read-only argument that is already in a register needs no copy when the body never writes it.
      if (v.k === 'reg' && !v.temp && !p.addressTaken && !writes(f.body!, p) && !(this.ranges.get(p)?.crossesCall && v.r < 6)) {
        this.homes.set(p, { k: 'reg', r: v.r });
        this.borrowed.add(p);
        return;
      }
      // A temporary becomes the parameter's home only while temporaries remain for the body's
      // expressions (nested inlining would otherwise turn all of r0-r5 into homes).
      if (v.k === 'reg' && v.temp && !p.addressTaken && (!(this.ranges.get(p)?.crossesCall) || v.r >= 6) && (isInt(p.type) || isPtr(p.type)) && (v.r >= 6 || this.freeRegCount() >= 2)) {
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
    this.checkLabels(ctx.labels);
    this.place(ctx.end);
    // The callee's locals are dead now.
    for (const s of this.localsByFn.get(f) ?? []) {
      const h = this.homes.get(s);
      if (this.borrowed.delete(s)) { this.homes.delete(s); continue; }
      if (h?.k === 'reg' && this.regOwner[h.r] === 'local' && !savedHomesUsesReg(savedHomes, h.r) && !this.homeInUse(h.r, f)) this.regOwner[h.r] = 'free';
      this.homes.delete(s);
    }
    for (const [p, h] of savedHomes) if (h) this.homes.set(p, h);
    for (const [p, o] of savedFp) {
      if (o === undefined) this.fpBind.delete(p);
      else this.fpBind.set(p, o);
    }
    for (const [p, c] of savedConst) {
      if (c === undefined) this.constBind.delete(p);
      else this.constBind.set(p, c);
    }
    this.stackTop = savedTop;
    if (discard || e.ty.k === 'void') return { k: 'imm', v: 0n };
    this.regOwner[0] = 'temp';
    return { k: 'reg', r: 0, temp: true, zext: sizeOf(e.ty) < 8 };
  }
  /** Is register r the home of a live local of a function other than f? */
  protected homeInUse(r: number, f: Sym): boolean {
    for (const [s, h] of this.homes) if (h.k === 'reg' && h.r === r && !(this.localsByFn.get(f) ?? []).includes(s)) return true;
    return false;
  }
  protected override stmtExpr(e: Expr & { k: 'stmtexpr' }, discard: boolean): Val {
    const body = e.body;
    const savedTop = this.stackTop;
    let v: Val = { k: 'imm', v: 0n };
    this.stmtExprDepth++;
    try {
      for (let i = 0; i < body.length - 1; i++) this.stmt(body[i]!);
      const last = body[body.length - 1];
      if (last) {
        if (last.k === 'expr') v = this.expr(last.e, discard);
        else this.stmt(last);
      }
    } finally {
      this.stmtExprDepth--;
    }
    // A compound literal's object is the enclosing block's: its slot stays taken until that block ends.
    if (!e.keepsStack) this.stackTop = savedTop;
    return v;
  }
}
