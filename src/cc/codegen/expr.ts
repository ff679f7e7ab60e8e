/**
 * Expression lowering: values, addressing (constant offsets folded into
 * each access, as the verifier wants packet accesses), loads and stores,
 * conversions per the register conventions, arithmetic (a pointer's index
 * with its constant peeled into the pointer's offset), conditions as
 * branches, assignment. Calls, statement expressions and builtins are
 * lowered by the modules above it (calls.ts, builtins.ts).
 */
import type { Expr, Sym } from '../ast';
import type { Span } from '../diagnostics';
import { evalBinary } from '../sema';
import { T, alignOf, isInt, isPtr, sizeOf, type IntType, type Member, type Type } from '../types';
import { FrameGen, type Addr, type Val } from './frame';
import { constOf, negateCmp, opType, peelConst, sizeField, swapCmp, unitType, wrapInt } from './tree';
import * as O from '../../isa/opcodes';

export abstract class ExprGen extends FrameGen {
  /** An operand already evaluated (compound assignment's left side): expr() returns it once. */
  /** Operands evaluated ahead of their expression (compound assignments): expr() hands each back once. */
  private presets: { e: Expr; v: Val }[] = [];

  protected abstract call(e: Expr & { k: 'call' }, discard: boolean): Val;
  protected abstract stmtExpr(e: Expr & { k: 'stmtexpr' }, discard: boolean): Val;
  protected abstract builtin(e: Expr & { k: 'builtin' }, discard: boolean): Val;

  protected storeLocal(sym: Sym, v: Val): void {
    const h = this.homes.get(sym);
    if (!h) return;
    if (h.k === 'reg') this.moveTo(v, h.r, this.moveType(sym, v));
    else this.storeVal({ base: 'fp', off: h.off }, sym.addressTaken ? sizeOf(sym.type) : 8, v, sym.type);
  }
  /** The type a value moves into sym's register as: cse.ts's copy of a load moves its zero-extended value whole (see Sym.loadCopy). */
  private moveType(sym: Sym, v: Val): Type {
    return sym.loadCopy === true && v.k === 'reg' && v.zext === true ? T.ulong : sym.type;
  }
  // ---- expressions ----------------------------------------------------------------
  /** Evaluate e; `discard` when only side effects matter. */
  expr(e: Expr, discard = false): Val {
    if (this.presets.length) {
      const i = this.presets.findIndex((p) => p.e === e);
      if (i >= 0) return this.presets.splice(i, 1)[0]!.v;
    }
    switch (e.k) {
      case 'num': return { k: 'imm', v: e.value };
      case 'str': return this.addrToVal(this.stringAddr(e.bytes, e.span));
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
        if (e.e.k === 'var' && e.e.sym.kind === 'func') return this.funcAddr(e.e.sym, e.span);
        const a = this.addrOf(e.e);
        return this.addrToVal(a);
      }
      case 'deref': case 'member': {
        if (e.ty.k === 'struct' || e.ty.k === 'array' || e.ty.k === 'func') {
          return this.addrToVal(this.addrOf(e));
        }
        if (e.k === 'deref' && e.ty.k === 'int') {
          const folded = stringByteLoad(e.e, e.ty);
          if (folded !== undefined) return { k: 'imm', v: folded };
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
  protected readVar(sym: Sym, span: Span): Val {
    const b = this.constBind.get(sym);
    if (b !== undefined) return { k: 'imm', v: b };
    const fp = this.fpBind.get(sym);
    if (fp !== undefined) return { k: 'fp', off: fp };
    const al = this.aliases.get(sym);
    if (al) {
      const v = this.readVar(al.base, span);
      return this.offsetVal(v, Number(al.off));
    }
    if (sym.global) {
      const m = this.ctx.maps.get(sym);
      if (m !== undefined) return { k: 'map', idx: m };
      if (sym.kind === 'func') return this.funcAddr(sym, span);
      const folds = this.ctx.foldable ? this.ctx.foldable.has(sym) : true;
      if (folds && isInt(sym.type)) {
        const p = sym.init?.parts;
        const c = !p || p.length === 0 ? (sym.init || !sym.isExtern ? 0n : undefined) : p.length === 1 && p[0]!.offset === 0 && !p[0]!.bit ? constOf(p[0]!.e) : undefined;
        if (c !== undefined) return { k: 'imm', v: c };
      }
      const a = this.globalAddr(sym, span);
      if (sym.type.k === 'struct' || sym.type.k === 'array') return this.addrToVal(a);
      return this.load(a, sym.type);
    }
    const h = this.homes.get(sym);
    if (!h) this.fail(`internal: '${sym.name}' has no location here`, span, 'cc-internal');
    // Small unsigned locals always hold their narrowed value (assignment narrows).
    const bits = isInt(sym.type) && !sym.type.signed && (sym.type.size < 4 || (sym.loadCopy && sym.type.size === 4)) ? sym.type.size * 8 : undefined;
    if (h.k === 'reg') return { k: 'reg', r: h.r, temp: false, zext: bits !== undefined, bits };
    if (sym.type.k === 'struct' || sym.type.k === 'array') return { k: 'fp', off: h.off };
    const v = this.load({ base: 'fp', off: h.off }, sym.type, sym.addressTaken ? undefined : 8);
    return v.k === 'reg' && bits !== undefined ? { ...v, bits, zext: true } : v;
  }
  /**
   * A function's address, for helpers that call back (bpf_loop's callback_fn): `lddw rX, fn`
   * with BPF_PSEUDO_FUNC, imm its offset from the next slot (set when functions are laid out),
   * the function emitted as a subprogram of its own even where calls to it are inlined.
   */
  protected funcAddr(sym: Sym, span: Span): Val {
    if (!sym.body) this.fail(`taking the address of function '${sym.name}', which is declared but not defined, is not supported`, span);
    if (!this.ctx.subprogs.includes(sym)) this.ctx.subprogs.push(sym);
    const r = this.allocTemp();
    this.emit(O.BPF_LD | O.BPF_IMM | O.BPF_DW, r, O.BPF_PSEUDO_FUNC, 0, -1, { callee: sym });
    this.out.push({ insn: { code: 0, dst: 0, src: 0, off: 0, imm: 0 }, span: this.span });
    return { k: 'reg', r, temp: true, zext: false };
  }
  /** `lddw rX, map_value + offset` (BPF_PSEUDO_MAP_VALUE): the address of global data. */
  protected mapValueAddr(map: number, offset: number): Addr {
    const r = this.allocTemp();
    this.emit(O.BPF_LD | O.BPF_IMM | O.BPF_DW, r, O.BPF_PSEUDO_MAP_VALUE, 0, 0, { map, valueOff: offset });
    this.out.push({ insn: { code: 0, dst: 0, src: 0, off: 0, imm: offset }, span: this.span });
    return { base: 'reg', reg: r, temp: true, off: 0 };
  }

  protected globalAddr(sym: Sym, span: Span): Addr {
    const ref = this.ctx.globalRef?.(sym, span);
    if (!ref) {
      if (sym.isExtern) this.fail(`extern variable '${sym.name}' has no definition here (libbpf resolves only __kconfig and __ksym externs, which are not supported)`, span, 'cc-extern');
      this.fail(`global variable '${sym.name}' is not supported here`, span, 'cc-global-var');
    }
    return this.mapValueAddr(ref.map, ref.offset);
  }

  protected stringAddr(bytes: number[], span: Span): Addr {
    const ref = this.ctx.stringRef?.(bytes);
    if (!ref) this.fail('string literals need a .rodata map, which is not available here', span);
    return this.mapValueAddr(ref.map, ref.offset);
  }

  protected addrToVal(a: Addr): Val {
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
  /** The memory a pointer value (or an aggregate's value, its address) designates. */
  protected valAddr(v: Val): Addr {
    switch (v.k) {
      case 'fp': return { base: 'fp', off: v.off };
      case 'map': return { base: 'map', off: 0, map: v.idx };
      case 'reg': return { base: 'reg', reg: v.r, temp: v.temp, off: 0 };
      case 'regoff': return { base: 'reg', reg: v.r, temp: false, off: v.off };
      default: {
        const r = this.owned(v, T.ulong);
        return { base: 'reg', reg: r.r, temp: true, off: 0 };
      }
    }
  }
  protected freeAddr(a: Addr): void {
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
          return this.globalAddr(s, e.span);
        }
        const h = this.homes.get(s);
        if (!h) this.fail(`internal: '${s.name}' has no location here`, e.span, 'cc-internal');
        if (h.k !== 'stack') this.fail(`internal: '${s.name}' is in a register but its address is needed`, e.span, 'cc-internal');
        return { base: 'fp', off: h.off };
      }
      case 'member': {
        const a = this.addrOf(e.e);
        // A member of a struct kept member by member (split.ts) is in a slot of its own; one of a
        // packed struct may sit at an offset not aligned to its size (load and storeVal split it).
        const packed = a.packed === true || (e.e.ty.k === 'struct' && e.e.ty.packed);
        if (a.base === 'fp') return { base: 'fp', off: this.splitSlot(a.off + e.offset), packed };
        return { ...a, off: a.off + e.offset, packed };
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
      case 'str': return this.stringAddr(e.bytes, e.span);
    }
    this.fail('expression is not addressable', e.span);
  }
  /** Address of *p, with p + constant folded into the offset. */
  protected pointerAddr(p: Expr): Addr {
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
    return this.valAddr(this.expr(p));
  }
  protected baseReg(a: Addr): number {
    if (a.base === 'fp') return 10;
    if (a.base === 'map') this.fail('a map is not memory the program can read or write directly; use bpf_map_lookup_elem');
    return a.reg!;
  }
  /** Load a scalar; `width` overrides the access size (8 for register-sized stack homes). */
  protected load(a: Addr, ty: Type, width?: number): Val {
    const size = width ?? sizeOf(ty);
    const base = this.baseReg(a);
    this.freeAddr(a);
    const r = this.allocTemp();
    if (a.base === 'fp' && a.packed && a.off % size !== 0) this.loadPieces(r, a.off, size);
    else this.emit(O.BPF_LDX | O.BPF_MEM | sizeField(size), r, base, a.off);
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
  /**
   * The kernel refuses a stack access not aligned to its size ("misaligned
   * stack access"); a packed struct's member can sit at such an offset
   * (`struct { __u32 a; __u64 b; } __attribute__((packed))`). clang, which
   * knows the member's alignment is less than its size, accesses it in the
   * widest pieces the offset's alignment allows, low bytes first: so do
   * these. (A cast pointer, `*(__u32 *)(key + 2)`, promises the type's
   * alignment: clang keeps that access whole, and so does the kernel's
   * refusal.) The pieces of [off, off + size).
   */
  protected stackPieces(off: number, size: number): { at: number; w: number }[] {
    const out: { at: number; w: number }[] = [];
    for (let o = 0; o < size;) {
      let w = 8;
      while (w > 1 && ((off + o) % w !== 0 || o + w > size)) w >>= 1;
      out.push({ at: off + o, w });
      o += w;
    }
    return out;
  }
  /** r = the little-endian value of [off, off + size) on the stack, read in aligned pieces. */
  protected loadPieces(r: number, off: number, size: number): void {
    const t = this.allocTemp([r]);
    this.stackPieces(off, size).forEach(({ at, w }, i) => {
      const dst = i === 0 ? r : t;
      this.emit(O.BPF_LDX | O.BPF_MEM | sizeField(w), dst, 10, at);
      if (i === 0) return;
      if (at - off) this.emit(O.BPF_ALU64 | O.BPF_LSH | O.BPF_K, t, 0, 0, (at - off) * 8);
      this.emit(O.BPF_ALU64 | O.BPF_OR | O.BPF_X, r, t);
    });
    this.release({ k: 'reg', r: t, temp: true });
  }
  protected storeVal(a: Addr, size: number, v: Val, _ty: Type): void {
    const base = this.baseReg(a);
    if (a.base === 'fp' && a.packed && a.off % size !== 0) {
      this.storePieces(a.off, size, v);
      return;
    }
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
  /** storeVal of v to [off, off + size) on the stack in aligned pieces (stackPieces), low bytes first. */
  protected storePieces(off: number, size: number, v: Val): void {
    const pieces = this.stackPieces(off, size);
    if (v.k === 'imm') {
      for (const { at, w } of pieces) this.emit(O.BPF_ST | O.BPF_MEM | sizeField(w), 10, 0, at, Number(BigInt.asIntN(32, BigInt.asIntN(w * 8, v.v >> BigInt((at - off) * 8)))));
      return;
    }
    const r = this.toReg(v, size === 8 ? T.ulong : T.uint);
    const t = this.allocTemp([r.r]);
    this.emit(O.BPF_ALU64 | O.BPF_MOV | O.BPF_X, t, r.r);
    pieces.forEach(({ at, w }, i) => {
      if (i > 0) this.emit(O.BPF_ALU64 | O.BPF_RSH | O.BPF_K, t, 0, 0, pieces[i - 1]!.w * 8);
      this.emit(O.BPF_STX | O.BPF_MEM | sizeField(w), 10, t, at);
    });
    this.release({ k: 'reg', r: t, temp: true });
    if (r !== v) this.release(r);
  }
  protected store(size: number, _base: 'fp', _reg: number, off: number, v: Val): void {
    this.storeVal({ base: 'fp', off }, size, v, T.ulong);
  }
  protected loadBitfield(a: Addr, m: Member): Val {
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
  protected storeBitfield(a: Addr, m: Member, v: Val): void {
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
  /** Convert a value of type `from` to type `to`, per the register conventions above. */
  protected convert(v: Val, from: Type, to: Type): Val {
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
      // A value known to fit in fewer bits than its signed type, already zero-extended to 64
      // bits, is non-negative: sign extension would change nothing (a u8 offset promoted to int).
      if (fsigned && v.zext && v.bits !== undefined && v.bits < fs * 8) return v;
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
  protected binary(e: Expr & { k: 'binary' }): Val {
    const ty = e.ty;
    // Pointer arithmetic: scale the integer side.
    if (isPtr(ty) && isPtr(e.l.ty)) {
      // p + (x + c) * k is (p + x * k) + c * k: the constant joins the pointer's fixed offset.
      const peeled = e.op === '+' && constOf(e.r) === undefined ? peelConst(e.r) : undefined;
      if (peeled && peeled.c !== 0n) {
        const inner: Expr = { ...e, r: peeled.e };
        return this.binary({ ...e, l: inner, r: { k: 'num', value: peeled.c, ty: T.long, span: e.r.span } });
      }
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
    const bitsOf = (v: Val): number | undefined => (v.k === 'imm' ? (BigInt.asUintN(64, v.v) === 0n ? 0 : BigInt.asUintN(64, v.v).toString(2).length) : v.k === 'reg' ? v.bits : undefined);
    const lb = bitsOf(lv), rb = bitsOf(rv);
    const width = is64 ? 64 : 32;
    // Signed division of two values known to be non-negative is unsigned division (clang's
    // instcombine makes the same change, so the instruction and -mcpu agree with it).
    const nonNegative = (b: number | undefined, v: Val): boolean => b !== undefined && b < width && (v.k !== 'imm' || wrapInt(v.v, ty) >= 0n);
    const sdiv = signed && (e.op === '/' || e.op === '%') && !(nonNegative(lb, lv) && nonNegative(rb, rv) && !(rv.k === 'imm' && rv.v === 0n)) ? 1 : 0;
    let resultBits: number | undefined;
    if (e.op === '&') resultBits = lb !== undefined && rb !== undefined ? Math.min(lb, rb) : lb ?? rb;
    else if ((e.op === '|' || e.op === '^') && lb !== undefined && rb !== undefined) resultBits = Math.max(lb, rb);
    else if (e.op === '>>' && !signed && lb !== undefined) resultBits = rv.k === 'imm' ? Math.max(0, lb - Number(BigInt.asUintN(8, rv.v))) : lb;
    if (resultBits !== undefined && resultBits >= (is64 ? 64 : 32)) resultBits = undefined;
    const l = this.owned(lv, ty, rv.k === 'reg' ? [rv.r] : []);
    const cls = is64 ? O.BPF_ALU64 : O.BPF_ALU;
    if (rv.k === 'imm') {
      const c = is64 ? BigInt.asIntN(64, rv.v) : BigInt.asIntN(32, rv.v);
      if (!sdiv && (e.op === '*' || e.op === '/') && c > 0n && (c & (c - 1n)) === 0n) {
        this.emit(cls | (e.op === '*' ? O.BPF_LSH : O.BPF_RSH) | O.BPF_K, l.r, 0, 0, c.toString(2).length - 1);
      } else if (!sdiv && e.op === '%' && c > 0n && (c & (c - 1n)) === 0n && c <= 1n << 30n) {
        // An unsigned remainder by a power of two is a mask.
        this.emit(cls | O.BPF_AND | O.BPF_K, l.r, 0, 0, Number(c - 1n));
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
  protected scale(idx: Val & { k: 'reg' }, scale: number): Val & { k: 'reg' } {
    if ((scale & (scale - 1)) === 0) this.emit(O.BPF_ALU64 | O.BPF_LSH | O.BPF_K, idx.r, 0, 0, Math.log2(scale));
    else this.emit(O.BPF_ALU64 | O.BPF_MUL | O.BPF_K, idx.r, 0, 0, scale);
    return idx;
  }
  /** Evaluate two operands; the one that calls goes first so no temporary lives across a call. */
  protected evalPair(l: Expr, r: Expr): [Val, Val] {
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
    // Too few registers left for the right side while the left holds one: park the left value on the
    // stack meanwhile (an 8-byte spill, which the verifier tracks like the register), rather than run out.
    if (lv.k === 'reg' && lv.temp && regNeed(r, (v) => (this.homes.get(v)?.k === 'reg' || this.constBind.has(v) ? 0 : 1)) > this.freeRegCount()) {
      const top = this.stackTop;
      const slot = this.allocStack(8, 8);
      this.storeVal({ base: 'fp', off: slot }, 8, lv, l.ty);
      this.release(lv);
      const rv = this.expr(r);
      const back = this.load({ base: 'fp', off: slot }, T.ulong, 8);
      // The slot (and whatever the right side took above it) is free again once read back.
      this.stackTop = top;
      return [back, rv];
    }
    return [lv, this.expr(r)];
  }
  /** Move a call's result out of r0 when more code will run before it is used. */
  protected pinIfR0(v: Val, ty: Type): Val {
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
  protected select(c: Expr, t: Expr, f: Expr, ty: Type): Val {
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
  protected condValue(e: Expr): Val {
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
          if ((op === '==' || op === '!=') && ((isNonNullAddress(a) && b.k === 'imm' && b.v === 0n) || (isNonNullAddress(b) && a.k === 'imm' && a.v === 0n))) {
            // &local == NULL is false, &local != NULL true.
            if ((op === '!=') === when) this.jmp(target);
            return;
          }
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
    if (isNonNullAddress(v)) {
      // The address of a stack object is never NULL: clang drops the test, and the verifier
      // would otherwise explore a NULL path that reads what was never written.
      if (when) this.jmp(target);
      return;
    }
    const is64 = sizeOf(e.ty) === 8 || e.ty.k !== 'int';
    const r = this.toReg(v, e.ty);
    this.cmpJump(when ? '!=' : '==', r, { k: 'imm', v: 0n }, is64, false, target);
    this.release(r);
  }
  protected cmpJump(op: string, a: Val & { k: 'reg' }, b: Val, is64: boolean, signed: boolean, target: number): void {
    const code = ({ '==': O.BPF_JEQ, '!=': O.BPF_JNE, '<': signed ? O.BPF_JSLT : O.BPF_JLT, '<=': signed ? O.BPF_JSLE : O.BPF_JLE, '>': signed ? O.BPF_JSGT : O.BPF_JGT, '>=': signed ? O.BPF_JSGE : O.BPF_JGE } as Record<string, number>)[op]!;
    this.jumpOp(code, a, b, is64, target);
  }
  protected jumpOp(code: number, a: Val & { k: 'reg' }, b: Val, is64: boolean, target: number): void {
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
  protected assign(e: Expr & { k: 'assign' }, discard: boolean): Val {
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
      const ty = this.moveType(target.sym, v);
      this.moveTo(v, h.r, ty);
      this.release(v);
      if (discard) return { k: 'imm', v: 0n };
      // A whole copy of a load keeps what readVar knows of it (zero-extended).
      return ty !== target.sym.type ? this.readVar(target.sym, target.span) : { k: 'reg', r: h.r, temp: false };
    }
    // Memory: evaluate a calling right side first, then the address (C leaves their order open; the
    // address and the current value held across a call, or an inlined body, would tie up registers).
    let rv: Val | undefined;
    if (this.containsCall(e.r)) rv = this.pinIfR0(this.expr(e.r), e.r.ty);
    const stackHome = target.k === 'var' && !target.sym.global ? this.homes.get(target.sym) : undefined;
    const width = stackHome?.k === 'stack' && target.k === 'var' && !target.sym.addressTaken ? 8 : sizeOf(lt);
    const a = this.addrOf(target);
    const keep: Addr = { ...a, temp: false };
    let v: Val;
    if (e.op === '=') v = rv ?? this.expr(e.r);
    else {
      const cur = target.k === 'member' && target.m.bitWidth !== undefined ? this.loadBitfield(keep, target.m) : this.load(keep, lt, width);
      v = this.compound(e, cur, rv);
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
  protected narrowForStore(v: Val, from: Type, to: Type): Val {
    return this.convert(v, from, to);
  }
  /** The value of `l op= r` given l's current value. */
  /** `l op= r` from l's current value; rv: r, when it was evaluated first. */
  protected compound(e: Expr & { k: 'assign' }, cur: Val, rv?: Val): Val {
    const bop = e.op.slice(0, -1) as '+';
    const ot = opType(e);
    const lhsConv = this.convert(cur, e.l.ty, isPtr(e.l.ty) ? e.l.ty : ot);
    const fake: Expr = { k: 'binary', op: bop, l: { k: 'num', value: 0n, ty: isPtr(e.l.ty) ? e.l.ty : ot, span: e.span }, r: e.r, ty: isPtr(e.l.ty) ? e.l.ty : ot, span: e.span };
    if (rv === undefined) return this.binaryWith(fake as Expr & { k: 'binary' }, lhsConv);
    const depth = this.presets.length;
    this.presets.push({ e: e.r, v: rv });
    try {
      return this.binaryWith(fake as Expr & { k: 'binary' }, lhsConv);
    } finally {
      // Never left behind: an inlined body's nodes are lowered again at its next call site.
      this.presets.length = Math.min(this.presets.length, depth);
    }
  }
  /** binary() with the left operand already evaluated. */
  protected binaryWith(e: Expr & { k: 'binary' }, lv: Val): Val {
    // The left operand's node evaluates to lv once (a field, not a wrapper around expr():
    // wrappers would nest with every compound assignment and make compiling quadratic).
    const depth = this.presets.length;
    this.presets.push({ e: e.l, v: lv });
    try {
      return this.binary(e);
    } finally {
      this.presets.length = Math.min(this.presets.length, depth);
    }
  }

  protected incdec(e: Expr & { k: 'incdec' }, discard: boolean): Val {
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
  // ---- memory blocks -----------------------------------------------------------------
  copyMem(dst: Addr, src: Addr, size: number, align: number, backward = false): void {
    const sb = this.baseReg(src);
    const db = this.baseReg(dst);
    const t = this.allocTemp([sb, db]);
    const parts = memChunks(size, align);
    if (backward) parts.reverse();
    for (const { o, w } of parts) {
      this.emit(O.BPF_LDX | O.BPF_MEM | sizeField(w), t, sb, src.off + o);
      this.emit(O.BPF_STX | O.BPF_MEM | sizeField(w), db, t, dst.off + o);
    }
    this.release({ k: 'reg', r: t, temp: true });
    this.freeAddr(dst);
  }
  /**
   * memmove: the regions may overlap, and the destination must end up with
   * the source's bytes as they were before the copy (test_xdp_vlan.c's
   * `__builtin_memmove(data + 4, data, 12)` shifts the MAC addresses over a
   * VLAN tag). clang loads every part before storing any. With one base
   * register (or both on the stack) the overlap is known: a destination
   * above the source is copied from the last part down, so no part is read
   * after it was overwritten; otherwise from the first part up, as memcpy.
   * With different bases all parts are loaded first, as clang does, when
   * the temporaries suffice; else the bytes go through a stack buffer.
   */
  moveMem(dst: Addr, src: Addr, size: number, align: number): void {
    const sameBase = src.base === dst.base && (src.base === 'fp' || (src.base === 'reg' && src.reg === dst.reg));
    if (sameBase) {
      this.copyMem(dst, src, size, align, dst.off > src.off && dst.off < src.off + size);
      return;
    }
    const parts = memChunks(size, align);
    const sb = this.baseReg(src);
    const db = this.baseReg(dst);
    const spare = [1, 2, 3, 4, 5, 0].filter((r) => this.regOwner[r] === 'free' && r !== sb && r !== db).length;
    if (parts.length <= spare) {
      const held = parts.map(({ o, w }) => {
        const t = this.allocTemp([sb, db]);
        this.emit(O.BPF_LDX | O.BPF_MEM | sizeField(w), t, sb, src.off + o);
        return t;
      });
      parts.forEach(({ o, w }, i) => this.emit(O.BPF_STX | O.BPF_MEM | sizeField(w), db, held[i]!, dst.off + o));
      for (const t of held) this.release({ k: 'reg', r: t, temp: true });
      this.freeAddr(dst);
      return;
    }
    const buf: Addr = { base: 'fp', off: this.allocStack(size, 8) };
    this.copyMem(buf, { ...src, temp: false }, size, align);
    this.copyMem(dst, buf, size, Math.min(8, align));
  }
}

/** A block of `size` bytes as the parts one load/store pair moves: `align`-wide (at most 8), narrower at the tail. */
function memChunks(size: number, align: number): { o: number; w: number }[] {
  const parts: { o: number; w: number }[] = [];
  let o = 0;
  while (o < size) {
    let w = Math.min(8, align);
    while (w > 1 && o + w > size) w >>= 1;
    parts.push({ o, w });
    o += w;
  }
  return parts;
}

/** A value that is the address of a stack slot (fp + constant): never NULL. */
function isNonNullAddress(v: Val): boolean {
  return v.k === 'fp';
}

/**
 * A read from a string literal at a constant offset (`"0123…"[3]`, `*((const
 * char *)STR + 2)`) is a constant: clang folds it and the program never
 * reads .rodata for it. Out of the literal's bounds the read is undefined
 * (clang folds it to poison, and whatever depends on it with it); it is 0
 * here, a constant still, so no out-of-bounds read of the map is left for
 * the verifier to refuse (xdp-dnsrrl's siphash stringifies a secret defined
 * only after its use, and indexes the shorter string past its end).
 */
function stringByteLoad(p: Expr, ty: IntType): bigint | undefined {
  let off = 0n;
  let x = p;
  for (;;) {
    if (x.k === 'cast' && isPtr(x.ty)) { x = x.e; continue; }
    if (x.k === 'addr' && x.e.k === 'str') { x = x.e; break; }
    if (x.k === 'binary' && (x.op === '+' || x.op === '-') && isPtr(x.ty) && sizeOf(x.ty.to) === 1) {
      const c = constOf(x.r);
      if (c === undefined) return undefined;
      off += x.op === '+' ? c : -c;
      x = x.l;
      continue;
    }
    break;
  }
  if (x.k !== 'str') return undefined;
  let v = 0n;
  for (let i = 0; i < ty.size; i++) {
    const at = off + BigInt(i);
    const b = at >= 0n && at < BigInt(x.bytes.length) ? x.bytes[Number(at)]! : 0;
    v |= BigInt(b) << BigInt(8 * i);
  }
  return wrapInt(v, ty);
}

/**
 * Registers an expression's evaluation may hold at once (Sethi-Ullman
 * numbering, roughly: a variable on the stack counts as a register, one in a
 * register as none, a call, builtin or
 * statement expression as all six temporaries).
 */
function regNeed(e: Expr, varNeed: (s: Sym) => number): number {
  const n = (x: Expr): number => regNeed(x, varNeed);
  switch (e.k) {
    case 'num': return 0;
    case 'str': return 1;
    case 'var': return varNeed(e.sym);
    case 'cast': case 'unary': case 'deref': case 'member': case 'addr': return Math.max(1, n(e.e));
    case 'binary': {
      const l = n(e.l), r = n(e.r);
      const both = Math.max(l, r + 1, 1);
      // A comparison made a value also needs its result register.
      return ['==', '!=', '<', '>', '<=', '>='].includes(e.op) ? both + 1 : both;
    }
    case 'incdec': return 2;
    case 'assign': return Math.max(n(e.r), 1) + (e.l.k === 'var' ? 0 : 1);
    case 'cond': return Math.max(n(e.c), n(e.t), n(e.f)) + 1;
    case 'logical': return Math.max(n(e.l), n(e.r)) + 1;
    case 'comma': return Math.max(n(e.l), n(e.r));
    default: return 6; // calls (evalPair parks across them already), builtins, statement expressions
  }
}
