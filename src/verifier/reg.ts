/**
 * One register as the verifier sees it (the kernel's struct bpf_reg_state):
 * a type, and for scalars — and for the variable part of pointer offsets —
 * a tnum plus signed/unsigned 64- and 32-bit bounds. Pointers also carry a
 * fixed offset, an id (packet pointers from one base, or the maybe-null
 * result of one lookup), the verified packet range, the map they point
 * into, and for stack pointers the frame.
 */
import {
  TNUM_UNKNOWN,
  tnumConst,
  tnumIsConst,
  tnumIsUnknown,
  tnumStr,
  U32_MAX,
  U64_MAX,
  u32,
  s32,
  s64,
  u64,
  type Tnum,
} from './tnum';

export type RegType =
  | 'not_init'
  | 'scalar'
  | 'ctx'
  | 'map_ptr'
  | 'map_value'
  | 'map_value_or_null'
  | 'fp'
  | 'pkt'
  | 'pkt_meta'
  | 'pkt_end'
  | 'xdp_sock'
  | 'xdp_sock_or_null'
  // bpf_sk_lookup_* results (PTR_TO_SOCKET / PTR_TO_SOCK_COMMON), reference-counted.
  | 'sock'
  | 'sock_or_null'
  | 'sock_common'
  | 'sock_common_or_null'
  // bpf_ringbuf_reserve results (PTR_TO_MEM | MEM_RINGBUF); `range` holds mem_size.
  | 'ringbuf_mem'
  | 'ringbuf_mem_or_null'
  // PTR_TO_FUNC (ld_imm64 BPF_PSEUDO_FUNC): a subprogram's address; `range` holds its first insn (subprogno).
  | 'func'
  // PTR_TO_BTF_ID of the conntrack kfuncs (bpf_xdp_ct_lookup / _alloc), reference-counted.
  | 'nf_conn'
  | 'nf_conn_or_null'
  | 'nf_conn___init'
  | 'nf_conn___init_or_null'
  // PTR_TO_MEM | DYNPTR_TYPE_XDP (| MEM_RDONLY) (| PTR_MAYBE_NULL): a slice of an XDP dynptr (bpf_dynptr_slice,
  // _rdwr) or bpf_dynptr_data's result; `range` holds mem_size, `dynptrId` the dynptr it came from.
  | 'mem'
  | 'mem_or_null'
  | 'rdonly_mem'
  | 'rdonly_mem_or_null';

export const S64_MIN = -(1n << 63n);
export const S64_MAX = (1n << 63n) - 1n;
export const S32_MIN = -(1n << 31n);
export const S32_MAX = (1n << 31n) - 1n;

/** Packet range markers for a pointer known to be at/after pkt_end. */
export const AT_PKT_END = -1;
export const BEYOND_PKT_END = -2;

export interface Reg {
  type: RegType;
  varOff: Tnum;
  smin: bigint;
  smax: bigint;
  umin: bigint;
  umax: bigint;
  s32min: bigint;
  s32max: bigint;
  u32min: bigint;
  u32max: bigint;
  /** Fixed part of a pointer's offset. */
  off: number;
  id: number;
  /** Verified bytes after a packet pointer (or AT_PKT_END/BEYOND_PKT_END). */
  range: number;
  /** Map index, for map_ptr / map_value(_or_null) / xdp_sock. */
  map: number;
  /** Frame a stack pointer points into. */
  frameno: number;
  precise: boolean;
  /** The acquired reference this pointer holds (ref_obj_id), 0 for none. */
  refObjId: number;
  /** A linked scalar's delta (off) was added in 32 bits: value = zext(lo32(base) + off) (BPF_ADD_CONST32). */
  add32: boolean;
  /** The id carries BPF_ADD_CONST: this scalar is its link's base plus `off` (0 included); never two deltas. */
  addConst: boolean;
  /** For a dynptr slice: the id of the dynptr it was taken from (dynptr_id), 0 otherwise. */
  dynptrId: number;
  /** DYNPTR_TYPE_XDP in the type of a dynptr slice: it points into the packet, so a packet-changing call invalidates it. */
  dynptrPkt: boolean;
}

export function notInit(): Reg {
  return {
    type: 'not_init',
    varOff: TNUM_UNKNOWN,
    smin: S64_MIN,
    smax: S64_MAX,
    umin: 0n,
    umax: U64_MAX,
    s32min: S32_MIN,
    s32max: S32_MAX,
    u32min: 0n,
    u32max: U32_MAX,
    off: 0,
    id: 0,
    range: 0,
    map: -1,
    frameno: 0,
    precise: false,
    refObjId: 0,
    add32: false,
    addConst: false,
    dynptrId: 0,
    dynptrPkt: false,
  };
}

export function unknownScalar(): Reg {
  const r = notInit();
  r.type = 'scalar';
  return r;
}

export function markKnown(r: Reg, v: bigint): void {
  r.varOff = tnumConst(v);
  r.smin = r.smax = s64(v);
  r.umin = r.umax = u64(v);
  r.s32min = r.s32max = s32(v);
  r.u32min = r.u32max = u32(v);
}

export function knownScalar(v: bigint): Reg {
  const r = unknownScalar();
  markKnown(r, v);
  return r;
}

/** A pointer of the given type at offset zero (mark_reg_known_zero + type). */
export function pointer(type: RegType, extra: Partial<Reg> = {}): Reg {
  const r = notInit();
  markKnown(r, 0n);
  r.type = type;
  return Object.assign(r, extra);
}

/** A copy with the same property order as notInit(): one hidden class for every register (spread is slower). */
export const copyReg = (r: Reg): Reg => ({
  type: r.type,
  varOff: r.varOff,
  smin: r.smin,
  smax: r.smax,
  umin: r.umin,
  umax: r.umax,
  s32min: r.s32min,
  s32max: r.s32max,
  u32min: r.u32min,
  u32max: r.u32max,
  off: r.off,
  id: r.id,
  range: r.range,
  map: r.map,
  frameno: r.frameno,
  precise: r.precise,
  refObjId: r.refObjId,
  add32: r.add32,
  addConst: r.addConst,
  dynptrId: r.dynptrId,
  dynptrPkt: r.dynptrPkt,
});

export const isPointer = (r: Reg): boolean => r.type !== 'scalar' && r.type !== 'not_init';
export const isPktPointer = (r: Reg): boolean => r.type === 'pkt' || r.type === 'pkt_meta';
export const isPktPointerAny = (r: Reg): boolean => r.type === 'pkt' || r.type === 'pkt_meta' || r.type === 'pkt_end';
export const mayBeNull = (t: RegType): boolean =>
  t === 'map_value_or_null' || t === 'xdp_sock_or_null' || t === 'sock_or_null' || t === 'sock_common_or_null' || t === 'ringbuf_mem_or_null' ||
  t === 'nf_conn_or_null' || t === 'nf_conn___init_or_null' || t === 'mem_or_null' || t === 'rdonly_mem_or_null';
/** base_type(t) == PTR_TO_MEM for a dynptr slice: the memory is `range` bytes. */
export const isDynptrMem = (t: RegType): boolean => t === 'mem' || t === 'rdonly_mem';
/** type_is_sk_pointer */
export const isSkPointer = (t: RegType): boolean => t === 'sock' || t === 'sock_common' || t === 'xdp_sock';
export const isConstScalar = (r: Reg): boolean => r.type === 'scalar' && tnumIsConst(r.varOff);
export const isNullScalar = (r: Reg): boolean => r.type === 'scalar' && tnumIsConst(r.varOff) && r.varOff.value === 0n;

export function markUnbounded(r: Reg): void {
  r.smin = S64_MIN;
  r.smax = S64_MAX;
  r.umin = 0n;
  r.umax = U64_MAX;
  r.s32min = S32_MIN;
  r.s32max = S32_MAX;
  r.u32min = 0n;
  r.u32max = U32_MAX;
}
export function mark64Unbounded(r: Reg): void {
  r.smin = S64_MIN;
  r.smax = S64_MAX;
  r.umin = 0n;
  r.umax = U64_MAX;
}
export function mark32Unbounded(r: Reg): void {
  r.s32min = S32_MIN;
  r.s32max = S32_MAX;
  r.u32min = 0n;
  r.u32max = U32_MAX;
}

/**
 * mark_reg_invalid: a pointer that no longer holds (its packet moved, its
 * reference was released, its dynptr destroyed). With allow_ptr_leaks it
 * stays readable as an unknown scalar; otherwise it is not initialised.
 */
export function markRegInvalid(r: Reg, allowPtrLeaks: boolean): void {
  if (allowPtrLeaks) markUnknown(r);
  else Object.assign(r, notInit());
}

/** Turn r into an unknown scalar in place (the kernel's __mark_reg_unknown). */
export function markUnknown(r: Reg): void {
  Object.assign(r, unknownScalar(), { precise: false });
}

// ---- printing, as kernel/bpf/log.c prints a register --------------------

/** Hex (lowercase, no prefix) of a value printed with %llx. */
const hex = (v: bigint): string => u64(v).toString(16);

/** verbose_unum: decimal up to 65535, else %#llx. */
export const unum = (v: bigint): string => (u64(v) <= 0xffffn ? u64(v).toString() : '0x' + u64(v).toString(16));
/** verbose_snum: decimal within [-32768, 32767], else %#llx of the u64 bits. */
export const snum = (v: bigint): string => {
  const x = s64(v);
  return x >= -32768n && x <= 32767n ? x.toString() : '0x' + u64(v).toString(16);
};

const isSnumDecimal = (v: bigint): boolean => v >= -32768n && v <= 32767n;
const s32Entry = (v: bigint): bigint => (isSnumDecimal(v) ? v : u32(v));

function printScalarRanges(r: Reg, parts: string[]): void {
  const mm: { name: string; val: bigint; omit: boolean; signed: boolean }[] = [
    { name: 'smin', val: r.smin, omit: r.smin === S64_MIN, signed: true },
    { name: 'smax', val: r.smax, omit: r.smax === S64_MAX, signed: true },
    { name: 'umin', val: r.umin, omit: r.umin === 0n, signed: false },
    { name: 'umax', val: r.umax, omit: r.umax === U64_MAX, signed: false },
    // A 32-bit signed bound too large for decimal is kept as its u32 bits.
    { name: 'smin32', val: s32Entry(r.s32min), omit: r.s32min === S32_MIN, signed: true },
    { name: 'smax32', val: s32Entry(r.s32max), omit: r.s32max === S32_MAX, signed: true },
    { name: 'umin32', val: r.u32min, omit: r.u32min === 0n, signed: false },
    { name: 'umax32', val: r.u32max, omit: r.u32max === U32_MAX, signed: false },
  ];
  for (let i = 0; i < mm.length; i++) {
    const m1 = mm[i]!;
    if (m1.omit) continue;
    const neg1 = m1.signed && s64(m1.val) < 0n;
    let s = `${m1.name}=`;
    for (let j = i + 2; j < mm.length; j += 2) {
      const m2 = mm[j]!;
      if (m2.omit || u64(m2.val) !== u64(m1.val)) continue;
      const neg2 = m2.signed && s64(m2.val) < 0n;
      if (neg2 !== neg1) continue;
      m2.omit = true;
      s += `${m2.name}=`;
    }
    parts.push(s + (m1.signed ? snum(m1.val) : unum(m1.val)));
  }
}

export interface MapInfo {
  key_size: number;
  value_size: number;
}

/** print_reg_state: "scalar(smin=...)", "pkt(off=14,r=14)", "fp-8", "42". */
export function formatReg(r: Reg, maps: readonly MapInfo[], frameno = r.frameno): string {
  const t = r.type;
  let s = '';
  if (t === 'scalar' && r.precise) s += 'P';
  // A stack pointer into another function's frame names it: "fp[1]-32".
  const fp = t === 'fp' && r.frameno !== frameno ? `fp[${r.frameno}]` : 'fp';
  if ((t === 'scalar' || t === 'fp') && tnumIsConst(r.varOff)) {
    const v = s64(r.varOff.value + BigInt(t === 'fp' ? r.off : 0));
    return s + (t === 'scalar' ? '' : fp) + snum(v);
  }
  // PTR_TO_BTF_ID prints as ptr_<struct> (ptr_or_null_<struct> while it may be NULL), as the kernel's log does.
  s += t.startsWith('nf_conn') ? (t.endsWith('_or_null') ? `ptr_or_null_${t.slice(0, -8)}` : `ptr_${t}`) : t === 'fp' ? fp : t;
  const parts: string[] = [];
  // A linked scalar with a delta (BPF_ADD_CONST) prints it after the id, signed ("id=3+1").
  if (r.id) parts.push(t === 'scalar' && r.addConst ? `id=${r.id}${r.off >= 0 ? '+' : ''}${r.off}` : `id=${r.id}`);
  if (r.refObjId) parts.push(`ref_obj_id=${r.refObjId}`);
  if (t === 'pkt' || t === 'pkt_meta') {
    if (r.off) parts.push(`off=${snum(BigInt(r.off))}`);
    parts.push(`r=${unum(BigInt(r.range))}`);
  } else if (t === 'map_ptr' || t === 'map_value' || t === 'map_value_or_null') {
    const m = maps[r.map];
    if (m) parts.push(`ks=${m.key_size},vs=${m.value_size}`);
    if (r.off) parts.push(`off=${snum(BigInt(r.off))}`);
  } else if (t !== 'scalar' && r.off) {
    parts.push(`off=${snum(BigInt(r.off))}`);
  }
  if (tnumIsConst(r.varOff)) {
    if (r.varOff.value !== 0n || t === 'scalar') parts.push(`imm=${hex(r.varOff.value)}`);
  } else {
    printScalarRanges(r, parts);
    if (!tnumIsUnknown(r.varOff)) parts.push(`var_off=${tnumStr(r.varOff)}`);
  }
  return `${s}(${parts.join(',')})`;
}
