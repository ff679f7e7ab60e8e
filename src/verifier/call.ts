/**
 * Calls and exits: helper calls checked against their prototypes
 * (check_helper_call / check_func_arg: argument kinds, memory/size pairs,
 * map types), bpf-to-bpf calls (new frames, call depth), and exits.
 */
import { markChainPrecision, markStackSlotPrecision } from './precision';
import * as O from '../isa/opcodes';
import type { Insn } from '../isa/insn';
import { helperById, helperDisplayName, MAP_TYPE_HELPERS, NO_PKT_ACCESS, resolveMapArgType, type ArgKind, type HelperProto } from '../helpers/table';
import { MAP_TYPES, type MapSpec } from '../isa/spec';
import type { Env } from './env';
import {
  BPF_MAX_VAR_SIZ,
  checkMapAccess,
  checkMapAccessType,
  checkMemAccess,
  checkPacketAccess,
  checkPtrAlignment,
  checkPtrOffReg,
  slotOf,
  stackFrameOf,
} from './mem';
import { isNullScalar, isPointer, knownScalar, markRegInvalid, markUnknown, mayBeNull, notInit, pointer, type Reg, type RegType } from './reg';
import { regBoundsSync } from './scalar';
import { STACK_DYNPTR, STACK_INVALID, STACK_MISC, STACK_SPILL, STACK_ZERO, curFrame, forEachReg, growStack } from './state';
import { isDynptrSlicePkt, processDynptrFunc } from './dynptr';
import { tnumIsConst, tnumStr, s64 } from './tnum';
import { checkRegArg } from './regarg';

const MEM_TYPES = 'fp, pkt, pkt_meta, map_key, map_value, mem, ringbuf_mem, buf, trusted_ptr_';
const SOCK_TYPES = 'sock_common, sock, tcp_sock, xdp_sock, ptr_, trusted_ptr_';

/** The register types each argument kind accepts, as check_reg_type lists them. */
function compatibleTypes(k: ArgKind): { types: readonly RegType[]; text: string } {
  switch (k) {
    case 'ARG_CONST_MAP_PTR':
      return { types: ['map_ptr'], text: 'map_ptr' };
    case 'ARG_PTR_TO_CTX':
      return { types: ['ctx'], text: 'ctx' };
    case 'ARG_PTR_TO_MAP_KEY':
    case 'ARG_PTR_TO_MAP_VALUE':
    case 'ARG_PTR_TO_UNINIT_MAP_VALUE':
    case 'ARG_PTR_TO_MEM':
    case 'ARG_PTR_TO_MEM_OR_NULL':
    case 'ARG_PTR_TO_UNINIT_MEM':
    case 'ARG_PTR_TO_FIXED_SIZE_MEM':
    case 'ARG_PTR_TO_FIXED_SIZE_MEM_U32':
    case 'ARG_PTR_TO_LONG':
      return { types: ['fp', 'pkt', 'pkt_meta', 'map_value', 'ringbuf_mem', 'mem', 'rdonly_mem'], text: MEM_TYPES };
    case 'ARG_CONST_SIZE':
    case 'ARG_CONST_SIZE_OR_ZERO':
    case 'ARG_CONST_ALLOC_SIZE_OR_ZERO':
      return { types: ['scalar'], text: 'scalar' };
    case 'ARG_PTR_TO_FUNC':
      return { types: [], text: 'func' };
    case 'ARG_PTR_TO_STACK_OR_NULL':
    case 'ARG_PTR_TO_STACK':
      return { types: ['fp'], text: 'fp' };
    case 'ARG_PTR_TO_CONST_STR':
      return { types: ['map_value'], text: 'map_value' };
    case 'ARG_PTR_TO_RINGBUF_MEM':
      return { types: ['ringbuf_mem'], text: 'ringbuf_mem' };
    case 'ARG_PTR_TO_BTF_ID_SOCK_COMMON':
      return { types: ['xdp_sock', 'sock', 'sock_common'], text: SOCK_TYPES };
    case 'ARG_PTR_TO_BTF_ID':
      return { types: [], text: 'ptr_, trusted_ptr_, rcu_ptr_' };
    case 'ARG_PTR_TO_PERCPU_BTF_ID':
      return { types: [], text: 'percpu_ptr_, percpu_rcu_ptr_, percpu_trusted_ptr_' };
    case 'ARG_PTR_TO_SPIN_LOCK':
      return { types: ['map_value'], text: 'map_value, ptr_' };
    case 'ARG_PTR_TO_TIMER':
      return { types: ['map_value'], text: 'map_value' };
    case 'ARG_PTR_TO_DYNPTR':
      return { types: ['fp'], text: 'fp, dynptr_ptr' };
    default:
      return { types: ['scalar'], text: 'scalar' };
  }
}

const argMayBeNull = (k: ArgKind): boolean =>
  k === 'ARG_PTR_TO_MEM_OR_NULL' || k === 'ARG_PTR_TO_STACK_OR_NULL';

interface CallMeta {
  map: number;
  rawMode: boolean;
  /** Stack bytes a raw-mode argument will have written (stack, constant size). */
  accessSize: number;
  regno: number;
  constMapKey: bigint | null;
  /** The reference a release argument hands back (meta.ref_obj_id). */
  refObjId: number;
  /** ARG_CONST_ALLOC_SIZE_OR_ZERO's value (meta.mem_size). */
  memSize: number;
  /** The id of the dynptr an ARG_PTR_TO_DYNPTR argument named (meta.dynptr_id). */
  dynptrId?: number;
}

/** check_stack_range_initialized: helper access to [off, off+size) of the stack. */
function checkStackRangeInitialized(env: Env, regno: number, off: number, size: number, zeroOk: boolean, write: boolean, meta: CallMeta | null): void {
  const reg = env.regs[regno]!;
  const f = stackFrameOf(env, reg);
  if (size === 0 && !zeroOk) env.reject('invalid zero-sized read');
  // Bounds, as for a direct access, with the helper wording.
  let minOff: number;
  let maxOff: number;
  if (tnumIsConst(reg.varOff)) {
    minOff = Number(s64(reg.varOff.value)) + off;
    const mo = minOff;
    const hi = mo + size;
    const minValid = write || env.allowPtrLeaks ? -512 : -f.stack.length * 8;
    if (mo < minValid || mo > -1 || hi > 0 || size < 0) {
      env.reject(`invalid ${write ? 'write to' : 'read from'} stack R${regno} off=${off} size=${size}`);
    }
    growStack(f, -mo);
    maxOff = minOff;
  } else {
    if (reg.smax >= BigInt(BPF_MAX_VAR_SIZ) || reg.smin <= -BigInt(BPF_MAX_VAR_SIZ)) {
      env.reject(`invalid unbounded variable-offset ${write ? 'write to' : 'read from'} stack R${regno}`);
    }
    const mo = Number(reg.smin) + off;
    const hi = Number(reg.smax) + off + size;
    if (mo < -512 || mo > -1 || hi > 0) {
      env.reject(`invalid variable-offset ${write ? 'write to' : 'read from'} stack R${regno} var_off=${tnumStr(reg.varOff)} off=${off} size=${size}`);
    }
    if (!env.bypassSpec) {
      env.reject(`R${regno} variable offset stack access prohibited for !root, var_off=${tnumStr(reg.varOff)}`);
    }
    growStack(f, -mo);
    if (meta && meta.rawMode) meta = null;
    minOff = mo;
    maxOff = Number(reg.smax) + off;
  }
  if (meta && meta.rawMode) {
    // The helper's writes are simulated byte by byte after the arguments: none may land on a dynptr.
    for (let i = minOff; i < maxOff + size; i++) {
      const { spi, byte } = slotOf(i);
      if (f.stack[spi]?.types[byte] === STACK_DYNPTR) env.reject(`potential write to dynptr at off=${i} disallowed`);
    }
    meta.accessSize = size;
    meta.regno = regno;
    return;
  }
  for (let i = minOff; i < maxOff + size; i++) {
    const { spi, byte } = slotOf(i);
    const sl = f.stack[spi]!;
    const t = sl.types[byte]!;
    env.live.markRead(env.cur, f.frameno, env.insnIdx, spi);
    if (t === STACK_MISC) continue;
    if (t === STACK_ZERO || (t === STACK_INVALID && env.allowPtrLeaks)) {
      if (write) sl.types[byte] = STACK_MISC;
      continue;
    }
    // A spilled scalar's bytes, each on its own: a narrow spill leaves the slot's other bytes what they were, and
    // without allow_uninit_stack an unwritten one stays unreadable (the kernel of this machine, 6.18.44 build v1272,
    // reads the slot byte by byte here; the build before it took the whole slot as spilled once its top byte was).
    if (t === STACK_SPILL && (sl.spilled.type === 'scalar' || env.allowPtrLeaks)) {
      if (write) {
        markUnknown(sl.spilled);
        for (let j = 0; j < 8; j++) if (sl.types[j] !== STACK_INVALID) sl.types[j] = STACK_MISC;
      }
      continue;
    }
    if (tnumIsConst(reg.varOff)) env.reject(`invalid read from stack R${regno} off ${minOff}+${i - minOff} size ${size}`);
    env.reject(`invalid read from stack R${regno} var_off ${tnumStr(reg.varOff)}+${i - minOff} size ${size}`);
  }
}

/** check_helper_mem_access */
function checkHelperMemAccess(env: Env, regno: number, size: number, write: boolean, zeroOk: boolean, meta: CallMeta | null): void {
  const reg = env.regs[regno]!;
  switch (reg.type) {
    case 'pkt':
    case 'pkt_meta':
      return checkPacketAccess(env, regno, reg.off, size, zeroOk);
    case 'map_value': {
      checkMapAccessType(env, reg.map, reg.off, size, write ? 'write' : 'read');
      return checkMapAccess(env, regno, reg.off, size, zeroOk);
    }
    case 'ringbuf_mem':
    case 'mem':
      return checkMapAccess(env, regno, reg.off, size, zeroOk);
    case 'rdonly_mem':
      // A read-only slice passes only where the helper reads (the kernel's MEM_RDONLY compatibility).
      if (write) env.reject(`R${regno} type=${reg.type} expected=fp, pkt, pkt_meta, map_key, map_value, mem, ringbuf_mem, buf, trusted_ptr_`);
      return checkMapAccess(env, regno, reg.off, size, zeroOk);
    case 'fp':
      return checkStackRangeInitialized(env, regno, reg.off, size, zeroOk, write, meta);
    default:
      if (zeroOk && size === 0 && isNullScalar(reg)) return;
      env.reject(`R${regno} type=${reg.type} expected=fp`);
  }
}

/** check_mem_size_reg: the size argument after a memory argument. */
function checkMemSizeReg(env: Env, regno: number, zeroOk: boolean, write: boolean, meta: CallMeta): void {
  const reg = env.regs[regno]!;
  const m = tnumIsConst(reg.varOff) ? meta : null;
  if (reg.smin < 0n) env.reject(`R${regno} min value is negative, either use unsigned or 'var &= const'`);
  if (reg.umin === 0n && !zeroOk) {
    env.reject(`R${regno} invalid zero-sized read: u64=[${s64(reg.umin)},${s64(reg.umax)}]`);
  }
  if (reg.umax >= BigInt(BPF_MAX_VAR_SIZ)) {
    env.reject(`R${regno} unbounded memory access, use 'var &= const' or 'if (var < const)'`);
  }
  checkHelperMemAccess(env, regno - 1, Number(reg.umax), write, zeroOk, m);
  // The access was checked against this size's bounds: they must hold in the checkpoints behind.
  markChainPrecision(env, regno);
}

/**
 * A kfunc's memory argument: with fixedSize < 0 the size register regno
 * bounds the memory in regno-1 (check_kfunc_mem_size_reg); otherwise the
 * memory in regno has that fixed size. Read access: the memory must be initialised.
 */
export function checkMemSizeRegFor(env: Env, regno: number, fixedSize: number, alsoWrite = false): void {
  const meta: CallMeta = { map: -1, rawMode: false, accessSize: 0, regno: -1, constMapKey: null, refObjId: 0, memSize: 0 };
  if (fixedSize < 0) {
    checkMemSizeReg(env, regno, alsoWrite, false, meta);
    // check_kfunc_mem_size_reg's BPF_WRITE pass: a kfunc that copies into the buffer leaves its stack bytes data.
    if (alsoWrite) checkMemSizeReg(env, regno, true, true, meta);
  }
  else checkHelperMemAccess(env, regno, fixedSize, false, false, null);
}

/** get_constant_map_key: a constant key on the stack lets array lookups skip the null check. */
function constantMapKey(env: Env, key: Reg, keySize: number): bigint | null {
  if (!env.bpfCapable || key.type !== 'fp' || !tnumIsConst(key.varOff)) return null;
  const f = stackFrameOf(env, key);
  const stackOff = key.off + Number(s64(key.varOff.value));
  const { spi, byte } = slotOf(stackOff);
  const sl = f.stack[spi];
  if (!sl) return null;
  let zero = 0;
  for (let i = byte; i >= 0 && sl.types[i] === STACK_ZERO; i--) zero++;
  if (zero >= keySize) return 0n;
  if (sl.types[7] !== STACK_SPILL || sl.spilled.type !== 'scalar') return null;
  let spill = 0;
  for (let i = byte; i >= 0 && sl.types[i] === STACK_SPILL; i--) spill++;
  if (spill !== keySize) return null;
  if (!tnumIsConst(sl.spilled.varOff)) return null;
  // The lookup is trusted non-null for this constant: it must stay constant behind.
  markStackSlotPrecision(env, f.frameno, spi);
  return sl.spilled.varOff.value;
}

const BPF_F_RDONLY_PROG = 1 << 7;

/** check_reg_const_str: a string in a frozen read-only map, zero-terminated. */
function checkRegConstStr(env: Env, reg: Reg, regno: number): void {
  const m = env.maps[reg.map]!;
  // bpf_map_is_rdonly: BPF_F_RDONLY_PROG and frozen (libbpf freezes .rodata).
  if (!((m.flags ?? 0) & BPF_F_RDONLY_PROG) || !m.freeze) env.reject(`R${regno} does not point to a readonly map'`);
  if (!tnumIsConst(reg.varOff)) env.reject(`R${regno} is not a constant address'`);
  if (m.type !== 'array') env.reject('no direct value access support for this map type');
  checkMapAccess(env, regno, reg.off, m.value_size - reg.off, false);
  const mapOff = reg.off + Number(reg.varOff.value);
  const value = m.init?.find((e) => /^0*$/.test(e.key))?.value ?? '';
  let terminated = false;
  for (let i = mapOff; i < m.value_size; i++) {
    const hex = value.slice(2 * i, 2 * i + 2);
    // Bytes the initial value does not cover are zero.
    if (hex === '' || parseInt(hex, 16) === 0) {
      terminated = true;
      break;
    }
  }
  if (!terminated) env.reject('string is not zero-terminated');
  // What the helper does with the string (bpf_snprintf's format checks) is checked after the
  // arguments; helpers whose string use is not modelled are marked unmodelled in the table.
}

function checkFuncArg(env: Env, arg: number, fn: HelperProto, meta: CallMeta): void {
  const proto = fn.args[arg];
  if (!proto || proto === 'ARG_DONTCARE') return;
  const k = meta.map >= 0 ? resolveMapArgType(fn.id, env.maps[meta.map]!.type, proto) : proto;
  const regno = arg + 1;
  checkRegArg(env, regno, 'src');
  const reg = env.regs[regno]!;
  if (k === 'ARG_ANYTHING') {
    if (isPointer(reg) && !env.allowPtrLeaks) env.reject(`R${regno} leaks addr into helper function`);
    return;
  }
  const nullOk = argMayBeNull(k) && isNullScalar(reg);
  // A NULL passed where NULL is allowed: the zero is relied on.
  if (nullOk) markChainPrecision(env, regno);
  if (!nullOk) {
    const compat = compatibleTypes(k);
    // A maybe-null pointer passes where the argument may be null.
    let t: RegType = reg.type;
    if (argMayBeNull(k) && t === 'map_value_or_null') t = 'map_value';
    if (!compat.types.includes(t)) env.reject(`R${regno} type=${reg.type} expected=${compat.text}`);
    if (reg.type === 'ctx') checkPtrOffReg(env, reg, regno, false);
    // may_access_direct_pkt_data: only a helper whose prototype says pkt_access may be given packet memory.
    if ((reg.type === 'pkt' || reg.type === 'pkt_meta') && NO_PKT_ACCESS.has(fn.name)) env.reject('helper access to the packet is not allowed');
  }
  switch (k) {
    case 'ARG_CONST_MAP_PTR':
      meta.map = reg.map;
      return;
    case 'ARG_PTR_TO_MAP_KEY': {
      if (meta.map < 0) env.reject('invalid map_ptr to access map->key');
      const m = env.maps[meta.map]!;
      checkHelperMemAccess(env, regno, m.key_size, false, false, null);
      if (canElideValueNullness(m)) meta.constMapKey = constantMapKey(env, reg, m.key_size);
      return;
    }
    case 'ARG_PTR_TO_MAP_VALUE':
    case 'ARG_PTR_TO_UNINIT_MAP_VALUE': {
      if (meta.map < 0) env.reject('invalid map_ptr to access map->value');
      const uninit = k === 'ARG_PTR_TO_UNINIT_MAP_VALUE';
      meta.rawMode = uninit;
      checkHelperMemAccess(env, regno, env.maps[meta.map]!.value_size, uninit, false, meta);
      return;
    }
    case 'ARG_PTR_TO_MEM':
    case 'ARG_PTR_TO_MEM_OR_NULL':
    case 'ARG_PTR_TO_UNINIT_MEM':
      meta.rawMode = k === 'ARG_PTR_TO_UNINIT_MEM';
      return;
    case 'ARG_PTR_TO_FIXED_SIZE_MEM':
      // check_helper_mem_access for the prototype's arg_size, read only.
      checkHelperMemAccess(env, regno, fn.argSizes?.[arg] ?? 0, false, false, meta);
      return;
    case 'ARG_PTR_TO_FIXED_SIZE_MEM_U32':
      checkHelperMemAccess(env, regno, 4, true, false, meta);
      checkPtrAlignment(env, reg, 0, 4, true);
      return;
    case 'ARG_CONST_SIZE':
    case 'ARG_CONST_SIZE_OR_ZERO': {
      const prev = fn.args[arg - 1];
      // MEM_WRITE memory is checked as a write: the helper may leave anything in it.
      checkMemSizeReg(env, regno, k === 'ARG_CONST_SIZE_OR_ZERO', prev === 'ARG_PTR_TO_UNINIT_MEM' || !!fn.memWrite?.includes(arg - 1), meta);
      return;
    }
    case 'ARG_PTR_TO_LONG':
      // ARG_PTR_TO_FIXED_SIZE_MEM | MEM_UNINIT | MEM_WRITE | MEM_ALIGNED, arg_size = sizeof(s64).
      meta.rawMode = true;
      checkHelperMemAccess(env, regno, 8, true, false, meta);
      checkPtrAlignment(env, reg, 0, 8, true);
      return;
    case 'ARG_PTR_TO_SPIN_LOCK':
      // process_spin_lock: the lock's place comes from the map's BTF, and XDP Lab maps (like the
      // oracle's) carry none, so every call stops here. The kernel prints map->name, never set here.
      if (!tnumIsConst(reg.varOff)) {
        env.reject(`R${regno} doesn't have constant offset. bpf_spin_lock has to be at the constant offset`);
      }
      env.reject(`map '' has to have BTF in order to use bpf_spin_lock`);
      return;
    case 'ARG_PTR_TO_TIMER':
      // process_timer_func -> check_map_field_pointer: the same BTF requirement as bpf_spin_lock.
      if (!tnumIsConst(reg.varOff)) {
        env.reject(`R${regno} doesn't have constant offset. bpf_timer has to be at the constant offset`);
      }
      env.reject(`map '' has to have BTF in order to use bpf_timer`);
      return;
    case 'ARG_PTR_TO_CONST_STR':
      return checkRegConstStr(env, reg, regno);
    case 'ARG_PTR_TO_DYNPTR':
      // bpf_dynptr_read / _write / _data: ARG_PTR_TO_DYNPTR | MEM_RDONLY, an initialised dynptr of any kind.
      // (The ringbuf and from_mem dynptr helpers are refused as unmodelled after their arguments, unchanged.)
      if (!fn.unmodelled) meta.dynptrId = processDynptrFunc(env, regno, false);
      return;
    case 'ARG_CONST_ALLOC_SIZE_OR_ZERO':
      if (!tnumIsConst(reg.varOff)) env.reject(`R${regno} is not a known constant'`);
      meta.memSize = Number(reg.varOff.value);
      markChainPrecision(env, regno);
      return;
    case 'ARG_PTR_TO_RINGBUF_MEM':
      // OBJ_RELEASE (bpf_ringbuf_submit / discard): the pointer as reserved, unmoved.
      if (reg.off !== 0 || !tnumIsConst(reg.varOff) || reg.varOff.value !== 0n) {
        env.reject(`R${regno} must have zero offset when passed to release func or trusted arg to kfunc`);
      }
      if (!reg.refObjId) env.reject(`R${regno} must be referenced when passed to release function`);
      meta.refObjId = reg.refObjId;
      return;
    case 'ARG_PTR_TO_BTF_ID_SOCK_COMMON':
      if (fn.id === BPF_FUNC_sk_release) {
        // OBJ_RELEASE: only a pointer that holds an acquired reference can be released.
        if (!reg.refObjId) env.reject(`R${regno} must be referenced when passed to release function`);
        meta.refObjId = reg.refObjId;
        return;
      }
      env.reject(`helper ${helperDisplayName(fn.id)}#${fn.id} argument ${regno} (${k}) is not modelled by XDP Lab`);
      return;
    case 'ARG_PTR_TO_CTX':
      return;
    default:
      env.reject(`helper ${helperDisplayName(fn.id)}#${fn.id} argument ${regno} (${k}) is not modelled by XDP Lab`);
  }
}

/** BPF_F_INNER_MAP: an inner map template whose maps may differ from it in max_entries. */
const BPF_F_INNER_MAP = 0x1000;

/**
 * can_elide_value_nullness: an array lookup with a constant key in range
 * cannot fail. Not through a BPF_F_INNER_MAP template, whose max_entries
 * says nothing of the inner map found at run time (the kernel's fix
 * "bpf: Keep dynamic inner array lookups nullable").
 */
function canElideValueNullness(m: MapSpec): boolean {
  return (m.type === 'array' || m.type === 'percpu_array') && ((m.flags ?? 0) & BPF_F_INNER_MAP) === 0;
}

/** record_func_map: map checks the kernel makes right after the arguments. */
function recordFuncMap(env: Env, mapIdx: number, fn: HelperProto): void {
  if (mapIdx < 0) return;
  const m = env.maps[mapIdx]!;
  if (fn.id === 12 && m.type !== 'prog_array') {
    // The kernel prints this one without a newline.
    if (env.errorLine === undefined) env.errorLine = 'expected prog array map for tail call';
    env.log.write('expected prog array map for tail call');
    throw env.rejectSilently();
  }
  const rdonlyProg = m.type === 'devmap' || m.type === 'devmap_hash';
  if (rdonlyProg && [2, 3, 87, 88].includes(fn.id)) env.reject('write into map forbidden');
}

/** record_func_key: a tail call's constant, in-range index is relied on (the kernel patches a direct jump). */
function recordFuncKey(env: Env, mapIdx: number, fn: HelperProto): void {
  if (fn.id !== 12 || mapIdx < 0) return;
  const r3 = env.regs[3]!;
  if (r3.type === 'scalar' && tnumIsConst(r3.varOff) && r3.varOff.value < BigInt(env.maps[mapIdx]!.max_entries)) markChainPrecision(env, 3);
}

/** check_map_func_compatibility */
function checkMapFuncCompatibility(env: Env, mapIdx: number, fn: HelperProto): void {
  if (mapIdx < 0) return;
  const m = env.maps[mapIdx]!;
  const typeNo = MAP_TYPES[m.type];
  const bad = (): never => env.reject(`cannot pass map_type ${typeNo} into func ${helperDisplayName(fn.id)}#${fn.id}`);
  const allowedFns = MAP_TYPE_HELPERS[m.type];
  if (allowedFns && !allowedFns.includes(fn.id)) bad();
  if (fn.mapTypes && !fn.mapTypes.includes(m.type)) bad();
}

/** clear_all_pkt_pointers: after a call that may move the packet, no packet pointer's range holds (with allow_ptr_leaks they become unknown scalars). */
export function clearAllPktPointers(env: Env): void {
  forEachReg(env.cur, (r) => {
    if (r.type === 'pkt' || r.type === 'pkt_meta' || r.type === 'pkt_end' || isDynptrSlicePkt(r)) markRegInvalid(r, env.allowPtrLeaks);
  });
}

export function checkHelperCall(env: Env, insn: Insn): void {
  const id = insn.imm;
  if (id < 0 || id > 211) env.reject(`invalid func ${helperDisplayName(id)}#${id}`);
  const fn = helperById(id);
  if (!fn) env.reject(`program of this type cannot use helper ${helperDisplayName(id)}#${id}`);
  if (fn.refusal) env.reject(fn.refusal);
  const meta: CallMeta = { map: -1, rawMode: false, accessSize: 0, regno: -1, constMapKey: null, refObjId: 0, memSize: 0 };
  for (let i = 0; i < 5; i++) checkFuncArg(env, i, fn, meta);
  recordFuncMap(env, meta.map, fn);
  recordFuncKey(env, meta.map, fn);
  if (id === 12) checkReferenceLeak(env, 'tail_call');
  if (fn.unmodelled) {
    env.reject(`helper ${helperDisplayName(id)}#${id} needs state XDP Lab does not model (references, callbacks or BTF objects)`);
  }
  for (let i = 0; i < meta.accessSize; i++) {
    checkMemAccess(env, { regno: meta.regno, off: i, size: 1, t: 'write', valueRegno: -1 });
  }
  if (meta.refObjId) releaseReference(env, meta.refObjId, fn);
  const regs = env.regs;
  for (let r = 1; r <= 5; r++) {
    regs[r] = notInit();
    env.markRegScratched(r);
  }
  env.markRegScratched(0);
  switch (fn.ret) {
    case 'RET_INTEGER':
      regs[0] = knownScalar(0n);
      markUnknown(regs[0]!);
      break;
    case 'RET_VOID':
      regs[0] = notInit();
      break;
    case 'RET_PTR_TO_RINGBUF_MEM_OR_NULL': {
      ++env.idGen;
      const refId = ++env.idGen;
      regs[0] = pointer('ringbuf_mem_or_null', { id: refId, refObjId: refId, range: meta.memSize });
      (env.cur.refs ??= []).push({ id: refId, insn: env.insnIdx });
      break;
    }
    case 'RET_PTR_TO_MEM_OR_NULL':
      // bpf_dynptr_data (RET_PTR_TO_DYNPTR_MEM_OR_NULL): mem_size bytes of the dynptr, no dynptr type flag.
      regs[0] = pointer('mem_or_null', { id: ++env.idGen, range: meta.memSize, dynptrId: meta.dynptrId ?? 0 });
      break;
    case 'RET_PTR_TO_SOCKET_OR_NULL': {
      // A maybe-null pointer gets an id for the null check, then acquire_reference a new one
      // that both the pointer and the reference carry (the kernel's ids advance by two).
      ++env.idGen;
      const refId = ++env.idGen;
      regs[0] = pointer(id === BPF_FUNC_skc_lookup_tcp ? 'sock_common_or_null' : 'sock_or_null', { id: refId, refObjId: refId });
      (env.cur.refs ??= []).push({ id: refId, insn: env.insnIdx });
      break;
    }
    case 'RET_PTR_TO_MAP_VALUE_OR_NULL': {
      const m = env.maps[meta.map]!;
      const elide =
        id === 1 && canElideValueNullness(m) && meta.constMapKey !== null && meta.constMapKey < BigInt(m.max_entries);
      // An xskmap lookup is an xdp_sock that may be NULL (this machine's kernel, 6.18.44 build v1272, names it so in
      // its errors; the build before it said map_value_or_null): the null check makes it xdp_sock.
      regs[0] = pointer(elide ? 'map_value' : m.type === 'xskmap' ? 'xdp_sock_or_null' : 'map_value_or_null', { map: meta.map });
      if (!elide) regs[0]!.id = ++env.idGen;
      break;
    }
    default:
      regs[0] = knownScalar(0n);
      markUnknown(regs[0]!);
  }
  if (id === 8) {
    // get_smp_processor_id: do_refine_retval_range bounds it by nr_cpu_ids.
    const r0 = regs[0]!;
    r0.umax = r0.u32max = r0.smax = r0.s32max = BigInt(env.nrCpuIds - 1);
    r0.smin = r0.s32min = 0n;
    regBoundsSync(r0);
  }
  checkMapFuncCompatibility(env, meta.map, fn);
  if (fn.changesPktData) clearAllPktPointers(env);
  void mayBeNull;
}

const BPF_FUNC_sk_release = 86;
const BPF_FUNC_skc_lookup_tcp = 99;

/** check_reference_leak (+ check_resource_leak's last line): no acquired reference may outlive the program. */
export function checkReferenceLeak(env: Env, prefix: string): void {
  const refs = env.cur.refs;
  if (!refs?.length) return;
  for (const r of refs) env.verboseErr(`Unreleased reference id=${r.id} alloc_insn=${r.insn}`);
  env.verboseErr(`${prefix} would lead to reference leak`);
  throw env.rejectSilently();
}

/** release_reference: drop the reference and invalidate every copy of the pointer (mark_reg_invalid). */
function releaseReference(env: Env, refObjId: number, fn: HelperProto): void {
  const refs = env.cur.refs ?? [];
  const i = refs.findIndex((r) => r.id === refObjId);
  if (i < 0) env.reject(`func ${helperDisplayName(fn.id)}#${fn.id} reference has not been acquired before`);
  refs.splice(i, 1);
  forEachReg(env.cur, (r) => {
    if (r.refObjId === refObjId) markRegInvalid(r, env.allowPtrLeaks);
  });
}

export const MAX_CALL_FRAMES = 8;

/** check_func_call: enter a bpf-to-bpf callee. Returns the callee's first insn. */
export function checkFuncCall(env: Env, insn: Insn, idx: number): number {
  const s = env.cur;
  if (s.frames.length >= MAX_CALL_FRAMES) {
    env.reject(`the call stack of ${s.frames.length + 1} frames is too deep`);
  }
  const target = idx + insn.imm + 1;
  const caller = curFrame(s);
  const regs = caller.regs.map((_, i) => (i >= 1 && i <= 5 ? { ...caller.regs[i]! } : notInit()));
  const frameno = s.frames.length;
  regs[10] = pointer('fp', { frameno });
  for (let r = 0; r <= 5; r++) caller.regs[r] = notInit();
  s.frames.push({ regs, stack: [], frameno, callsite: idx, subprogStart: target });
  env.live.resetCallchain();
  if (env.log.level) {
    env.verbose('caller:\n');
    env.verbose(formatFrameAll(env, caller) + '\n');
    env.verbose('callee:\n');
    env.verbose(formatFrameAll(env, curFrame(s)) + '\n');
  }
  return target;
}

import { formatFrame } from './log';
const formatFrameAll = (env: Env, f: import('./state').Frame): string => formatFrame(f, env.maps, null, null);

/** prepare_func_exit: return from a callee. Returns the caller's next insn. */
export function prepareFuncExit(env: Env): number {
  const s = env.cur;
  // The callee's reads are all recorded: carry them to its caller's chain.
  env.live.update(s);
  const callee = curFrame(s);
  const r0 = callee.regs[0]!;
  if (r0.type === 'fp') env.reject('cannot return stack pointer to the caller');
  const caller = s.frames[s.frames.length - 2]!;
  caller.regs[0] = { ...r0 };
  const next = callee.callsite + 1;
  if (env.log.level) {
    env.verbose('returning from callee:\n');
    env.verbose(formatFrameAll(env, callee) + '\n');
    env.verbose(`to caller at ${next}:\n`);
    env.verbose(formatFrameAll(env, caller) + '\n');
  }
  s.frames.pop();
  return next;
}

export function checkExitFields(env: Env, insn: Insn): void {
  if (O.BPF_SRC(insn.code) !== O.BPF_K || insn.imm !== 0 || insn.src !== 0 || insn.dst !== 0 || O.BPF_CLASS(insn.code) === O.BPF_JMP32) {
    env.reject('BPF_EXIT uses reserved fields');
  }
}
