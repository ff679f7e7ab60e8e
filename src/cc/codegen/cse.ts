/**
 * Bounds-checked pointers, reused: `if (p + len + K > data_end) …; q = p + len;`
 * computes `p + len` twice, and the verifier gives each computation of a
 * packet pointer plus a variable a fresh id — the range learnt by the check
 * belongs to the first one only, so the access through the second is
 * rejected ("invalid access to packet"). clang's CSE computes it once. This
 * pass does the same at the tree level: a pointer-plus-variable sum used in
 * an if condition and again in the statements after it (in the same block,
 * with none of its variables written in between) is computed once into a
 * new local.
 *
 * Where the sum is computed keeps the source's order of evaluation, because
 * the kernel bounds a packet pointer's variable part when the pointer is
 * made: `if (off > 255 || data + off > data_end) return NULL; return data +
 * off;` must add after the `off > 255` test (xdpwall.c in the kernel's
 * selftests; added first, the pointer's offset may reach 0xffff and no
 * data_end check gives it a range: "R8 offset is outside of the packet").
 * A sum the condition always evaluates is declared just before the if; one
 * in a later operand of the condition's top `||` chain is assigned where it
 * is evaluated (`off > 255 || (t = data + off) > data_end`), when the if's
 * body cannot fall through: the statements after it then run only when
 * every operand was evaluated. A sum evaluated only on some paths
 * otherwise (after `&&`, in `?:` arms) is left alone.
 */
import { nextSymId, type Expr, type Stmt, type Sym } from '../ast';
import { isInt, isPtr } from '../types';
import { constOf, endsFlow, walkExprs, walkStmts, writes } from './tree';

const done = new WeakSet<Stmt>();

/** Rewrite fn's body in place (once per function, however often it is inlined). */
export function reuseCheckedPointers(body: Stmt): void {
  if (done.has(body)) return;
  done.add(body);
  visitBlocks(body);
}

function visitBlocks(s: Stmt | undefined): void {
  if (!s) return;
  switch (s.k) {
    case 'block': {
      sinkLoads(s.body);
      for (let k = 0; k < s.body.length; k++) {
        const st = s.body[k]!;
        visitBlocks(st);
        if (st.k !== 'if') continue;
        const decl = hoist(st, s.body, k) ?? reuseLoad(st, s.body, k);
        if (decl) { s.body.splice(k, 0, decl); k++; }
      }
      return;
    }
    case 'if': visitBlocks(s.t); visitBlocks(s.f); return;
    case 'while': case 'dowhile': case 'for': visitBlocks(s.body); return;
    case 'switch': visitBlocks(s.body); return;
    default: return;
  }
}

/** A candidate: `ptr + (non-constant integer)`, through casts. */
function isPtrSum(e: Expr): boolean {
  return e.k === 'binary' && e.op === '+' && isPtr(e.ty) && constOf(e.r) === undefined && simple(e.l) && simple(e.r);
}

/** Operators of a simple expression: pure on BPF (no division, whose by-zero result differs by width). */
const PURE_OPS = new Set(['+', '-', '*', '&', '|', '^', '<<', '>>']);

/**
 * Reads of locals, casts, constants and pure arithmetic on them only:
 * evaluating it twice gives the same value. Arithmetic lets a sum's base
 * be itself a sum (`m + 14 + off`: the check `m + 14 + off + 8 > end` and
 * the read `*(m + 14 + off + 2)` share it, as clang's reassociation does).
 */
function simple(e: Expr): boolean {
  switch (e.k) {
    case 'num': return true;
    case 'var': return !e.sym.global && e.sym.kind === 'var';
    case 'cast': return simple(e.e);
    case 'binary': return PURE_OPS.has(e.op) && simple(e.l) && simple(e.r);
    // A field read through a local pointer (`data + 14 + (iph->ihl << 2)`): the same value while
    // nothing stores to memory (hoist checks that, as reuseLoad does for a lone read).
    case 'member': case 'deref': return isLoad(e);
    default: return false;
  }
}

/** Whether a simple expression reads memory (a field through a pointer). */
function readsMemory(e: Expr): boolean {
  if (e.k === 'member' || e.k === 'deref') return true;
  if (e.k === 'cast') return readsMemory(e.e);
  if (e.k === 'binary') return readsMemory(e.l) || readsMemory(e.r);
  return false;
}

function same(a: Expr, b: Expr): boolean {
  if (a.k !== b.k) return false;
  switch (a.k) {
    case 'num': return a.value === (b as typeof a).value && a.ty.k === b.ty.k;
    case 'var': return a.sym === (b as typeof a).sym;
    case 'cast': return JSON.stringify(a.ty) === JSON.stringify(b.ty) && same(a.e, (b as typeof a).e);
    case 'binary': return a.op === (b as typeof a).op && JSON.stringify(a.ty) === JSON.stringify(b.ty) && same(a.l, (b as typeof a).l) && same(a.r, (b as typeof a).r);
    case 'member': case 'deref': return isLoad(a) && isLoad(b) && sameLoad(a, b);
    default: return false;
  }
}

function varsOf(e: Expr, out: Set<Sym>): void {
  if (e.k === 'var') out.add(e.sym);
  else if (e.k === 'cast' || e.k === 'member' || e.k === 'deref') varsOf(e.e, out);
  else if (e.k === 'binary') { varsOf(e.l, out); varsOf(e.r, out); }
}

/**
 * When a sum in the condition is evaluated: on every evaluation ('always'),
 * whenever the condition comes out false ('orTail': an operand after the
 * first of the top `||` chain, outside any further short circuit), or only
 * on some paths ('maybe').
 */
type When = 'always' | 'orTail' | 'maybe';

function sumsOf(c: Expr): { e: Expr; when: When }[] {
  return condParts(c, isPtrSum, true);
}

/**
 * The parts of an if's condition that `pick` selects, each with when it is
 * evaluated and the operand of the top `||` chain that holds it; a picked
 * part is searched further only when `inside`.
 */
function condParts(c: Expr, pick: (e: Expr) => boolean, inside: boolean): { e: Expr; when: When; operand: number }[] {
  const out: { e: Expr; when: When; operand: number }[] = [];
  let operand = 0;
  const walk = (e: Expr, when: When): void => {
    if (pick(e)) {
      out.push({ e, when, operand });
      if (!inside) return;
    }
    switch (e.k) {
      case 'logical': walk(e.l, when); walk(e.r, 'maybe'); return;
      case 'cond': walk(e.c, when); walk(e.t, 'maybe'); walk(e.f, 'maybe'); return;
      case 'stmtexpr': return;
      default: walkChildren(e, (x) => walk(x, when));
    }
  };
  orOperands(c).forEach((e, i) => {
    operand = i;
    walk(e, i === 0 ? 'always' : 'orTail');
  });
  return out;
}

/** The operands of the condition's top `||` chain. */
function orOperands(c: Expr): Expr[] {
  const ors: Expr[] = [];
  const flatten = (e: Expr): void => { if (e.k === 'logical' && e.op === '||') { flatten(e.l); flatten(e.r); } else ors.push(e); };
  flatten(c);
  return ors;
}

/** The fields that may hold a subexpression, and the subexpression in one (replaceChildren and walkChildren share them). */
const CHILD_KEYS = ['e', 'l', 'r', 'c', 't', 'f'] as const;
function childAt(e: Expr, key: (typeof CHILD_KEYS)[number]): Expr | undefined {
  const child = (e as unknown as Record<string, unknown>)[key] as Expr | undefined;
  return child && typeof child === 'object' && 'k' in child && 'ty' in child ? child : undefined;
}

/** The direct subexpressions of e, in the order replaceChildren visits them. */
function walkChildren(e: Expr, f: (x: Expr) => void): void {
  for (const key of CHILD_KEYS) {
    const child = childAt(e, key);
    if (child) f(child);
  }
  if (e.k === 'call' || e.k === 'builtin') e.args.forEach(f);
}

function hoist(st: Stmt & { k: 'if' }, body: Stmt[], k: number): Stmt | undefined {
  const sums = sumsOf(st.c);
  for (const { e: cand, when } of sums) {
    if (when === 'maybe') continue;
    // Assigned in place: only where nothing after the if can be reached with the operand unevaluated,
    // and the sum's only occurrence in the condition is that one.
    if (when === 'orTail' && (!endsFlow(st.t) || sums.filter((x) => same(x.e, cand)).length !== 1)) continue;
    const vars = new Set<Sym>();
    varsOf(cand, vars);
    // A variable whose address was taken (`parse_iphdr(&nh, end, &iphdr)`) can change through a
    // pointer: then no call and no store through a pointer may come between.
    const viaMemory = [...vars].some((v) => v.addressTaken) || readsMemory(cand);
    const changes = (x: Stmt): boolean => [...vars].some((v) => writes(x, v)) || (viaMemory && mayStoreToMemory(x));
    // The if itself must not change them (its arms may leave the block: goto/return are fine).
    if (changes(st)) continue;
    let reused = false;
    let last = k;
    // Reuse only in statements that change none of its variables (and stop at the first that does).
    for (let j = k + 1; j < body.length; j++) {
      // A label could be reached without passing the new declaration.
      if (changes(body[j]!) || hasLabel(body[j]!)) break;
      walkExprs(body[j]!, (e) => { if (same(e, cand)) reused = true; });
      last = j;
    }
    if (!reused) continue;
    const tmp: Sym = { id: nextSymId(), kind: 'var', name: '__checked', type: cand.ty, span: cand.span, global: false, attrs: {}, used: true };
    const ref = (): Expr => ({ k: 'var', sym: tmp, ty: tmp.type, span: cand.span });
    let decl: Stmt;
    if (when === 'always') {
      decl = { k: 'decl', sym: tmp, init: { zero: false, parts: [{ offset: 0, type: tmp.type, e: { ...cand } }], span: cand.span }, span: st.span };
      replaceIn({ k: 'expr', e: st.c, span: st.span }, cand, ref, (e) => (st.c = e));
    } else {
      decl = { k: 'decl', sym: tmp, span: st.span };
      const assign = (): Expr => ({ k: 'assign', op: '=', l: ref(), r: { ...cand }, ty: tmp.type, span: cand.span });
      replaceIn({ k: 'expr', e: st.c, span: st.span }, cand, assign, (e) => (st.c = e));
    }
    for (let j = k + 1; j <= last; j++) replaceStmt(body[j]!, cand, ref);
    return decl;
  }
  return undefined;
}

function hasLabel(s: Stmt): boolean {
  let found = false;
  walkStmts(s, (x) => { if (x.k === 'label' || x.k === 'case' || x.k === 'default') found = true; });
  return found;
}

/** Could the statement write memory a pointer reaches (a call, a store through a pointer)? */
function mayStoreToMemory(s: Stmt): boolean {
  let found = false;
  walkExprs(s, (e) => {
    if (e.k === 'call' || e.k === 'builtin' || e.k === 'stmtexpr' || e.k === 'inline') found = true;
    if (e.k === 'assign' && (e.l.k !== 'var' || e.l.sym.addressTaken || e.l.sym.global)) found = true;
    if (e.k === 'incdec' && (e.e.k !== 'var' || e.e.sym.addressTaken || e.e.sym.global)) found = true;
  });
  return found;
}

/** Replace every expression equal to `cand` in a statement tree by a fresh `ref()`. */
function replaceStmt(s: Stmt, cand: Expr, ref: () => Expr): void {
  eachOnceExpr(s, (e, set) => {
    if (same(e, cand)) set(ref());
    else replaceChildren(e, cand, ref);
  });
}

/**
 * Each expression of a statement tree that runs at most once, with its
 * setter: loops and switches are left out (their bodies run more than once).
 */
function eachOnceExpr(s: Stmt, visit: (e: Expr, set: (x: Expr) => void) => void): void {
  switch (s.k) {
    case 'expr': visit(s.e, (x) => (s.e = x)); return;
    case 'decl': for (const p of s.init?.parts ?? []) if (p.e) visit(p.e, (x) => (p.e = x)); return;
    case 'block': s.body.forEach((b) => eachOnceExpr(b, visit)); return;
    case 'if': visit(s.c, (x) => (s.c = x)); eachOnceExpr(s.t, visit); if (s.f) eachOnceExpr(s.f, visit); return;
    case 'return': if (s.e) visit(s.e, (x) => (s.e = x)); return;
    default: return;
  }
}

function replaceIn(s: Stmt & { k: 'expr' }, cand: Expr, ref: () => Expr, set: (e: Expr) => void): void {
  if (same(s.e, cand)) { set(ref()); return; }
  replaceChildren(s.e, cand, ref);
}

function replaceChildren(e: Expr, cand: Expr, ref: () => Expr): void {
  const r = e as unknown as Record<string, unknown>;
  for (const key of CHILD_KEYS) {
    const child = childAt(e, key);
    if (!child) continue;
    if (same(child, cand)) r[key] = ref();
    else replaceChildren(child, cand, ref);
  }
  if (e.k === 'call' || e.k === 'builtin') e.args.forEach((a, i) => { if (same(a, cand)) e.args[i] = ref(); else replaceChildren(a, cand, ref); });
}

/**
 * Loads, reused: `if (md->off > 24) return XDP_ABORTED; pos += md->off;`
 * reads `md->off` twice, and the bound the check learnt belongs to the
 * register of the first read only: the second is unbounded again (a
 * variable packet offset up to 0xffff, which no later data_end check can
 * give a range: "R6 offset is outside of the packet", xdp-dnsrrl's
 * rate-limit programs). clang's GVN reads it once, nothing storing to
 * memory in between. So here: a field read through a local pointer
 * (`p->f`, `p->a.b`, `*p`), read exactly once in the if's condition where
 * the condition always evaluates it (as for the pointer sums above), and
 * read again in the statements after the if, is read once into a new local
 * where the condition reads it (`(t = md->off) > 24`), so the order of
 * reads is the source's. Nothing may store to memory in between: not the
 * condition, not an arm that falls through, not a statement before the
 * reuse (a call, inlined or not, or a store through a pointer ends the
 * run; the statement that stores may itself reuse the value when its one
 * side effect is its own top-level assignment, which reads first).
 * Pointers declared `volatile T *` are left alone.
 */
function isLoad(e: Expr): boolean {
  if (e.ty.k !== 'int') return false;
  const base = (x: Expr): boolean => {
    if (x.k === 'member') return base(x.e);
    if (x.k === 'deref') return x.e.k === 'var' && localPtr(x.e.sym);
    return false;
  };
  return (e.k === 'member' || e.k === 'deref') && base(e);
}

function localPtr(s: Sym): boolean {
  return s.kind === 'var' && !s.global && isPtr(s.type) && !s.pointsToVolatile;
}

function sameLoad(a: Expr, b: Expr): boolean {
  if (a.k === 'member' && b.k === 'member') return a.m === b.m && a.offset === b.offset && sameLoad(a.e, b.e);
  if (a.k === 'deref' && b.k === 'deref') return a.ty.k === b.ty.k && JSON.stringify(a.ty) === JSON.stringify(b.ty) && sameLoad(a.e, b.e);
  if (a.k === 'var' && b.k === 'var') return a.sym === b.sym;
  return false;
}

function loadBase(e: Expr): Sym {
  let x = e;
  while (x.k === 'member') x = x.e;
  return ((x as Expr & { k: 'deref' }).e as Expr & { k: 'var' }).sym;
}

/** Loads in the condition, with when they are evaluated (as sumsOf). */
function loadsOf(c: Expr): { e: Expr; when: When; operand: number }[] {
  return condParts(c, isLoad, false);
}

/** Does the expression have a side effect that may store to memory, or a call? */
function exprStores(e: Expr): boolean {
  return mayStoreToMemory({ k: 'expr', e, span: e.span });
}

/**
 * A statement whose one side effect is its top-level assignment (`x = …`,
 * `p->f += …`) or call (`memcpy((void *)(long)ctx->data, hdr, 14)`, a
 * helper): it reads its operands, the arguments all evaluated, before it stores.
 */
function onlyTopStore(s: Stmt): boolean {
  if (s.k !== 'expr') return false;
  const e = s.e;
  if (e.k === 'assign') return !exprStores(e.l) && !exprStores(e.r);
  if (e.k === 'call') return !exprStores(e.fn) && !e.args.some(exprStores);
  if (e.k === 'builtin') return !e.args.some(exprStores);
  return false;
}

function reuseLoad(st: Stmt & { k: 'if' }, body: Stmt[], k: number): Stmt | undefined {
  if (!endsFlow(st.t) && mayStoreToMemory(st.t)) return undefined;
  if (st.f && !endsFlow(st.f) && mayStoreToMemory(st.f)) return undefined;
  const loads = loadsOf(st.c);
  const ors = orOperands(st.c);
  for (const { e: cand, when, operand } of loads) {
    if (when === 'maybe') continue;
    // Stores in earlier operands of the `||` chain come before the read; none from its operand on.
    if (ors.slice(operand).some(exprStores)) continue;
    if (when === 'orTail' && !endsFlow(st.t)) continue;
    if (loads.filter((x) => sameLoad(x.e, cand)).length !== 1) continue;
    const base = loadBase(cand);
    if (writes(st, base)) continue;
    let reused = false;
    let last = k;
    for (let j = k + 1; j < body.length; j++) {
      const x = body[j]!;
      if (writes(x, base) || hasLabel(x)) break;
      const stores = mayStoreToMemory(x);
      if (stores && !onlyTopStore(x)) break;
      walkExprs(x, (e) => { if (sameLoad(e, cand)) reused = true; });
      last = j;
      if (stores) break;
    }
    if (!reused) continue;
    const tmp: Sym = { id: nextSymId(), kind: 'var', name: '__loaded', type: cand.ty, span: cand.span, global: false, attrs: {}, used: true, loadCopy: true };
    const ref = (): Expr => ({ k: 'var', sym: tmp, ty: tmp.type, span: cand.span });
    const assign = (): Expr => ({ k: 'assign', op: '=', l: ref(), r: cand, ty: tmp.type, span: cand.span });
    replaceLoadIn(st.c, cand, assign, (e) => (st.c = e));
    for (let j = k + 1; j <= last; j++) replaceLoadStmt(body[j]!, cand, ref);
    return { k: 'decl', sym: tmp, span: st.span };
  }
  return undefined;
}

/** Replace the reads equal to `cand` (never an object that is assigned, incremented or has its address taken). */
function replaceLoadIn(e: Expr, cand: Expr, ref: () => Expr, set: (e: Expr) => void, lvalue = false): void {
  if (!lvalue && sameLoad(e, cand)) { set(ref()); return; }
  const r = e as unknown as Record<string, unknown>;
  for (const key of CHILD_KEYS) {
    const child = childAt(e, key);
    // The object itself of an assignment, ++/-- or &: its address is evaluated, its value is not read (or not only).
    const isObject = (e.k === 'assign' && key === 'l') || ((e.k === 'incdec' || e.k === 'addr') && key === 'e') || (lvalue && e.k === 'member' && key === 'e');
    if (child) replaceLoadIn(child, cand, ref, (x) => (r[key] = x), isObject);
  }
  if (e.k === 'call' || e.k === 'builtin') e.args.forEach((a, i) => replaceLoadIn(a, cand, ref, (x) => (e.args[i] = x)));
}

function replaceLoadStmt(s: Stmt, cand: Expr, ref: () => Expr): void {
  eachOnceExpr(s, (e, set) => replaceLoadIn(e, cand, ref, set));
}

/**
 * Loads, sunk: suricata's xdp_lb.c reads `proto = eth->h_proto;` and only
 * then checks `if (data + nh_off > data_end) return XDP_PASS;` — a read the
 * kernel refuses where it stands ("invalid access to packet"). clang reads
 * it after the check: InstCombine (and MachineSink after it) moves a load
 * whose value only the fall-through path uses into that path, when nothing
 * between the load and the branch writes memory. The same here, on the
 * tree: a statement `v = E;` or `T v = E;` (v a local integer whose address
 * is not taken; E reads memory through a pointer and has no side effect)
 * moves past the statements after it — ones that neither read nor write v
 * nor write what E reads, and store to no memory — and past each
 * `if (C) …` among them whose arm always leaves by `return` (C with no side
 * effect, nothing in the if reading v), to just after the last such if.
 * Every path that used the value still reads the same memory (nothing
 * stored in between); the paths that return first no longer read it.
 * Pointers declared `volatile T *` are left alone.
 */
function sinkLoads(body: Stmt[]): void {
  for (let k = body.length - 1; k >= 0; k--) {
    const s = body[k]!;
    const cand = sinkable(s);
    if (!cand) continue;
    const { v, e } = cand;
    const deps = new Set<Sym>();
    walkExprs({ k: 'expr', e, span: e.span }, (x) => { if (x.k === 'var') deps.add(x.sym); });
    let to = -1;
    for (let j = k + 1; j < body.length; j++) {
      const x = body[j]!;
      if (readsVar(x, v) || writes(x, v) || hasLabel(x) || [...deps].some((d) => writes(x, d))) break;
      if (x.k === 'if' && !x.f && returnsOnly(x.t) && !mayStoreToMemory({ k: 'expr', e: x.c, span: x.span })) { to = j; continue; }
      if ((x.k === 'expr' || x.k === 'decl') && !mayStoreToMemory(x)) continue;
      break;
    }
    if (to < 0) continue;
    body.splice(k, 1);
    body.splice(to, 0, s);
  }
}

/** `v = E;` or `T v = E;` with v a local integer and E a side-effect-free read of memory (pointers read from memory — ctx->data, a cursor's pos — stay where they are). */
function sinkable(s: Stmt): { v: Sym; e: Expr } | undefined {
  let v: Sym, e: Expr;
  if (s.k === 'expr' && s.e.k === 'assign' && s.e.op === '=' && s.e.l.k === 'var') { v = s.e.l.sym; e = s.e.r; }
  else if (s.k === 'decl' && s.init && !s.init.zero && s.init.parts.length === 1 && s.init.parts[0]!.offset === 0 && !s.init.parts[0]!.bit) { v = s.sym; e = s.init.parts[0]!.e; }
  else return undefined;
  if (v.kind !== 'var' || v.global || v.addressTaken || v.isVolatile || !isInt(v.type)) return undefined;
  let loads = false, pure = true;
  walkExprs({ k: 'expr', e, span: e.span }, (x) => {
    if (x.k === 'deref') loads = true;
    if (x.k === 'var' && (x.sym === v || x.sym.isVolatile || x.sym.pointsToVolatile)) pure = false;
    if (x.k === 'cast' && x.volatile) pure = false;
    if (x.k === 'call' || x.k === 'stmtexpr' || x.k === 'inline' || x.k === 'assign' || x.k === 'incdec') pure = false;
    if (x.k === 'builtin' && !x.name.startsWith('__builtin_bswap')) pure = false;
  });
  return loads && pure ? { v, e } : undefined;
}

/** Does the statement read the variable's value? */
function readsVar(s: Stmt, v: Sym): boolean {
  let found = false;
  walkExprs(s, (x) => { if (x.k === 'var' && x.sym === v) found = true; });
  return found;
}

/** The arm leaves the function on every path, by `return` only (no goto, break or continue that could reach a later read). */
function returnsOnly(t: Stmt): boolean {
  if (!endsFlow(t)) return false;
  let other = false;
  walkStmts(t, (x) => { if (x.k === 'goto' || x.k === 'break' || x.k === 'continue' || x.k === 'label' || x.k === 'case' || x.k === 'default' || x.k === 'asm') other = true; });
  return !other;
}
