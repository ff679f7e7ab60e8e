/**
 * Pure helpers over the typed tree and the encoding that every lowering
 * module shares: constant values, integer wrapping, comparison algebra,
 * tree walks, and the induction-variable plan that `#pragma unroll` uses.
 * Nothing here emits code or holds state.
 */
import type { Expr, Stmt, Sym } from '../ast';
import { T, alignOf, isInt, isPtr, sizeOf, type IntType, type Type } from '../types';
import type { Home } from './frame';
import * as O from '../../isa/opcodes';

export function sizeField(size: number): number {
  return size === 1 ? O.BPF_B : size === 2 ? O.BPF_H : size === 4 ? O.BPF_W : O.BPF_DW;
}
export function unitType(size: number): Type {
  return size === 1 ? T.uchar : size === 2 ? T.ushort : size === 4 ? T.uint : T.ulong;
}
export function wrapInt(v: bigint, t: Type): bigint {
  if (t.k !== 'int') return BigInt.asUintN(64, v);
  if (t.kind === 'bool') return v !== 0n ? 1n : 0n;
  return t.signed ? BigInt.asIntN(t.size * 8, v) : BigInt.asUintN(t.size * 8, v);
}
export function swapCmp(op: string): '==' {
  return ({ '==': '==', '!=': '!=', '<': '>', '>': '<', '<=': '>=', '>=': '<=' } as unknown as Record<string, '=='>)[op]!;
}
export function negateCmp(op: string): '==' {
  return ({ '==': '!=', '!=': '==', '<': '>=', '>': '<=', '<=': '>', '>=': '<' } as unknown as Record<string, '=='>)[op]!;
}
export function opType(e: Expr & { k: 'assign' }): Type {
  // The right operand of a compound assignment carries the operation type (sema converted it).
  return isPtr(e.l.ty) ? T.long : e.r.ty.k === 'int' && e.r.ty.size >= 4 ? e.r.ty : T.int;
}
/** Alignment known for what a pointer expression points to (before any cast to void *). */
export function ptrAlign(e: Expr): number {
  let x = e;
  while (x.k === 'cast' && isPtr(x.ty)) {
    if (isPtr(x.e.ty) && (x.e.ty as { to: Type }).to.k !== 'void') return alignOf((x.e.ty as { to: Type }).to);
    x = x.e;
  }
  if (x.k === 'addr') return inPacked(x.e) ? 1 : alignOf(x.e.ty);
  if (isPtr(x.ty) && x.ty.to.k !== 'void') return alignOf(x.ty.to);
  return 1;
}

/**
 * Whether an lvalue is a member reached through a packed struct (`&old.ip`
 * with old packed): its alignment is 1 whatever its type's, as clang takes
 * it; a copy through its address must not assume more (a 4-byte stack read
 * at fp-10 is "misaligned stack access" to the kernel).
 */
function inPacked(e: Expr): boolean {
  for (let x = e; x.k === 'member'; x = x.e) if (x.e.ty.k === 'struct' && x.e.ty.packed) return true;
  return false;
}

/** The value of a constant expression node (sema folded them to 'num'). */
/** The helper a function pointer names (`static … (*bpf_x)(…) = (void *) ID`, or a bare number), casts aside; undefined otherwise. */
export function helperIdOf(e: Expr): number | undefined {
  let f = e;
  while (f.k === 'cast') f = f.e;
  if (f.k === 'var') return f.sym.helperId;
  return f.k === 'num' ? Number(f.value) : undefined;
}

export function constOf(e: Expr): bigint | undefined {
  if (e.k === 'num') return e.value;
  if (e.k === 'cast' && e.ty.k === 'int') {
    const v = constOf(e.e);
    return v === undefined ? undefined : wrapInt(v, e.ty);
  }
  return undefined;
}

export function endsFlow(s: Stmt): boolean {
  if (s.k === 'return' || s.k === 'break' || s.k === 'continue' || s.k === 'goto') return true;
  if (s.k === 'block' && s.body.length) return endsFlow(s.body[s.body.length - 1]!);
  return false;
}

export function savedHomesUsesReg(m: Map<Sym, Home | undefined>, r: number): boolean {
  for (const h of m.values()) if (h?.k === 'reg' && h.r === r) return true;
  return false;
}

/** Does the statement assign to (or take the address of) sym? */
export function writes(s: Stmt, sym: Sym): boolean {
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
export function inductionPlan(s: Stmt & { k: 'for' }): { sym: Sym; values: bigint[]; final?: bigint } | undefined {
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
export function walkExprs(s: Stmt, f: (e: Expr) => void): void {
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

export function walkStmts(s: Stmt | undefined, f: (s: Stmt) => void): void {
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

/**
 * e as x + c with c a constant, when that holds for every value: the sums,
 * differences, products and left shifts by a constant on the way are signed
 * (overflow is undefined, so clang's nsw lets it distribute) or 64 bits wide
 * (they wrap as the pointer sum they index does), and the conversions widen
 * signed values. `(len + 1) * 8` is `len * 8` and 8. Undefined when no
 * constant comes out or e is constant itself. Only a positive c, and x
 * known not negative: the pointer then only ever moves forward, from the
 * object's start to where the whole index put it, and the variable part
 * the verifier checks stays >= 0 (a negative one is refused: "min value is
 * negative"). A product or shift it makes
 * (`len * 8`) below 64 bits must be known not to overflow (its operands'
 * ranges bound it): it would wrap in a 32-bit register where the whole
 * never did.
 */
export function peelConst(e: Expr): { e: Expr; c: bigint } | undefined {
  const p = peelConstRaw(e);
  return p && p.c > 0n && (intRange(p.e)?.[0] ?? -1n) >= 0n ? p : undefined;
}

/** The values e can take, when its operands bound them and no step overflows its type. */
function intRange(e: Expr): [bigint, bigint] | undefined {
  if (!isInt(e.ty)) return undefined;
  const bits = BigInt(sizeOf(e.ty) * 8), signed = (e.ty as IntType).signed;
  const fits = (r: [bigint, bigint]): [bigint, bigint] | undefined =>
    (signed ? r[0] >= -(1n << (bits - 1n)) && r[1] < 1n << (bits - 1n) : r[0] >= 0n && r[1] < 1n << bits) ? r : undefined;
  const c = constOf(e);
  if (c !== undefined) return fits([c, c]);
  if (e.k === 'cast' && isInt(e.e.ty)) {
    const from = e.e.ty as IntType, fb = BigInt(sizeOf(from) * 8);
    const whole: [bigint, bigint] = from.signed ? [-(1n << (fb - 1n)), (1n << (fb - 1n)) - 1n] : [0n, (1n << fb) - 1n];
    return fits(intRange(e.e) ?? whole);
  }
  if (e.k !== 'binary') return undefined;
  const l = intRange(e.l), r = intRange(e.r);
  if (!l || !r) return undefined;
  const span = (xs: bigint[]): [bigint, bigint] => [xs.reduce((a, b) => (b < a ? b : a)), xs.reduce((a, b) => (b > a ? b : a))];
  if (e.op === '+') return fits([l[0] + r[0], l[1] + r[1]]);
  if (e.op === '-') return fits([l[0] - r[1], l[1] - r[0]]);
  if (e.op === '*') return fits(span([l[0] * r[0], l[0] * r[1], l[1] * r[0], l[1] * r[1]]));
  if (e.op === '<<' && r[0] === r[1] && r[0] >= 0n && r[0] < bits && l[0] >= 0n) return fits([l[0] << r[0], l[1] << r[0]]);
  return undefined;
}

function peelConstRaw(e: Expr): { e: Expr; c: bigint } | undefined {
  const exact = (t: Type): boolean => isInt(t) && ((t as IntType).signed || sizeOf(t) === 8);
  if (!exact(e.ty)) return undefined;
  if (e.k === 'cast') {
    if (!isInt(e.e.ty) || !(e.e.ty as IntType).signed || sizeOf(e.e.ty) > sizeOf(e.ty)) return undefined;
    const p = peelConstRaw(e.e);
    return p && { e: { ...e, e: p.e }, c: p.c };
  }
  if (e.k !== 'binary' || !isInt(e.l.ty) || sizeOf(e.l.ty) !== sizeOf(e.ty) || (e.l.ty as IntType).signed !== (e.ty as IntType).signed) return undefined;
  const lc = constOf(e.l), rc = constOf(e.r);
  if (lc !== undefined && rc !== undefined) return undefined;
  const sameTy = (x: Expr): boolean => isInt(x.ty) && sizeOf(x.ty) === sizeOf(e.ty) && (x.ty as IntType).signed === (e.ty as IntType).signed;
  if ((e.op === '+' || e.op === '-' || e.op === '*') && !sameTy(e.r)) return undefined;
  if (e.op === '+' || e.op === '-') {
    if (rc !== undefined) {
      const p = peelConstRaw(e.l);
      return { e: p ? p.e : e.l, c: (p ? p.c : 0n) + (e.op === '+' ? rc : -rc) };
    }
    if (lc !== undefined && e.op === '+') {
      const p = peelConstRaw(e.r);
      return { e: p ? p.e : e.r, c: (p ? p.c : 0n) + lc };
    }
    return undefined;
  }
  if (e.op === '*' && (rc !== undefined || lc !== undefined)) {
    const k = rc ?? lc!;
    const p = peelConstRaw(rc !== undefined ? e.l : e.r);
    const m: Expr | undefined = p && { ...e, l: p.e, r: { k: 'num', value: k, ty: e.ty, span: e.span } };
    return p && m && (sizeOf(e.ty) === 8 || intRange(m)) ? { e: m, c: p.c * k } : undefined;
  }
  if (e.op === '<<' && rc !== undefined && rc >= 0n && rc < BigInt(sizeOf(e.ty) * 8)) {
    const p = peelConstRaw(e.l);
    const m: Expr | undefined = p && { ...e, l: p.e };
    return p && m && (sizeOf(e.ty) === 8 || intRange(m)) ? { e: m, c: p.c << rc } : undefined;
  }
  return undefined;
}
