/**
 * Memory access checks (the kernel's check_mem_access and friends): what a
 * load or store through each pointer type may touch — the xdp_md context,
 * the packet up to its verified range, a map value, the stack with its
 * spill/fill rules — and what the loaded register becomes.
 */
import { INSN_F_STACK_ACCESS, markChainPrecision, pushJmpHistory } from './precision';
import { NF_CONN_SIZE } from './kfunc';
import { destroyIfDynptrStackSlot } from './dynptr';
import type { Env } from './env';
import type { MapSpec, MapType } from '../isa/spec';
import {
  copyReg,
  isDynptrMem,
  isPointer,
  isNullScalar,
  knownScalar,
  markUnknown,
  pointer,
  S64_MIN,
  type Reg,
  type RegType,
} from './reg';
import { coerceRegToSize, coerceRegToSizeSx } from './scalar';
import { tnumAdd, tnumConst, tnumIsAligned, tnumIsConst, tnumStr, s64, type Tnum } from './tnum';

/** The offset as the alignment messages print it (tnum_strn). */
const offStr = (t: Tnum): string => tnumStr(t);
import {
  growStack,
  STACK_INVALID,
  STACK_MISC,
  STACK_SPILL,
  STACK_ZERO,
  type Frame,
} from './state';

export const BPF_MAX_VAR_OFF = 1 << 29;
export const BPF_MAX_VAR_SIZ = 1 << 29;
export const MAX_BPF_STACK = 512;

export type Access = 'read' | 'write';

/** The frame a stack pointer points into. */
export function stackFrameOf(env: Env, reg: Reg): Frame {
  return env.cur.frames[reg.frameno] ?? env.frame;
}

// ---- alignment ------------------------------------------------------------

function checkPktPtrAlignment(env: Env, reg: Reg, off: number, size: number, strict: boolean): void {
  if (!strict || size === 1) return;
  const ipAlign = 2;
  const regOff = tnumAdd(reg.varOff, tnumConst(BigInt(ipAlign + reg.off + off)));
  if (!tnumIsAligned(regOff, size)) {
    env.reject(`misaligned packet access off ${ipAlign}+${offStr(reg.varOff)}+${reg.off}+${off} size ${size}`);
  }
}

function checkGenericPtrAlignment(env: Env, reg: Reg, desc: string, off: number, size: number, strict: boolean): void {
  if (!strict || size === 1) return;
  const regOff = tnumAdd(reg.varOff, tnumConst(BigInt(reg.off + off)));
  if (!tnumIsAligned(regOff, size)) {
    env.reject(`misaligned ${desc}access off ${offStr(reg.varOff)}+${reg.off}+${off} size ${size}`);
  }
}

export function checkPtrAlignment(env: Env, reg: Reg, off: number, size: number, strictOnce: boolean): void {
  let strict = env.strictAlignment || strictOnce;
  let desc = '';
  switch (reg.type) {
    case 'pkt':
    case 'pkt_meta':
      return checkPktPtrAlignment(env, reg, off, size, strict);
    case 'map_value':
      desc = 'value ';
      break;
    case 'ctx':
      desc = 'context ';
      break;
    case 'fp':
      desc = 'stack ';
      // Spill/fill tracking relies on aligned stack accesses.
      strict = true;
      break;
    case 'xdp_sock':
      desc = 'xdp_sock ';
      break;
    case 'sock':
      desc = 'sock ';
      break;
    case 'sock_common':
      desc = 'sock_common ';
      strict = true;
      break;
    default:
      break;
  }
  checkGenericPtrAlignment(env, reg, desc, off, size, strict);
}

// ---- generic region checks --------------------------------------------------

function memAccessOk(off: number | bigint, size: number, memSize: number, zeroOk: boolean): boolean {
  const sizeOk = size > 0 || (size === 0 && zeroOk);
  const o = BigInt(off);
  return o >= 0n && sizeOk && o + BigInt(size) <= BigInt(memSize);
}

/** __check_mem_access: the region message for the pointer's type. */
function checkMemRange(env: Env, regno: number, off: bigint, size: number, memSize: number, zeroOk: boolean): boolean {
  if (memAccessOk(off, size, memSize, zeroOk)) return true;
  const reg = env.regs[regno]!;
  const o = s32str(off);
  switch (reg.type) {
    case 'map_value':
      env.verboseErr(`invalid access to map value, value_size=${memSize} off=${o} size=${size}`);
      break;
    case 'pkt':
    case 'pkt_meta':
    case 'pkt_end':
      env.verboseErr(`invalid access to packet, off=${o} size=${size}, R${regno}(id=${reg.id},off=${o},r=${memSize})`);
      break;
    default:
      env.verboseErr(`invalid access to memory, mem_size=${memSize} off=${o} size=${size}`);
  }
  return false;
}

/** %d of an int argument: the low 32 bits, signed. */
function s32str(v: bigint): string {
  return BigInt.asIntN(32, v).toString();
}

export function checkPacketAccess(env: Env, regno: number, off: number, size: number, zeroOk: boolean): void {
  const reg = env.regs[regno]!;
  if (reg.smin < 0n) {
    env.reject(`R${regno} min value is negative, either use unsigned index or do a if (index >=0) check.`);
  }
  const ok = reg.range >= 0 && checkMemRange(env, regno, BigInt(off), size, reg.range, zeroOk);
  if (!ok) env.reject(`R${regno} offset is outside of the packet`);
}

/** check_mem_region_access for map values (fixed off already folded in). */
export function checkMapAccess(env: Env, regno: number, off: number, size: number, zeroOk: boolean): void {
  const reg = env.regs[regno]!;
  // The same region check serves ringbuf memory, whose size the pointer carries.
  const memSize = reg.type === 'ringbuf_mem' || isDynptrMem(reg.type) ? reg.range : env.maps[reg.map]!.value_size;
  const o = BigInt(off);
  if (reg.smin < 0n && (reg.smin === S64_MIN || o + reg.smin !== BigInt.asIntN(32, o + reg.smin) || reg.smin + o < 0n)) {
    env.reject(`R${regno} min value is negative, either use unsigned index or do a if (index >=0) check.`);
  }
  if (!checkMemRange(env, regno, reg.smin + o, size, memSize, zeroOk)) {
    env.reject(`R${regno} min value is outside of the allowed memory range`);
  }
  if (reg.umax >= BigInt(BPF_MAX_VAR_OFF)) {
    env.reject(`R${regno} unbounded memory access, make sure to bounds check any such access`);
  }
  if (!checkMemRange(env, regno, reg.umax + o, size, memSize, zeroOk)) {
    env.reject(`R${regno} max value is outside of the allowed memory range`);
  }
}

/**
 * check_map_access_type: what the program may do with a map's values. devmap
 * values are read-only to programs; BPF_F_RDONLY_PROG / BPF_F_WRONLY_PROG
 * (user space's choice, e.g. libbpf's .rodata) forbid writes / reads.
 */
export function checkMapAccessType(env: Env, mapIdx: number, off: number, size: number, t: Access): void {
  const m = env.maps[mapIdx]!;
  const flags = m.flags ?? 0;
  // libbpf creates .rodata with BPF_F_RDONLY_PROG even when the spec does not say so.
  const rdonly = m.type === 'devmap' || m.type === 'devmap_hash' || (flags & BPF_F_RDONLY_PROG) !== 0 || (m.internal?.startsWith('.rodata') ?? false);
  if (t === 'write' && rdonly) {
    env.reject(`write into map forbidden, value_size=${m.value_size} off=${off} size=${size}`);
  }
  if (t === 'read' && (flags & BPF_F_WRONLY_PROG) !== 0) {
    env.reject(`read from map forbidden, value_size=${m.value_size} off=${off} size=${size}`);
  }
}

/**
 * bpf_map_direct_read: a load at a known offset from a frozen read-only
 * single-entry array (libbpf's .rodata, `const volatile` knobs) reads the
 * value user space wrote, as a constant. Null when the map is not such.
 */
function mapDirectRead(m: MapSpec, off: number, size: number): bigint | null {
  const rdonly = ((m.flags ?? 0) & BPF_F_RDONLY_PROG) !== 0 || (m.internal?.startsWith('.rodata') ?? false);
  if (!rdonly || !m.freeze || m.type !== 'array' || m.max_entries !== 1) return null;
  const hex = m.init?.find((e) => /^0*$/.test(e.key))?.value ?? '';
  let v = 0n;
  for (let i = size - 1; i >= 0; i--) {
    const b = hex.slice(2 * (off + i), 2 * (off + i) + 2);
    v = (v << 8n) | BigInt(b.length === 2 ? parseInt(b, 16) || 0 : 0);
  }
  return v;
}

/**
 * The struct under a CONST_PTR_TO_MAP, by map type (each map type's ops
 * map_btf_id in the kernel: arraymap.c's bpf_array, hashtab.c's bpf_htab, …).
 */
const MAP_STRUCT_NAME: Readonly<Record<MapType, string>> = {
  array: 'bpf_array', percpu_array: 'bpf_array', prog_array: 'bpf_array', perf_event_array: 'bpf_array', array_of_maps: 'bpf_array',
  hash: 'bpf_htab', percpu_hash: 'bpf_htab', lru_hash: 'bpf_htab', lru_percpu_hash: 'bpf_htab', hash_of_maps: 'bpf_htab',
  devmap: 'bpf_dtab', devmap_hash: 'bpf_dtab', cpumap: 'bpf_cpu_map', xskmap: 'xsk_map', lpm_trie: 'lpm_trie',
  queue: 'bpf_queue_stack', stack: 'bpf_queue_stack', ringbuf: 'bpf_ringbuf_map', bloom_filter: 'bpf_bloom_filter',
};

const BPF_F_RDONLY_PROG = 0x80;
const BPF_F_WRONLY_PROG = 0x100;

// ---- ctx (struct xdp_md) ----------------------------------------------------

const XDP_MD_SIZE = 24;
const CTX_FIELD_TYPE: Record<number, RegType> = { 0: 'pkt', 4: 'pkt_end', 8: 'pkt_meta' };

function checkPtrOffReg(env: Env, reg: Reg, regno: number, fixedOffOk: boolean): void {
  if (reg.off < 0) env.reject(`negative offset ${reg.type} ptr R${regno} off=${reg.off} disallowed`);
  if (!fixedOffOk && reg.off) env.reject(`dereference of modified ${reg.type} ptr R${regno} off=${reg.off} disallowed`);
  if (!tnumIsConst(reg.varOff) || reg.varOff.value) {
    env.reject(`variable ${reg.type} access var_off=${tnumStr(reg.varOff)} disallowed`);
  }
}
export { checkPtrOffReg };

function xdpIsValidAccess(off: number, size: number, t: Access): boolean {
  if (off === 20) return false; // egress_ifindex: devmap programs only
  if (t === 'write') return false;
  if (off < 0 || off >= XDP_MD_SIZE) return false;
  if (off % size !== 0) return false;
  return size === 4;
}

// ---- stack ----------------------------------------------------------------

function checkStackAccessWithinBounds(env: Env, regno: number, off: number, size: number, t: Access, extra = ''): void {
  const reg = env.regs[regno]!;
  const f = stackFrameOf(env, reg);
  let minOff: bigint;
  let maxOff: bigint;
  if (tnumIsConst(reg.varOff)) {
    minOff = s64(reg.varOff.value) + BigInt(off);
    maxOff = minOff + BigInt(size);
  } else {
    if (reg.smax >= BigInt(BPF_MAX_VAR_OFF) || reg.smin <= -BigInt(BPF_MAX_VAR_OFF)) {
      env.reject(`invalid unbounded variable-offset${extra} stack R${regno}`);
    }
    minOff = reg.smin + BigInt(off);
    maxOff = reg.smax + BigInt(off) + BigInt(size);
  }
  const minValid = t === 'write' || env.allowPtrLeaks ? -MAX_BPF_STACK : -f.stack.length * 8;
  let bad = minOff < BigInt(minValid) || minOff > -1n;
  if (!bad && maxOff > 0n) bad = true;
  if (!bad && size < 0) bad = true;
  if (bad) {
    if (tnumIsConst(reg.varOff)) env.reject(`invalid${extra} stack R${regno} off=${off} size=${size}`);
    env.reject(`invalid variable-offset${extra} stack R${regno} var_off=${tnumStr(reg.varOff)} off=${off} size=${size}`);
  }
  growStack(f, Number(-minOff));
  noteStackDepth(env, f, Number(-minOff));
}

export function noteStackDepth(env: Env, f: Frame, depth: number): void {
  const d = Math.ceil(depth / 8) * 8;
  const cur = env.stackDepth.get(f.subprogStart) ?? 0;
  if (d > cur) env.stackDepth.set(f.subprogStart, d);
}

/** Which slot and byte an offset from the frame pointer lands on. */
const slotOf = (off: number): { spi: number; byte: number } => {
  const slot = -off - 1;
  return { spi: Math.floor(slot / 8), byte: slot % 8 };
};

const isSpilledReg = (f: Frame, spi: number): boolean => f.stack[spi]?.types[7] === STACK_SPILL;

/** Bits of the value a scalar occupies (get_reg_width). */
function regWidth(r: Reg): number {
  const v = r.umax;
  return v === 0n ? 0 : v.toString(2).length;
}

function assignScalarIdBeforeMov(env: Env, r: Reg): void {
  // A register already linked with a delta (BPF_ADD_CONST) loses that link: a copy of it would need two deltas.
  if (r.type === 'scalar' && r.id && r.addConst) {
    r.id = 0;
    r.off = 0;
    r.add32 = false;
    r.addConst = false;
  }
  if (r.type === 'scalar' && !r.id && !tnumIsConst(r.varOff)) {
    r.id = ++env.idGen;
    // A fresh link starts with no delta (off on a linked scalar is its BPF_ADD_CONST delta).
    r.off = 0;
    r.add32 = false;
    r.addConst = false;
  }
}
export { assignScalarIdBeforeMov };

function saveRegisterState(f: Frame, spi: number, reg: Reg, size: number): void {
  const sl = f.stack[spi]!;
  sl.spilled = copyReg(reg);
  for (let i = 8; i > 8 - size; i--) sl.types[i - 1] = STACK_SPILL;
  for (let i = 8 - size; i > 0; i--) {
    const t = sl.types[i - 1]!;
    // mark_stack_slot_misc: STACK_INVALID stays invalid in every mode (unprivileged, reading it is still an error).
    if (t === STACK_ZERO || t === STACK_INVALID) continue;
    sl.types[i - 1] = STACK_MISC;
  }
}

function checkStackWriteFixedOff(env: Env, f: Frame, off: number, size: number, valueRegno: number, stImm: number | null): void {
  const { spi } = slotOf(off);
  destroyIfDynptrStackSlot(env, f, spi);
  const sl = f.stack[spi]!;
  if (!env.allowPtrLeaks && isSpilledReg(f, spi) && sl.spilled.type !== 'scalar' && size !== 8) {
    env.reject('attempt to corrupt spilled pointer on stack');
  }
  const reg = valueRegno >= 0 ? env.regs[valueRegno]! : null;
  const aligned = off % 8 === 0;
  // Only a whole slot counts as written: a partial write leaves the rest readable.
  if (aligned && size === 8) env.live.markWrite(f.frameno, spi);
  // A spill: the jump history says which slot, so precision can be followed through it.
  const spilled = (): void => pushJmpHistory(env, env.cur, INSN_F_STACK_ACCESS, spi, f.frameno, null);
  if (reg && aligned && reg.type === 'scalar' && env.bpfCapable) {
    const fits = regWidth(reg) <= 8 * size;
    if (fits) assignScalarIdBeforeMov(env, reg);
    saveRegisterState(f, spi, reg, size);
    if (!fits) sl.spilled.id = 0;
    spilled();
  } else if (!reg && aligned && stImm !== null && env.bpfCapable) {
    saveRegisterState(f, spi, knownScalar(BigInt(stImm)), size);
    spilled();
  } else if (reg && isPointer(reg)) {
    if (size !== 8) {
      env.verboseLinfo(env.insnIdx, '; ');
      env.reject('invalid size of register spill');
    }
    if (f !== env.frame && reg.type === 'fp') {
      env.reject('cannot spill pointers to stack into stack frame of the caller');
    }
    saveRegisterState(f, spi, reg, size);
    spilled();
  } else {
    let type = STACK_MISC;
    sl.spilled = pointer('not_init');
    sl.spilled.type = 'not_init';
    if (sl.types[7] === STACK_SPILL) {
      for (let i = 0; i < 8; i++) if (sl.types[i] !== STACK_INVALID) sl.types[i] = STACK_MISC;
    }
    if ((reg && isNullScalar(reg)) || (!reg && stImm === 0)) {
      // Zero bytes are not a spill the walk can follow: the zero itself must stay zero behind.
      if (reg) markChainPrecision(env, valueRegno);
      type = STACK_ZERO;
    }
    const slot = -off - 1;
    for (let i = 0; i < size; i++) sl.types[(slot - i) % 8] = type;
  }
  env.markStackScratched(spi);
}

function checkStackWriteVarOff(env: Env, f: Frame, ptrRegno: number, off: number, size: number, valueRegno: number, stImm: number | null): void {
  const ptr = env.regs[ptrRegno]!;
  const minOff = Number(ptr.smin) + off;
  const maxOff = Number(ptr.smax) + off + size;
  const reg = valueRegno >= 0 ? env.regs[valueRegno]! : null;
  const zero = (reg && isNullScalar(reg)) || (!reg && stImm === 0);
  let zeroUsed = false;
  for (let i = minOff; i < maxOff; i++) destroyIfDynptrStackSlot(env, f, slotOf(i).spi);
  for (let i = minOff; i < maxOff; i++) {
    const { spi, byte } = slotOf(i);
    const sl = f.stack[spi]!;
    if (!env.allowPtrLeaks && sl.types[7] === STACK_SPILL && sl.spilled.type !== 'scalar') {
      env.reject(`spilled ptr in range of var-offset stack write; insn ${env.insnIdx}, ptr off: ${i}`);
    }
    sl.spilled = { ...sl.spilled, type: 'not_init' };
    const t = sl.types[byte]!;
    let nt = STACK_MISC;
    // Only a zero write over a zero byte keeps it zero.
    if (zero && t === STACK_ZERO) {
      nt = STACK_ZERO;
      zeroUsed = true;
    }
    if (t === STACK_INVALID && !env.allowPtrLeaks) {
      env.reject(`uninit stack in range of var-offset write prohibited for !root; insn ${env.insnIdx}, off: ${i}`);
    }
    sl.types[byte] = nt;
    // The spilled register is gone (not_init above): none of its bytes may still read as a spill,
    // or a later narrow fill would find STACK_SPILL over a not_init register.
    for (let j = 0; j < 8; j++) if (sl.types[j] === STACK_SPILL) sl.types[j] = STACK_MISC;
    env.markStackScratched(spi);
  }
  if (zeroUsed && reg) markChainPrecision(env, valueRegno);
}

function markRegStackRead(env: Env, f: Frame, minOff: number, maxOff: number, dst: number): void {
  let zeros = 0;
  for (let i = minOff; i < maxOff; i++) {
    const { spi, byte } = slotOf(i);
    if (f.stack[spi]?.types[byte] === STACK_ZERO) zeros++;
  }
  const r = env.regs[dst]!;
  if (zeros === maxOff - minOff) Object.assign(r, knownScalar(0n));
  else markUnknown(r);
}

function checkStackReadFixedOff(env: Env, f: Frame, off: number, size: number, dst: number): void {
  const { spi } = slotOf(off);
  const sl = f.stack[spi]!;
  const slot = -off - 1;
  const types = sl.types;
  // A fill that restores the spilled register: the jump history says from which slot.
  const filled = (): void => pushJmpHistory(env, env.cur, INSN_F_STACK_ACCESS, spi, f.frameno, null);
  env.live.markRead(env.cur, f.frameno, env.insnIdx, spi);
  if (isSpilledReg(f, spi)) {
    let spillSize = 1;
    for (let i = 7; i > 0 && types[i - 1] === STACK_SPILL; i--) spillSize++;
    const reg = sl.spilled;
    if (size !== 8 || spillSize !== 8) {
      if (reg.type !== 'scalar') {
        env.verboseLinfo(env.insnIdx, '; ');
        env.reject('invalid size of register fill');
      }
      if (dst < 0) return;
      if (size <= spillSize && narrowAccessOk(off, size, spillSize)) {
        const r = copyReg(reg);
        if (regWidth(reg) > size * 8) r.id = 0;
        env.regs[dst] = r;
        filled();
      } else {
        let spillCnt = 0;
        let zeroCnt = 0;
        for (let i = 0; i < size; i++) {
          const t = types[(slot - i) % 8]!;
          if (t === STACK_SPILL) spillCnt++;
          else if (t === STACK_MISC) continue;
          else if (t === STACK_ZERO) zeroCnt++;
          else if (t === STACK_INVALID && env.allowPtrLeaks) continue;
          else env.reject(`invalid read from stack off ${off}+${i} size ${size}`);
        }
        if (spillCnt === size && tnumIsConst(reg.varOff) && reg.varOff.value === 0n) {
          env.regs[dst] = knownScalar(0n);
          filled();
        } else if (zeroCnt === size) env.regs[dst] = knownScalar(0n);
        else {
          env.regs[dst] = knownScalar(0n);
          markUnknown(env.regs[dst]!);
        }
      }
    } else if (dst >= 0) {
      env.regs[dst] = copyReg(reg);
      filled();
    } else if (isPointer(reg) && !env.allowPtrLeaks) {
      env.reject(`leaking pointer from stack off ${off}`);
    } else {
      filled();
    }
  } else {
    for (let i = 0; i < size; i++) {
      const t = types[(slot - i) % 8]!;
      if (t === STACK_MISC || t === STACK_ZERO) continue;
      if (t === STACK_INVALID && env.allowPtrLeaks) continue;
      env.reject(`invalid read from stack off ${off}+${i} size ${size}`);
    }
    if (dst >= 0) markRegStackRead(env, f, off, off + size, dst);
  }
}

/** bpf_stack_narrow_access_ok: a narrow fill must start at the slot (little endian). */
function narrowAccessOk(off: number, _size: number, _spillSize: number): boolean {
  return off % 8 === 0;
}

function checkStackReadVarOff(env: Env, f: Frame, ptrRegno: number, off: number, size: number, dst: number): void {
  const ptr = env.regs[ptrRegno]!;
  const minOff = Number(ptr.smin) + off;
  const maxOff = Number(ptr.smax) + off + size;
  for (let i = minOff; i < maxOff; i++) {
    const { spi, byte } = slotOf(i);
    const sl = f.stack[spi];
    const t = sl ? sl.types[byte]! : STACK_INVALID;
    env.live.markRead(env.cur, f.frameno, env.insnIdx, spi);
    if (t === STACK_MISC || t === STACK_ZERO || t === STACK_SPILL) continue;
    if (t === STACK_INVALID && env.allowPtrLeaks) continue;
    env.reject(`invalid variable-offset read from stack R${ptrRegno} var_off=${tnumStr(ptr.varOff)} off=${off} size=${size}`);
  }
  if (dst >= 0) markRegStackRead(env, f, minOff, maxOff, dst);
}

// ---- check_mem_access -----------------------------------------------------

export interface MemAccess {
  regno: number;
  off: number;
  size: number;
  t: Access;
  /** Register loaded into or stored from; -1 for none. */
  valueRegno: number;
  /** For BPF_ST: the immediate stored. */
  stImm?: number | null;
  signExtend?: boolean;
  strictOnce?: boolean;
}

export function checkMemAccess(env: Env, a: MemAccess): void {
  const { regno, size, t, valueRegno } = a;
  const reg = env.regs[regno]!;
  checkPtrAlignment(env, reg, a.off, size, !!a.strictOnce);
  const off = a.off + reg.off;
  switch (reg.type) {
    case 'map_value': {
      if (t === 'write' && valueRegno >= 0 && isPointer(env.regs[valueRegno]!) && !env.allowPtrLeaks) {
        env.reject(`R${valueRegno} leaks addr into map`);
      }
      checkMapAccessType(env, reg.map, off, size, t);
      checkMapAccess(env, regno, off, size, false);
      if (t === 'read' && valueRegno >= 0) {
        const known = tnumIsConst(reg.varOff) ? mapDirectRead(env.maps[reg.map]!, off + Number(reg.varOff.value), size) : null;
        if (known !== null) env.regs[valueRegno] = knownScalar(known);
        else markUnknown(env.regs[valueRegno]!);
      }
      break;
    }
    case 'ctx': {
      if (t === 'write' && valueRegno >= 0 && isPointer(env.regs[valueRegno]!) && !env.allowPtrLeaks) {
        env.reject(`R${valueRegno} leaks addr into ctx`);
      }
      checkPtrOffReg(env, reg, regno, false);
      // Sign-extending loads are not among the context accesses the kernel converts.
      if (!xdpIsValidAccess(off, size, t) || a.signExtend) {
        env.verboseLinfo(env.insnIdx, '; ');
        env.reject(`invalid bpf_context access off=${off} size=${size}`);
      }
      if (t === 'read' && valueRegno >= 0) {
        const ft = CTX_FIELD_TYPE[off];
        if (ft) env.regs[valueRegno] = pointer(ft);
        else markUnknown(env.regs[valueRegno]!);
      }
      break;
    }
    case 'fp': {
      checkStackAccessWithinBounds(env, regno, off, size, t, t === 'read' ? ' read from' : ' write to');
      const f = stackFrameOf(env, reg);
      if (tnumIsConst(reg.varOff)) {
        const o = off + Number(s64(reg.varOff.value));
        if (t === 'read') checkStackReadFixedOff(env, f, o, size, valueRegno);
        else checkStackWriteFixedOff(env, f, o, size, valueRegno, a.stImm ?? null);
        env.markStackScratched(slotOf(o).spi);
      } else if (t === 'read') {
        checkStackReadVarOff(env, f, regno, off, size, valueRegno);
      } else {
        checkStackWriteVarOff(env, f, regno, off, size, valueRegno, a.stImm ?? null);
      }
      break;
    }
    case 'pkt':
    case 'pkt_meta': {
      if (t === 'write' && valueRegno >= 0 && isPointer(env.regs[valueRegno]!) && !env.allowPtrLeaks) {
        env.reject(`R${valueRegno} leaks addr into packet`);
      }
      checkPacketAccess(env, regno, off, size, false);
      if (t === 'read' && valueRegno >= 0) markUnknown(env.regs[valueRegno]!);
      break;
    }
    case 'ringbuf_mem':
      if (t === 'write' && valueRegno >= 0 && isPointer(env.regs[valueRegno]!) && !env.allowPtrLeaks) {
        env.reject(`R${valueRegno} leaks addr into mem`);
      }
      checkMapAccess(env, regno, off, size, false);
      if (t === 'read' && valueRegno >= 0) markUnknown(env.regs[valueRegno]!);
      break;
    case 'mem':
    case 'rdonly_mem':
      // A dynptr slice: mem_size bytes; bpf_dynptr_slice's is MEM_RDONLY.
      if (t === 'write' && reg.type === 'rdonly_mem') env.reject(`R${regno} cannot write into ${reg.type}`);
      if (t === 'write' && valueRegno >= 0 && isPointer(env.regs[valueRegno]!) && !env.allowPtrLeaks) {
        env.reject(`R${valueRegno} leaks addr into mem`);
      }
      checkMapAccess(env, regno, off, size, false);
      if (t === 'read' && valueRegno >= 0) markUnknown(env.regs[valueRegno]!);
      break;
    case 'xdp_sock':
      // bpf_xdp_sock_is_valid_access: struct bpf_xdp_sock is one __u32, queue_id.
      if (t === 'write') env.reject(`R${regno} cannot write into ${reg.type}`);
      if (off !== 0 || size !== 4 || a.signExtend) env.reject(`R${regno} invalid ${reg.type} access off=${off} size=${size}`);
      if (valueRegno >= 0) markUnknown(env.regs[valueRegno]!);
      break;
    case 'sock':
    case 'sock_common': {
      if (t === 'write') env.reject(`R${regno} cannot write into ${reg.type}`);
      // check_sock_access; sign-extending loads are not among the converted accesses (kept refused).
      if (!sockIsValidAccess(reg.type, off, size) || a.signExtend) env.reject(`R${regno} invalid ${reg.type} access off=${off} size=${size}`);
      if (valueRegno >= 0) markUnknown(env.regs[valueRegno]!);
      break;
    }
    case 'nf_conn':
    case 'nf_conn___init': {
      // btf_struct_access: a scalar read inside struct nf_conn; XDP Lab keeps its fields read-only.
      if (t === 'write') env.reject(`only read is supported`);
      if (!tnumIsConst(reg.varOff)) env.reject(`R${regno} is ptr_${reg.type} invalid variable offset: off=${reg.off}, var_off=${tnumStr(reg.varOff)}`);
      const o = off + Number(reg.varOff.value);
      if (o < 0) env.reject(`R${regno} is ptr_${reg.type} invalid negative access: off=${o}`);
      if (o + size > NF_CONN_SIZE) env.reject(`access beyond struct ${reg.type} at off ${o} size ${size}`);
      if (valueRegno >= 0) markUnknown(env.regs[valueRegno]!);
      break;
    }
    case 'map_ptr': {
      // check_ptr_to_map_access: a struct bpf_map underneath, read through BTF by privileged programs (the
      // oracle's root). Its negative offsets and writes are refused as the kernel refuses them; reads of its
      // fields are not modelled (refused below, where the kernel would accept a field it knows).
      const tname = MAP_STRUCT_NAME[env.maps[reg.map]!.type];
      if (!env.allowPtrLeaks) env.reject(`'struct ${tname}' access is allowed only to CAP_PERFMON and CAP_SYS_ADMIN`);
      if (off < 0) env.reject(`R${regno} is ${tname} invalid negative access: off=${off}`);
      if (t === 'write') env.reject(`only read from ${tname} is supported`);
      env.reject(`R${regno} invalid mem access '${reg.type}'`);
      break;
    }
    default:
      env.reject(`R${regno} invalid mem access '${reg.type}'`);
  }
  if (t === 'read' && valueRegno >= 0) {
    const r = env.regs[valueRegno]!;
    if (size < 8 && r.type === 'scalar') {
      if (a.signExtend) coerceRegToSizeSx(r, size);
      else coerceRegToSize(r, size);
    }
    env.markRegScratched(valueRegno);
  }
}

export { STACK_INVALID, STACK_MISC, STACK_SPILL, STACK_ZERO, slotOf };

/**
 * bpf_sock_is_valid_access / bpf_sock_common_is_valid_access: reads of
 * struct bpf_sock (uapi layout: bound_dev_if 0, family 4, type 8, protocol 12,
 * mark 16, priority 20, src_ip4 24, src_ip6 28..43, src_port 44, dst_port 48
 * (__be16, then 2 bytes of padding), dst_ip4 52, dst_ip6 56..71, state 72,
 * rx_queue_mapping 76; 80 bytes). A sock_common has no type..priority.
 */
function sockIsValidAccess(type: 'sock' | 'sock_common', off: number, size: number): boolean {
  if (type === 'sock_common' && off >= 8 && off < 24) return false;
  if (off < 0 || off >= 80 || off % size !== 0) return false;
  const narrowOk = (fieldSize: number): boolean => size <= fieldSize && (size & (size - 1)) === 0;
  if (off === 72 || off === 4 || off === 8 || off === 12 || off === 44 || off === 76) return narrowOk(4);
  if ((off >= 24 && off < 28) || (off >= 28 && off < 44) || (off >= 52 && off < 56) || (off >= 56 && off < 72)) return narrowOk(4);
  if (off >= 48 && off < 50) return narrowOk(size === 4 ? 4 : 2);
  if (off >= 50 && off < 52) return false;
  return size === 4;
}
