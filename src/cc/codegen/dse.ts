/**
 * Stores to locals nobody reads, removed as clang's dead store
 * elimination removes them (a tree pass, run before liveness).
 *
 * Why: what clang deletes the verifier never sees. A learner's
 *   for (i = 0; i < 60; i++) { if (data + i > data_end) break; x ^= data[i]; }
 * with `x` never read afterwards is accepted by the kernel in clang's build
 * (the loads are gone with `x`), while the same loads kept in ours read one
 * byte past the checked range and are refused ("offset is outside of the
 * packet").
 *
 * A local is dead when it is an integer or pointer that is not global,
 * static, volatile or address-taken, and its value is never read except by
 * the right side of an assignment to itself (`x ^= data[i]`, `x = x + 1`,
 * `x++`). Its assignments that stand as whole statements (an expression
 * statement or a `for` step), and its declaration's initialiser, are
 * dropped when their right side has no effect: no call, assignment,
 * increment, builtin, statement expression or volatile access (a volatile
 * local, a pointer declared to volatile, a cast to one). Anything
 * else about them is left as written.
 */
import type { Expr, Stmt, Sym } from '../ast';
import { isInt, isPtr } from '../types';
import { walkExprs, walkStmts } from './tree';

/** Remove the dead stores of one function body, in place. */
export function removeDeadStores(body: Stmt): void {
  const candidates = new Set<Sym>();
  walkStmts(body, (s) => {
    if (s.k !== 'decl') return;
    const v = s.sym;
    if (v.kind === 'var' && !v.global && !v.isStatic && !v.isVolatile && !v.addressTaken && (isInt(v.type) || isPtr(v.type))) candidates.add(v);
  });
  if (candidates.size === 0) return;
  const read = new Set<Sym>();
  /** Reads in e, except of `self`, whose value only flows back into itself there. */
  const reads = (e: Expr | undefined, self?: Sym): void => {
    if (!e) return;
    walkExprs({ k: 'expr', e, span: e.span }, (x) => {
      if (x.k === 'var' && x.sym !== self) read.add(x.sym);
      // The left side of an assignment inside an expression is written, not read; a plain `var` there is
      // still walked above, which only keeps a local alive (conservative).
    });
  };
  /** A statement-level expression: an assignment or increment of a local writes it without using its value. */
  const stmtExpr = (e: Expr | undefined): void => {
    if (!e) return;
    if (e.k === 'assign' && e.l.k === 'var') { reads(e.r, e.l.sym); return; }
    if (e.k === 'incdec' && e.e.k === 'var') return;
    reads(e);
  };
  walkStmts(body, (s) => {
    switch (s.k) {
      case 'expr': stmtExpr(s.e); return;
      case 'decl': for (const p of s.init?.parts ?? []) reads(p.e, s.sym); return;
      case 'if': case 'while': case 'dowhile': reads(s.c); return;
      case 'for': reads(s.c); stmtExpr(s.step); return;
      case 'switch': reads(s.e); return;
      case 'return': reads(s.e); return;
      default: return;
    }
  });
  const dead = new Set([...candidates].filter((v) => !read.has(v)));
  if (dead.size === 0) return;
  const removable = (e: Expr): boolean => {
    if (e.k === 'incdec') return e.e.k === 'var' && dead.has(e.e.sym);
    return e.k === 'assign' && e.l.k === 'var' && dead.has(e.l.sym) && pure(e.r);
  };
  const nothing = (e: Expr): Expr => ({ k: 'num', value: 0n, ty: e.ty, span: e.span });
  walkStmts(body, (s) => {
    if (s.k === 'expr' && removable(s.e)) s.e = nothing(s.e);
    else if (s.k === 'for' && s.step && removable(s.step)) s.step = undefined;
    else if (s.k === 'decl' && dead.has(s.sym) && s.init && s.init.parts.every((p) => pure(p.e))) s.init = undefined;
  });
}

/** No effect but its value: reads of locals and memory, constants, arithmetic. */
function pure(e: Expr): boolean {
  let ok = true;
  walkExprs({ k: 'expr', e, span: e.span }, (x) => {
    if (x.k === 'call' || x.k === 'stmtexpr' || x.k === 'inline' || x.k === 'assign' || x.k === 'incdec' || x.k === 'builtin') ok = false;
    if (x.k === 'var' && (x.sym.isVolatile || x.sym.pointsToVolatile)) ok = false;
    if (x.k === 'cast' && x.volatile) ok = false;
  });
  return ok;
}
