/**
 * Peephole clean-up of one function's code, driven by register liveness
 * over its control-flow graph. The code generator copies values between
 * temporaries and homes freely; this pass removes what the copies cost:
 *
 *  - retarget: `rT = …; (ops on rT); rH = rT` with rT dead afterwards
 *    computes straight into rH;
 *  - forward: `rT = rS; use of rT` with rT dead afterwards uses rS;
 *  - dead code: pure instructions whose result is never read;
 *  - a conditional jump over an unconditional one becomes the inverse jump;
 *  - a test of a register just set to a constant is decided (jump threading),
 *    and tests decided by values known through registers and memory are
 *    decided or threaded (./thread.ts).
 *
 * Instructions written by inline asm (`pinned`) are never rewritten.
 * It works on label-addressed code (before jump offsets exist) and never
 * changes what memory is read or written, so what the verifier sees of
 * packet and map accesses stays as written.
 */
import * as O from '../isa/opcodes';
import type { EmittedInsn } from './codegen/frame';
import { decide, INVERSE, isCondJump, isSecondSlot, successors } from './flow';
import { threadKnown } from './thread';

type Code = EmittedInsn[];

const ALL_ARGS = 0b111110; // r1-r5
const CALL_CLOBBER = 0b111111; // r0-r5

interface UseDef { use: number; def: number; pure: boolean }

function bit(r: number): number {
  return 1 << r;
}


function useDef(code: Code, i: number): UseDef {
  const e = code[i]!;
  const { code: c, dst, src, imm } = e.insn;
  if (isSecondSlot(code, i)) return { use: 0, def: 0, pure: false };
  const cls = O.BPF_CLASS(c);
  const x = O.BPF_SRC(c) === O.BPF_X;
  switch (cls) {
    case O.BPF_ALU: case O.BPF_ALU64: {
      const op = O.BPF_OP(c);
      if (op === O.BPF_MOV) return { use: x ? bit(src) : 0, def: bit(dst), pure: true };
      if (op === O.BPF_NEG || op === O.BPF_END) return { use: bit(dst), def: bit(dst), pure: true };
      // Division by a register may fault-free but is still pure for our purposes (BPF defines x/0 = 0).
      return { use: bit(dst) | (x ? bit(src) : 0), def: bit(dst), pure: true };
    }
    case O.BPF_LDX: return { use: bit(src), def: bit(dst), pure: false };
    case O.BPF_ST: return { use: bit(dst), def: 0, pure: false };
    case O.BPF_STX: {
      if (O.BPF_MODE(c) === O.BPF_ATOMIC) {
        if (imm === O.BPF_CMPXCHG) return { use: bit(dst) | bit(src) | bit(0), def: bit(0), pure: false };
        return { use: bit(dst) | bit(src), def: imm & O.BPF_FETCH ? bit(src) : 0, pure: false };
      }
      return { use: bit(dst) | bit(src), def: 0, pure: false };
    }
    case O.BPF_LD: return { use: 0, def: bit(dst), pure: e.map === undefined };
    case O.BPF_JMP: case O.BPF_JMP32: {
      const op = O.BPF_OP(c);
      if (op === O.BPF_CALL) return { use: ALL_ARGS, def: CALL_CLOBBER, pure: false };
      if (op === O.BPF_EXIT) return { use: bit(0), def: 0, pure: false };
      if (op === O.BPF_JA) return { use: 0, def: 0, pure: false };
      return { use: bit(dst) | (x ? bit(src) : 0), def: 0, pure: false };
    }
  }
  return { use: 0, def: 0, pure: false };
}


/**
 * Successors of instruction i into s1/s2 (-1: none), as successors() lists
 * them, without an array per instruction.
 */
function successorsInto(code: Code, labelPos: number[], i: number, s1: Int32Array, s2: Int32Array): void {
  s1[i] = -1;
  s2[i] = -1;
  const c = code[i]!.insn.code;
  const cls = O.BPF_CLASS(c);
  const next = i + 1 < code.length ? i + 1 : -1;
  if (cls === O.BPF_JMP || cls === O.BPF_JMP32) {
    const op = O.BPF_OP(c);
    if (op === O.BPF_EXIT) return;
    const l = code[i]!.label;
    const t = l !== undefined ? labelPos[l] : undefined;
    if (op === O.BPF_JA) {
      if (t !== undefined) s1[i] = t;
      return;
    }
    if (op !== O.BPF_CALL && t !== undefined) {
      if (next >= 0) { s1[i] = next; s2[i] = t; } else s1[i] = t;
      return;
    }
  }
  if (c === (O.BPF_LD | O.BPF_IMM | O.BPF_DW)) {
    if (i + 2 < code.length) s1[i] = i + 2;
    return;
  }
  s1[i] = next;
}

/**
 * Per-instruction facts of liveness(), in typed arrays sized once per
 * peephole() call and reused by every round: a huge function (175k
 * instructions from a 1 MB source) runs liveness up to 20 times, and fresh
 * arrays (or an object and an array per instruction) each round were
 * garbage the heap grew to hold before collecting it.
 */
class LivenessScratch {
  readonly liveIn: Int32Array;
  readonly liveOut: Int32Array;
  readonly use: Int32Array;
  readonly kill: Int32Array;
  readonly s1: Int32Array;
  readonly s2: Int32Array;
  /** Slots some used label points at (join points): 1, else 0. */
  readonly target: Uint8Array;
  /** Labels some jump uses: 1, else 0 (grown when labels are added). */
  labelUsed: Uint8Array;
  constructor(n: number) {
    this.liveIn = new Int32Array(n);
    this.liveOut = new Int32Array(n);
    this.use = new Int32Array(n);
    this.kill = new Int32Array(n);
    this.s1 = new Int32Array(n);
    this.s2 = new Int32Array(n);
    this.target = new Uint8Array(n + 2);
    this.labelUsed = new Uint8Array(0);
  }
}

/** live-out register set of every instruction (the code may be shorter than the scratch, never longer). */
function liveness(code: Code, labelPos: number[], sc: LivenessScratch): Int32Array {
  const n = code.length;
  const { liveIn, liveOut, use, kill, s1, s2 } = sc;
  liveIn.fill(0, 0, n);
  liveOut.fill(0, 0, n);
  for (let i = 0; i < n; i++) {
    const ud = useDef(code, i);
    use[i] = ud.use;
    kill[i] = ~ud.def;
    successorsInto(code, labelPos, i, s1, s2);
  }
  let changed = true;
  let rounds = 0;
  while (changed && rounds++ < 1000) {
    changed = false;
    for (let i = n - 1; i >= 0; i--) {
      const a = s1[i]!;
      const b = s2[i]!;
      const out = (a >= 0 ? liveIn[a]! : 0) | (b >= 0 ? liveIn[b]! : 0);
      const inn = use[i]! | (out & kill[i]!);
      if (out !== liveOut[i] || inn !== liveIn[i]) {
        liveOut[i] = out;
        liveIn[i] = inn;
        changed = true;
      }
    }
  }
  return liveOut;
}

/**
 * Mark the join points (slots a jump some instruction makes lands on) in
 * sc.target, as a byte per slot instead of a Set of numbers per round.
 */
function markTargets(code: Code, labelPos: number[], sc: LivenessScratch): { has(i: number): boolean } {
  if (sc.labelUsed.length < labelPos.length) sc.labelUsed = new Uint8Array(labelPos.length);
  const used = sc.labelUsed;
  used.fill(0);
  for (const e of code) if (e.label !== undefined) used[e.label] = 1;
  const target = sc.target;
  target.fill(0);
  for (let l = 0; l < labelPos.length; l++) {
    const p = labelPos[l]!;
    if (used[l] && p >= 0 && p < target.length) target[p] = 1;
  }
  return { has: (i: number): boolean => i >= 0 && i < target.length && target[i] === 1 };
}

function isMovReg(e: EmittedInsn): boolean {
  const c = e.insn.code;
  return (c === (O.BPF_ALU64 | O.BPF_MOV | O.BPF_X) || c === (O.BPF_ALU | O.BPF_MOV | O.BPF_X)) && e.insn.off === 0;
}

/** Does this instruction leave its destination zero-extended from 32 bits? */
function defines32(e: EmittedInsn): boolean {
  const c = e.insn.code;
  const cls = O.BPF_CLASS(c);
  if (cls === O.BPF_ALU) return true;
  if (cls === O.BPF_LDX && O.BPF_MODE(c) === O.BPF_MEM && O.BPF_SIZE(c) !== O.BPF_DW) return true;
  return false;
}

function remove(code: Code, labelPos: number[], k: number): void {
  code.splice(k, 1);
  for (let l = 0; l < labelPos.length; l++) if (labelPos[l]! > k) labelPos[l]!--;
}



/**
 * Share identical `r0 = K; exit` tails, as clang's tail merging does:
 * `if c goto over; r0 = K; exit; over:` becomes `if !c goto tail` when
 * another `r0 = K; exit` exists, and other copies become a jump to it.
 */
function mergeTails(code: Code, labelPos: number[]): boolean {
  const isTail = (i: number): boolean => {
    const a = code[i], b = code[i + 1];
    if (!a || !b || a.pinned || b.pinned || b.insn.code !== (O.BPF_JMP | O.BPF_EXIT)) return false;
    const c = a.insn.code;
    return (c === (O.BPF_ALU | O.BPF_MOV | O.BPF_K) || c === (O.BPF_ALU64 | O.BPF_MOV | O.BPF_K)) && a.insn.dst === 0 && !jumpedTo.has(i + 1);
  };
  const jumpedTo = new Set<number>();
  for (const e of code) if (e.label !== undefined) jumpedTo.add(labelPos[e.label]!);
  const first = new Map<string, number>();
  for (let i = 0; i < code.length - 1; i++) {
    if (!isTail(i)) continue;
    const key = `${code[i]!.insn.code}:${code[i]!.insn.imm}`;
    const f = first.get(key);
    if (f === undefined) { first.set(key, i); continue; }
    const prev = code[i - 1];
    const tailLabel = labelPos.findIndex((p) => p === f);
    let label = tailLabel;
    if (label < 0) { labelPos.push(f); label = labelPos.length - 1; }
    if (prev && !prev.pinned && isCondJump(prev) && labelPos[prev.label!] === i + 2 && !jumpedTo.has(i) && INVERSE[O.BPF_OP(prev.insn.code)] !== undefined) {
      prev.insn.code = (prev.insn.code & ~0xf0) | INVERSE[O.BPF_OP(prev.insn.code)]!;
      prev.label = label;
      remove(code, labelPos, i);
      remove(code, labelPos, i);
      return true;
    }
    // Replace the copy with a jump: one slot saved.
    code[i] = { insn: { code: O.BPF_JMP | O.BPF_JA, dst: 0, src: 0, off: 0, imm: 0 }, span: code[i]!.span, label };
    remove(code, labelPos, i + 1);
    return true;
  }
  return false;
}

/**
 * Delete instructions no path reaches (the kernel rejects a program with
 * unreachable instructions). Needed for correctness, not just size: a
 * condition folded to a constant can leave a dead arm behind.
 */
export function removeUnreachable(code: Code, labelPos: number[]): void {
  const seen = new Uint8Array(code.length);
  const work = [0];
  while (work.length) {
    const i = work.pop()!;
    if (i >= code.length || seen[i]) continue;
    seen[i] = 1;
    if (code[i]!.insn.code === (O.BPF_LD | O.BPF_IMM | O.BPF_DW) && i + 1 < code.length) seen[i + 1] = 1;
    for (const s of successors(code, labelPos, i)) work.push(s);
  }
  // Everything left after removing the unreached is reached: one pass does it.
  compact(code, labelPos, (i) => !seen[i]);
}

/**
 * Delete the slots `kill` selects, in place and in one linear pass; a label
 * on a deleted slot moves to the next slot kept (as deleting one at a time would).
 */
export function compact(code: Code, labelPos: number[], kill: (i: number) => boolean): boolean {
  const before = new Int32Array(code.length + 1);
  for (let i = 0; i < code.length; i++) before[i + 1] = before[i]! + (kill(i) ? 1 : 0);
  if (before[code.length] === 0) return false;
  let w = 0;
  for (let i = 0; i < code.length; i++) if (before[i + 1] === before[i]) code[w++] = code[i]!;
  code.length = w;
  for (let l = 0; l < labelPos.length; l++) {
    const p = labelPos[l]!;
    if (p >= 0) labelPos[l] = p - before[Math.min(p, before.length - 1)]!;
  }
  return true;
}


/** The constant `rX = K` at i puts in rX (undefined for anything else). */
function movConst(code: Code, i: number, r: number): bigint | undefined {
  const e = code[i];
  if (!e || e.pinned || isSecondSlot(code, i) || e.insn.dst !== r) return undefined;
  if (e.insn.code === (O.BPF_ALU64 | O.BPF_MOV | O.BPF_K)) return BigInt(e.insn.imm);
  if (e.insn.code === (O.BPF_ALU | O.BPF_MOV | O.BPF_K)) return BigInt.asUintN(32, BigInt(e.insn.imm));
  return undefined;
}

/**
 * Jump threading over constants, as clang's does after inlining: a
 * function that returns a constant on some path (`return true;` in an
 * inlined parser) and a caller that tests it. `rX = K; goto L; … L: if rX
 * op imm goto T` jumps straight to T or past the test; a test reached only
 * by falling through from `rX = K` becomes a jump or nothing. Dead code
 * removal then drops what no path needs.
 */
function threadConstants(code: Code, labelPos: number[]): boolean {
  const refs = new Map<number, number>(); // slot → how many jumps target it
  for (const e of code) if (e.label !== undefined) refs.set(labelPos[e.label]!, (refs.get(labelPos[e.label]!) ?? 0) + 1);
  const labelAt = (pos: number): number => {
    const l = labelPos.indexOf(pos);
    if (l >= 0) return l;
    labelPos.push(pos);
    return labelPos.length - 1;
  };
  for (let p = 1; p < code.length; p++) {
    const e = code[p]!;
    if (e.pinned || e.insn.code !== (O.BPF_JMP | O.BPF_JA) || e.label === undefined || refs.has(p)) continue;
    const j = labelPos[e.label]!;
    const J = code[j];
    if (!J || J.pinned || !isCondJump(J) || O.BPF_SRC(J.insn.code) !== O.BPF_K || j === p) continue;
    const k = movConst(code, p - 1, J.insn.dst);
    if (k === undefined) continue;
    const taken = decide(J.insn.code, k, J.insn.imm);
    if (taken === undefined) continue;
    e.label = taken ? J.label! : labelAt(j + 1);
    return true;
  }
  for (let j = 1; j < code.length; j++) {
    const J = code[j]!;
    if (J.pinned || !isCondJump(J) || O.BPF_SRC(J.insn.code) !== O.BPF_K || refs.has(j)) continue;
    const k = movConst(code, j - 1, J.insn.dst);
    if (k === undefined) continue;
    const taken = decide(J.insn.code, k, J.insn.imm);
    if (taken === undefined) continue;
    if (taken) code[j] = { insn: { code: O.BPF_JMP | O.BPF_JA, dst: 0, src: 0, off: 0, imm: 0 }, span: J.span, label: J.label };
    else remove(code, labelPos, j);
    return true;
  }
  return false;
}

export function peephole(code: Code, labelPos: number[]): void {
  removeUnreachable(code, labelPos);
  for (let round = 0; round < (code.length > 20_000 ? 20 : 200) && threadConstants(code, labelPos); round++) removeUnreachable(code, labelPos);
  // Tests decided by values known through registers and memory: what the copies may add is capped.
  const budget = { slots: Math.max(32, code.length >> 3) };
  for (let round = 0; round < 64 && threadKnown(code, labelPos, budget); round++) removeUnreachable(code, labelPos);
  for (let round = 0; round < 200; round++) if (!mergeTails(code, labelPos)) break;
  // Each round makes one change and recomputes liveness: enough rounds for every copy of a
  // normal program, capped so that a huge function stays linear-ish in compile time.
  const rounds = code.length > 20_000 ? 20 : Math.max(20, Math.min(4000, code.length * 2));
  const scratch = new LivenessScratch(code.length);
  for (let round = 0; round < rounds; round++) {
    // Only labels some jump uses are join points.
    const targets = markTargets(code, labelPos, scratch);
    const live = liveness(code, labelPos, scratch);
    let changed = false;
    for (let i = 0; i < code.length; i++) {
      const e = code[i]!;
      if (isSecondSlot(code, i) || e.pinned) continue;
      // `if c goto L1; goto L2; L1:` is `if !c goto L2`.
      const nx = code[i + 1];
      if (isCondJump(e) && nx && !nx.pinned && nx.insn.code === (O.BPF_JMP | O.BPF_JA) && nx.label !== undefined && labelPos[e.label!] === i + 2 && !targets.has(i + 1) && INVERSE[O.BPF_OP(e.insn.code)] !== undefined) {
        e.insn.code = (e.insn.code & ~0xf0) | INVERSE[O.BPF_OP(e.insn.code)]!;
        e.label = nx.label;
        remove(code, labelPos, i + 1);
        changed = true;
        break;
      }
      // `if c goto L; L:` (an empty if body): both arms are the next instruction, and clang emits
      // no test. Left in, it gives the verifier a second state to walk from the next instruction on.
      if (isCondJump(e) && e.label !== undefined && labelPos[e.label] === i + 1) {
        remove(code, labelPos, i);
        changed = true;
        break;
      }
      const ud = useDef(code, i);
      // Dead pure instruction.
      if (ud.pure && ud.def && (live[i]! & ud.def) === 0 && e.insn.code !== (O.BPF_LD | O.BPF_IMM | O.BPF_DW)) {
        remove(code, labelPos, i);
        changed = true;
        break;
      }
      // Self move (64-bit only: a 32-bit self move zero-extends).
      if (e.insn.code === (O.BPF_ALU64 | O.BPF_MOV | O.BPF_X) && e.insn.dst === e.insn.src) {
        remove(code, labelPos, i);
        changed = true;
        break;
      }
      // A 32-bit self move after a 32-bit definition in the same block: the upper half is already zero.
      if (e.insn.code === (O.BPF_ALU | O.BPF_MOV | O.BPF_X) && e.insn.dst === e.insn.src && !targets.has(i)) {
        let k = i - 1;
        while (k >= 0 && !targets.has(k + 1) && !(useDef(code, k).def & bit(e.insn.dst)) && !isCondJump(code[k]!) && O.BPF_OP(code[k]!.insn.code) !== O.BPF_JA) k--;
        if (k >= 0 && !targets.has(k + 1) && (useDef(code, k).def & bit(e.insn.dst)) && defines32(code[k]!)) {
          remove(code, labelPos, i);
          changed = true;
          break;
        }
      }
      if (!isMovReg(e)) continue;
      const t = e.insn.src, h = e.insn.dst;
      if (t === 10 || h === 10 || t === h) continue;
      const is32 = O.BPF_CLASS(e.insn.code) === O.BPF_ALU;
      // Retarget: walk back over the chain that builds rT.
      if ((live[i]! & bit(t)) === 0 && !targets.has(i)) {
        let j = i - 1;
        let ok = false;
        while (j >= 0 && !targets.has(j + 1) && !isSecondSlot(code, j)) {
          const pu = useDef(code, j);
          const pe = code[j]!;
          if (pe.pinned) break;
          if (pu.def !== bit(t) || !pu.pure && O.BPF_CLASS(pe.insn.code) !== O.BPF_LDX) break;
          const op = O.BPF_OP(pe.insn.code);
          const cls = O.BPF_CLASS(pe.insn.code);
          const starts = cls === O.BPF_LDX || ((cls === O.BPF_ALU || cls === O.BPF_ALU64) && op === O.BPF_MOV);
          if (starts) { ok = true; break; }
          if (pu.use & bit(h)) break;
          if (targets.has(j)) break;
          j--;
        }
        if (ok) {
          // Everything from j..i-1 writes rT; rH must not be read in between (except by the first).
          let safe = true;
          for (let k = j + 1; k < i; k++) if (useDef(code, k).use & bit(h)) safe = false;
          // The value must be live nowhere else: rH is overwritten earlier now.
          for (let k = j; k < i; k++) if (k > j && (live[k - 1]! & bit(h)) && false) safe = false;
          // rH must not be live across the chain (its old value would be lost before i).
          for (let k = j; k < i; k++) if (live[k]! & bit(h) && k !== i - 1) {
            // live[k] includes rH only if read later before being redefined; after the rename, it is redefined at j.
            if (useDef(code, k + 1).use & bit(h)) safe = false;
          }
          if (is32 && !defines32(code[i - 1]!)) safe = false;
          if (!is32 && O.BPF_CLASS(code[i - 1]!.insn.code) === O.BPF_ALU && false) safe = false;
          if (safe) {
            for (let k = j; k < i; k++) {
              const ins = code[k]!.insn;
              if (ins.dst === t) ins.dst = h;
              if (k !== j && O.BPF_SRC(ins.code) === O.BPF_X && ins.src === t && O.BPF_CLASS(ins.code) !== O.BPF_LDX) ins.src = h;
              if (O.BPF_CLASS(ins.code) === O.BPF_LDX && ins.src === t && k !== j) ins.src = h;
            }
            remove(code, labelPos, i);
            changed = true;
            break;
          }
        }
      }
      // Forward: rT = rS; next uses rT (not as destination) and rT dies there.
      const n = code[i + 1];
      if (n && !n.pinned && !targets.has(i + 1) && !isSecondSlot(code, i + 1) && (live[i + 1]! & bit(t === h ? -1 : h)) === 0) {
        const nu = useDef(code, i + 1);
        const ni = n.insn;
        const cls = O.BPF_CLASS(ni.code);
        const usesOnlyAsSrc = (nu.use & bit(h)) !== 0 && (nu.def & bit(h)) === 0 && !(ni.dst === h && (cls === O.BPF_ALU || cls === O.BPF_ALU64 || cls === O.BPF_JMP || cls === O.BPF_JMP32 || cls === O.BPF_ST || cls === O.BPF_STX || cls === O.BPF_LDX));
        const narrowOk = !is32 || (cls === O.BPF_STX && O.BPF_MODE(ni.code) === O.BPF_MEM && O.BPF_SIZE(ni.code) !== O.BPF_DW) || cls === O.BPF_ALU || cls === O.BPF_JMP32;
        const callUse = cls === O.BPF_JMP && O.BPF_OP(ni.code) === O.BPF_CALL;
        if (usesOnlyAsSrc && narrowOk && !callUse && ni.src === h) {
          ni.src = t;
          remove(code, labelPos, i);
          changed = true;
          break;
        }
      }
    }
    if (!changed) return;
  }
}
