/**
 * Tracked numbers ("tnums"): what the verifier knows about the bits of a
 * 64-bit value. A bit set in `mask` is unknown; elsewhere the bit equals the
 * one in `value` (value & mask is always 0). The operations follow the
 * kernel's kernel/bpf/tnum.c, so every result is exactly as sharp — and as
 * blunt — as the kernel's: a verifier that knew more than the kernel would
 * accept programs the kernel refuses.
 *
 * Values are unsigned 64-bit bigints.
 */
export interface Tnum {
  readonly value: bigint;
  readonly mask: bigint;
}

export const U64_MAX = (1n << 64n) - 1n;
export const U32_MAX = 0xffffffffn;

export const u64 = (x: bigint): bigint => BigInt.asUintN(64, x);
export const s64 = (x: bigint): bigint => BigInt.asIntN(64, x);
export const u32 = (x: bigint): bigint => BigInt.asUintN(32, x);
export const s32 = (x: bigint): bigint => BigInt.asIntN(32, x);

export const tnum = (value: bigint, mask: bigint): Tnum => ({ value, mask });
export const tnumConst = (v: bigint): Tnum => ({ value: u64(v), mask: 0n });
export const TNUM_UNKNOWN: Tnum = { value: 0n, mask: U64_MAX };

/** Index of the highest set bit, 1-based (fls64); 0 for 0. */
function fls64(x: bigint): number {
  if (x === 0n) return 0;
  const hi = Number(x >> 32n);
  if (hi) return 64 - Math.clz32(hi);
  return 32 - Math.clz32(Number(x & 0xffffffffn));
}

/** The smallest tnum holding every value of [min, max] (unsigned). */
export function tnumRange(min: bigint, max: bigint): Tnum {
  const chi = min ^ max;
  const bits = fls64(chi);
  if (bits > 63) return TNUM_UNKNOWN;
  const delta = (1n << BigInt(bits)) - 1n;
  return { value: min & ~delta & U64_MAX, mask: delta };
}

export const tnumLshift = (a: Tnum, shift: number | bigint): Tnum => {
  const s = BigInt(shift);
  return { value: u64(a.value << s), mask: u64(a.mask << s) };
};
export const tnumRshift = (a: Tnum, shift: number | bigint): Tnum => {
  const s = BigInt(shift);
  return { value: a.value >> s, mask: a.mask >> s };
};
export function tnumArshift(a: Tnum, minShift: number | bigint, bitness: 32 | 64): Tnum {
  const s = BigInt(minShift);
  if (bitness === 32) return { value: u32(s32(a.value) >> s), mask: u32(s32(a.mask) >> s) };
  return { value: u64(s64(a.value) >> s), mask: u64(s64(a.mask) >> s) };
}

export function tnumAdd(a: Tnum, b: Tnum): Tnum {
  const sm = u64(a.mask + b.mask);
  const sv = u64(a.value + b.value);
  const sigma = u64(sm + sv);
  const chi = sigma ^ sv;
  const mu = chi | a.mask | b.mask;
  return { value: sv & ~mu & U64_MAX, mask: mu };
}

export function tnumSub(a: Tnum, b: Tnum): Tnum {
  const dv = u64(a.value - b.value);
  const alpha = u64(dv + a.mask);
  const beta = u64(dv - b.mask);
  const chi = alpha ^ beta;
  const mu = chi | a.mask | b.mask;
  return { value: dv & ~mu & U64_MAX, mask: mu };
}

export const tnumNeg = (a: Tnum): Tnum => tnumSub({ value: 0n, mask: 0n }, a);

export function tnumAnd(a: Tnum, b: Tnum): Tnum {
  const alpha = a.value | a.mask;
  const beta = b.value | b.mask;
  const v = a.value & b.value;
  return { value: v, mask: alpha & beta & ~v & U64_MAX };
}

export function tnumOr(a: Tnum, b: Tnum): Tnum {
  const v = a.value | b.value;
  const mu = a.mask | b.mask;
  return { value: v, mask: mu & ~v & U64_MAX };
}

export function tnumXor(a: Tnum, b: Tnum): Tnum {
  const v = a.value ^ b.value;
  const mu = a.mask | b.mask;
  return { value: v & ~mu & U64_MAX, mask: mu };
}

/** Long multiplication over tnums, one bit of `a` at a time. */
/**
 * tnum_mul: shift-and-add over a's bits. A bit of a that is surely 1 adds b; one that may be
 * either makes the sum the union of both outcomes (tnum_union of acc and acc + b), which keeps
 * the low bits the two share ({1,3} * 3 is (0x1; 0xa), so its bit 2 stays known 0).
 */
export function tnumMul(a: Tnum, b: Tnum): Tnum {
  let acc: Tnum = { value: 0n, mask: 0n };
  while (a.value || a.mask) {
    if (a.value & 1n) acc = tnumAdd(acc, b);
    else if (a.mask & 1n) acc = tnumUnion(acc, tnumAdd(acc, b));
    a = tnumRshift(a, 1);
    b = tnumLshift(b, 1);
  }
  return acc;
}

/** tnum_union: the values either tnum may hold. */
export function tnumUnion(a: Tnum, b: Tnum): Tnum {
  const v = a.value & b.value;
  const mu = ((a.value ^ b.value) | a.mask | b.mask) & U64_MAX;
  return { value: v & ~mu & U64_MAX, mask: mu };
}

export function tnumIntersect(a: Tnum, b: Tnum): Tnum {
  const v = a.value | b.value;
  const mu = a.mask & b.mask;
  return { value: v & ~mu & U64_MAX, mask: mu };
}

/** Keep the low `size` bytes. */
export function tnumCast(a: Tnum, size: number): Tnum {
  if (size >= 8) return a;
  const m = (1n << BigInt(size * 8)) - 1n;
  return { value: a.value & m, mask: a.mask & m };
}

export const tnumIsConst = (a: Tnum): boolean => a.mask === 0n;
export const tnumIsUnknown = (a: Tnum): boolean => a.mask === U64_MAX;
export const tnumEqualsConst = (a: Tnum, v: bigint): boolean => a.mask === 0n && a.value === v;
export const tnumIsAligned = (a: Tnum, size: number): boolean =>
  size === 0 || ((a.value | a.mask) & BigInt(size - 1)) === 0n;

/** Whether every value `b` may hold is also possible for `a`. */
export function tnumIn(a: Tnum, b: Tnum): boolean {
  if (b.mask & ~a.mask) return false;
  return a.value === (b.value & ~a.mask);
}

export const tnumSubreg = (a: Tnum): Tnum => tnumCast(a, 4);
export const tnumClearSubreg = (a: Tnum): Tnum => tnumLshift(tnumRshift(a, 32), 32);
export const tnumWithSubreg = (reg: Tnum, subreg: Tnum): Tnum => tnumOr(tnumClearSubreg(reg), tnumSubreg(subreg));
export const tnumSubregIsConst = (a: Tnum): boolean => (a.mask & U32_MAX) === 0n;

/** The kernel's tnum_strn: "(0x0; 0xff)", or the value alone when known. */
export const tnumStr = (a: Tnum): string =>
  a.mask === 0n
    ? a.value <= 0xffffn
      ? a.value.toString()
      : `0x${a.value.toString(16)}`
    : `(0x${a.value.toString(16)}; 0x${a.mask.toString(16)})`;
