/**
 * Static stack-slot liveness (the kernel's kernel/bpf/liveness.c, in a
 * simpler and more conservative form): for every instruction, which 8-byte
 * slots of its own function's stack may still be read before they are
 * overwritten. State pruning ignores dead slots of the innermost frame, as
 * the kernel ignores slots no later instruction reads, so a branch that only
 * wrote a slot nobody reads again joins the paths that did not.
 *
 * Two passes per function:
 *  - forward: which registers hold this frame's pointer (r10 plus a known
 *    constant, or an unknown offset from it), so loads and stores through a
 *    copy of r10 count as stack accesses;
 *  - backward: a slot is live before an instruction that reads it (a load,
 *    an atomic, a helper given a stack pointer: a map key or value by the
 *    map's sizes, a fixed-size argument by its size, memory it only writes
 *    not at all, anything else from the pointer to the frame's top), dead
 *    before a full 8-byte store to it, and live through everything else.
 *    (The forward pass also follows which map each register holds.)
 * Where the frame's address could leave the analysis (stored to memory,
 * passed to a bpf-to-bpf call or a kfunc, a callback that could write it
 * back), every slot of that function is live everywhere: what the verifier
 * did before this pass, never less than the kernel keeps.
 */
import * as O from '../isa/opcodes';
import type { Insn } from '../isa/insn';
import { helperById, resolveMapArgType } from '../helpers/table';

/** The maps a program's ld_imm64 slots load (lddw slot -> type, key and value size), to size helpers' key and value reads. */
export type MapAt = (slot: number) => { type?: string; key_size: number; value_size: number } | undefined;

/** Not a pointer into this frame. */
const NOT = 32767;
/** A pointer into this frame at an unknown offset (or maybe not a pointer at all). */
const ANY = 32766;
const MAX_OFF = 30000;
const SLOTS = 64;

export interface Successors {
  fall: number | null;
  branch: number | null;
}

/** Per instruction, the live slots before it: bit spi of lo (spi < 32) or hi (spi - 32); slot spi holds [fp-8(spi+1), fp-8spi). */
export interface StackLiveness {
  lo: Int32Array;
  hi: Int32Array;
}

const isFp = (v: number): boolean => v !== NOT;
const ldImm64 = (i: Insn): boolean => i.code === (O.BPF_LD | O.BPF_DW | O.BPF_IMM);

/** What one instruction does to the registers' frame-pointer values (in place); false when the frame's address escapes. */
function transfer(insn: Insn, v: Int16Array): boolean {
  const cls = O.BPF_CLASS(insn.code);
  const op = O.BPF_OP(insn.code);
  const x = O.BPF_SRC(insn.code) === O.BPF_X;
  switch (cls) {
    case O.BPF_ALU:
    case O.BPF_ALU64: {
      if (op === O.BPF_MOV) {
        if (!x) v[insn.dst] = NOT;
        // A 64-bit copy keeps the pointer; a 32-bit or sign-extending one makes a scalar (kept as ANY: no need to be exact).
        else v[insn.dst] = cls === O.BPF_ALU64 && insn.off === 0 ? v[insn.src]! : isFp(v[insn.src]!) ? ANY : NOT;
        return true;
      }
      const d = v[insn.dst]!;
      if (cls === O.BPF_ALU64 && !x && (op === O.BPF_ADD || op === O.BPF_SUB) && d !== NOT && d !== ANY) {
        const k = op === O.BPF_ADD ? d + insn.imm : d - insn.imm;
        v[insn.dst] = Math.abs(k) > MAX_OFF ? ANY : k;
        return true;
      }
      v[insn.dst] = isFp(d) || (x && isFp(v[insn.src]!)) ? ANY : NOT;
      return true;
    }
    case O.BPF_LDX:
      v[insn.dst] = NOT;
      return true;
    case O.BPF_ST:
      return true;
    case O.BPF_STX:
      if (isFp(v[insn.src]!)) return false;
      if (O.BPF_MODE(insn.code) === O.BPF_ATOMIC) {
        if (insn.imm === O.BPF_CMPXCHG) v[0] = NOT;
        else if (insn.imm & O.BPF_FETCH) v[insn.src] = NOT;
      }
      return true;
    case O.BPF_LD:
      if (ldImm64(insn)) {
        if (insn.src === O.BPF_PSEUDO_FUNC) return false;
        v[insn.dst] = NOT;
        return true;
      }
      // LD_ABS / LD_IND: r0 gets the bytes, r1-r5 are clobbered.
      for (let r = 0; r <= 5; r++) v[r] = NOT;
      return true;
    case O.BPF_JMP:
    case O.BPF_JMP32: {
      if (op !== O.BPF_CALL) return true;
      let fpArg = false;
      for (let r = 1; r <= 5; r++) if (isFp(v[r]!)) fpArg = true;
      if (fpArg && (insn.src === O.BPF_PSEUDO_CALL || insn.src === O.BPF_PSEUDO_KFUNC_CALL)) return false;
      for (let r = 1; r <= 5; r++) v[r] = NOT;
      // A helper's result never points into this frame: a map lookup keyed on the stack returns a map
      // value. (bpf_dynptr_data over a stack buffer would; the only dynptrs made here are XDP ones, over the
      // packet, and kfuncs given this frame — bpf_dynptr_from_xdp among them — already made it escape above.)
      v[0] = NOT;
      return true;
    }
  }
  return true;
}

/** Which map (by lddw slot) each register holds after one instruction (in place). */
function transferMap(insn: Insn, t: number, m: Int32Array, mapAt: MapAt): void {
  const cls = O.BPF_CLASS(insn.code);
  if (cls === O.BPF_LD) {
    if (ldImm64(insn)) m[insn.dst] = insn.src !== O.BPF_PSEUDO_MAP_VALUE && mapAt(t) ? t : -1;
    else for (let r = 0; r <= 5; r++) m[r] = -1;
    return;
  }
  if (cls === O.BPF_ALU || cls === O.BPF_ALU64) {
    const copy = cls === O.BPF_ALU64 && O.BPF_OP(insn.code) === O.BPF_MOV && O.BPF_SRC(insn.code) === O.BPF_X && insn.off === 0;
    m[insn.dst] = copy ? m[insn.src]! : -1;
    return;
  }
  if (cls === O.BPF_LDX) m[insn.dst] = -1;
  else if (cls === O.BPF_STX && O.BPF_MODE(insn.code) === O.BPF_ATOMIC) {
    if (insn.imm === O.BPF_CMPXCHG) m[0] = -1;
    else if (insn.imm & O.BPF_FETCH) m[insn.src] = -1;
  } else if ((cls === O.BPF_JMP || cls === O.BPF_JMP32) && O.BPF_OP(insn.code) === O.BPF_CALL) {
    for (let r = 0; r <= 5; r++) m[r] = -1;
  }
}

/** Slots covering bytes [off, off + size) of the frame, added to `acc` (off < 0; bytes outside the stack are ignored). */
function addSlots(acc: Int32Array, off: number, size: number): void {
  for (let b = off; b < off + size; b++) {
    if (b >= 0 || b < -SLOTS * 8) continue;
    const spi = (-b - 1) >> 3;
    acc[spi >> 5]! |= 1 << (spi & 31);
  }
}

/**
 * Fill `out` for the instructions of the functions starting at `starts`
 * (sorted; the last runs to the end of the program).
 */
export function computeStackLiveness(insns: readonly Insn[], starts: readonly number[], succ: (t: number) => Successors, out: StackLiveness, mapAt: MapAt = () => undefined): void {
  for (let f = 0; f < starts.length; f++) {
    const from = starts[f]!;
    const to = starts[f + 1] ?? insns.length;
    if (!liveness(insns, from, to, succ, out, mapAt)) {
      out.lo.fill(-1, from, to);
      out.hi.fill(-1, from, to);
    }
  }
}

/** One function; false when its frame's address escapes (the caller marks every slot live). */
function liveness(insns: readonly Insn[], from: number, to: number, succ: (t: number) => Successors, out: StackLiveness, mapAt: MapAt): boolean {
  const n = to - from;
  // Forward: the registers' values before each instruction (11 per instruction, NOT until reached),
  // and the lddw slot of the map each holds (-1: none or not known).
  const vin = new Int16Array(n * 11).fill(NOT);
  const min = new Int32Array(n * 11).fill(-1);
  const reached = new Uint8Array(n);
  vin[10] = 0;
  reached[0] = 1;
  const work: number[] = [from];
  const v = new Int16Array(11);
  const m = new Int32Array(11);
  while (work.length > 0) {
    const t = work.pop()!;
    v.set(vin.subarray((t - from) * 11, (t - from) * 11 + 11));
    m.set(min.subarray((t - from) * 11, (t - from) * 11 + 11));
    if (!transfer(insns[t]!, v)) return false;
    transferMap(insns[t]!, t, m, mapAt);
    const s = succ(t);
    for (let e = 0; e < 2; e++) {
      const w = e === 0 ? s.fall : s.branch;
      if (w === null || w < from || w >= to) continue;
      const base = (w - from) * 11;
      if (!reached[w - from]) {
        reached[w - from] = 1;
        vin.set(v, base);
        min.set(m, base);
        work.push(w);
        continue;
      }
      let changed = false;
      for (let r = 0; r < 11; r++) {
        const a = vin[base + r]!;
        if (a !== v[r]! && a !== ANY) {
          vin[base + r] = ANY;
          changed = true;
        }
        if (min[base + r] !== m[r] && min[base + r] !== -1) {
          min[base + r] = -1;
          changed = true;
        }
      }
      if (changed) work.push(w);
    }
  }
  // Per instruction: the slots it reads (use) and the ones it overwrites whole (def).
  const use = new Int32Array(n * 2);
  const def = new Int32Array(n * 2);
  const all = (t: number): void => {
    use[t * 2] = -1;
    use[t * 2 + 1] = -1;
  };
  for (let t = 0; t < n; t++) {
    if (!reached[t]) continue;
    const insn = insns[from + t]!;
    const cls = O.BPF_CLASS(insn.code);
    const mode = O.BPF_MODE(insn.code);
    const size = O.sizeBytes(O.BPF_SIZE(insn.code));
    if (cls === O.BPF_LDX || (cls === O.BPF_STX && mode === O.BPF_ATOMIC)) {
      const base = vin[t * 11 + (cls === O.BPF_LDX ? insn.src : insn.dst)]!;
      if (base === ANY) all(t);
      else if (base !== NOT) addSlots(use.subarray(t * 2, t * 2 + 2), base + insn.off, size);
    } else if ((cls === O.BPF_ST || cls === O.BPF_STX) && mode === O.BPF_MEM) {
      const base = vin[t * 11 + insn.dst]!;
      const off = base + insn.off;
      if (base !== NOT && base !== ANY && size === 8 && off % 8 === 0) addSlots(def.subarray(t * 2, t * 2 + 2), off, 8);
    } else if ((cls === O.BPF_JMP || cls === O.BPF_JMP32) && O.BPF_OP(insn.code) === O.BPF_CALL) {
      const proto = insn.src === 0 ? helperById(insn.imm) : undefined;
      const map = mapAt(min[t * 11 + 1]!);
      for (let r = 1; r <= 5; r++) {
        const base = vin[t * 11 + r]!;
        if (!isFp(base)) continue;
        if (base === ANY || !proto) {
          all(t);
          continue;
        }
        const acc = use.subarray(t * 2, t * 2 + 2);
        // A bloom filter's peek reads its value where a queue's writes it (resolve_map_arg_type).
        const kind = proto.args[r - 1] && resolveMapArgType(proto.id, map?.type, proto.args[r - 1]!);
        if (kind === 'ARG_PTR_TO_MAP_KEY' && map) addSlots(acc, base, map.key_size);
        else if (kind === 'ARG_PTR_TO_MAP_VALUE' && map) addSlots(acc, base, map.value_size);
        else if (kind === 'ARG_PTR_TO_FIXED_SIZE_MEM' && proto.argSizes?.[r - 1] !== undefined) addSlots(acc, base, proto.argSizes[r - 1]!);
        else if (kind === 'ARG_PTR_TO_FIXED_SIZE_MEM_U32') addSlots(acc, base, 4);
        // Memory the helper only writes is not read.
        else if (kind === 'ARG_PTR_TO_UNINIT_MEM' || kind === 'ARG_PTR_TO_UNINIT_MAP_VALUE' || kind === 'ARG_PTR_TO_LONG') continue;
        // Otherwise as much as the helper could reach: from the pointer to the top of the frame.
        else addSlots(acc, base, -base);
      }
    }
  }
  // Backward fixpoint over the function's edges.
  const { lo, hi } = out;
  lo.fill(0, from, to);
  hi.fill(0, from, to);
  let changed = true;
  while (changed) {
    changed = false;
    for (let t = n - 1; t >= 0; t--) {
      if (!reached[t]) continue;
      const s = succ(from + t);
      let oLo = 0;
      let oHi = 0;
      for (let e = 0; e < 2; e++) {
        const w = e === 0 ? s.fall : s.branch;
        if (w === null || w < from || w >= to) continue;
        oLo |= lo[w]!;
        oHi |= hi[w]!;
      }
      const iLo = use[t * 2]! | (oLo & ~def[t * 2]!);
      const iHi = use[t * 2 + 1]! | (oHi & ~def[t * 2 + 1]!);
      if (iLo !== lo[from + t] || iHi !== hi[from + t]) {
        lo[from + t] = iLo;
        hi[from + t] = iHi;
        changed = true;
      }
    }
  }
  return true;
}

/** Is slot spi live in `l` before instruction t? */
export function slotLive(l: StackLiveness, t: number, spi: number): boolean {
  if (spi >= SLOTS) return true;
  return ((spi < 32 ? l.lo[t]! : l.hi[t]!) & (1 << (spi & 31))) !== 0;
}
