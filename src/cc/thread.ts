/**
 * Jump threading over known values, in registers and in memory, on one
 * function's label-addressed code (before jump offsets exist).
 *
 * A forward data-flow analysis computes, at every block's entry, what is
 * known for certain on every path reaching it: constants in registers, and
 * constants held in memory cells (base register + offset + size) written by
 * a store and not clobbered since — store-to-load forwarding, so a load
 * from such a cell yields the stored constant. Then:
 *
 *  - a conditional jump whose outcome the entry state decides becomes a
 *    `goto` or nothing (the other arm dies);
 *  - a join whose outcome is decided on some incoming edge only is
 *    threaded: that edge gets its own copy of the short path from the join
 *    to the test (at most THRESHOLD instructions, as clang's jump
 *    threading limits the code it duplicates), ending in a jump straight
 *    to the decided target; the original path keeps serving the other
 *    edges, and dies when none is left.
 *
 * Why the kernel cares: `p->ipv = 4; … ; p->ipv = 6; … ; join: if (p->ipv
 * == 4)` in C is a value the verifier cannot follow through memory (it
 * tracks registers and stack slots, not map values), so it explores both
 * arms from both edges and rejects the IPv6 arm under the IPv4 edge's
 * smaller packet range. clang forwards the stores and threads the test;
 * doing the same keeps each arm reached only by the edge that sets it up.
 *
 * Memory is tracked soundly: a store kills every cell it may overlap. Two
 * cells with the same base register are compared by offset; with
 * different bases they may alias unless one is this frame's stack (r10 or
 * r10 plus a constant) and the other is known not to point into it
 * (parameters, helper results, and pointers derived from them: this frame
 * is fresh at entry and no helper returns a pointer into it). Calls clobber
 * all of memory's cells. Every executed path performs exactly the memory
 * accesses it performed before: a copy replaces the original only on the
 * edge it was made for.
 */
import * as O from '../isa/opcodes';
import type { EmittedInsn } from './codegen/frame';
import { decideValues, INVERSE, isCondJump, isSecondSlot, successors } from './flow';

type Code = EmittedInsn[];

/** The most instructions one threaded edge may duplicate. */
const THRESHOLD = 8;
/** Blocks one threaded path may pass through before the decided test. */
const MAX_PATH_BLOCKS = 4;

/** What a register may point to: this frame's stack, certainly not it, or unknown. */
const UNK = 0, OWN = 1, NOT = 2;

/** A memory cell's known content: a constant (k), what it may point to (kind), or only that it is not 0 (nz). */
interface Cell { base: number; off: number; size: number; k: bigint | undefined; kind: number; hidden: boolean; nz: boolean }

interface State {
  /** Known 64-bit register values (undefined: unknown). */
  v: (bigint | undefined)[];
  kind: number[];
  /** Known memory cells by `base:off:size`. */
  mem: Map<string, Cell>;
  /**
   * Known only through memory the verifier does not track (anything but this frame's stack):
   * a test decided by such a value is one the kernel cannot decide itself.
   */
  hidden: boolean[];
  /**
   * Registers known not to be 0 though their value is not known: the arm of
   * `if (p == NULL)` where p is not, until p is written. A test of such a
   * register against 0 is decided (edgeState).
   */
  nz: boolean[];
  /** The r10 offset of the 8-byte stack cell a register holds the same value as: a spill or a reload, neither written since. */
  from: (number | undefined)[];
}

/** helpers whose returned pointer may point into memory the program passed (a dynptr over its stack). */
const RETURNS_ARG_MEMORY = new Set([203 /* bpf_dynptr_data */]);

function entryState(): State {
  const kind = new Array<number>(11).fill(UNK);
  // Arguments come from the caller (or the kernel): this frame did not exist before the call.
  for (let r = 1; r <= 5; r++) kind[r] = NOT;
  kind[10] = OWN;
  return { v: new Array<bigint | undefined>(11).fill(undefined), kind, mem: new Map(), hidden: new Array<boolean>(11).fill(false), nz: new Array<boolean>(11).fill(false), from: new Array<number | undefined>(11).fill(undefined) };
}

function clone(s: State): State {
  return { v: s.v.slice(), kind: s.kind.slice(), mem: new Map(s.mem), hidden: s.hidden.slice(), nz: s.nz.slice(), from: s.from.slice() };
}

function meet(a: State, b: State): State {
  const v = a.v.map((x, r) => (x !== undefined && x === b.v[r] ? x : undefined));
  // Not 0 on both sides (known non-zero, or two different non-zero constants) and no common constant.
  const nz = a.v.map((_, r) => v[r] === undefined && nonzero(a, r) && nonzero(b, r));
  const from = a.from.map((k, r) => (k === b.from[r] ? k : undefined));
  const out: State = { v, kind: a.kind.map((k, r) => (k === b.kind[r] ? k : UNK)), mem: new Map(), hidden: a.hidden.map((h, r) => h || b.hidden[r]!), nz, from };
  for (const [key, c] of a.mem) {
    const d = b.mem.get(key);
    if (!d) continue;
    const k = c.k !== undefined && c.k === d.k ? c.k : undefined;
    const kind = c.kind === d.kind ? c.kind : UNK;
    const nz = k === undefined && cellNonzero(c) && cellNonzero(d);
    if (k !== undefined || kind !== UNK || nz) out.mem.set(key, { ...c, k, kind, hidden: c.hidden || d.hidden, nz });
  }
  return out;
}

function sameState(a: State, b: State): boolean {
  for (let r = 0; r < 11; r++) if (a.v[r] !== b.v[r] || a.kind[r] !== b.kind[r] || a.nz[r] !== b.nz[r] || a.from[r] !== b.from[r]) return false;
  if (a.mem.size !== b.mem.size) return false;
  for (const [key, c] of a.mem) {
    const d = b.mem.get(key);
    if (!d || d.k !== c.k || d.kind !== c.kind || d.nz !== c.nz) return false;
  }
  return true;
}

function setReg(s: State, r: number, v: bigint | undefined, kind: number, hidden = false, nz = false): void {
  s.v[r] = v;
  s.kind[r] = kind;
  s.hidden[r] = hidden && v !== undefined;
  s.nz[r] = nz && v === undefined;
  s.from[r] = undefined;
  for (const [key, c] of s.mem) if (c.base === r) s.mem.delete(key);
}

/** Forget the cells a write of size bytes at base+off may overlap. */
function clobber(s: State, base: number, off: number, size: number): void {
  const kb = base === 10 ? OWN : s.kind[base]!;
  for (let r = 0; r < 11; r++) {
    const o = s.from[r];
    if (o === undefined) continue;
    // from names stack cells: a write through r10 hits one it overlaps; through a pointer, any unless it is not into this frame.
    if (base === 10 ? o < off + size && off < o + 8 : kb !== NOT) s.from[r] = undefined;
  }
  for (const [key, c] of s.mem) {
    if (c.base === base) {
      if (c.off < off + size && off < c.off + c.size) s.mem.delete(key);
      continue;
    }
    const kc = c.base === 10 ? OWN : s.kind[c.base]!;
    const disjoint = (kb === OWN && kc === NOT) || (kb === NOT && kc === OWN);
    if (!disjoint) s.mem.delete(key);
  }
}

/** dst op src over 64 bits (ALU64) or the low 32 bits, zero-extended (ALU); undefined when BPF leaves it to others. */
function alu(op: number, is64: boolean, a: bigint, b: bigint): bigint | undefined {
  const bits = is64 ? 64 : 32;
  const ua = BigInt.asUintN(bits, a), ub = BigInt.asUintN(bits, b);
  const sh = Number(ub & BigInt(bits - 1));
  let r: bigint;
  switch (op) {
    case O.BPF_ADD: r = ua + ub; break;
    case O.BPF_SUB: r = ua - ub; break;
    case O.BPF_MUL: r = ua * ub; break;
    case O.BPF_DIV: r = ub === 0n ? 0n : ua / ub; break;
    case O.BPF_MOD: r = ub === 0n ? ua : ua % ub; break;
    case O.BPF_OR: r = ua | ub; break;
    case O.BPF_AND: r = ua & ub; break;
    case O.BPF_XOR: r = ua ^ ub; break;
    case O.BPF_LSH: r = ua << BigInt(sh); break;
    case O.BPF_RSH: r = ua >> BigInt(sh); break;
    case O.BPF_ARSH: r = BigInt.asIntN(bits, ua) >> BigInt(sh); break;
    default: return undefined;
  }
  return BigInt.asUintN(bits, r);
}

/** Apply instruction i to s. */
function transfer(code: Code, i: number, s: State): void {
  const e = code[i]!;
  if (isSecondSlot(code, i)) return;
  const { code: c, dst, src, off, imm } = e.insn;
  const cls = O.BPF_CLASS(c);
  const x = O.BPF_SRC(c) === O.BPF_X;
  switch (cls) {
    case O.BPF_ALU: case O.BPF_ALU64: {
      const is64 = cls === O.BPF_ALU64;
      const op = O.BPF_OP(c);
      const b = x ? s.v[src] : BigInt(imm);
      if (op === O.BPF_MOV) {
        if (off !== 0) return setReg(s, dst, undefined, NOT); // movsx: a scalar
        if (!x) return setReg(s, dst, BigInt.asUintN(is64 ? 64 : 32, BigInt(imm)), NOT);
        setReg(s, dst, b === undefined ? undefined : BigInt.asUintN(is64 ? 64 : 32, b), is64 ? s.kind[src]! : NOT, s.hidden[src], is64 && s.nz[src]!);
        if (is64) s.from[dst] = s.from[src];
        return;
      }
      if (op === O.BPF_NEG) {
        const a = s.v[dst];
        return setReg(s, dst, a === undefined || off !== 0 ? undefined : BigInt.asUintN(is64 ? 64 : 32, -a), is64 && s.kind[dst] !== NOT ? UNK : NOT);
      }
      if (op === O.BPF_END) return setReg(s, dst, undefined, NOT);
      const a = s.v[dst];
      // Signed division and modulo (off 1) are not folded: rare, and their corner cases are many.
      const v = a !== undefined && b !== undefined && off === 0 ? alu(op, is64, a, b) : undefined;
      let kind = NOT;
      if (is64) {
        const ka = s.kind[dst]!, kb = x ? s.kind[src]! : NOT;
        // A pointer plus or minus a scalar points where the pointer did.
        if ((op === O.BPF_ADD || op === O.BPF_SUB) && (ka === OWN || kb === OWN)) kind = OWN;
        else kind = ka === NOT && kb === NOT ? NOT : UNK;
      }
      return setReg(s, dst, v, kind, s.hidden[dst]! || (x && s.hidden[src]!));
    }
    case O.BPF_LDX: {
      const size = O.sizeBytes(O.BPF_SIZE(c));
      if (O.BPF_MODE(c) !== O.BPF_MEM) return setReg(s, dst, undefined, NOT);
      const key = `${src}:${off}:${size}`;
      const cell = s.mem.get(key);
      const own = src === 10 || s.kind[src] === OWN;
      setReg(s, dst, cell?.k, size === 8 ? (cell?.kind ?? UNK) : NOT, !!cell && (cell.hidden || !own), size === 8 && !!cell?.nz);
      if (src === 10 && size === 8) s.from[dst] = off;
      return;
    }
    case O.BPF_ST: case O.BPF_STX: {
      const size = O.sizeBytes(O.BPF_SIZE(c));
      clobber(s, dst, off, size);
      if (O.BPF_MODE(c) !== O.BPF_MEM) {
        // Atomics: the fetched old value is not known.
        if (O.BPF_MODE(c) === O.BPF_ATOMIC) {
          if (imm === O.BPF_CMPXCHG) setReg(s, 0, undefined, UNK);
          else if (imm & O.BPF_FETCH) setReg(s, src, undefined, UNK);
        }
        return;
      }
      const v = cls === O.BPF_ST ? BigInt(imm) : s.v[src];
      const spill = size === 8 && cls === O.BPF_STX;
      const cell: Cell = { base: dst, off, size, k: v === undefined ? undefined : BigInt.asUintN(size * 8, v), kind: spill ? s.kind[src]! : NOT, hidden: cls === O.BPF_STX && s.hidden[src]!, nz: spill && v === undefined && s.nz[src]! };
      const key = `${dst}:${off}:${size}`;
      if (cell.k !== undefined || cell.kind !== UNK || cell.nz) s.mem.set(key, cell);
      if (spill && dst === 10 && src !== 10) s.from[src] = off;
      return;
    }
    case O.BPF_LD: {
      if (c === (O.BPF_LD | O.BPF_IMM | O.BPF_DW)) {
        const hi = code[i + 1]?.insn.imm ?? 0;
        const plain = e.map === undefined && src === 0;
        return setReg(s, dst, plain ? BigInt.asUintN(64, (BigInt(hi) << 32n) | BigInt.asUintN(32, BigInt(imm))) : undefined, NOT);
      }
      break; // legacy packet loads: clobber like a call
    }
    case O.BPF_JMP: case O.BPF_JMP32: {
      const op = O.BPF_OP(c);
      if (op !== O.BPF_CALL) return;
      s.mem.clear();
      s.from.fill(undefined);
      for (let r = 1; r <= 5; r++) setReg(s, r, undefined, UNK);
      // A helper's result never points into this frame's stack (unless it hands back memory it was given);
      // a bpf-to-bpf callee or kfunc may return a pointer it was passed.
      const helper = cls === O.BPF_JMP && src === 0 && !RETURNS_ARG_MEMORY.has(imm);
      return setReg(s, 0, undefined, helper ? NOT : UNK);
    }
  }
  // Anything else: forget everything but r10.
  s.mem.clear();
  s.from.fill(undefined);
  for (let r = 0; r < 10; r++) setReg(s, r, undefined, UNK);
}

interface Block { start: number; end: number; succ: number[]; preds: number[] }

/** Basic blocks of code, indexed by their start slot. */
function blocks(code: Code, labelPos: number[]): { list: Block[]; at: Map<number, Block> } {
  const n = code.length;
  const leader = new Uint8Array(n + 1);
  leader[0] = 1;
  for (let i = 0; i < n; i++) {
    if (isSecondSlot(code, i)) continue;
    const c = code[i]!.insn.code;
    const cls = O.BPF_CLASS(c);
    if ((cls === O.BPF_JMP || cls === O.BPF_JMP32) && O.BPF_OP(c) !== O.BPF_CALL) {
      leader[i + 1] = 1;
      const l = code[i]!.label;
      if (l !== undefined && labelPos[l]! >= 0) leader[labelPos[l]!] = 1;
    }
  }
  const list: Block[] = [];
  const at = new Map<number, Block>();
  for (let i = 0; i < n;) {
    let j = i;
    while (j + 1 < n && !leader[j + 1]) j++;
    const b: Block = { start: i, end: j, succ: [], preds: [] };
    list.push(b);
    at.set(i, b);
    i = j + 1;
  }
  for (const b of list) {
    const last = isSecondSlot(code, b.end) ? b.end - 1 : b.end;
    b.succ = [...new Set(successors(code, labelPos, last))];
    for (const s of b.succ) at.get(s)?.preds.push(b.start);
  }
  return { list, at };
}

/** Entry states of every block (a fixpoint over the CFG), or undefined if it does not settle soon. */
function analyse(code: Code, labelPos: number[], list: Block[], at: Map<number, Block>): Map<number, State> | undefined {
  const inS = new Map<number, State>();
  const outS = new Map<number, State>();
  for (let pass = 0; pass < 12; pass++) {
    let changed = false;
    for (const b of list) {
      let s: State | undefined = b.start === 0 ? entryState() : undefined;
      for (const p of b.preds) {
        const o = outS.get(p);
        if (o) {
          const e = edgeState(code, labelPos, at.get(p)!, o, b.start);
          s = s ? meet(s, e) : clone(e);
        }
      }
      if (!s) continue; // not reached yet (optimistic: a loop's back edge joins in on a later pass)
      inS.set(b.start, s);
      const o = clone(s);
      for (let i = b.start; i <= b.end; i++) transfer(code, i, o);
      const prev = outS.get(b.start);
      if (!prev || !sameState(prev, o)) { outS.set(b.start, o); changed = true; }
    }
    if (!changed) return inS;
  }
  return undefined;
}

/** The last real instruction of a block (not an lddw's second slot). */
function lastOf(code: Code, b: Block): number {
  return isSecondSlot(code, b.end) ? b.end - 1 : b.end;
}

function isJa(e: EmittedInsn): boolean {
  return e.insn.code === (O.BPF_JMP | O.BPF_JA);
}

/** The outcome of the conditional jump at i in state s (undefined: not decided). */
function outcome(e: EmittedInsn, s: State): boolean | undefined {
  const a = s.v[e.insn.dst];
  const b = O.BPF_SRC(e.insn.code) === O.BPF_X ? s.v[e.insn.src] : BigInt(e.insn.imm);
  if (a === undefined && s.nz[e.insn.dst] && zeroTest(e)) return O.BPF_OP(e.insn.code) === O.BPF_JNE;
  if (a === undefined || b === undefined) return undefined;
  return decideValues(e.insn.code, a, b);
}

/** Whether e is `if rX == 0` or `if rX != 0` over all 64 bits. */
function zeroTest(e: EmittedInsn): boolean {
  const op = O.BPF_OP(e.insn.code);
  return O.BPF_CLASS(e.insn.code) === O.BPF_JMP && O.BPF_SRC(e.insn.code) === O.BPF_K && e.insn.imm === 0 && (op === O.BPF_JEQ || op === O.BPF_JNE);
}

/** Whether a cell certainly does not hold 0. */
function cellNonzero(c: Cell): boolean {
  return c.k === undefined ? c.nz : c.k !== 0n;
}

/** Whether register r is certainly not 0 in s. */
function nonzero(s: State, r: number): boolean {
  const v = s.v[r];
  return v === undefined ? s.nz[r]! : v !== 0n;
}

/**
 * The state on the edge from block p (its state at the end: out) to the
 * block at `to`: past `if rX == 0` (or `!= 0`) rX is 0 on one arm and not
 * 0 on the other. This is what lets `if (p && p + 1 > end) p = NULL; …
 * if (!p) return;` thread as clang threads it: each edge into the second
 * test knows p's answer, so the access after it is reached only past the
 * bounds check. The kernel cannot tell a packet pointer from NULL, so it
 * follows both arms of a test left in place, and the arm that skipped the
 * check reaches the access with no range.
 */
function edgeState(code: Code, labelPos: number[], p: Block, out: State, to: number): State {
  const last = lastOf(code, p);
  const t = code[last]!;
  if (!isCondJump(t) || !zeroTest(t) || t.label === undefined) return out;
  const taken = labelPos[t.label] === to;
  if (taken === (last + 1 === to)) return out; // both arms meet here: nothing is learned
  const r = t.insn.dst;
  if (out.v[r] !== undefined) return out;
  const isZero = (O.BPF_OP(t.insn.code) === O.BPF_JEQ) === taken;
  const s = clone(out);
  if (isZero) {
    s.v[r] = 0n;
    s.nz[r] = false;
  } else s.nz[r] = true;
  // The stack slot the register was spilled to or reloaded from holds the same answer.
  const off = s.from[r];
  if (off !== undefined) {
    const key = `10:${off}:8`;
    const c = s.mem.get(key);
    s.mem.set(key, { base: 10, off, size: 8, k: isZero ? 0n : undefined, kind: c?.kind ?? s.kind[r]!, hidden: c?.hidden ?? false, nz: !isZero });
  }
  return s;
}

/** A path to a decided test; hidden: decided by a value the verifier cannot see. */
interface Path { blocks: Block[]; taken: boolean; hidden: boolean }

/** From state s at block b, a short path of blocks ending in a test s decides. */
function findPath(code: Code, labelPos: number[], at: Map<number, Block>, b: Block, s: State, path: Block[], budget: number): Path | undefined {
  if (path.length >= MAX_PATH_BLOCKS || path.includes(b)) return undefined;
  const last = lastOf(code, b);
  const t = code[last]!;
  const body = b.end - b.start + 1 - (isJa(t) ? 1 : 0);
  if (body > budget) return undefined;
  for (let i = b.start; i <= b.end; i++) if (code[i]!.pinned) return undefined;
  const st = clone(s);
  for (let i = b.start; i < last; i++) transfer(code, i, st);
  const here = [...path, b];
  if (isCondJump(t)) {
    const taken = outcome(t, st);
    // A test decided only by a non-NULL fact counts as hidden: the kernel cannot tell a packet pointer from NULL.
    if (taken !== undefined) return { blocks: here, taken, hidden: st.hidden[t.insn.dst]! || st.nz[t.insn.dst]! || (O.BPF_SRC(t.insn.code) === O.BPF_X && st.hidden[t.insn.src]!) };
    // Undecided: look one block further along either arm (the taken arm only where the test has an
    // inverse, so that the copy can fall through into the next block's copy).
    const arms = INVERSE[O.BPF_OP(t.insn.code)] !== undefined ? [last + 1, labelPos[t.label!]!] : [last + 1];
    for (const next of arms) {
      const nb = at.get(next);
      const p = nb && findPath(code, labelPos, at, nb, st, here, budget - body);
      if (p) return p;
    }
    return undefined;
  }
  transfer(code, last, st);
  if (isJa(t) && t.label !== undefined) {
    const nb = at.get(labelPos[t.label]!);
    return nb ? findPath(code, labelPos, at, nb, st, here, budget - body) : undefined;
  }
  const cls = O.BPF_CLASS(t.insn.code);
  if ((cls === O.BPF_JMP || cls === O.BPF_JMP32) && O.BPF_OP(t.insn.code) === O.BPF_EXIT) return undefined;
  const nb = at.get(b.end + 1);
  return nb ? findPath(code, labelPos, at, nb, st, here, budget - body) : undefined;
}

function copyInsn(e: EmittedInsn, label?: number): EmittedInsn {
  const c: EmittedInsn = { ...e, insn: { ...e.insn } };
  if (label !== undefined) c.label = label;
  return c;
}

function jump(span: EmittedInsn['span'], label: number): EmittedInsn {
  return { insn: { code: O.BPF_JMP | O.BPF_JA, dst: 0, src: 0, off: 0, imm: 0 }, span, label };
}

/** Insert slots at pos; labels at or after pos move with the code they name. */
function insertAt(code: Code, labelPos: number[], pos: number, slots: Code): void {
  code.splice(pos, 0, ...slots);
  for (let l = 0; l < labelPos.length; l++) if (labelPos[l]! >= pos) labelPos[l]! += slots.length;
}

/**
 * One rewrite: decide a test every path decides, or thread one edge.
 * Returns whether code changed (the caller removes what became unreachable).
 */
export function threadKnown(code: Code, labelPos: number[], budget: { slots: number }): boolean {
  if (code.length > 20_000) return false;
  const { list, at } = blocks(code, labelPos);
  const entry = analyse(code, labelPos, list, at);
  if (!entry) return false;
  const labelAt = (pos: number): number => {
    const l = labelPos.indexOf(pos);
    if (l >= 0) return l;
    labelPos.push(pos);
    return labelPos.length - 1;
  };
  // Tests decided on every path: fold in place.
  for (const b of list) {
    const s = entry.get(b.start);
    const last = lastOf(code, b);
    const t = code[last]!;
    if (!s || t.pinned || !isCondJump(t)) continue;
    const st = clone(s);
    for (let i = b.start; i < last; i++) transfer(code, i, st);
    const taken = outcome(t, st);
    if (taken === undefined) continue;
    if (taken) code[last] = jump(t.span, t.label!);
    else {
      code.splice(last, 1);
      for (let l = 0; l < labelPos.length; l++) if (labelPos[l]! > last) labelPos[l]!--;
    }
    return true;
  }
  // Joins whose every incoming edge decides the test: thread one edge (the next round takes the
  // next). Only whole joins: the original path then dies, so the copies cost (edges - 1) x path
  // length at most, and a test still reached by an undecided edge is not duplicated for nothing.
  if (budget.slots <= 0) return false;
  for (const b of list) {
    if (b.preds.length < 2) continue;
    const plans: Plan[] = [];
    for (const p of b.preds) {
      const pl = planEdge(code, labelPos, at, entry, b, p);
      if (!pl) break;
      plans.push(pl);
    }
    if (plans.length < b.preds.length) continue;
    // Worth it when the code does not grow (what dies pays for the copies), or when a test is
    // decided by a value only memory holds: the verifier cannot decide that one itself.
    if (!plans.some((x) => x.path.hidden) && growth(code, at, b, plans) > 0) continue;
    const pl = plans.find((x) => x.how !== 'cond' || canAppend(code) || onlyTest(code, x.path));
    if (!pl) continue;
    const lastB = pl.path.blocks[pl.path.blocks.length - 1]!;
    const test = code[lastOf(code, lastB)]!;
    const target = pl.path.taken ? test.label! : labelAt(lastOf(code, lastB) + 1);
    const copy = copyPath(code, pl.path.blocks, target, labelAt);
    if (copy.length - 1 > budget.slots) return false;
    budget.slots -= copy.length - 1;
    if (pl.how === 'fall') insertAt(code, labelPos, b.start, copy);
    else if (pl.how === 'ja') {
      // The copy replaces the jump (every path into the jump reaches it with this state); labels
      // on the jump now name the copy.
      code.splice(pl.last, 1, ...copy);
      for (let l = 0; l < labelPos.length; l++) if (labelPos[l]! > pl.last) labelPos[l]! += copy.length - 1;
    } else if (copy.length === 1) {
      // Only a jump: the conditional jump into the join goes straight to its target.
      code[pl.last]!.label = copy[0]!.label!;
    } else {
      const start = code.length;
      code.push(...copy);
      labelPos.push(start);
      code[pl.last]!.label = labelPos.length - 1;
    }
    return true;
  }
  return false;
}

/** Slots the copies add less the slots of the paths that die once every edge is threaded. */
function growth(code: Code, at: Map<number, Block>, join: Block, plans: Plan[]): number {
  let add = 0;
  const union = new Set<Block>();
  for (const pl of plans) {
    for (const x of pl.path.blocks) union.add(x);
    const len = pl.path.blocks.reduce((n, x) => n + x.end - x.start + 1 - (isJa(code[lastOf(code, x)]!) ? 1 : 0), 0);
    // A path that is only the test: a jump into the join is retargeted, and costs nothing.
    add += len - (pl.how === 'ja' || (pl.how === 'cond' && len === 1) ? 1 : 0);
  }
  const dead = new Set<Block>([join]);
  const from = new Set(join.preds);
  for (let grew = true; grew;) {
    grew = false;
    for (const x of union) {
      if (dead.has(x)) continue;
      if (x.preds.every((p) => from.has(p) || dead.has(at.get(p)!))) { dead.add(x); grew = true; }
    }
  }
  let saved = 0;
  for (const x of dead) saved += x.end - x.start + 1;
  return add - saved;
}

/** How one edge into a join is threaded: the path, and how its source reaches the join. */
interface Plan { path: Path; last: number; how: 'fall' | 'ja' | 'cond' }

function planEdge(code: Code, labelPos: number[], at: Map<number, Block>, entry: Map<number, State>, b: Block, p: number): Plan | undefined {
  const pb = at.get(p)!;
  const inS = entry.get(p);
  if (!inS) return undefined;
  const pLast = lastOf(code, pb);
  const pt = code[pLast]!;
  if (pt.pinned) return undefined;
  const whole = clone(inS);
  for (let i = pb.start; i <= pb.end; i++) transfer(code, i, whole);
  const out = edgeState(code, labelPos, pb, whole, b.start);
  const viaJump = pt.label !== undefined && labelPos[pt.label] === b.start && (isJa(pt) || isCondJump(pt));
  const viaFall = !isJa(pt) && pLast + 1 === b.start;
  // An edge that is both (a test whose arms meet) or neither is left alone.
  if (viaJump === viaFall) return undefined;
  const path = findPath(code, labelPos, at, b, out, [], THRESHOLD);
  if (!path) return undefined;
  const lastB = path.blocks[path.blocks.length - 1]!;
  const tl = lastOf(code, lastB);
  const target = path.taken ? labelPos[code[tl]!.label!]! : tl + 1;
  // Never thread into the path itself or back to the edge's source: that would unroll a loop.
  if (path.blocks.some((x) => x.start === target) || target === p) return undefined;
  return { path, last: pLast, how: viaFall ? 'fall' : isJa(pt) ? 'ja' : 'cond' };
}

/** Whether a path's copy is a lone jump (the path is one block holding only the test). */
function onlyTest(code: Code, path: Path): boolean {
  const b = path.blocks[0]!;
  return path.blocks.length === 1 && lastOf(code, b) === b.start;
}

/** Code can take a copy at its end: its last slot never falls through. */
function canAppend(code: Code): boolean {
  const e = code[code.length - 1];
  if (!e) return false;
  const cls = O.BPF_CLASS(e.insn.code);
  return isJa(e) || ((cls === O.BPF_JMP || cls === O.BPF_JMP32) && O.BPF_OP(e.insn.code) === O.BPF_EXIT);
}

/** The blocks of path copied for one edge, ending in a jump to target. */
function copyPath(code: Code, path: Block[], target: number, labelAt: (pos: number) => number): Code {
  const out: Code = [];
  for (let k = 0; k < path.length; k++) {
    const b = path[k]!;
    const last = lastOf(code, b);
    const t = code[last]!;
    const cls = O.BPF_CLASS(t.insn.code);
    const endsInJump = (cls === O.BPF_JMP || cls === O.BPF_JMP32) && O.BPF_OP(t.insn.code) !== O.BPF_CALL;
    for (let i = b.start; i <= (endsInJump ? last - 1 : b.end); i++) out.push(copyInsn(code[i]!));
    if (k === path.length - 1) {
      out.push(jump(t.span, target));
      break;
    }
    // A jump or a fall-through into the next block: its copy follows.
    if (!endsInJump || isJa(t)) continue;
    if (last + 1 === path[k + 1]!.start) { out.push(copyInsn(t)); continue; }
    // The path leaves by the taken arm (findPath takes it only where an inverse exists): invert
    // the test so the copy of the next block follows.
    const c = copyInsn(t, labelAt(last + 1));
    c.insn.code = (t.insn.code & ~0xf0) | INVERSE[O.BPF_OP(t.insn.code)]!;
    out.push(c);
  }
  return out;
}
