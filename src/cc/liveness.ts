/**
 * Where each local is live, measured in source-order positions over one
 * function body: from its declaration to its last use, stretched to the
 * end of any loop that uses it but declared it outside. Codegen uses this
 * to keep values in registers: a local whose live range holds no call may
 * sit in a caller-saved register (r1-r5); one that spans a call needs a
 * callee-saved one (r6-r9) or the stack; a register is reused once the
 * previous owner's range has ended.
 */
import type { Expr, Stmt, Sym } from './ast';

export interface LiveRange {
  decl: number;
  lastUse: number;
  crossesCall: boolean;
}

export interface Liveness {
  ranges: Map<Sym, LiveRange>;
  /** Position of each statement (keyed by node). */
  stmtPos: Map<Stmt, number>;
}

/** Whether evaluating e performs a call (helper, bpf-to-bpf, or an inlined body that does). */
export type CallOracle = (e: Expr) => boolean;

export function computeLiveness(params: Sym[], body: Stmt, isCall: CallOracle, alias: ReadonlyMap<Sym, Sym> = new Map()): Liveness {
  let pos = 0;
  const ranges = new Map<Sym, LiveRange>();
  const stmtPos = new Map<Stmt, number>();
  const calls: number[] = [];
  const loops: { start: number; syms: Set<Sym> }[] = [];
  const labels = new Map<string, number>();
  let backGotoFrom = -1;

  const use = (s0: Sym): void => {
    // A use of an alias (`eth = data + 0`) is a use of what it aliases.
    let s = s0;
    for (let n = 0; n < 16 && alias.has(s); n++) s = alias.get(s)!;
    if (s !== s0) useOne(s0);
    useOne(s);
  };
  const useOne = (s: Sym): void => {
    const r = ranges.get(s);
    if (!r) return; // globals
    r.lastUse = Math.max(r.lastUse, ++pos);
    for (const l of loops) if (l.start > r.decl) l.syms.add(s);
  };
  const loop = (f: () => void): void => {
    const l = { start: ++pos, syms: new Set<Sym>() };
    loops.push(l);
    f();
    loops.pop();
    const end = ++pos;
    for (const s of l.syms) {
      const r = ranges.get(s)!;
      r.lastUse = Math.max(r.lastUse, end);
    }
  };

  for (const p of params) ranges.set(p, { decl: 0, lastUse: 0, crossesCall: false });

  const expr = (e: Expr | undefined): void => {
    if (!e) return;
    switch (e.k) {
      case 'num': case 'str': return;
      case 'var': use(e.sym); return;
      case 'unary': case 'deref': case 'addr': case 'cast': case 'member': expr(e.e); return;
      case 'incdec': expr(e.e); return;
      case 'binary': case 'logical': case 'assign': case 'comma':
        // Assignment evaluates its right side first in our codegen.
        if (e.k === 'assign') { expr(e.r); expr(e.l); } else { expr(e.l); expr(e.r); }
        return;
      case 'cond': expr(e.c); expr(e.t); expr(e.f); return;
      case 'call': case 'inline':
        if (e.k === 'call') expr(e.fn);
        for (const a of e.args) expr(a);
        if (isCall(e)) calls.push(++pos);
        return;
      case 'builtin': for (const a of e.args) expr(a); return;
      case 'stmtexpr': for (const s of e.body) stmt(s); return;
    }
  };
  const stmt = (s: Stmt | undefined): void => {
    if (!s) return;
    stmtPos.set(s, ++pos);
    switch (s.k) {
      case 'expr': expr(s.e); return;
      case 'decl':
        for (const p of s.init?.parts ?? []) expr(p.e);
        ranges.set(s.sym, { decl: ++pos, lastUse: pos, crossesCall: false });
        return;
      case 'block': for (const b of s.body) stmt(b); return;
      case 'if': expr(s.c); stmt(s.t); stmt(s.f); return;
      case 'while': loop(() => { expr(s.c); stmt(s.body); }); return;
      case 'dowhile': loop(() => { stmt(s.body); expr(s.c); }); return;
      case 'for': stmt(s.init); loop(() => { expr(s.c); stmt(s.body); expr(s.step); }); return;
      case 'switch': expr(s.e); stmt(s.body); return;
      case 'return': expr(s.e); return;
      case 'label': labels.set(s.name, pos); return;
      case 'goto': if (labels.has(s.name)) backGotoFrom = Math.max(backGotoFrom, labels.get(s.name)!); return;
      default: return;
    }
  };
  stmt(body);
  const end = ++pos;
  // A backward goto makes a loop we did not see as one: keep everything declared before it alive.
  if (backGotoFrom >= 0) for (const r of ranges.values()) if (r.decl <= backGotoFrom) r.lastUse = end;
  for (const r of ranges.values()) r.crossesCall = calls.some((c) => c > r.decl && c < r.lastUse);
  return { ranges, stmtPos };
}
