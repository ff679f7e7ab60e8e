/**
 * Scalar bounds: the kernel's reg_bounds_sync (learning between tnum, u64,
 * s64, u32 and s32 views) and the range arithmetic of every ALU operation
 * (adjust_scalar_min_max_vals and its scalar*_min_max_* helpers), including
 * 32-bit sub-registers and zero extension. Each result is what the kernel
 * computes, neither sharper nor blunter.
 */
import {
  TNUM_UNKNOWN,
  tnumAdd,
  tnumAnd,
  tnumArshift,
  tnumCast,
  tnumClearSubreg,
  tnumConst,
  tnumIntersect,
  tnumIsConst,
  tnumLshift,
  tnumMul,
  tnumNeg,
  tnumOr,
  tnumRange,
  tnumRshift,
  tnumSub,
  tnumSubreg,
  tnumSubregIsConst,
  tnumXor,
  U32_MAX,
  U64_MAX,
  s32,
  s64,
  u32,
  u64,
  type Tnum,
} from './tnum';
import {
  mark32Unbounded,
  mark64Unbounded,
  markKnown,
  markUnknown,
  S32_MAX,
  S32_MIN,
  S64_MAX,
  S64_MIN,
  unknownScalar,
  type Reg,
} from './reg';
import * as O from '../isa/opcodes';

const max = (a: bigint, b: bigint): bigint => (a > b ? a : b);
const min = (a: bigint, b: bigint): bigint => (a < b ? a : b);
const U32_SIGN = 1n << 31n;

function updateReg32Bounds(r: Reg): void {
  const v = tnumSubreg(r.varOff);
  r.s32min = max(r.s32min, s32(v.value | (v.mask & U32_SIGN)));
  r.s32max = min(r.s32max, s32(v.value | (v.mask & (U32_SIGN - 1n))));
  r.u32min = max(r.u32min, v.value);
  r.u32max = min(r.u32max, v.value | v.mask);
}

function updateReg64Bounds(r: Reg): void {
  const v = r.varOff;
  r.smin = max(r.smin, s64(v.value | (v.mask & (1n << 63n))));
  r.smax = min(r.smax, s64(v.value | (v.mask & S64_MAX)));
  r.umin = max(r.umin, v.value);
  r.umax = min(r.umax, v.value | v.mask);
  // Where the u64 range and the tnum share a single value, the register is that constant (the
  // kernel's tnum_step cases); otherwise the bounds stay as they are, not rounded to tnum members.
  if (v.mask !== 0n) {
    const next = tnumStep(v, r.umin);
    const uminIn = (r.umin & ~v.mask) === v.value;
    const tmax = v.value | v.mask;
    if (uminIn && next > r.umax) markKnown(r, r.umin);
    else if (!uminIn && next === tmax) markKnown(r, tmax);
    else if (!uminIn && next <= r.umax && tnumStep(v, next) > r.umax) markKnown(r, next);
  }
}

/** tnum_step: the smallest member of t above z (t's largest when there is none, its smallest when z is below it). */
function tnumStep(t: Tnum, z: bigint): bigint {
  const tmax = t.value | t.mask;
  if (z >= tmax) return tmax;
  if (z < t.value) return t.value;
  // Increment d = z - value within the mask: non-mask positions filled with ones let the carry ripple
  // through them, and ones below d's highest non-mask bit keep that bit from trapping it.
  const d = z - t.value;
  const free = d & ~t.mask & U64_MAX;
  const carry = (1n << BigInt(free === 0n ? 0 : free.toString(2).length)) - 1n;
  const filled = (d | carry | (~t.mask & U64_MAX)) & U64_MAX;
  return t.value | (((filled + 1n) & U64_MAX) & t.mask);
}

export function updateRegBounds(r: Reg): void {
  updateReg32Bounds(r);
  updateReg64Bounds(r);
}

function reg32DeduceBounds(r: Reg): void {
  if (r.umin >> 32n === r.umax >> 32n) {
    r.u32min = max(r.u32min, u32(r.umin));
    r.u32max = min(r.u32max, u32(r.umax));
    if (s32(r.umin) <= s32(r.umax)) {
      r.s32min = max(r.s32min, s32(r.umin));
      r.s32max = min(r.s32max, s32(r.umax));
    }
  }
  if (r.smin >> 32n === r.smax >> 32n) {
    if (u32(r.smin) <= u32(r.smax)) {
      r.u32min = max(r.u32min, u32(r.smin));
      r.u32max = min(r.u32max, u32(r.smax));
    }
    if (s32(r.smin) <= s32(r.smax)) {
      r.s32min = max(r.s32min, s32(r.smin));
      r.s32max = min(r.s32max, s32(r.smax));
    }
  }
  // Upper halves two consecutive numbers while the low halves cross from
  // negative to non-negative: still a valid s32 range.
  if (u32((r.umin >> 32n) + 1n) === u32(r.umax >> 32n) && s32(r.umin) < 0n && s32(r.umax) >= 0n) {
    r.s32min = max(r.s32min, s32(r.umin));
    r.s32max = min(r.s32max, s32(r.umax));
  }
  if (u32((u64(r.smin) >> 32n) + 1n) === u32(u64(r.smax) >> 32n) && s32(r.smin) < 0n && s32(r.smax) >= 0n) {
    r.s32min = max(r.s32min, s32(r.smin));
    r.s32max = min(r.s32max, s32(r.smax));
  }
  if (s32(r.u32min) <= s32(r.u32max)) {
    r.s32min = max(r.s32min, s32(r.u32min));
    r.s32max = min(r.s32max, s32(r.u32max));
  }
  if (u32(r.s32min) <= u32(r.s32max)) {
    r.u32min = max(r.u32min, u32(r.s32min));
    r.u32max = min(r.u32max, u32(r.s32max));
  } else {
    // As in 64 bits: an s32 range through the sign boundary is two u32
    // intervals; a u32 range that meets only one of them picks it.
    if (r.u32max < u32(r.s32min)) {
      r.s32min = s32(r.u32min);
      r.u32max = min(r.u32max, u32(r.s32max));
    } else if (u32(r.s32max) < r.u32min) {
      r.s32max = s32(r.u32max);
      r.u32min = max(r.u32min, u32(r.s32min));
    }
  }
}

function reg64DeduceBounds(r: Reg): void {
  if (s64(r.umin) <= s64(r.umax)) {
    r.smin = max(r.smin, s64(r.umin));
    r.smax = min(r.smax, s64(r.umax));
  }
  if (u64(r.smin) <= u64(r.smax)) {
    r.umin = max(r.umin, u64(r.smin));
    r.umax = min(r.umax, u64(r.smax));
  } else {
    // The s64 range wraps through the sign boundary: it splits into two
    // u64 intervals; if the u64 range meets only one of them, use it.
    if (r.umax < u64(r.smin)) {
      r.smin = s64(r.umin);
      r.umax = min(r.umax, u64(r.smax));
    } else if (u64(r.smax) < r.umin) {
      r.smax = s64(r.umax);
      r.umin = max(r.umin, u64(r.smin));
    }
  }
}

function regDeduceMixedBounds(r: Reg): void {
  const HI = U64_MAX ^ U32_MAX;
  const newUmin = (r.umin & HI) | r.u32min;
  const newUmax = (r.umax & HI) | r.u32max;
  r.umin = max(r.umin, newUmin);
  r.umax = min(r.umax, newUmax);
  const newSmin = s64((u64(r.smin) & HI) | r.u32min);
  const newSmax = s64((u64(r.smax) & HI) | r.u32max);
  r.smin = max(r.smin, newSmin);
  r.smax = min(r.smax, newSmax);
  if (r.s32min >= 0n && r.smin >= S32_MIN && r.smax <= S32_MAX) {
    r.smin = r.s32min;
    r.smax = r.s32max;
    r.umin = r.s32min;
    r.umax = r.s32max;
    r.varOff = tnumIntersect(r.varOff, tnumRange(u64(r.smin), u64(r.smax)));
  }
}

function regDeduceBounds(r: Reg): void {
  reg32DeduceBounds(r);
  reg64DeduceBounds(r);
  regDeduceMixedBounds(r);
}

function regBoundOffset(r: Reg): void {
  const v64 = tnumIntersect(r.varOff, tnumRange(r.umin, r.umax));
  const v32 = tnumIntersect(tnumSubreg(v64), tnumRange(r.u32min, r.u32max));
  r.varOff = tnumOr(tnumClearSubreg(v64), v32);
}

/** reg_bounds_sync: let every view of the value learn from the others. */
export function regBoundsSync(r: Reg): void {
  // A constant's bounds are its value in every view; when they already say
  // so there is nothing to learn (the common case, and BigInt work is dear).
  if (r.varOff.mask === 0n) {
    const v = r.varOff.value;
    if (r.umin === v && r.umax === v && r.u32min === (v & 0xffffffffn) && r.u32max === r.u32min && r.smin === r.smax && r.s32min === r.s32max) return;
    // A constant inside every current range: the full sync would narrow each range to it.
    // (Outside one of them the sync must run, so the invariant check sees the contradiction.)
    const sv = BigInt.asIntN(64, v);
    const v32 = v & 0xffffffffn;
    const sv32 = BigInt.asIntN(32, v32);
    if (r.umin <= v && v <= r.umax && r.smin <= sv && sv <= r.smax && r.u32min <= v32 && v32 <= r.u32max && r.s32min <= sv32 && sv32 <= r.s32max) {
      r.umin = r.umax = v;
      r.smin = r.smax = sv;
      r.u32min = r.u32max = v32;
      r.s32min = r.s32max = sv32;
      return;
    }
  } else if (isFullyUnknown(r)) {
    // Nothing known anywhere: nothing to learn.
    return;
  }
  updateRegBounds(r);
  regDeduceBounds(r);
  regDeduceBounds(r);
  regBoundOffset(r);
  updateRegBounds(r);
}

/**
 * What reg_bounds_sanity_check finds wrong with a scalar's bounds (its
 * words), or '' when they are consistent.
 */
export function regInvariantViolation(r: Reg): string {
  if (r.type !== 'scalar') return '';
  if (r.umin > r.umax || r.smin > r.smax || r.u32min > r.u32max || r.s32min > r.s32max) return 'range bounds violation';
  const v = r.varOff;
  if (v.mask === 0n) {
    const sv = BigInt.asIntN(64, v.value);
    if (r.umin !== v.value || r.umax !== v.value || r.smin !== sv || r.smax !== sv) return 'const tnum out of sync with range bounds';
  }
  if ((v.mask & 0xffffffffn) === 0n) {
    const u = v.value & 0xffffffffn;
    const sv = BigInt.asIntN(32, u);
    if (r.u32min !== u || r.u32max !== u || r.s32min !== sv || r.s32max !== sv) return 'const subreg tnum out of sync with range bounds';
  }
  return '';
}

// ---- 32 <-> 64 -----------------------------------------------------------

const reg32BoundS64 = (a: bigint): boolean => a >= 0n && a <= S32_MAX;

function assign32Into64(r: Reg): void {
  r.umin = r.u32min;
  r.umax = r.u32max;
  if (reg32BoundS64(r.s32min) && reg32BoundS64(r.s32max)) {
    r.smin = r.s32min;
    r.smax = r.s32max;
  } else {
    r.smin = 0n;
    r.smax = U32_MAX;
  }
}

/** Result of a 32-bit ALU op: the upper half becomes zero. */
export function zext32To64(r: Reg): void {
  r.varOff = tnumSubreg(r.varOff);
  assign32Into64(r);
}

function setSizeMax(r: Reg, size: number): void {
  r.varOff = tnumCast(r.varOff, size);
  const sizeMask = (1n << BigInt(size * 8)) - 1n;
  if ((r.umin & ~sizeMask & U64_MAX) === (r.umax & ~sizeMask & U64_MAX)) {
    r.umin &= sizeMask;
    r.umax &= sizeMask;
  } else {
    r.umin = 0n;
    r.umax = sizeMask;
  }
}

/**
 * coerce_reg_to_size: keep the low `size` bytes (loads narrower than 8
 * bytes).
 */
const isFullyUnknown = (r: Reg): boolean =>
  r.varOff.mask === U64_MAX && r.umin === 0n && r.umax === U64_MAX && r.smin === S64_MIN && r.smax === S64_MAX &&
  r.u32min === 0n && r.u32max === U32_MAX && r.s32min === S32_MIN && r.s32max === S32_MAX;

/** coerceRegToSize of a fully unknown scalar, by size (every load of packet or map data starts there). */
const COERCED_UNKNOWN = new Map<number, Reg>();

export function coerceRegToSize(r: Reg, size: number): void {
  if (isFullyUnknown(r)) {
    let c: Reg | undefined = COERCED_UNKNOWN.get(size);
    if (!c) {
      c = unknownScalar();
      coerceSlow(c, size);
      COERCED_UNKNOWN.set(size, c);
    }
    r.varOff = c.varOff;
    r.umin = c.umin;
    r.umax = c.umax;
    r.smin = c.smin;
    r.smax = c.smax;
    r.u32min = c.u32min;
    r.u32max = c.u32max;
    r.s32min = c.s32min;
    r.s32max = c.s32max;
    return;
  }
  coerceSlow(r, size);
}

function coerceSlow(r: Reg, size: number): void {
  setSizeMax(r, size);
  r.smin = r.umin;
  r.smax = r.umax;
  if (size < 4) mark32Unbounded(r);
  regBoundsSync(r);
}

const sxN = (v: bigint, size: number): bigint => BigInt.asIntN(size * 8, v);

function setSext64Default(r: Reg, size: number): void {
  const lo = -(1n << BigInt(size * 8 - 1));
  const hi = (1n << BigInt(size * 8 - 1)) - 1n;
  r.smin = r.s32min = lo;
  r.smax = r.s32max = hi;
  r.umin = r.u32min = 0n;
  r.umax = U64_MAX;
  r.u32max = U32_MAX;
  r.varOff = TNUM_UNKNOWN;
}

/** Sign-extend the low `size` bytes (ldsx, movsx64): coerce_reg_to_size_sx. */
export function coerceRegToSizeSx(r: Reg, size: number): void {
  const bits = BigInt(size * 8);
  if (tnumIsConst(r.varOff)) {
    markKnown(r, u64(sxN(r.varOff.value, size)));
    return;
  }
  const topSmax = (u64(r.smax) >> bits) << bits;
  const topSmin = (u64(r.smin) >> bits) << bits;
  if (topSmax === topSmin) {
    const a = sxN(u64(r.smax), size);
    const b = sxN(u64(r.smin), size);
    const smax = max(a, b);
    const smin = min(a, b);
    if (smax >= 0n === smin >= 0n) {
      r.smin = smin;
      r.s32min = s32(smin);
      r.smax = smax;
      r.s32max = s32(smax);
      r.umin = u64(smin);
      r.u32min = u32(smin);
      r.umax = u64(smax);
      r.u32max = u32(smax);
      r.varOff = tnumRange(u64(smin), u64(smax));
      return;
    }
  }
  setSext64Default(r, size);
}

function setSext32Default(r: Reg, size: number): void {
  r.s32min = -(1n << BigInt(size * 8 - 1));
  r.s32max = (1n << BigInt(size * 8 - 1)) - 1n;
  r.u32min = 0n;
  r.u32max = U32_MAX;
  r.varOff = tnumOr(tnumClearSubreg(r.varOff), { value: 0n, mask: U32_MAX });
}

/** Sign-extend within the 32-bit sub-register (movsx32): coerce_subreg_to_size_sx. */
export function coerceSubregToSizeSx(r: Reg, size: number): void {
  const bits = BigInt(size * 8);
  if (tnumSubregIsConst(r.varOff)) {
    const v = u32(sxN(r.varOff.value & U32_MAX, size));
    r.varOff = tnumOr(tnumClearSubreg(r.varOff), { value: v, mask: 0n });
    r.s32min = r.s32max = s32(v);
    r.u32min = r.u32max = v;
    return;
  }
  const topSmax = (u32(r.s32max) >> bits) << bits;
  const topSmin = (u32(r.s32min) >> bits) << bits;
  if (topSmax === topSmin) {
    const a = sxN(u32(r.s32max), size);
    const b = sxN(u32(r.s32min), size);
    const smax = max(a, b);
    const smin = min(a, b);
    if (smax >= 0n === smin >= 0n) {
      r.s32min = smin;
      r.s32max = smax;
      r.u32min = u32(smin);
      r.u32max = u32(smax);
      r.varOff = tnumOr(tnumClearSubreg(r.varOff), tnumRange(u32(smin), u32(smax)));
      return;
    }
  }
  setSext32Default(r, size);
}

// ---- ALU on scalars ------------------------------------------------------

function addOverflowS(a: bigint, b: bigint, bits: 32 | 64): [bigint, boolean] {
  const r = a + b;
  const wrapped = bits === 64 ? s64(r) : s32(r);
  return [wrapped, wrapped !== r];
}
function addOverflowU(a: bigint, b: bigint, bits: 32 | 64): [bigint, boolean] {
  const r = a + b;
  const wrapped = bits === 64 ? u64(r) : u32(r);
  return [wrapped, wrapped !== r];
}
function subOverflowS(a: bigint, b: bigint, bits: 32 | 64): [bigint, boolean] {
  const r = a - b;
  const wrapped = bits === 64 ? s64(r) : s32(r);
  return [wrapped, wrapped !== r];
}
function subOverflowU(a: bigint, b: bigint, bits: 32 | 64): [bigint, boolean] {
  const r = a - b;
  const wrapped = bits === 64 ? u64(r) : u32(r);
  return [wrapped, wrapped !== r];
}

interface View {
  smin: bigint;
  smax: bigint;
  umin: bigint;
  umax: bigint;
}
const view64 = (r: Reg): View => ({ smin: r.smin, smax: r.smax, umin: r.umin, umax: r.umax });
const view32 = (r: Reg): View => ({ smin: r.s32min, smax: r.s32max, umin: r.u32min, umax: r.u32max });
function setView(r: Reg, v: View, bits: 32 | 64): void {
  if (bits === 64) {
    r.smin = v.smin;
    r.smax = v.smax;
    r.umin = v.umin;
    r.umax = v.umax;
  } else {
    r.s32min = v.smin;
    r.s32max = v.smax;
    r.u32min = v.umin;
    r.u32max = v.umax;
  }
}
const SMIN = (bits: 32 | 64): bigint => (bits === 64 ? S64_MIN : S32_MIN);
const SMAX = (bits: 32 | 64): bigint => (bits === 64 ? S64_MAX : S32_MAX);
const UMAX = (bits: 32 | 64): bigint => (bits === 64 ? U64_MAX : U32_MAX);

function minMaxAdd(d: View, s: View, bits: 32 | 64): View {
  const out = { ...d };
  const [a, o1] = addOverflowS(d.smin, s.smin, bits);
  const [b, o2] = addOverflowS(d.smax, s.smax, bits);
  if (o1 || o2) {
    out.smin = SMIN(bits);
    out.smax = SMAX(bits);
  } else {
    out.smin = a;
    out.smax = b;
  }
  const [c, minOv] = addOverflowU(d.umin, s.umin, bits);
  const [e, maxOv] = addOverflowU(d.umax, s.umax, bits);
  out.umin = c;
  out.umax = e;
  if (!minOv && maxOv) {
    out.umin = 0n;
    out.umax = UMAX(bits);
  }
  return out;
}

function minMaxSub(d: View, s: View, bits: 32 | 64): View {
  const out = { ...d };
  const [a, o1] = subOverflowS(d.smin, s.smax, bits);
  const [b, o2] = subOverflowS(d.smax, s.smin, bits);
  if (o1 || o2) {
    out.smin = SMIN(bits);
    out.smax = SMAX(bits);
  } else {
    out.smin = a;
    out.smax = b;
  }
  const [c, minUf] = subOverflowU(d.umin, s.umax, bits);
  const [e, maxUf] = subOverflowU(d.umax, s.umin, bits);
  out.umin = c;
  out.umax = e;
  if (minUf && !maxUf) {
    out.umin = 0n;
    out.umax = UMAX(bits);
  }
  return out;
}

function minMaxMul(d: View, s: View, bits: 32 | 64): View {
  const out = { ...d };
  const umaxP = d.umax * s.umax;
  const uminP = d.umin * s.umin;
  if (umaxP > UMAX(bits) || uminP > UMAX(bits)) {
    out.umin = 0n;
    out.umax = UMAX(bits);
  } else {
    out.umin = uminP;
    out.umax = umaxP;
  }
  const prods = [d.smin * s.smin, d.smin * s.smax, d.smax * s.smin, d.smax * s.smax];
  if (prods.some((p) => p < SMIN(bits) || p > SMAX(bits))) {
    out.smin = SMIN(bits);
    out.smax = SMAX(bits);
  } else {
    out.smin = prods.reduce(min);
    out.smax = prods.reduce(max);
  }
  return out;
}

/** and/or/xor: bounds from the result tnum, signed from unsigned when it can. */
function minMaxBitwise(op: number, d: View, s: View, t: { value: bigint; mask: bigint }, bits: 32 | 64): View {
  const out = { ...d };
  if (op === O.BPF_AND) {
    out.umin = t.value;
    out.umax = min(d.umax, s.umax);
  } else if (op === O.BPF_OR) {
    out.umin = max(d.umin, s.umin);
    out.umax = t.value | t.mask;
  } else {
    out.umin = t.value;
    out.umax = t.value | t.mask;
  }
  const sg = (x: bigint): bigint => (bits === 64 ? s64(x) : s32(x));
  if (sg(out.umin) <= sg(out.umax)) {
    out.smin = sg(out.umin);
    out.smax = sg(out.umax);
  } else {
    out.smin = SMIN(bits);
    out.smax = SMAX(bits);
  }
  return out;
}

/** is_safe_to_compute_dst_reg_range. */
function safeToComputeRange(op: number, alu32: boolean, src: Reg): boolean {
  const bits = alu32 ? 32n : 64n;
  let srcConst: boolean;
  if (alu32) srcConst = tnumSubregIsConst(src.varOff) && src.s32min === src.s32max && src.u32min === src.u32max;
  else srcConst = tnumIsConst(src.varOff) && src.smin === src.smax && src.umin === src.umax;
  switch (op) {
    case O.BPF_ADD:
    case O.BPF_SUB:
    case O.BPF_NEG:
    case O.BPF_AND:
    case O.BPF_XOR:
    case O.BPF_OR:
    case O.BPF_MUL:
      return true;
    case O.BPF_LSH:
    case O.BPF_RSH:
    case O.BPF_ARSH:
      return srcConst && src.umax < bits;
    default:
      return false;
  }
}

/**
 * dst = dst OP src for two scalars (adjust_scalar_min_max_vals). `src` is a
 * copy (the caller's fake register for an immediate).
 */
export function scalarAlu(op: number, alu32: boolean, dst: Reg, src: Reg): void {
  if (constFold(op, alu32, dst, src)) return;
  if (!safeToComputeRange(op, alu32, src)) {
    markUnknown(dst);
    return;
  }
  switch (op) {
    case O.BPF_ADD:
      setView(dst, minMaxAdd(view32(dst), view32(src), 32), 32);
      setView(dst, minMaxAdd(view64(dst), view64(src), 64), 64);
      dst.varOff = tnumAdd(dst.varOff, src.varOff);
      break;
    case O.BPF_SUB:
      setView(dst, minMaxSub(view32(dst), view32(src), 32), 32);
      setView(dst, minMaxSub(view64(dst), view64(src), 64), 64);
      dst.varOff = tnumSub(dst.varOff, src.varOff);
      break;
    case O.BPF_NEG: {
      const old = { ...dst };
      markKnown(dst, 0n);
      setView(dst, minMaxSub(view32(dst), view32(old), 32), 32);
      setView(dst, minMaxSub(view64(dst), view64(old), 64), 64);
      dst.varOff = tnumNeg(old.varOff);
      break;
    }
    case O.BPF_MUL:
      dst.varOff = tnumMul(dst.varOff, src.varOff);
      setView(dst, minMaxMul(view32(dst), view32(src), 32), 32);
      setView(dst, minMaxMul(view64(dst), view64(src), 64), 64);
      break;
    case O.BPF_AND:
    case O.BPF_OR:
    case O.BPF_XOR: {
      const f = op === O.BPF_AND ? tnumAnd : op === O.BPF_OR ? tnumOr : tnumXor;
      const srcKnown32 = tnumSubregIsConst(src.varOff);
      const dstKnown32 = tnumSubregIsConst(dst.varOff);
      const srcKnown = tnumIsConst(src.varOff);
      const dstKnown = tnumIsConst(dst.varOff);
      dst.varOff = f(dst.varOff, src.varOff);
      const t32 = tnumSubreg(dst.varOff);
      if (srcKnown32 && dstKnown32) {
        dst.s32min = dst.s32max = s32(t32.value);
        dst.u32min = dst.u32max = t32.value;
      } else {
        setView(dst, minMaxBitwise(op, view32(dst), view32(src), t32, 32), 32);
      }
      if (srcKnown && dstKnown) {
        const v = dst.varOff.value;
        dst.smin = dst.smax = s64(v);
        dst.umin = dst.umax = v;
      } else {
        setView(dst, minMaxBitwise(op, view64(dst), view64(src), dst.varOff, 64), 64);
        updateRegBounds(dst);
      }
      break;
    }
    case O.BPF_LSH:
      if (alu32) {
        const sub = tnumSubreg(dst.varOff);
        lsh32(dst, src.u32min, src.u32max);
        dst.varOff = tnumSubreg(tnumLshift(sub, src.u32min));
        mark64Unbounded(dst);
        updateReg32Bounds(dst);
      } else {
        lsh64(dst, src.umin, src.umax);
        lsh32(dst, src.umin, src.umax);
        dst.varOff = tnumLshift(dst.varOff, src.umin);
        updateRegBounds(dst);
      }
      break;
    case O.BPF_RSH:
      if (alu32) {
        const sub = tnumSubreg(dst.varOff);
        dst.s32min = S32_MIN;
        dst.s32max = S32_MAX;
        dst.varOff = tnumRshift(sub, src.u32min);
        dst.u32min >>= src.u32max;
        dst.u32max >>= src.u32min;
        mark64Unbounded(dst);
        updateReg32Bounds(dst);
      } else {
        dst.smin = S64_MIN;
        dst.smax = S64_MAX;
        dst.varOff = tnumRshift(dst.varOff, src.umin);
        dst.umin >>= src.umax;
        dst.umax >>= src.umin;
        mark32Unbounded(dst);
        updateRegBounds(dst);
      }
      break;
    case O.BPF_ARSH:
      if (alu32) {
        const sh = src.u32min;
        dst.s32min = s32(dst.s32min >> sh);
        dst.s32max = s32(dst.s32max >> sh);
        dst.varOff = tnumArshift(tnumSubreg(dst.varOff), sh, 32);
        dst.u32min = 0n;
        dst.u32max = U32_MAX;
        mark64Unbounded(dst);
        updateReg32Bounds(dst);
      } else {
        const sh = src.umin;
        dst.smin >>= sh;
        dst.smax >>= sh;
        dst.varOff = tnumArshift(dst.varOff, sh, 64);
        dst.umin = 0n;
        dst.umax = U64_MAX;
        mark32Unbounded(dst);
        updateRegBounds(dst);
      }
      break;
  }
  if (alu32) zext32To64(dst);
  regBoundsSync(dst);
}

/**
 * Both operands known: the kernel's range and tnum arithmetic collapse to
 * the exact result (reg_bounds_sync re-derives every bound from the
 * constant tnum), so compute it directly. Division and modulo are not
 * tracked by the kernel and stay on the slow path.
 */
function constFold(op: number, alu32: boolean, dst: Reg, src: Reg): boolean {
  if (dst.varOff.mask !== 0n || src.varOff.mask !== 0n) return false;
  const bits = alu32 ? 32n : 64n;
  const wrap = alu32 ? u32 : u64;
  const a = wrap(dst.varOff.value);
  const b = wrap(src.varOff.value);
  let v: bigint;
  switch (op) {
    case O.BPF_ADD: v = a + b; break;
    case O.BPF_SUB: v = a - b; break;
    case O.BPF_MUL: v = a * b; break;
    case O.BPF_AND: v = a & b; break;
    case O.BPF_OR: v = a | b; break;
    case O.BPF_XOR: v = a ^ b; break;
    case O.BPF_LSH: if (b >= bits) return false; v = a << b; break;
    case O.BPF_RSH: if (b >= bits) return false; v = a >> b; break;
    case O.BPF_ARSH: if (b >= bits) return false; v = (alu32 ? s32(a) : s64(a)) >> b; break;
    case O.BPF_NEG: v = -a; break;
    default: return false;
  }
  markKnown(dst, wrap(v));
  return true;
}

function lsh32(r: Reg, uminVal: bigint, umaxVal: bigint): void {
  r.s32min = S32_MIN;
  r.s32max = S32_MAX;
  if (umaxVal > 31n || r.u32max > 1n << (31n - umaxVal)) {
    r.u32min = 0n;
    r.u32max = U32_MAX;
  } else {
    r.u32min = u32(r.u32min << uminVal);
    r.u32max = u32(r.u32max << umaxVal);
  }
}

function lsh64(r: Reg, uminVal: bigint, umaxVal: bigint): void {
  if (uminVal === 32n && umaxVal === 32n && r.s32max >= 0n) r.smax = r.s32max << 32n;
  else r.smax = S64_MAX;
  if (uminVal === 32n && umaxVal === 32n && r.s32min >= 0n) r.smin = r.s32min << 32n;
  else r.smin = S64_MIN;
  if (r.umax > 1n << (63n - umaxVal)) {
    r.umin = 0n;
    r.umax = U64_MAX;
  } else {
    r.umin = u64(r.umin << uminVal);
    r.umax = u64(r.umax << umaxVal);
  }
}

export { tnumConst };
