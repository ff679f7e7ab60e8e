/**
 * Semantic analysis, applied as the parser builds each node: C's typing
 * rules (promotions, usual arithmetic conversions, pointer arithmetic,
 * lvalues, assignment compatibility), constant folding of integer constant
 * expressions, and clang-like diagnostics and warnings. Every function
 * returns a well-typed node even after reporting an error, so one mistake
 * does not cascade.
 */
import type { AssignOp, BinOp, Expr } from './ast';
import type { DiagnosticBag, Span } from './diagnostics';
import { T, alignOf, isInt, isPtr, isScalar, promote, ptrTo, sizeOf, typeName, usualArith, wrapTo, type IntType, type Type } from './types';

export class Sema {
  constructor(readonly diags: DiagnosticBag) {}

  num(value: bigint, ty: Type, span: Span): Expr {
    return { k: 'num', value: wrapTo(value, ty), ty, span };
  }

  /** Value conversion: arrays decay to pointers, functions to function pointers. */
  rvalue(e: Expr): Expr {
    if (e.ty.k === 'array') return { k: 'addr', e, ty: ptrTo(e.ty.of), span: e.span };
    if (e.ty.k === 'func') return { k: 'addr', e, ty: ptrTo(e.ty), span: e.span };
    return e;
  }

  isLvalue(e: Expr): boolean {
    return e.k === 'var' || e.k === 'deref' || (e.k === 'member' && this.isLvalue(e.e)) || e.k === 'str';
  }

  /** Convert e to type `to` (a no-op node is elided). */
  cast(e: Expr, to: Type, implicit: boolean, span = e.span): Expr {
    e = this.rvalue(e);
    if (to.k === 'void') return { k: 'cast', e, ty: to, implicit, span };
    if (!isScalar(to)) {
      if (!implicit || to.k !== e.ty.k) this.diags.error('sema-bad-cast', `${implicit ? 'assigning to' : 'used type'} '${typeName(to)}' ${implicit ? `from incompatible type '${typeName(e.ty)}'` : 'where arithmetic or pointer type is required'}`, span);
      return { ...e, ty: to } as Expr;
    }
    if (!isScalar(e.ty)) {
      this.diags.error('sema-bad-cast', `operand of type '${typeName(e.ty)}' where arithmetic or pointer type is required`, span);
      return this.num(0n, to, span);
    }
    const c = this.constValue(e);
    if (c !== undefined && isInt(to)) return this.num(c, to, e.span);
    if (c !== undefined && isPtr(to) && e.k === 'num') return { k: 'num', value: BigInt.asUintN(64, c), ty: to, span: e.span };
    // Same representation: still a cast node (codegen reads operand types from the inner node,
    // e.g. the pointee size of pointer arithmetic, and must not see them changed).
    if (e.k === 'num' && isPtr(e.ty) && isPtr(to)) return { ...e, ty: to };
    if (e.ty === to) return e;
    return { k: 'cast', e, ty: to, implicit, span };
  }

  /** Implicit conversion as by assignment, with clang's warnings. */
  convertForAssign(e: Expr, to: Type, span: Span, what = 'assigning to'): Expr {
    e = this.rvalue(e);
    const from = e.ty;
    if (to.k === 'struct') {
      // double, long double, __int128 are opaque blobs (types.ts), one object per mention: the same name is the same type.
      const sameOpaque = to.opaque !== undefined && from.k === 'struct' && from.opaque === to.opaque;
      if (from !== to && !sameOpaque) this.diags.error('sema-incompatible', `${what} '${typeName(to)}' from incompatible type '${typeName(from)}'`, span);
      return e;
    }
    if (isPtr(to) && isInt(from)) {
      const c = this.constValue(e);
      if (c !== 0n) this.diags.warning('sema-int-conversion', `incompatible integer to pointer conversion ${what} '${typeName(to)}' from '${typeName(from)}'`, span);
    } else if (isInt(to) && isPtr(from)) {
      if (to.kind !== 'bool') this.diags.warning('sema-int-conversion', `incompatible pointer to integer conversion ${what} '${typeName(to)}' from '${typeName(from)}'`, span);
    } else if (isInt(to) && isInt(from) && to.kind !== 'bool') {
      const c = this.constValue(e);
      if (c !== undefined) {
        if (wrapTo(c, to) !== c && !(to.signed === false && wrapTo(c, to) === BigInt.asUintN(to.size * 8, c) && c < 0n && c >= -(1n << BigInt(to.size * 8 - 1)))) {
          // clang: "implicit conversion from 'int' to '__u8' changes value from 300 to 44"
          if (!(c < 0n && !to.signed)) this.diags.warning('sema-constant-conversion', `implicit conversion from '${typeName(from)}' to '${typeName(to)}' changes value from ${c} to ${wrapTo(c, to)}`, span);
        }
      }
    } else if (!isScalar(to) || !isScalar(from)) {
      this.diags.error('sema-incompatible', `${what} '${typeName(to)}' from incompatible type '${typeName(from)}'`, span);
      return this.num(0n, isScalar(to) ? to : T.int, span);
    }
    return this.cast(e, to, true, span);
  }

  /** Promote an integer operand, or decay; report non-scalars. */
  private operand(e: Expr, span: Span): Expr {
    e = this.rvalue(e);
    if (!isScalar(e.ty)) {
      this.diags.error('sema-invalid-operand', `invalid operand of type '${typeName(e.ty)}'`, span);
      return this.num(0n, T.int, span);
    }
    if (isInt(e.ty)) return this.cast(e, promote(e.ty), true);
    return e;
  }

  binary(op: BinOp, l0: Expr, r0: Expr, span: Span): Expr {
    let l = this.operand(l0, span);
    let r = this.operand(r0, span);
    const cmp = op === '==' || op === '!=' || op === '<' || op === '>' || op === '<=' || op === '>=';
    if (isPtr(l.ty) || isPtr(r.ty)) {
      if (op === '+' && isPtr(r.ty) && isInt(l.ty)) [l, r] = [r, l];
      if ((op === '+' || op === '-') && isPtr(l.ty) && isInt(r.ty)) {
        if (l.ty.to.k === 'struct' && !l.ty.to.complete) this.diags.error('sema-incomplete', `arithmetic on a pointer to an incomplete type '${typeName(l.ty.to)}'`, span);
        return { k: 'binary', op, l, r: this.cast(r, T.long, true), ty: l.ty, span };
      }
      if (op === '-' && isPtr(l.ty) && isPtr(r.ty)) return { k: 'binary', op, l, r, ty: T.long, span };
      if (cmp) {
        if (isInt(l.ty)) l = this.cast(l, r.ty, true);
        if (isInt(r.ty)) r = this.cast(r, l.ty, true);
        return this.fold({ k: 'binary', op, l, r, ty: T.int, span });
      }
      this.diags.error('sema-invalid-operands', `invalid operands to binary expression ('${typeName(l.ty)}' and '${typeName(r.ty)}')`, span);
      return this.num(0n, T.int, span);
    }
    const lt = l.ty as IntType, rt = r.ty as IntType;
    if (op === '<<' || op === '>>') {
      const c = this.constValue(r);
      if (c !== undefined && (c < 0n || c >= BigInt(lt.size * 8))) this.diags.warning('sema-shift-count', c < 0n ? 'shift count is negative' : `shift count >= width of type`, r.span);
      return this.fold({ k: 'binary', op, l, r: this.cast(r, lt.size === 8 ? T.ulong : T.uint, true), ty: lt, span });
    }
    const ct = usualArith(lt, rt);
    l = this.cast(l, ct, true);
    r = this.cast(r, ct, true);
    if ((op === '/' || op === '%') && this.constValue(r) === 0n) this.diags.warning('sema-div-zero', `${op === '/' ? 'division' : 'remainder'} by zero is undefined`, r.span);
    if (cmp) {
      if (lt.signed !== rt.signed && lt.size >= 4 && rt.size >= 4 && this.constValue(l) === undefined && this.constValue(r) === undefined) {
        this.diags.warning('sema-sign-compare', `comparison of integers of different signs: '${typeName(lt)}' and '${typeName(rt)}'`, span);
      }
      return this.fold({ k: 'binary', op, l, r, ty: T.int, span });
    }
    return this.fold({ k: 'binary', op, l, r, ty: ct, span });
  }

  logical(op: '&&' | '||', l: Expr, r: Expr, span: Span): Expr {
    l = this.condition(l);
    r = this.condition(r);
    return this.fold({ k: 'logical', op, l, r, ty: T.int, span });
  }

  condition(e: Expr): Expr {
    e = this.rvalue(e);
    if (!isScalar(e.ty)) this.diags.error('sema-not-scalar', `statement requires expression of scalar type ('${typeName(e.ty)}' invalid)`, e.span);
    return e;
  }

  unary(op: '-' | '~' | '!' | '+', e: Expr, span: Span): Expr {
    if (op === '!') return this.fold({ k: 'unary', op, e: this.condition(e), ty: T.int, span });
    e = this.operand(e, span);
    if (!isInt(e.ty)) {
      this.diags.error('sema-invalid-operand', `invalid argument type '${typeName(e.ty)}' to unary expression`, span);
      return this.num(0n, T.int, span);
    }
    if (op === '+') return e;
    return this.fold({ k: 'unary', op, e, ty: e.ty, span });
  }

  deref(e: Expr, span: Span): Expr {
    e = this.rvalue(e);
    if (!isPtr(e.ty)) {
      this.diags.error('sema-deref', `indirection requires pointer operand ('${typeName(e.ty)}' invalid)`, span);
      return this.num(0n, T.int, span);
    }
    if (e.ty.to.k === 'void') this.diags.warning('sema-deref-void', `ISO C does not allow indirection on operand of type 'void *'`, span);
    if (e.ty.to.k === 'struct' && !e.ty.to.complete) this.diags.error('sema-incomplete', `incomplete definition of type '${typeName(e.ty.to)}'`, span);
    return { k: 'deref', e, ty: e.ty.to, span };
  }

  addr(e: Expr, span: Span): Expr {
    if (e.k === 'deref') return this.rvalue(e.e).ty.k === 'ptr' ? { ...this.rvalue(e.e), ty: ptrTo(e.ty), span } : e;
    if (!this.isLvalue(e) && e.ty.k !== 'func') {
      this.diags.error('sema-addr-rvalue', 'cannot take the address of an rvalue of type ' + `'${typeName(e.ty)}'`, span);
      return this.num(0n, ptrTo(e.ty), span);
    }
    if (e.k === 'member' && e.m.bitWidth !== undefined) this.diags.error('sema-addr-bitfield', "address of bit-field requested", span);
    markAddressTaken(e);
    return { k: 'addr', e, ty: ptrTo(e.ty), span };
  }

  assign(op: AssignOp, l: Expr, r: Expr, span: Span): Expr {
    if (!this.isLvalue(l) || l.k === 'str') this.diags.error('sema-not-assignable', 'expression is not assignable', l.span);
    if (l.ty.k === 'array') this.diags.error('sema-array-assign', `array type '${typeName(l.ty)}' is not assignable`, l.span);
    if (op === '=') return { k: 'assign', op, l, r: this.convertForAssign(r, l.ty, span), ty: l.ty, span };
    // Compound: compute in the operation's type, convert back on store (codegen does the store conversion).
    const bop = op.slice(0, -1) as BinOp;
    const value = this.binary(bop, l, r, span);
    if (value.k !== 'binary') return { k: 'assign', op: '=', l, r: this.convertForAssign(value, l.ty, span), ty: l.ty, span };
    return { k: 'assign', op, l, r: value.r, ty: l.ty, span };
  }

  incdec(op: '++' | '--', prefix: boolean, e: Expr, span: Span): Expr {
    if (!this.isLvalue(e)) this.diags.error('sema-not-assignable', 'expression is not assignable', e.span);
    if (!isScalar(e.ty)) this.diags.error('sema-invalid-operand', `cannot increment value of type '${typeName(e.ty)}'`, span);
    return { k: 'incdec', op, prefix, e, ty: e.ty, span };
  }

  conditional(c: Expr, t: Expr, f: Expr, span: Span): Expr {
    c = this.condition(c);
    t = this.rvalue(t);
    f = this.rvalue(f);
    let ty: Type;
    if (isInt(t.ty) && isInt(f.ty)) {
      ty = usualArith(t.ty, f.ty);
      t = this.cast(t, ty, true);
      f = this.cast(f, ty, true);
    } else if (isPtr(t.ty) && !isPtr(f.ty)) {
      ty = t.ty;
      f = this.cast(f, ty, true);
    } else if (isPtr(f.ty) && !isPtr(t.ty)) {
      ty = f.ty;
      t = this.cast(t, ty, true);
    } else ty = t.ty;
    const cv = this.constValue(c);
    if (cv !== undefined && this.constValue(t) !== undefined && this.constValue(f) !== undefined) return cv !== 0n ? { ...t, ty } as Expr : { ...f, ty } as Expr;
    return { k: 'cond', c, t, f, ty, span };
  }

  /** Fold an integer constant expression node whose operands are constants. */
  fold(e: Expr): Expr {
    const v = this.constValue(e);
    if (v !== undefined && e.k !== 'num') return this.num(v, e.ty, e.span);
    return e;
  }

  /** The value of an integer constant expression, or undefined. */
  constValue(e: Expr): bigint | undefined {
    switch (e.k) {
      case 'num':
        return isInt(e.ty) || e.ty.k === 'ptr' ? e.value : undefined;
      case 'cast': {
        if (!isScalar(e.ty)) return undefined;
        const v = this.constValue(e.e);
        if (v === undefined) return undefined;
        return isInt(e.ty) ? wrapTo(v, e.ty) : BigInt.asUintN(64, v);
      }
      case 'addr': {
        // &((T *)0)->a.b[2]: the classic offsetof, a constant.
        let x = e.e;
        let off = 0n;
        for (;;) {
          if (x.k === 'member') { off += BigInt(x.offset); x = x.e; continue; }
          if (x.k === 'deref') {
            const base = this.constValue(x.e);
            return base === undefined || !isPtr(x.e.ty) ? undefined : BigInt.asUintN(64, base + off);
          }
          return undefined;
        }
      }
      case 'unary': {
        const v = this.constValue(e.e);
        if (v === undefined) return undefined;
        if (e.op === '!') return v === 0n ? 1n : 0n;
        return wrapTo(e.op === '-' ? -v : ~v, e.ty);
      }
      case 'logical': {
        const l = this.constValue(e.l);
        if (l === undefined) return undefined;
        if (e.op === '&&' && l === 0n) return 0n;
        if (e.op === '||' && l !== 0n) return 1n;
        const r = this.constValue(e.r);
        return r === undefined ? undefined : r !== 0n ? 1n : 0n;
      }
      case 'cond': {
        const c = this.constValue(e.c);
        if (c === undefined) return undefined;
        return this.constValue(c !== 0n ? e.t : e.f);
      }
      case 'binary': {
        if (!isInt(e.l.ty) || !isInt(e.r.ty)) return undefined;
        const l = this.constValue(e.l);
        const r = this.constValue(e.r);
        if (l === undefined || r === undefined) return undefined;
        return evalBinary(e.op, l, r, e.l.ty, e.ty);
      }
      case 'comma':
        return undefined;
      default:
        return undefined;
    }
  }

  sizeofType(t: Type, span: Span): Expr {
    if (t.k === 'struct' && !t.complete) this.diags.error('sema-incomplete', `invalid application of 'sizeof' to an incomplete type '${typeName(t)}'`, span);
    if (t.k === 'func') this.diags.error('sema-sizeof-func', "invalid application of 'sizeof' to a function type", span);
    return this.num(BigInt(sizeOf(t)), T.ulong, span);
  }
  alignofType(t: Type, span: Span): Expr {
    return this.num(BigInt(alignOf(t)), T.ulong, span);
  }
}

/** Evaluate a binary operator on constants in the operation's type. */
export function evalBinary(op: BinOp, l: bigint, r: bigint, opTy: Type, resTy: Type): bigint | undefined {
  const ot = opTy as IntType;
  const bits = ot.size * 8;
  const norm = (x: bigint): bigint => (ot.signed ? BigInt.asIntN(bits, x) : BigInt.asUintN(bits, x));
  l = norm(l);
  switch (op) {
    case '+': return wrapTo(l + r, resTy);
    case '-': return wrapTo(l - r, resTy);
    case '*': return wrapTo(l * r, resTy);
    case '/': return r === 0n ? undefined : wrapTo(l / norm(r), resTy);
    case '%': return r === 0n ? undefined : wrapTo(l % norm(r), resTy);
    case '<<': return r < 0n || r >= BigInt(bits) ? undefined : wrapTo(l << r, resTy);
    case '>>': return r < 0n || r >= BigInt(bits) ? undefined : wrapTo(l >> r, resTy);
    case '&': return wrapTo(l & r, resTy);
    case '|': return wrapTo(l | r, resTy);
    case '^': return wrapTo(l ^ r, resTy);
    case '==': return l === norm(r) ? 1n : 0n;
    case '!=': return l !== norm(r) ? 1n : 0n;
    case '<': return l < norm(r) ? 1n : 0n;
    case '>': return l > norm(r) ? 1n : 0n;
    case '<=': return l <= norm(r) ? 1n : 0n;
    case '>=': return l >= norm(r) ? 1n : 0n;
  }
}

function markAddressTaken(e: Expr): void {
  if (e.k === 'var') e.sym.addressTaken = true;
  else if (e.k === 'member') markAddressTaken(e.e);
}
