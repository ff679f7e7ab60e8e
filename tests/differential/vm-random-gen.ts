/**
 * The random-program generator shared by the VM's differential tests: the
 * kernel comparison (vm-random.test.ts) and the JIT-vs-interpreter one
 * (tests/unit/vm-jit.test.ts). Programs are meant to pass the kernel
 * verifier: ALU/ALU64, JMP/JMP32 forward branches, if/else with goto and
 * gotol, stack and packet loads/stores, atomics, a bpf-to-bpf call,
 * movsx/sdiv/bswap, packet pointers plus wide scalars compared; each ends by
 * storing r0-r8 and its stack into the packet.
 */
import { bytesToHex, disasmProgram, type Insn } from '../../src/isa';

export const PKT_LEN = 192;

export function rng(seed: number): () => number {
  let s = (seed ^ 0x9e3779b9) >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>>= 0);
  };
}

const I = (code: number, dst = 0, src = 0, off = 0, imm = 0): Insn => ({ code, dst, src, off, imm });
const lddw = (dst: number, lo: number, hi: number): Insn[] => [{ code: 0x18, dst, src: 0, off: 0, imm: lo | 0, imm2: hi | 0 }, I(0, 0, 0, 0, hi | 0)];

type Unit = { insns: Insn[]; branch?: { skip: number }; call?: boolean };

/** Interesting constants: edges of every width, plus noise. */
function constant(r: () => number): number {
  const pick = [0, 1, -1, 2, 31, 32, 63, 64, 0x7f, 0x80, 0xff, 0x7fff, 0x8000, 0xffff, 0x7fffffff, -0x80000000, r() | 0, r() & 0xff, -(r() & 0xfff)];
  return pick[r() % pick.length]!;
}

const ALU_OPS = [0x00, 0x10, 0x20, 0x30, 0x40, 0x50, 0x60, 0x70, 0x90, 0xa0, 0xb0, 0xc0];
const JMP_OPS = [0x10, 0x20, 0x30, 0x40, 0x50, 0x60, 0x70, 0xa0, 0xb0, 0xc0, 0xd0];
const SIZES: [number, number][] = [[0x10, 1], [0x08, 2], [0x00, 4], [0x18, 8]];

/** One random ALU instruction on registers in `regs` (all initialized scalars). */
function aluUnit(r: () => number, regs: number[]): Insn[] {
  const d = regs[r() % regs.length]!;
  const s = regs[r() % regs.length]!;
  const is64 = r() % 2 === 0;
  const cls = is64 ? 0x07 : 0x04;
  const kind = r() % 20;
  if (kind === 0) return [I(cls | 0x80, d)]; // neg
  if (kind === 1) return [I(0xd7, d, 0, 0, [16, 32, 64][r() % 3]!)]; // bswap
  if (kind === 2) return [I(r() % 2 ? 0xdc : 0xd4, d, 0, 0, [16, 32, 64][r() % 3]!)]; // be/le
  if (kind === 3) return [I(cls | 0xb8, d, s, 0, 0)].map((x) => ({ ...x, off: is64 ? [8, 16, 32][r() % 3]! : [8, 16][r() % 2]! })); // movsx
  if (kind === 4) return lddw(d, r(), constant(r));
  const op = ALU_OPS[r() % ALU_OPS.length]!;
  const signedDiv = (op === 0x30 || op === 0x90) && r() % 2 === 0 ? 1 : 0;
  if (r() % 2 === 0) return [I(cls | op | 0x08, d, s, signedDiv, 0)];
  let k = constant(r);
  if (op === 0x60 || op === 0x70 || op === 0xc0) k = r() % (is64 ? 64 : 32); // the verifier rejects out-of-range shift immediates
  if ((op === 0x30 || op === 0x90) && k === 0) k = 7; // and division by a zero immediate
  return [I(cls | op, d, 0, signedDiv, k)];
}

/** n different registers of `regs`. */
function pickDistinct(r: () => number, regs: readonly number[], n: number): number[] {
  const left = [...regs];
  return Array.from({ length: n }, () => left.splice(r() % left.length, 1)[0]!);
}

export function generate(seed: number): { insns: Insn[]; text: () => string } {
  const r = rng(seed);
  const scalars = [0, 1, 2, 3, 4, 5, 6, 7, 8];
  const units: Unit[] = [];
  // Prologue: r9 = data; bounds check data + PKT_LEN <= data_end; zero the stack; init r0-r8.
  const prologue: Insn[] = [
    I(0x61, 9, 1, 0), // r9 = ctx->data
    I(0x61, 3, 1, 4), // r3 = ctx->data_end
    I(0xbf, 2, 9), // r2 = r9
    I(0x07, 2, 0, 0, PKT_LEN),
    I(0x2d, 2, 3, 0, 0), // if r2 > r3 goto out (patched below)
  ];
  for (let o = -64; o < 0; o += 8) prologue.push(I(0x7a, 10, 0, o, 0));
  for (const reg of scalars) {
    const v = r() % 3;
    if (v === 0) prologue.push(I(0xb7, reg, 0, 0, constant(r)));
    else if (v === 1) prologue.push(...lddw(reg, r(), constant(r)));
    else prologue.push(I([0x79, 0x61, 0x69, 0x71][r() % 4]!, reg, 9, r() % 49, 0)); // an unknown scalar from the packet
  }
  const nBody = 12 + (r() % 28);
  let hasCall = false;
  for (let u = 0; u < nBody; u++) {
    const kind = r() % 16;
    if (kind < 7) units.push({ insns: aluUnit(r, scalars) });
    else if (kind < 9) {
      // a forward branch over the next few units
      const d = scalars[r() % 9]!;
      const is32 = r() % 2 === 0;
      const op = JMP_OPS[r() % JMP_OPS.length]!;
      const jmp = r() % 2 === 0 ? I((is32 ? 0x06 : 0x05) | op | 0x08, d, scalars[r() % 9]!) : I((is32 ? 0x06 : 0x05) | op, d, 0, 0, constant(r));
      units.push({ insns: [jmp], branch: { skip: 1 + (r() % 4) } });
    } else if (kind < 11) {
      // stack store/load, aligned
      const [sz, n] = SIZES[r() % 4]!;
      const off = -8 * (1 + (r() % 8)) + n * (r() % (8 / n));
      const reg = scalars[r() % 9]!;
      if (r() % 2) units.push({ insns: [r() % 3 ? I(0x63 | sz, 10, reg, off) : I(0x62 | sz, 10, 0, off, constant(r))] });
      else units.push({ insns: [I(r() % 4 === 0 && n < 8 ? 0x81 | sz : 0x61 | sz, reg, 10, off)] });
    } else if (kind < 13) {
      // packet store/load (unaligned is fine on x86)
      const [sz, n] = SIZES[r() % 4]!;
      const off = r() % (56 - n + 1);
      const reg = scalars[r() % 9]!;
      if (r() % 2) units.push({ insns: [r() % 3 ? I(0x63 | sz, 9, reg, off) : I(0x62 | sz, 9, 0, off, constant(r))] });
      else units.push({ insns: [I(r() % 4 === 0 && n < 8 ? 0x81 | sz : 0x61 | sz, reg, 9, off)] });
    } else if (kind < 15) {
      // atomics on an aligned stack slot
      const is64 = r() % 2 === 0;
      const off = -8 * (1 + (r() % 8)) + (is64 ? 0 : 4 * (r() % 2));
      const ops = [0x00, 0x01, 0x40, 0x41, 0x50, 0x51, 0xa0, 0xa1, 0xe1, 0xf1];
      units.push({ insns: [I(is64 ? 0xdb : 0xc3, 10, scalars[r() % 9]!, off, ops[r() % ops.length]!)] });
    } else if (kind === 15 && r() % 2 === 0) {
      // an if/else diamond: both arms reachable, the then-arm ends with goto (ja) or gotol (ja32)
      const thenArm = Array.from({ length: 1 + (r() % 3) }, () => aluUnit(r, scalars)).flat();
      const elseArm = Array.from({ length: 1 + (r() % 3) }, () => aluUnit(r, scalars)).flat();
      const d = scalars[r() % 9]!;
      const cond = I((r() % 2 ? 0x06 : 0x05) | JMP_OPS[r() % JMP_OPS.length]!, d, 0, thenArm.length + 1, constant(r));
      const ja = r() % 2 ? I(0x05, 0, 0, elseArm.length, 0) : I(0x06, 0, 0, 0, elseArm.length);
      units.push({ insns: [cond, ...thenArm, ja, ...elseArm] });
    } else if (!hasCall) {
      hasCall = true;
      // call the subprogram; r1-r5 are clobbered by a call, so re-init them after
      const after: Insn[] = [];
      for (let reg = 1; reg <= 5; reg++) after.push(I(0xb7, reg, 0, 0, constant(r)));
      units.push({ insns: [I(0x85, 0, 1, 0, 0), ...after], call: true });
    } else {
      // A packet pointer plus a scalar the verifier bounds only below (a u32, or a small value shifted into the
      // high word), maybe a constant, compared with data + PKT_LEN: the kernel compares the 64-bit addresses.
      const [a, d, e, c] = pickDistinct(r, scalars, 4);
      // From the packet, so the verifier knows no constant (a constant that large is refused outright).
      const wide = r() % 2 === 0 ? [I(0x61, a, 9, r() % 53)] : [I(0x71, a, 9, r() % 56), I(0x57, a, 0, 0, 0x3c), I(0x67, a, 0, 0, 32)];
      const tail = r() % 2 === 0 ? [] : [I(r() % 2 ? 0x07 : 0x17, d, 0, 0, [1, 3, -5, 200][r() % 4]!)];
      units.push({ insns: [...wide, I(0xbf, d, 9), I(0x0f, d, a), ...tail, I(0xbf, e, 9), I(0x07, e, 0, 0, PKT_LEN), I(0xb7, c, 0, 0, 1), I(0x2d, d, e, 1), I(0xb7, c, 0, 0, 2), I(0xb7, d, 0, 0, 0), I(0xb7, e, 0, 0, 0)] });
    }
  }
  // Epilogue: dump r0-r8 and the stack into the packet, return r0 & 3.
  const epilogue: Insn[] = [];
  scalars.forEach((reg, k) => epilogue.push(I(0x7b, 9, reg, 56 + 8 * k)));
  for (let k = 0; k < 8; k++) epilogue.push(I(0x79, 1, 10, -64 + 8 * k), I(0x7b, 9, 1, 128 + 8 * k));
  epilogue.push(I(0x57, 0, 0, 0, 3), I(0x95));
  // out: return XDP_PASS for short packets (never taken: packets are PKT_LEN)
  const out = [I(0xb7, 0, 0, 0, 2), I(0x95)];
  // Subprogram: r0 = r1, some ALU on r0-r5, its own stack (a frame beyond the first: every access size,
  // stored and read back into the result), exit.
  const sub: Insn[] = [I(0xbf, 0, 1), I(0x7a, 10, 0, -8, 0), I(0x7a, 10, 0, -16, 0)];
  const nSub = 2 + (r() % 6);
  for (let k = 0; k < nSub; k++) sub.push(...aluUnit(r, [0, 1, 2, 3, 4, 5]));
  // BPF_STX/BPF_LDX of size B, H, W, DW (0x73/0x71, 0x6b/0x69, 0x63/0x61, 0x7b/0x79) at an offset aligned for it.
  const [st, ld, size] = ([[0x73, 0x71, 1], [0x6b, 0x69, 2], [0x63, 0x61, 4], [0x7b, 0x79, 8]] as const)[r() % 4]!;
  const at = -16 + size * (r() % (8 / size));
  sub.push(I(st, 10, 0, at), I(ld, 1, 10, at), I(0x0f, 0, 1), I(0x7b, 10, 0, -8), I(0x79, 0, 10, -8), I(0x95));

  // Layout and patch offsets.
  const insns: Insn[] = [...prologue];
  const unitStart: number[] = [];
  for (const u of units) {
    unitStart.push(insns.length);
    insns.push(...u.insns.map((x) => ({ ...x })));
  }
  const bodyEnd = insns.length;
  insns.push(...epilogue);
  const outAt = insns.length;
  insns.push(...out);
  const subAt = insns.length;
  // The kernel rejects unreachable code, so the subprogram exists only when called.
  if (hasCall) insns.push(...sub);
  insns[4]!.off = outAt - 5;
  units.forEach((u, k) => {
    const at = unitStart[k]!;
    if (u.branch) {
      const target = k + 1 + u.branch.skip < units.length ? unitStart[k + 1 + u.branch.skip]! : bodyEnd;
      insns[at]!.off = target - (at + 1);
    }
    if (u.call) insns[at]!.imm = subAt - (at + 1);
  });
  return { insns, text: () => disasmProgram(insns, { style: 'kernel' }).join('\n') };
}

export function packet(r: () => number): string {
  const b = new Uint8Array(PKT_LEN);
  for (let i = 0; i < b.length; i++) b[i] = r() & 0xff;
  return bytesToHex(b);
}

