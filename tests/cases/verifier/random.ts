/**
 * A seeded generator of random XDP programs for differential testing of the
 * verifier against the kernel. Programs are built from snippets biased
 * toward what the verifier judges: packet pointers and their range checks
 * (every comparison form), pointer arithmetic with bounded and unbounded
 * scalars, map lookups with and without null checks, stack spills and
 * fills at aligned and odd offsets, helper calls, ALU on scalars of every
 * width, and forward branches. Deterministic for a seed.
 */
import * as O from '../../../src/isa/opcodes';
import { bytesToHex, encodeProgram, insn, type Insn } from '../../../src/isa/insn';
import type { MapSpec, ProgramSpec } from '../../../src/isa/spec';

/** mulberry32: small, fast, seedable. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const MAPS: MapSpec[] = [
  { type: 'array', key_size: 4, value_size: 16, max_entries: 4 },
  { type: 'hash', key_size: 4, value_size: 8, max_entries: 16 },
  { type: 'percpu_array', key_size: 4, value_size: 32, max_entries: 2 },
  { type: 'devmap', key_size: 4, value_size: 4, max_entries: 4 },
];

const ALU_OPS = [O.BPF_ADD, O.BPF_SUB, O.BPF_MUL, O.BPF_DIV, O.BPF_OR, O.BPF_AND, O.BPF_LSH, O.BPF_RSH, O.BPF_MOD, O.BPF_XOR, O.BPF_ARSH];
const JMP_OPS = [O.BPF_JEQ, O.BPF_JGT, O.BPF_JGE, O.BPF_JSET, O.BPF_JNE, O.BPF_JSGT, O.BPF_JSGE, O.BPF_JLT, O.BPF_JLE, O.BPF_JSLT, O.BPF_JSLE];
const SIZES = [O.BPF_B, O.BPF_H, O.BPF_W, O.BPF_DW];

interface Slot {
  i: Insn;
  /** Forward jump to a label placed later: resolved at the end. */
  toLabel?: number;
  label?: number;
  map?: number;
}

export function generateProgram(seed: number): ProgramSpec {
  const r = rng(seed);
  const int = (n: number): number => Math.floor(r() * n);
  const pick = <T,>(a: readonly T[]): T => a[int(a.length)]!;
  const chance = (p: number): boolean => r() < p;
  const out: Slot[] = [];
  let labels = 0;
  const pending: number[] = [];
  const emit = (i: Insn, extra: Partial<Slot> = {}): void => {
    out.push({ i, ...extra });
  };
  const anyReg = (): number => int(10);
  const smallImm = (): number => pick([0, 1, 2, 4, 7, 8, 13, 14, 15, 16, 20, 31, 32, 34, 60, 63, 64, 255, 256, 1500, -1, -2, -8, -16, 0x7fffffff, -0x80000000, 65535, 65536]);
  const stackOff = (size: number): number => {
    const base = -(1 + int(64)) * 8;
    return chance(0.85) ? base + (chance(0.5) ? 0 : 8 - size) : base + int(8) - (chance(0.05) ? 520 : 0);
  };

  // Prologue: the context, packet pointers and a few scalars.
  emit(insn(O.BPF_ALU64 | O.BPF_MOV | O.BPF_X, 6, 1));
  if (chance(0.9)) emit(insn(O.BPF_LDX | O.BPF_MEM | O.BPF_W, 2, 1, 0));
  if (chance(0.9)) emit(insn(O.BPF_LDX | O.BPF_MEM | O.BPF_W, 3, 1, 4));
  if (chance(0.2)) emit(insn(O.BPF_LDX | O.BPF_MEM | O.BPF_W, 4, 1, 8));
  for (const reg of [0, 5, 7, 8, 9]) {
    if (chance(0.9)) emit(insn(O.BPF_ALU64 | O.BPF_MOV | O.BPF_K, reg, 0, 0, reg === 0 ? pick([0, 1, 2, 3, 4]) : smallImm()));
    else if (chance(0.7)) emit(insn(O.BPF_LDX | O.BPF_MEM | O.BPF_W, reg, 6, pick([12, 16])));
  }
  const ok = (): boolean => chance(0.94);

  const n = 3 + int(10);
  for (let k = 0; k < n; k++) {
    // Close labels whose jumps should land here.
    while (pending.length && chance(0.4)) out.push({ i: insn(O.BPF_JMP | O.BPF_JA), label: pending.shift()!, toLabel: -1 });
    const kind = r();
    if (kind < 0.16) {
      // Packet range check: ptr = data + N; if ptr OP data_end goto L.
      const p = pick([1, 4, 5, 7, 8]);
      emit(insn(O.BPF_ALU64 | O.BPF_MOV | O.BPF_X, p, ok() ? 2 : 4));
      emit(insn(O.BPF_ALU64 | O.BPF_ADD | O.BPF_K, p, 0, 0, pick([1, 2, 4, 8, 14, 20, 34, 42, 54, 0, -1])));
      const op = pick([O.BPF_JGT, O.BPF_JGE, O.BPF_JLT, O.BPF_JLE]);
      const swapped = chance(0.3);
      const lab = ++labels;
      pending.push(lab);
      const n0 = out[out.length - 1]!.i.imm;
      emit(insn((chance(0.05) ? O.BPF_JMP32 : O.BPF_JMP) | op | O.BPF_X, swapped ? 3 : p, swapped ? p : 3), { toLabel: lab });
      // Accesses that the check (on its safe side) allows, mostly.
      const safeFall = swapped ? op === O.BPF_JLT || op === O.BPF_JLE : op === O.BPF_JGT || op === O.BPF_JGE;
      if (safeFall || chance(0.3)) {
        for (let a = int(3); a >= 0; a--) {
          const fits = SIZES.filter((z) => (z === O.BPF_B ? 1 : z === O.BPF_H ? 2 : z === O.BPF_W ? 4 : 8) <= Math.max(1, n0));
          const size = ok() ? pick(fits) : pick(SIZES);
          const sz = size === O.BPF_B ? 1 : size === O.BPF_H ? 2 : size === O.BPF_W ? 4 : 8;
          const off = ok() ? Math.max(0, Math.min(n0 - sz, int(Math.max(1, n0)))) : int(n0 + 4);
          if (chance(0.7)) emit(insn(O.BPF_LDX | O.BPF_MEM | size, pick([0, 5, 7, 8, 9]), 2, off));
          else emit(insn(O.BPF_ST | O.BPF_MEM | size, 2, 0, off, smallImm()));
        }
      }
    } else if (kind < 0.3) {
      // Packet (or other pointer) load/store.
      const size = pick(SIZES);
      const base = ok() ? pick([6, 10]) : pick([2, 2, 4, 1, 5, 7, 8, 0]);
      let off = pick([0, 1, 2, 4, 6, 8, 10, 12, 13, 14, 16, 20, -1, 33]);
      let sz2 = size;
      if (base === 6 && ok()) {
        off = pick([0, 4, 8, 12, 16]);
        sz2 = O.BPF_W;
      }
      if (base === 10) off = stackOff(8);
      if (base === 6 || chance(0.75)) emit(insn(O.BPF_LDX | O.BPF_MEM | sz2, pick([0, 5, 7, 8, 9]), base, off));
      else if (chance(0.5)) emit(insn(O.BPF_ST | O.BPF_MEM | size, base, 0, off, smallImm()));
      else emit(insn(O.BPF_STX | O.BPF_MEM | size, base, pick([0, 5, 7, 9]), off));
    } else if (kind < 0.42) {
      // Scalar ALU, 32 or 64 bit, imm or reg.
      const cls = chance(0.7) ? O.BPF_ALU64 : O.BPF_ALU;
      const op = pick(ALU_OPS);
      const dst = pick([0, 5, 7, 8, 9, 9]);
      if (chance(0.6)) {
        let imm = smallImm();
        if (op === O.BPF_LSH || op === O.BPF_RSH || op === O.BPF_ARSH) imm = chance(0.95) ? int(cls === O.BPF_ALU64 ? 64 : 32) : 64;
        if ((op === O.BPF_DIV || op === O.BPF_MOD) && imm === 0 && chance(0.8)) imm = 3;
        emit(insn(cls | op | O.BPF_K, dst, 0, 0, imm));
      } else {
        emit(insn(cls | op | O.BPF_X, dst, pick([0, 5, 7, 8, 9])));
      }
    } else if (kind < 0.5) {
      // Bound a scalar from the packet or ctx, then add it to a pointer.
      const s = pick([5, 7, 8, 9]);
      if (chance(0.5)) emit(insn(O.BPF_LDX | O.BPF_MEM | pick([O.BPF_B, O.BPF_H, O.BPF_W]), s, 6, pick([12, 16, 12])));
      if (ok()) emit(insn(O.BPF_ALU64 | O.BPF_AND | O.BPF_K, s, 0, 0, pick([1, 3, 7, 15, 63, 255, 0xffff, -1])));
      const p = ok() ? pick([2, 10]) : pick([4, 1, 0]);
      const dst = p === 10 ? 4 : p;
      if (p === 10) emit(insn(O.BPF_ALU64 | O.BPF_MOV | O.BPF_X, 4, 10));
      if (p === 10) emit(insn(O.BPF_ALU64 | O.BPF_ADD | O.BPF_K, 4, 0, 0, -pick([8, 16, 64, 256, 512])));
      emit(insn(O.BPF_ALU64 | pick([O.BPF_ADD, O.BPF_ADD, O.BPF_SUB]) | O.BPF_X, dst, s));
    } else if (kind < 0.62) {
      // Map lookup.
      const m = int(MAPS.length);
      const keyOff = pick([-4, -8, -8, -12, -16]);
      if (chance(0.5)) emit(insn(O.BPF_ST | O.BPF_MEM | O.BPF_W, 10, 0, keyOff, pick([0, 1, 3, 5])));
      else if (chance(0.6)) {
        emit(insn(O.BPF_ALU64 | O.BPF_MOV | O.BPF_K, 5, 0, 0, pick([0, 1, 2, 4])));
        emit(insn(O.BPF_STX | O.BPF_MEM | pick([O.BPF_W, O.BPF_DW]), 10, 5, keyOff & ~7));
      }
      emit(insn(O.BPF_ALU64 | O.BPF_MOV | O.BPF_X, 2, 10));
      emit(insn(O.BPF_ALU64 | O.BPF_ADD | O.BPF_K, 2, 0, 0, keyOff));
      emit({ ...insn(O.BPF_LD | O.BPF_IMM | O.BPF_DW, 1, O.BPF_PSEUDO_MAP_FD), imm2: 0 }, { map: m });
      emit(insn(O.BPF_JMP | O.BPF_CALL, 0, 0, 0, chance(0.9) ? 1 : pick([2, 3, 51, 195])));
      if (ok()) {
        const lab = ++labels;
        pending.push(lab);
        emit(insn(O.BPF_JMP | (chance(0.85) ? O.BPF_JEQ : O.BPF_JNE) | O.BPF_K, 0, 0, 0, 0), { toLabel: lab });
      }
      if (chance(0.8)) {
        const size = pick(SIZES);
        const off = ok() ? pick([0, 0, 4, 8]) : pick([0, 4, 8, 12, 16, 24, 28, -4]);
        if (chance(0.6)) emit(insn(O.BPF_LDX | O.BPF_MEM | size, pick([5, 7, 8]), 0, off));
        else emit(insn(O.BPF_ST | O.BPF_MEM | size, 0, 0, off, 1));
      }
      // The call clobbered r1-r5: reload data and r5 for later snippets.
      emit(insn(O.BPF_ALU64 | O.BPF_MOV | O.BPF_K, 5, 0, 0, smallImm()));
      emit(insn(O.BPF_LDX | O.BPF_MEM | O.BPF_W, 2, 6, 0));
      emit(insn(O.BPF_LDX | O.BPF_MEM | O.BPF_W, 3, 6, 4));
    } else if (kind < 0.74) {
      // Stack spill and fill.
      const size = pick(SIZES);
      const sz = size === O.BPF_B ? 1 : size === O.BPF_H ? 2 : size === O.BPF_W ? 4 : 8;
      const off = stackOff(sz);
      const src = pick([0, 2, 3, 5, 6, 7, 8, 9]);
      if ((src === 2 || src === 3 || src === 6) && ok()) {
        emit(insn(O.BPF_STX | O.BPF_MEM | O.BPF_DW, 10, src, -(1 + int(64)) * 8));
        continue;
      }
      if (chance(0.7)) emit(insn(O.BPF_STX | O.BPF_MEM | size, 10, src, off));
      else emit(insn(O.BPF_ST | O.BPF_MEM | size, 10, 0, off, smallImm()));
      if (chance(0.7)) emit(insn(O.BPF_LDX | O.BPF_MEM | pick(SIZES), pick([5, 7, 8, 9, 2]), 10, chance(0.7) ? off - (off % 8 === 0 ? 0 : 0) : stackOff(4)));
    } else if (kind < 0.9) {
      // A forward conditional branch on scalars or pointers.
      const op = pick(JMP_OPS);
      const cls = chance(0.8) ? O.BPF_JMP : O.BPF_JMP32;
      const lab = ++labels;
      pending.push(lab);
      if (chance(0.6)) emit(insn(cls | op | O.BPF_K, pick([0, 5, 7, 8, 9, 2]), 0, 0, smallImm()), { toLabel: lab });
      else emit(insn(cls | op | O.BPF_X, pick([0, 5, 7, 8, 9, 2]), pick([0, 5, 7, 8, 9, 3])), { toLabel: lab });
    } else if (kind < 0.96) {
      // Helper calls with arguments set up.
      const h = r();
      if (h < 0.3) {
        emit(insn(O.BPF_JMP | O.BPF_CALL, 0, 0, 0, pick([5, 7, 8, 42, 118, 125])));
        emit(insn(O.BPF_ALU64 | O.BPF_MOV | O.BPF_K, 5, 0, 0, smallImm()));
      } else if (h < 0.5) {
        emit(insn(O.BPF_ALU64 | O.BPF_MOV | O.BPF_X, 1, 6));
        emit(insn(O.BPF_ALU64 | O.BPF_MOV | O.BPF_K, 2, 0, 0, pick([-14, 0, 4, 14])));
        emit(insn(O.BPF_JMP | O.BPF_CALL, 0, 0, 0, pick([44, 54, 65])));
        emit(insn(O.BPF_ALU64 | O.BPF_MOV | O.BPF_K, 5, 0, 0, smallImm()));
        if (ok()) {
          emit(insn(O.BPF_LDX | O.BPF_MEM | O.BPF_W, 2, 6, 0));
          emit(insn(O.BPF_LDX | O.BPF_MEM | O.BPF_W, 3, 6, 4));
        }
      } else if (h < 0.7) {
        emit(insn(O.BPF_ALU64 | O.BPF_MOV | O.BPF_X, 1, pick([10, 2])));
        emit(insn(O.BPF_ALU64 | O.BPF_ADD | O.BPF_K, 1, 0, 0, pick([-16, -8, 0])));
        emit(insn(O.BPF_ALU64 | O.BPF_MOV | O.BPF_K, 2, 0, 0, pick([0, 4, 8, 16])));
        emit(insn(O.BPF_ALU64 | O.BPF_MOV | O.BPF_K, 3, 0, 0, 0));
        emit(insn(O.BPF_ALU64 | O.BPF_MOV | O.BPF_K, 4, 0, 0, 0));
        emit(insn(O.BPF_ALU64 | O.BPF_MOV | O.BPF_K, 5, 0, 0, 0));
        emit(insn(O.BPF_JMP | O.BPF_CALL, 0, 0, 0, 28));
        emit(insn(O.BPF_ALU64 | O.BPF_MOV | O.BPF_K, 5, 0, 0, smallImm()));
      } else {
        emit(insn(O.BPF_ALU64 | O.BPF_MOV | O.BPF_X, 1, 6));
        emit(insn(O.BPF_ALU64 | O.BPF_MOV | O.BPF_K, 2, 0, 0, pick([0, 2, 14])));
        emit(insn(O.BPF_ALU64 | O.BPF_MOV | O.BPF_X, 3, 10));
        emit(insn(O.BPF_ALU64 | O.BPF_ADD | O.BPF_K, 3, 0, 0, pick([-16, -8, -32])));
        emit(insn(O.BPF_ALU64 | O.BPF_MOV | O.BPF_K, 4, 0, 0, pick([4, 8, 16, 0])));
        emit(insn(O.BPF_JMP | O.BPF_CALL, 0, 0, 0, pick([189, 190])));
        emit(insn(O.BPF_ALU64 | O.BPF_MOV | O.BPF_K, 5, 0, 0, smallImm()));
        emit(insn(O.BPF_LDX | O.BPF_MEM | O.BPF_W, 2, 6, 0));
        emit(insn(O.BPF_LDX | O.BPF_MEM | O.BPF_W, 3, 6, 4));
      }
    } else {
      // Moves between registers, including pointers and 32-bit copies.
      const cls = chance(0.8) ? O.BPF_ALU64 : O.BPF_ALU;
      emit(insn(cls | O.BPF_MOV | O.BPF_X, pick([0, 5, 7, 8, 9]), ok() ? pick([0, 2, 3, 5, 6, 7, 8, 9, 10]) : anyReg()));
    }
  }
  // Epilogue: an action, and every pending label lands before it.
  for (const lab of pending) out.push({ i: insn(O.BPF_JMP | O.BPF_JA), label: lab, toLabel: -1 });
  if (chance(0.9)) emit(insn(O.BPF_ALU64 | O.BPF_MOV | O.BPF_K, 0, 0, 0, pick([0, 1, 2, 3, 4])));
  emit(insn(O.BPF_JMP | O.BPF_EXIT));

  // Labels are placeholder slots (JA +0) until here: drop them and resolve.
  const real: Slot[] = [];
  const labelAt = new Map<number, number>();
  for (const s of out) {
    if (s.label !== undefined) {
      labelAt.set(s.label, real.length);
      continue;
    }
    real.push(s);
  }
  const slots: Insn[] = [];
  const slotOf: number[] = [];
  for (const s of real) {
    slotOf.push(slots.length);
    slots.push(s.i);
    if (s.i.code === (O.BPF_LD | O.BPF_IMM | O.BPF_DW)) slots.push(insn(0));
  }
  const maps: MapSpec[] = [];
  const relocs: { insn: number; map: number }[] = [];
  real.forEach((s, k) => {
    if (s.toLabel !== undefined && s.toLabel > 0) {
      const target = labelAt.get(s.toLabel)!;
      const targetSlot = target < real.length ? slotOf[target]! : slots.length;
      slots[slotOf[k]!]!.off = targetSlot - slotOf[k]! - 1;
    }
    if (s.map !== undefined) {
      let idx = maps.indexOf(MAPS[s.map]!);
      if (idx < 0) idx = maps.push(MAPS[s.map]!) - 1;
      relocs.push({ insn: slotOf[k]!, map: idx });
    }
  });
  const spec: ProgramSpec = { prog_type: 'xdp', insns: bytesToHex(encodeProgram(slots)) };
  if (maps.length) {
    spec.maps = maps;
    spec.map_relocs = relocs;
  }
  return spec;
}
