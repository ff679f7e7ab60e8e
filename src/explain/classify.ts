/**
 * What went wrong, read from the verifier's state (never from the text of
 * its message): the failing instruction, the registers and stack the
 * verifier held when it stopped (VerifyResult.errorState), the path that led
 * there and the program's shape. Each family gets the facts its
 * explanation and its fix need.
 */
import type { Insn } from '../isa/insn';
import type { MapSpec } from '../isa/spec';
import type { RegView, StateView, VerifyResult } from '../verifier';
import { BPF_FUNC, helperById, helperDisplayName, NO_PKT_ACCESS, resolveMapArgType, type ArgKind } from '../helpers/table';
import { BPF_PSEUDO_KFUNC_CALL } from '../isa/opcodes';
import { XDP_KFUNCS } from '../verifier/kfunc';

export type ExplainKind =
  | 'pkt-access'
  | 'pkt-unbounded-offset'
  | 'pkt-end-arith'
  | 'pointer-arith'
  | 'scalar-deref'
  | 'stale-pkt-pointer'
  | 'null-deref'
  | 'map-value-access'
  | 'ctx-access'
  | 'ctx-write'
  | 'stack-access'
  | 'uninit-stack'
  | 'uninit-reg'
  | 'helper-arg'
  | 'loop'
  | 'stack-size'
  | 'kfunc-unavailable'
  | 'dynptr'
  | 'unreleased-ref'
  | 'released-ref'
  | 'mem-access'
  | 'map-readonly'
  | 'other';

export interface Facts {
  kind: ExplainKind;
  pc: number;
  /** The register the failure is about, when there is one. */
  reg?: RegView;
  regno?: number;
  /** Bytes accessed and the instruction's own offset (loads and stores). */
  size?: number;
  insnOff?: number;
  /** For helper calls: the helper's name, the argument (1-based) and what it wanted. */
  helper?: string;
  arg?: number;
  wanted?: ArgKind;
  /** Packet memory passed to a helper that may not read the packet (helper-arg). */
  pktDenied?: boolean;
  /** A size argument the helper cannot take (helper-arg): why, and the bytes the memory before it holds (when known). */
  sizeIssue?: SizeIssue;
  sizeCap?: number;
  /** The helper refused the map's type (not an argument's kind), and the map types it takes when it says (check_map_func_compatibility). */
  mapIncompatible?: boolean;
  mapTypes?: readonly string[];
  /** A pc earlier on the path that explains the state (e.g. the call that invalidated packet pointers). */
  cause?: number;
  /** The value size of the map behind a map value pointer. */
  valueSize?: number;
  /** Bytes of stack the call chain uses (stack-size). */
  stackBytes?: number;
  /** Where a scalar that was used as a pointer came from (scalar-deref): read from memory, returned by a helper, cut to 32 bits, a constant. */
  origin?: Origin['how'];
  /** The ALU operation refused on a pointer (pointer-arith), in C's spelling, and whether it was 32-bit. */
  op?: string;
  alu32?: boolean;
  /** The kfunc a kfunc-unavailable call names (from the program's kfunc relocations). */
  kfunc?: string;
  /**
   * A dynptr rule broken (kind dynptr): the dynptr argument itself (not made, misplaced), a buffer__szk that is not a
   * constant, an access outside a slice or a write into a read-only one, the dynptr's bytes read as data. With
   * null-deref: the pointer was a dynptr slice, not a map lookup.
   */
  dynptr?: 'arg' | 'szk' | 'slice-bounds' | 'slice-rdonly' | 'bytes' | 'slice-null';
  /**
   * References (unreleased-ref, released-ref, mem-access, null-deref of an acquired pointer): the call that took the
   * reference (`cause` is its pc for unreleased-ref and mem-access) and the function that gives it back.
   */
  acquire?: string;
  release?: string;
  /** A global the program may only read (map-readonly): its map's name (.rodata). */
  mapName?: string;
  /** A loop the walk found coming back to its head in the same state (the kernel's "infinite loop detected"). */
  infinite?: boolean;
  /** A loop that left a branch to check on every trip until 8192 were waiting (the kernel's "The sequence of 8193 jumps is too complex"). */
  jumpSeq?: boolean;
}

export interface Origin {
  pc: number;
  how: 'load' | 'call' | 'alu32' | 'const';
}

/**
 * The instruction on the path that gave register `regno` the value it holds at path index `idx`:
 * walked backwards through register moves and stack spills (a spilled value's fill is followed to
 * its store), stopping at the load, call, 32-bit operation or constant that made it.
 */
export function originOf(insns: readonly Insn[], path: readonly number[], idx: number, regno: number): Origin | undefined {
  let r = regno;
  let slot: number | undefined;
  for (let k = idx - 1; k >= 0; k--) {
    const pc = path[k]!;
    const i = insns[pc];
    if (!i) continue;
    const c = CLASS(i.code);
    if (slot !== undefined) {
      if (c === BPF_STX && (i.code & 0xe0) === 0x60 && i.dst === 10 && i.off === slot) {
        r = i.src;
        slot = undefined;
      } else if (c === BPF_ST && i.dst === 10 && i.off === slot) return { pc, how: 'const' };
      continue;
    }
    if (i.code === 0x85) {
      if (r === 0 && i.src === 0) return { pc, how: 'call' };
      if (r <= 5) return undefined;
      continue;
    }
    if (i.dst !== r) continue;
    if (c === BPF_LDX) {
      if (i.src === 10) slot = i.off;
      else return { pc, how: 'load' };
    } else if (c === BPF_ALU) return { pc, how: 'alu32' };
    else if (c === BPF_ALU64 && (i.code & 0xf0) === BPF_MOV) {
      if ((i.code & 0x08) === 0) return { pc, how: 'const' };
      r = i.src;
    } else if (i.code === 0x18) return { pc, how: 'const' };
  }
  return undefined;
}

const CLASS = (code: number) => code & 7;
const BPF_LDX = 1, BPF_ST = 2, BPF_STX = 3, BPF_ALU = 4, BPF_JMP = 5, BPF_JMP32 = 6, BPF_ALU64 = 7;
const BPF_MOV = 0xb0;
/** BPF_F_RDONLY_PROG: the program may only read the map (libbpf creates .rodata with it). */
const BPF_F_RDONLY_PROG = 0x80;
const ALU_OPS: Record<number, string> = { 0x00: '+', 0x10: '-', 0x20: '*', 0x30: '/', 0x40: '|', 0x50: '&', 0x60: '<<', 0x70: '>>', 0x80: '-(negate)', 0x90: '%', 0xa0: '^', 0xc0: '>>(signed)', 0xd0: 'byte swap' };
const SIZE_BYTES: Record<number, number> = { 0x00: 4, 0x08: 2, 0x10: 1, 0x18: 8 };
const MAX_PACKET_OFF = 0xffff;
export const BPF_COMPLEXITY_LIMIT_INSNS = 1_000_000;
/** The most branches the kernel keeps waiting to be explored (push_stack). */
export const BPF_COMPLEXITY_LIMIT_JMP_SEQ = 8192;

const big = (s: string) => BigInt(s);
const regOf = (st: StateView | undefined, r: number) => st?.regs.find((x) => x.regno === r);

/** The helpers and kfuncs whose call makes every packet pointer the program holds invalid (bpf_helper_changes_pkt_data, is_kfunc_pkt_changing). */
function changesPktData(insn: Insn, kfunc: string | undefined): boolean {
  if (insn.code !== 0x85) return false;
  if (insn.src === BPF_PSEUDO_KFUNC_CALL) return kfunc !== undefined && Object.hasOwn(XDP_KFUNCS, kfunc) && XDP_KFUNCS[kfunc]!.changesPktData === true;
  return insn.src === 0 && helperById(insn.imm)?.changesPktData === true;
}

/**
 * The name of the call at `pc` when it takes a reference (`role` 'acquire': check_helper_call's acquire_reference,
 * KF_ACQUIRE) or gives one back ('release': OBJ_RELEASE helpers, KF_RELEASE kfuncs), as C calls it.
 */
function refCallName(insns: readonly Insn[], pc: number, kfuncs: ReadonlyMap<number, string>, role: 'acquire' | 'release'): string | undefined {
  const i = insns[pc];
  if (!i || i.code !== 0x85) return undefined;
  if (i.src === BPF_PSEUDO_KFUNC_CALL) {
    const k = kfuncs.get(pc);
    return k !== undefined && Object.hasOwn(XDP_KFUNCS, k) && XDP_KFUNCS[k]![role] === true ? k : undefined;
  }
  const h = i.src === 0 ? helperById(i.imm) : undefined;
  if (!h) return undefined;
  const name = helperDisplayName(i.imm);
  const takes = role === 'acquire' ? h.ret === 'RET_PTR_TO_RINGBUF_MEM_OR_NULL' || h.ret === 'RET_PTR_TO_SOCKET_OR_NULL' : h.args[0] === 'ARG_PTR_TO_RINGBUF_MEM' || name === 'bpf_sk_release';
  return takes ? name : undefined;
}

/** The call at `pc` acquires a reference: its name. */
const acquireName = (insns: readonly Insn[], pc: number, kfuncs: ReadonlyMap<number, string>): string | undefined => refCallName(insns, pc, kfuncs, 'acquire');
const releaseCallName = (insns: readonly Insn[], pc: number, kfuncs: ReadonlyMap<number, string>): string | undefined => refCallName(insns, pc, kfuncs, 'release');

/** What gives back a reference `acquire` took, as a learner writes it (the error paths' choice: a reservation is discarded). */
export function releaseFor(acquire: string): string {
  if (acquire === 'bpf_ringbuf_reserve') return 'bpf_ringbuf_discard';
  if (acquire.startsWith('bpf_xdp_ct_') || acquire === 'bpf_ct_insert_entry') return 'bpf_ct_release';
  return 'bpf_sk_release';
}

function isBackEdge(insns: readonly Insn[], pc: number): boolean {
  const i = insns[pc];
  if (!i) return false;
  const c = CLASS(i.code);
  if ((c !== BPF_JMP && c !== BPF_JMP32) || i.code === 0x85 || i.code === 0x95) return false;
  return i.off < 0;
}

/** Does the kind of register `r` satisfy argument kind `k` (the part of check_func_arg the learner can get wrong)? */
function argFits(k: ArgKind, r: RegView | undefined, stack: StateView['stack']): boolean {
  const t = r?.type ?? 'not_init';
  switch (k) {
    case 'ARG_DONTCARE':
      return true;
    case 'ARG_ANYTHING':
      return t !== 'not_init';
    case 'ARG_CONST_MAP_PTR':
      return t === 'map_ptr';
    case 'ARG_PTR_TO_CTX':
      return t === 'ctx' && r?.off === 0;
    case 'ARG_PTR_TO_MAP_KEY':
    case 'ARG_PTR_TO_MAP_VALUE':
      // A key on the stack must be written before the call (privileged loads may read uninitialised stack).
      if (t === 'fp') return stackInitialised(stack, r!.off);
      return t === 'map_value' || t === 'pkt' || t === 'pkt_meta' || t === 'map_value_or_null';
    case 'ARG_CONST_SIZE':
    case 'ARG_CONST_SIZE_OR_ZERO':
      return t === 'scalar' && sizeProblem(k, r!, undefined) === undefined;
    case 'ARG_CONST_ALLOC_SIZE_OR_ZERO':
      // The size of what bpf_ringbuf_reserve returns is part of the pointer's type: it must be a known constant.
      return t === 'scalar' && r?.value !== undefined;
    default:
      return t !== 'not_init';
  }
}

/** BPF_MAX_VAR_SIZ: the most bytes a helper may be given to read or write. */
const BPF_MAX_VAR_SIZ = 1 << 29;

/**
 * check_mem_size_reg's refusals of a size argument: it may be negative, it may be 0 where the helper wants at least
 * one byte (ARG_CONST_SIZE), or it may be more than the memory before it holds (`cap`, when known) or than any helper takes.
 */
function sizeProblem(k: ArgKind, r: RegView, cap: number | undefined): SizeIssue | undefined {
  if (big(r.smin) < 0n) return 'negative';
  if (big(r.umin) === 0n && k === 'ARG_CONST_SIZE') return 'zero';
  if (big(r.umax) >= BigInt(BPF_MAX_VAR_SIZ) || (cap !== undefined && big(r.umax) > BigInt(cap))) return 'too-big';
  return undefined;
}
export type SizeIssue = 'negative' | 'zero' | 'too-big';

/** The bytes a memory argument holds from where it points: the rest of the stack frame, of the map value, or of the packet proven. */
function memCap(r: RegView | undefined, maps: readonly MapSpec[]): number | undefined {
  if (!r || r.umax !== '0' || r.smin !== '0') return undefined;
  if (r.type === 'fp') return -r.off;
  if (r.type === 'map_value' && r.map !== undefined && maps[r.map]) return maps[r.map]!.value_size - r.off;
  if ((r.type === 'pkt' || r.type === 'pkt_meta') && r.range !== undefined) return r.range - r.off;
  return undefined;
}

function stackInitialised(stack: StateView['stack'], off: number): boolean {
  const slot = stack.find((s) => s.off === Math.floor(off / 8) * 8);
  return slot !== undefined && !slot.types.includes('?');
}

/** The stack a function uses: the lowest r10-relative store (what the kernel's stack_depth tracks). */
function stackDepths(insns: readonly Insn[], funcStarts: readonly number[]): Map<number, number> {
  const starts = [...funcStarts].sort((a, b) => a - b);
  const depth = new Map<number, number>(starts.map((s) => [s, 0]));
  insns.forEach((i, pc) => {
    const c = CLASS(i.code);
    let base = -1;
    if (c === BPF_STX || c === BPF_ST) base = i.dst;
    else if (c === BPF_LDX) base = i.src;
    if (base !== 10 || i.off >= 0) return;
    let f = starts[0] ?? 0;
    for (const s of starts) if (s <= pc) f = s;
    depth.set(f, Math.max(depth.get(f) ?? 0, -i.off));
  });
  return depth;
}

/**
 * The call chain with the most stack (each frame rounded up to 16 bytes, as check_max_stack_depth
 * adds them): its total, and the call instruction that first takes it past 512 bytes (else its last call).
 */
export function deepestCall(insns: readonly Insn[], funcStarts: readonly number[]): { bytes: number; callPc: number } | undefined {
  const depths = stackDepths(insns, funcStarts);
  const starts = [...funcStarts].sort((a, b) => a - b);
  const round = (d: number) => Math.ceil(Math.max(d, 1) / 16) * 16;
  const funcOf = (pc: number) => starts.filter((s) => s <= pc).pop() ?? 0;
  const calls = new Map<number, { pc: number; callee: number }[]>();
  insns.forEach((i, pc) => {
    if (i.code !== 0x85 || i.src !== 1) return;
    const f = funcOf(pc);
    calls.set(f, [...(calls.get(f) ?? []), { pc, callee: pc + i.imm + 1 }]);
  });
  let best: { bytes: number; callPc: number } | undefined;
  const walk = (f: number, sum: number, over: number | undefined, last: number | undefined, seen: Set<number>) => {
    const total = sum + round(depths.get(f) ?? 0);
    const first = over ?? (total > 512 ? last : undefined);
    if (last !== undefined && (!best || total > best.bytes)) best = { bytes: total, callPc: first ?? last };
    for (const c of calls.get(f) ?? []) if (!seen.has(c.callee)) walk(c.callee, total, first, c.pc, new Set([...seen, c.callee]));
  };
  walk(starts[0] ?? 0, 0, undefined, undefined, new Set([starts[0] ?? 0]));
  return best;
}

/** The head of the innermost loop whose body holds `pc` (a back-edge at or after it jumping to or before it). */
function loopHeadAround(insns: readonly Insn[], pc: number): number | undefined {
  let head: number | undefined;
  let span = Infinity;
  for (let p = pc; p < insns.length; p++) {
    if (!isBackEdge(insns, p)) continue;
    const t = p + insns[p]!.off + 1;
    if (t <= pc && p - t < span) {
      span = p - t;
      head = t;
    }
  }
  return head;
}

/** The last loop back-edge the path took (the loop a runaway walk was in). */
export function lastBackEdge(insns: readonly Insn[], path: readonly number[]): number | undefined {
  for (let k = path.length - 1; k >= 0; k--) if (isBackEdge(insns, path[k]!)) return path[k];
  return undefined;
}

/** `kfuncs`: the kfunc each kfunc call slot names (the program's kfunc_relocs). */
export function classify(insns: readonly Insn[], maps: readonly MapSpec[], v: VerifyResult, funcStarts: readonly number[], kfuncs: ReadonlyMap<number, string> = new Map()): Facts {
  const pc = v.errorPc ?? 0;
  const insn = insns[pc];
  const st = v.errorState;
  const path = v.errorPath ?? [];
  if (v.insnsProcessed > BPF_COMPLEXITY_LIMIT_INSNS) return { kind: 'loop', pc };
  // The walk stopped with the most branches the kernel keeps waiting: a loop left one behind on every trip.
  if ((v.pendingBranches ?? 0) >= BPF_COMPLEXITY_LIMIT_JMP_SEQ) return { kind: 'loop', pc, jumpSeq: true };
  // No failing instruction: the program's shape was refused before the walk (a back-edge when unprivileged).
  if (!insn || v.errorPc === undefined) return { kind: insns.some((_, p) => isBackEdge(insns, p)) ? 'loop' : 'other', pc };
  // A kfunc call refused before the walk (add_kfunc_call): no state, the call itself is the pc.
  if (insn.code === 0x85 && insn.src === BPF_PSEUDO_KFUNC_CALL && !st) return { kind: 'kfunc-unavailable', pc };
  // "infinite loop detected at insn N": the walk met a state it had seen at whichever prune point N is,
  // anywhere in the body; the loop to show is the innermost one around N, at its head.
  if (v.error?.startsWith('infinite loop detected')) return { pc: loopHeadAround(insns, pc) ?? pc, kind: 'loop', infinite: true };
  const c = CLASS(insn.code);

  // Loads and stores: what the verifier knew about the base register.
  if ((c === BPF_LDX || c === BPF_ST || c === BPF_STX) && (insn.code & 0xe0) === 0x60 || (c === BPF_STX && (insn.code & 0xe0) === 0xc0)) {
    const regno = c === BPF_LDX ? insn.src : insn.dst;
    const reg = regOf(st, regno);
    const size = SIZE_BYTES[insn.code & 0x18] ?? 8;
    const base = { pc, reg, regno, size, insnOff: insn.off };
    // A stored register that is not initialised is the failure, whatever the base.
    if (c === BPF_STX && !regOf(st, insn.src)) return { ...base, kind: 'uninit-reg', regno: insn.src, reg: undefined };
    switch (reg?.type ?? 'not_init') {
      case 'not_init':
        return { ...base, kind: 'uninit-reg' };
      case 'scalar': {
        // Was it a packet pointer until a helper that moves the packet ran on this path?
        const idx = path.lastIndexOf(pc);
        for (let k = idx - 1; k >= 0; k--) if (changesPktData(insns[path[k]!]!, kfuncs.get(path[k]!))) return { ...base, kind: 'stale-pkt-pointer', cause: path[k] };
        const o = originOf(insns, path, idx < 0 ? path.length : idx, regno);
        // A reference given back on this path before the access: release_reference made every copy of the pointer a number.
        const acquire = o?.how === 'call' ? acquireName(insns, o.pc, kfuncs) : undefined;
        if (acquire !== undefined) {
          const from = path.lastIndexOf(o!.pc, idx < 0 ? path.length - 1 : idx);
          for (let k = from + 1; k < (idx < 0 ? path.length : idx); k++) {
            const release = releaseCallName(insns, path[k]!, kfuncs);
            if (release !== undefined) return { ...base, kind: 'released-ref', cause: path[k], acquire, release };
          }
        }
        return { ...base, kind: 'scalar-deref', ...(o ? { origin: o.how, cause: o.pc } : {}) };
      }
      case 'map_value_or_null':
      case 'xdp_sock_or_null':
        return { ...base, kind: 'null-deref' };
      case 'ringbuf_mem_or_null':
      case 'sock_or_null':
      case 'sock_common_or_null':
      case 'nf_conn_or_null':
      case 'nf_conn___init_or_null': {
        // Not a map lookup: the acquiring call that may have returned NULL.
        const idx = path.lastIndexOf(pc);
        const o = originOf(insns, path, idx < 0 ? path.length : idx, regno);
        const acquire = o?.how === 'call' ? acquireName(insns, o.pc, kfuncs) : undefined;
        return { ...base, kind: 'null-deref', ...(acquire !== undefined ? { acquire, cause: o!.pc } : {}) };
      }
      case 'ringbuf_mem': {
        const idx = path.lastIndexOf(pc);
        const o = originOf(insns, path, idx < 0 ? path.length : idx, regno);
        return { ...base, kind: 'mem-access', acquire: 'bpf_ringbuf_reserve', ...(o?.how === 'call' ? { cause: o.pc } : {}) };
      }
      case 'mem_or_null':
      case 'rdonly_mem_or_null':
        return { ...base, kind: 'null-deref', dynptr: 'slice-null' };
      case 'mem':
      case 'rdonly_mem':
        return { ...base, kind: 'dynptr', dynptr: reg!.type === 'rdonly_mem' && c !== BPF_LDX ? 'slice-rdonly' : 'slice-bounds' };
      case 'ctx':
        return { ...base, kind: c === BPF_LDX ? 'ctx-access' : 'ctx-write' };
      case 'pkt':
      case 'pkt_meta':
      case 'pkt_end':
        if (reg!.type === 'pkt_end' || big(reg!.smin) < 0n || big(reg!.umax) > BigInt(MAX_PACKET_OFF)) return { ...base, kind: reg!.type === 'pkt_end' ? 'pkt-access' : 'pkt-unbounded-offset' };
        return { ...base, kind: 'pkt-access' };
      case 'map_value': {
        const m = reg!.map !== undefined ? maps[reg!.map] : undefined;
        const vs = m?.value_size;
        // A store into a map the program may only read (BPF_F_RDONLY_PROG: a const global's .rodata): no offset is right.
        if (c !== BPF_LDX && m !== undefined && ((m.flags ?? 0) & BPF_F_RDONLY_PROG) !== 0) return { ...base, kind: 'map-readonly', mapName: m.name ?? '' };
        return { ...base, kind: 'map-value-access', ...(vs !== undefined ? { valueSize: vs } : {}) };
      }
      case 'fp': {
        if (c === BPF_LDX) {
          const at = reg!.off + insn.off;
          // STACK_DYNPTR ('d'): the bytes of a struct bpf_dynptr are the kernel's, not the program's.
          if (st!.stack.some((s) => s.off === Math.floor(at / 8) * 8 && s.types.includes('d'))) return { ...base, kind: 'dynptr', dynptr: 'bytes' };
          if (at % size !== 0) return { ...base, kind: 'stack-access' };
          return { ...base, kind: stackInitialised(st!.stack, at) ? 'stack-access' : 'uninit-stack' };
        }
        return { ...base, kind: 'stack-access' };
      }
      default:
        return { ...base, kind: 'other' };
    }
  }

  // Pointer arithmetic.
  if (c === BPF_ALU64 || c === BPF_ALU) {
    const dst = regOf(st, insn.dst);
    const src = (insn.code & 0x08) !== 0 ? regOf(st, insn.src) : undefined;
    // A move reads only its source: `r0 = r3` fails on r3, whatever r0 held.
    const isMov = (insn.code & 0xf0) === BPF_MOV;
    if ((!isMov && !dst) || ((insn.code & 0x08) !== 0 && !src)) return { pc, kind: 'uninit-reg', regno: !isMov && !dst ? insn.dst : insn.src };
    if (isMov || !dst) return { pc, kind: 'other' };
    if (dst.type === 'pkt_end' || src?.type === 'pkt_end') return { pc, kind: 'pkt-end-arith', reg: dst.type === 'pkt_end' ? dst : src, regno: dst.type === 'pkt_end' ? insn.dst : insn.src };
    const ptr = dst.type !== 'scalar' ? dst : src && src.type !== 'scalar' ? src : undefined;
    const scal = ptr === dst ? src : dst;
    if (ptr && scal && scal.type === 'scalar' && (ptr.type === 'pkt' || ptr.type === 'pkt_meta' || ptr.type === 'map_value')) {
      if (big(scal.smin) < 0n || big(scal.umax) > BigInt(MAX_PACKET_OFF)) return { pc, kind: 'pkt-unbounded-offset', reg: scal, regno: scal === src ? insn.src : insn.dst };
    }
    if (ptr) return { pc, kind: 'pointer-arith', reg: ptr, regno: ptr === dst ? insn.dst : insn.src, op: ALU_OPS[insn.code & 0xf0] ?? '?', alu32: c === BPF_ALU };
  }

  // kfunc calls and the dynptr helpers: a dynptr argument or a slice's size the verifier refused.
  if (insn.code === 0x85 && (insn.src === BPF_PSEUDO_KFUNC_CALL || insn.src === 0) && /dynptr|must be a known constant/.test(v.error ?? '')) {
    return { pc, kind: 'dynptr', dynptr: /must be a known constant/.test(v.error ?? '') ? 'szk' : 'arg' };
  }
  // Any other kfunc refusal: its arguments are not described here (the kernel's line is).
  if (insn.code === 0x85 && insn.src === BPF_PSEUDO_KFUNC_CALL) return { pc, kind: 'other' };

  // An exit or a tail call with a reference still held (check_reference_leak; for an exit, before the return value is looked at).
  if ((insn.code === 0x95 || (insn.code === 0x85 && insn.src === 0 && insn.imm === BPF_FUNC.tail_call)) && st?.refs?.length) {
    const ref = st.refs[0]!;
    const acquire = acquireName(insns, ref.insn, kfuncs);
    return { pc, kind: 'unreleased-ref', cause: ref.insn, ...(insn.code === 0x85 ? { helper: 'bpf_tail_call' } : {}), ...(acquire !== undefined ? { acquire, release: releaseFor(acquire) } : {}) };
  }

  // Helper calls: the first argument that does not fit the prototype.
  if (insn.code === 0x85 && insn.src === 0) {
    const proto = helperById(insn.imm);
    const name = helperDisplayName(insn.imm);
    // Every argument register already cleared: the arguments were accepted and the refusal came after them
    // (check_map_func_compatibility: this helper does not take this kind of map).
    const cleared = [1, 2, 3, 4, 5].every((r) => !regOf(st, r));
    if (proto && cleared && proto.args.length > 0) return { pc, kind: 'helper-arg', helper: name, mapIncompatible: true, ...(proto.mapTypes ? { mapTypes: proto.mapTypes } : {}) };
    if (proto) {
      // The kinds as check_func_arg resolves them for this map (a bloom filter's peek reads its value).
      const mapIdx = regOf(st, 1)?.map;
      const mapType = mapIdx !== undefined ? maps[mapIdx]?.type : undefined;
      for (let a = 0; a < proto.args.length; a++) {
        const k = resolveMapArgType(proto.id, mapType, proto.args[a]!);
        const r = regOf(st, a + 1);
        // Packet memory given to a helper whose prototype lacks pkt_access (may_access_direct_pkt_data), checked in argument order.
        if (r && (r.type === 'pkt' || r.type === 'pkt_meta') && NO_PKT_ACCESS.has(proto.name)) return { pc, kind: 'helper-arg', helper: name, arg: a + 1, regno: a + 1, reg: r, pktDenied: true };
        // A size whose range the helper cannot take (check_mem_size_reg), measured against the memory argument before it.
        if ((k === 'ARG_CONST_SIZE' || k === 'ARG_CONST_SIZE_OR_ZERO') && r?.type === 'scalar' && a > 0) {
          const cap = memCap(regOf(st, a), maps);
          const issue = sizeProblem(k, r, cap);
          if (issue !== undefined) return { pc, kind: 'helper-arg', helper: name, arg: a + 1, wanted: k, regno: a + 1, reg: r, sizeIssue: issue, ...(cap !== undefined ? { sizeCap: cap } : {}) };
          continue;
        }
        if (!argFits(k, r, st?.stack ?? [])) {
          // A map-in-map lookup's result passed as a map before its NULL test: the inner map may not be there.
          if (k === 'ARG_CONST_MAP_PTR' && r?.type === 'map_value_or_null') return { pc, kind: 'null-deref', helper: name, arg: a + 1, regno: a + 1, reg: r };
          // A stack pointer where memory is wanted: its bytes were not written. Where a number is wanted, it is the wrong kind.
          const kind: ExplainKind = r?.type === 'fp' && k.startsWith('ARG_PTR_TO') ? 'uninit-stack' : r ? 'helper-arg' : 'uninit-reg';
          return { pc, kind, helper: name, arg: a + 1, wanted: k, regno: a + 1, ...(r ? { reg: r } : {}) };
        }
      }
      // Arguments of the right kind, but a pointer to memory that is too short (a packet key without a bounds check).
      for (let a = 0; a < proto.args.length; a++) {
        const r = regOf(st, a + 1);
        if (r && (r.type === 'pkt' || r.type === 'pkt_meta')) {
          // The bytes the helper reads: the map's key or value size, or the constant size argument after a memory pointer.
          const k = resolveMapArgType(proto.id, mapType, proto.args[a]!);
          const next = regOf(st, a + 2);
          const size =
            k === 'ARG_PTR_TO_MAP_KEY' && mapIdx !== undefined ? maps[mapIdx]?.key_size : k === 'ARG_PTR_TO_MAP_VALUE' && mapIdx !== undefined ? maps[mapIdx]?.value_size : next?.value !== undefined ? Number(next.value) : undefined;
          return { pc, kind: 'pkt-access', helper: name, arg: a + 1, wanted: k, regno: a + 1, reg: r, insnOff: 0, ...(size !== undefined ? { size } : {}) };
        }
        if (r && r.type === 'map_value_or_null') return { pc, kind: 'null-deref', helper: name, arg: a + 1, regno: a + 1, reg: r };
      }
    }
    return { pc, kind: 'helper-arg', helper: name };
  }

  // exit: the return value, else the stack of the whole call chain (check_max_stack_depth runs after the walk).
  if (insn.code === 0x95) {
    if (!regOf(st, 0)) return { pc, kind: 'uninit-reg', regno: 0 };
    const chain = deepestCall(insns, funcStarts);
    if (chain && chain.bytes > 512) return { pc: chain.callPc, kind: 'stack-size', stackBytes: chain.bytes };
  }

  // Loops: a walk that ran out of budget, or a failure at a back-edge or the head of a loop.
  const backEdge = insns.some((_, p) => isBackEdge(insns, p));
  if (backEdge && (v.insnsProcessed >= BPF_COMPLEXITY_LIMIT_INSNS || isBackEdge(insns, pc) || path.length === 0 || insns.some((i, p) => isBackEdge(insns, p) && p + i.off + 1 === pc))) {
    // Stopped well before the budget: the walk came back to a loop head with a state it had seen (no progress).
    return { pc, kind: 'loop', infinite: v.insnsProcessed < BPF_COMPLEXITY_LIMIT_INSNS };
  }
  if ((c === BPF_JMP || c === BPF_JMP32) && insn.code !== 0x95) {
    const dst = regOf(st, insn.dst);
    if (!dst) return { pc, kind: 'uninit-reg', regno: insn.dst };
    if ((insn.code & 0x08) !== 0 && !regOf(st, insn.src)) return { pc, kind: 'uninit-reg', regno: insn.src };
  }
  return { pc, kind: 'other' };
}
