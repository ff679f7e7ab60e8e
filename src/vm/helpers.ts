/**
 * Helper implementations for XDP programs, bound by the kernel's helper ids
 * (src/helpers/table.ts): semantics, limits and return codes follow
 * net/core/filter.c and kernel/bpf/helpers.c as BPF_PROG_TEST_RUN runs them.
 */
import { BPF_FUNC } from '../helpers/table';
import { BPF_F_RDONLY_PROG, BPF_F_WRONLY_PROG, type BpfMap } from '../maps';
import { LO_BASE, VmFault, type Region } from './memory';
import type { HelperFn, Machine } from './interp';
import { formatPrintk, type PrintkArg } from './printk';

/** kernel/bpf/helpers.c: the most arguments bpf_trace_vprintk and bpf_snprintf take. */
const MAX_BPRINTF_VARARGS = 12;
import { objectHelpers, type EventLog } from './helpers_objects';
import { contextHelpers } from './helpers_context';
import { AF_INET, AF_INET6, FIB_LOOKUP_SIZE, type FibTable } from './fib';
import { EACCES, EAFNOSUPPORT, EFAULT, EINVAL, ENODEV } from '../isa/errno';
import { isMapInMap } from '../isa/spec';

export const XDP_ABORTED = 0;
export const XDP_DROP = 1;
export const XDP_PASS = 2;
export const XDP_TX = 3;
export const XDP_REDIRECT = 4;

/** sizeof(struct xdp_frame) on 64-bit: the headroom adjust_head/meta must leave. */
export const XDP_FRAME_SIZE = 40;
/** SKB_DATA_ALIGN(sizeof(struct skb_shared_info)) on x86_64: tailroom adjust_tail must leave. */
export const SKB_SHARED_INFO_SIZE = 320;
export const ETH_HLEN = 14;

/** ETH_DATA_LEN: the mtu of a receiving device the lab's routing table does not list. */
const DEFAULT_MTU = 1500;

/** What bpf_redirect/bpf_redirect_map recorded (the kernel's bpf_redirect_info). */
export type RedirectInfo = { ifindex: number; flags: number } | { map: number; key: number; flags: number };

/** The packet as helpers see it: offsets into buf (xdp_buff's data_hard_start at hardStart). */
export interface XdpBuffState {
  buf: Uint8Array;
  data: number;
  dataEnd: number;
  dataMeta: number;
  frameSize: number;
  /** Offset of data_hard_start in buf: adjust_head, adjust_meta and adjust_tail measure from it. */
  hardStart: number;
  /** xdp_md's ingress_ifindex and rx_queue_index for this frame (the JIT's ctx loads read them here). */
  ingressIfindex: number;
  rxQueueIndex: number;
  packet: Region;
  redirect: RedirectInfo | undefined;
  /** A pending tail call: the target's index in ProgramSpec.programs, -1 for none. */
  tailCall: number;
  /** Tail calls taken so far in this run (the kernel stops at MAX_TAIL_CALL_CNT). */
  tailCalls: number;
}

/**
 * bpf_xdp_pointer on a linear frame (the VM's frames are one buffer): where
 * `len` bytes at `off` from data start in buf, or -EFAULT for an offset or
 * length past 16 bits, -EINVAL past data_end. bpf_xdp_load_bytes,
 * bpf_xdp_store_bytes and the dynptr slices and reads all go through it.
 */
export function xdpPointer(x: XdpBuffState, off: number, len: number): number {
  if (off > 0xffff || len > 0xffff) return -EFAULT;
  if (off + len > x.dataEnd - x.data) return -EINVAL;
  return x.data + off;
}

export interface HelperEnv {
  /** Nanoseconds (a double: exact for 104 days of virtual time), so no BigInt per call. */
  ktimeNs(): number;
  prandomU32(): number;
  cpu: number;
  printk(text: string): void;
  /**
   * The CPU's virtual address width (boot_cpu_data.x86_virt_bits): 48, or
   * 57 on a CPU with five-level paging. copy_from_kernel_nofault_allowed
   * refuses non-canonical addresses by it, so bpf_probe_read_kernel on
   * 0xffff000000000000 is -ERANGE with 48 bits and -EFAULT with 57.
   * Default 48, the usual machine.
   */
  virtAddrBits?: 48 | 57;
}

export interface XdpHelperContext {
  env: HelperEnv;
  maps: readonly BpfMap[];
  /** Map regions by map index (the pointers lddw produces). */
  mapRegions: readonly Region[];
  xdp(): XdpBuffState;
  /** Packet bounds changed: every packet pointer's range must follow. */
  packetMoved(): void;
  /** Where perf_event_output and ringbuf records go. */
  log: EventLog;
  /** bpf_fib_lookup's routing and neighbour tables. */
  fib: FibTable;
}

/** The region of a map value (one per value buffer, shared by the helpers and the JIT), with the map's program access flags. */
export function valueRegion(m: Machine, map: BpfMap, v: Uint8Array): Region {
  const r = m.regions.forBuffer('map_value', `map_value(${map.name})`, v, (map.flags & BPF_F_RDONLY_PROG) === 0);
  r.noRead = (map.flags & BPF_F_WRONLY_PROG) !== 0;
  return r;
}

/** bpf_redirect_map's work once its arguments are numbers: map index, key (u32), flags (r3's low and high words); what it returns (r0). */
export type RedirectMapFn = (mapIndex: number, key: number, flagsLo: number, flagsHi: number) => number;

/**
 * bpf_redirect_map (the helper's body, also called straight from the JIT's
 * translation when the verifier pins the map: no registers handed over):
 * an entry at the key records the redirect; none, the action in the flags'
 * low bits; a flag the map type does not take, XDP_ABORTED. What it records
 * is preallocated (a redirect per packet allocates nothing); a caller that
 * keeps it past the next run copies it (runXdp does).
 */
export function xdpRedirectMap(ctx: XdpHelperContext): RedirectMapFn {
  const toMap = { map: 0, key: 0, flags: 0 };
  const redirectKey = new Uint8Array(4);
  return (index, key, flags, flagsHi) => {
    const map = ctx.maps[index]!;
    const broadcastOk = map.type === 'devmap' || map.type === 'devmap_hash';
    // BPF_F_ACTION_MASK (the low 2 bits: the action when the key is missing) plus BROADCAST/EXCLUDE_INGRESS for devmaps.
    const allowed = 3 | (broadcastOk ? 8 | 16 : 0);
    if (flagsHi !== 0 || (flags & ~allowed) !== 0) return XDP_ABORTED;
    const x = ctx.xdp();
    if (!(broadcastOk && flags & 8)) {
      if (map.lookupCounter) map.lookupCounter.n++;
      // Whether the key holds an entry is all the redirect needs: the live presence array of a devmap,
      // cpumap or xskmap (no value view made, a load per packet), else (devmap_hash) a lookup.
      const presence = map.presence;
      let present: boolean;
      if (presence !== undefined) present = key < map.maxEntries && presence[key] !== 0;
      else {
        redirectKey[0] = key & 0xff;
        redirectKey[1] = (key >>> 8) & 0xff;
        redirectKey[2] = (key >>> 16) & 0xff;
        redirectKey[3] = key >>> 24;
        present = map.lookup(redirectKey, ctx.env.cpu) !== undefined;
      }
      if (!present) return flags & 3;
    }
    toMap.map = index;
    toMap.key = key;
    toMap.flags = flags;
    x.redirect = toMap;
    return XDP_REDIRECT;
  };
}

/** The XDP helpers; bpf_redirect_map's body is `redirectMap` (the owner's, shared with its JIT translation). */
export function xdpHelpers(ctx: XdpHelperContext, redirectMap: RedirectMapFn): Map<number, HelperFn> {
  const h = new Map<number, HelperFn>();
  const mapIndexOf = (m: Machine, pc: number, reg: number): number => {
    const r = m.regions.get(m.pv[reg]!);
    if (!r || r.kind !== 'map') throw new VmFault(pc, 'helper', `pc ${pc}: R${reg} is not a map pointer`, reg, r?.name ?? 'none');
    return r.mapIndex!;
  };
  const mapArg = (m: Machine, pc: number, reg: number): { map: BpfMap; index: number } => {
    const index = mapIndexOf(m, pc, reg);
    return { map: ctx.maps[index]!, index };
  };

  // Value regions by map, memoized: lookups are the hot helper (one per packet in xdp1).
  const valueRegions = new Map<BpfMap, WeakMap<Uint8Array, Region>>();
  // The last value found and its region, per map index: a per-packet counter hits it every time.
  const lastValue: (Uint8Array | undefined)[] = [];
  const lastRegion: (Region | undefined)[] = [];
  // Keys are copied into a scratch buffer per size instead of a fresh view per call (lookups never keep the key).
  const keyScratch = new Map<number, Uint8Array>();
  const valueScratch = new Map<number, Uint8Array>();
  const EMPTY: Uint8Array = new Uint8Array(0);
  /**
   * The n bytes a helper argument points to, copied into a buffer of that
   * size from `pool` (reused, valid until the next copy of that size): a
   * map key or value read without allocating, once per packet in most
   * programs (the map copies what it keeps).
   */
  const copyArg = (m: Machine, pc: number, reg: number, n: number, pool: Map<number, Uint8Array>): Uint8Array => {
    if (n === 0) return EMPTY;
    const at = m.resolve(pc, reg, 0, n, false);
    let buf = pool.get(n);
    if (!buf) pool.set(n, (buf = new Uint8Array(n)));
    const src = m.resRegion.bytes;
    for (let i = 0; i < n; i++) buf[i] = src[at + i]!;
    return buf;
  };
  h.set(BPF_FUNC.map_lookup_elem, (m, pc) => {
    // No destructured object here: this runs once per packet in most programs.
    const index = mapIndexOf(m, pc, 1);
    const map = ctx.maps[index]!;
    const key = copyArg(m, pc, 2, map.keySize, keyScratch);
    if (map.lookupCounter) map.lookupCounter.n++;
    const v = map.lookup(key, ctx.env.cpu);
    if (!v) return m.setReg(0, 0);
    if (isMapInMap(map.type)) {
      // The value is the inner map (its index in the program's map list here, an fd in the kernel).
      const inner = ctx.mapRegions[(v[0]! | (v[1]! << 8) | (v[2]! << 16) | (v[3]! << 24)) >>> 0];
      return inner ? m.setPtr(0, inner, 0) : m.setReg(0, 0);
    }
    let r: Region | undefined;
    if (lastValue[index] === v) r = lastRegion[index]!;
    else {
      let cache = valueRegions.get(map);
      if (!cache) valueRegions.set(map, (cache = new WeakMap()));
      r = cache.get(v);
      if (!r) cache.set(v, (r = valueRegion(m, map, v)));
      lastValue[index] = v;
      lastRegion[index] = r;
    }
    m.setPtr(0, r, 0);
  });
  h.set(BPF_FUNC.map_update_elem, (m, pc) => {
    const map = ctx.maps[mapIndexOf(m, pc, 1)]!;
    const key = copyArg(m, pc, 2, map.keySize, keyScratch);
    const val = copyArg(m, pc, 3, map.valueSize, valueScratch);
    m.setReg(0, map.update(key, val, m.lo[4]! >>> 0, ctx.env.cpu));
  });
  h.set(BPF_FUNC.map_delete_elem, (m, pc) => {
    const map = ctx.maps[mapIndexOf(m, pc, 1)]!;
    m.setReg(0, map.delete(copyArg(m, pc, 2, map.keySize, keyScratch)));
  });
  h.set(BPF_FUNC.ktime_get_ns, (m) => m.setReg(0, ctx.env.ktimeNs()));
  h.set(BPF_FUNC.ktime_get_boot_ns, (m) => m.setReg(0, ctx.env.ktimeNs()));
  // CLOCK_TAI: the simulated clock, like the other ktime helpers (a verified program may call it; the VM refused it).
  h.set(BPF_FUNC.ktime_get_tai_ns, (m) => m.setReg(0, ctx.env.ktimeNs()));
  h.set(BPF_FUNC.ktime_get_coarse_ns, (m) => m.setReg(0, ctx.env.ktimeNs()));
  // bpf_send_signal(_thread): XDP runs in NAPI softirq, where `current` is ksoftirqd or whatever task was
  // interrupted; the lab models the kernel thread, which bpf_send_signal refuses with -EPERM.
  h.set(BPF_FUNC.send_signal, (m) => m.setReg(0, -1));
  h.set(BPF_FUNC.send_signal_thread, (m) => m.setReg(0, -1));
  // jiffies at HZ=250 (Debian's kernels), from the same clock.
  h.set(BPF_FUNC.jiffies64, (m) => m.setReg(0, Math.floor(ctx.env.ktimeNs() / 4_000_000)));
  h.set(BPF_FUNC.get_prandom_u32, (m) => m.setReg(0, ctx.env.prandomU32() >>> 0));
  h.set(BPF_FUNC.get_smp_processor_id, (m) => m.setReg(0, ctx.env.cpu));
  h.set(BPF_FUNC.get_numa_node_id, (m) => m.setReg(0, 0));
  /** The NUL-terminated string at offset `at` of a region, for %s (undefined: no such region). */
  const cString = (reg: Region | undefined, at: number): string | undefined => {
    if (!reg) return undefined;
    let s = '';
    for (let i = at; i >= reg.start && i < reg.end && reg.bytes[i] !== 0; i++) s += String.fromCharCode(reg.bytes[i]!);
    return s;
  };
  /** The format string in r1 (r2 bytes, NUL-terminated within them), or undefined. */
  const printkFormat = (m: Machine, pc: number): string | undefined => {
    const size = m.regNum(2);
    const fmtBytes = m.bytesAt(pc, 1, size, false);
    const nul = fmtBytes.indexOf(0);
    return size === 0 || nul < 0 ? undefined : String.fromCharCode(...fmtBytes.subarray(0, nul));
  };
  const printk = (m: Machine, fmt: string, args: PrintkArg[]): void => {
    const text = formatPrintk(fmt, args);
    if (typeof text !== 'string') return m.setReg(0, -text.errno);
    ctx.env.printk(text);
    m.setReg(0, text.length);
  };
  h.set(BPF_FUNC.trace_printk, (m, pc) => {
    const fmt = printkFormat(m, pc);
    if (fmt === undefined) return m.setReg(0, -EINVAL);
    printk(m, fmt, [3, 4, 5].map((r) => ({ value: m.regU64(r), str: () => cString(m.regions.get(m.pv[r]!), (m.lo[r]! >>> 0) - LO_BASE) })));
  });
  // bpf_trace_vprintk(fmt, fmt_size, data, data_len): libbpf's bpf_printk with more than three
  // arguments. The arguments are data's u64s (at most MAX_BPRINTF_VARARGS, data_len a multiple of 8);
  // a %s argument is a pointer stored there, its region named by the value's high word.
  h.set(BPF_FUNC.trace_vprintk, (m, pc) => {
    const fmt = printkFormat(m, pc);
    const len = m.regNum(4);
    if (fmt === undefined || len % 8 !== 0 || len > MAX_BPRINTF_VARARGS * 8 || (len > 0 && m.regU64(3) === 0n)) return m.setReg(0, -EINVAL);
    const data = len ? m.bytesAt(pc, 3, len, false) : new Uint8Array(0);
    const dv = new DataView(data.buffer, data.byteOffset, data.byteLength);
    const args: PrintkArg[] = [];
    for (let i = 0; i < len; i += 8) {
      const value = dv.getBigUint64(i, true);
      args.push({ value, str: () => cString(m.regions.byHi(Number(value >> 32n)), Number(value & 0xffffffffn) - LO_BASE) });
    }
    printk(m, fmt, args);
  });
  // What bpf_redirect records, preallocated: a redirect per packet allocates nothing. The result hands
  // out this object; a caller that keeps one past the next run copies it (runXdp does).
  const toIfindex = { ifindex: 0, flags: 0 };
  h.set(BPF_FUNC.redirect, (m) => {
    const x = ctx.xdp();
    // Any flag is invalid for XDP (no BigInt: both halves of r2 must be zero).
    if (m.lo[2] !== 0 || m.hi[2] !== 0) return m.setReg(0, XDP_ABORTED);
    toIfindex.ifindex = m.regU32(1);
    toIfindex.flags = 0;
    x.redirect = toIfindex;
    m.setReg(0, XDP_REDIRECT);
  });
  h.set(BPF_FUNC.redirect_map, (m, pc) => m.setReg(0, redirectMap(mapIndexOf(m, pc, 1), m.regU32(2), m.lo[3]! >>> 0, m.hi[3]!)));
  h.set(BPF_FUNC.csum_diff, (m, pc) => {
    // Linux 6.12+ (homogenized across archs): no size restrictions, and the
    // result is folded to 16 bits: to-only pushes, from-only pulls, both diff.
    const fromSize = m.regNum(2);
    const toSize = m.regNum(4);
    const seed = m.regU32(5);
    if (fromSize < 0 || toSize < 0 || fromSize > 0xffff || toSize > 0xffff) return m.setReg(0, -EINVAL);
    // The bytes read in place (no view made per call: checksum updates run once per packet).
    let from = EMPTY;
    let fromAt = 0;
    if (fromSize) {
      fromAt = m.resolve(pc, 1, 0, fromSize, false);
      from = m.resRegion.bytes;
    }
    let to = EMPTY;
    let toAt = 0;
    if (toSize) {
      toAt = m.resolve(pc, 3, 0, toSize, false);
      to = m.resRegion.bytes;
    }
    if (fromSize && toSize) return m.setReg(0, fold16(csumPartial16(to, toAt, toSize, seed) + (~csumPartial16(from, fromAt, fromSize, 0) & 0xffff)));
    if (toSize) return m.setReg(0, csumPartial16(to, toAt, toSize, seed));
    if (fromSize) return m.setReg(0, ~csumPartial16(from, fromAt, fromSize, ~seed >>> 0) & 0xffff);
    m.setReg(0, seed);
  });
  h.set(BPF_FUNC.xdp_adjust_head, (m) => {
    const x = ctx.xdp();
    const offset = m.lo[2]!; // the s32 argument: r2's low word, signed (no BigInt per packet)
    const metalen = x.data - x.dataMeta;
    const data = x.data + offset;
    if (data < x.hardStart + XDP_FRAME_SIZE + metalen || data > x.dataEnd - ETH_HLEN) return m.setReg(0, -EINVAL);
    if (metalen) x.buf.copyWithin(x.dataMeta + offset, x.dataMeta, x.data);
    x.dataMeta += offset;
    x.data = data;
    ctx.packetMoved();
    m.setReg(0, 0);
  });
  h.set(BPF_FUNC.xdp_adjust_meta, (m) => {
    const x = ctx.xdp();
    const offset = m.lo[2]!; // the s32 argument: r2's low word, signed (no BigInt per packet)
    const meta = x.dataMeta + offset;
    const metalen = x.data - meta;
    if (meta < x.hardStart + XDP_FRAME_SIZE || meta > x.data) return m.setReg(0, -EINVAL);
    // xdp_metalen_invalid: 4-byte multiples up to what skb_shared_info.meta_len (a u8) can hold.
    if (metalen & 3 || metalen > 255) return m.setReg(0, -EACCES);
    x.dataMeta = meta;
    ctx.packetMoved();
    m.setReg(0, 0);
  });
  h.set(BPF_FUNC.xdp_adjust_tail, (m) => {
    const x = ctx.xdp();
    const offset = m.lo[2]!; // the s32 argument: r2's low word, signed (no BigInt per packet)
    const maxEnd = x.hardStart + x.frameSize - SKB_SHARED_INFO_SIZE;
    const dataEnd = x.dataEnd + offset;
    if (dataEnd > maxEnd || dataEnd < x.data + ETH_HLEN) return m.setReg(0, -EINVAL);
    // Growing clears the new bytes (no stale data leaks into the packet).
    if (offset > 0) x.buf.fill(0, x.dataEnd, dataEnd);
    x.dataEnd = dataEnd;
    ctx.packetMoved();
    m.setReg(0, 0);
  });
  h.set(BPF_FUNC.xdp_get_buff_len, (m) => {
    const x = ctx.xdp();
    m.setReg(0, x.dataEnd - x.data);
  });
  const xdpBytes = (store: boolean) => (m: Machine, pc: number) => {
    const x = ctx.xdp();
    const len = m.regNum(4);
    const at = xdpPointer(x, m.regU32(2), len);
    if (at < 0) return m.setReg(0, at);
    const buf = m.bytesAt(pc, 3, len, !store);
    const pkt = x.buf.subarray(at, at + len);
    if (store) pkt.set(buf);
    else buf.set(pkt);
    m.setReg(0, 0);
  };
  h.set(BPF_FUNC.xdp_load_bytes, xdpBytes(false));
  h.set(BPF_FUNC.xdp_store_bytes, xdpBytes(true));
  h.set(BPF_FUNC.fib_lookup, (m, pc) => {
    // bpf_fib_lookup(ctx, params, plen, flags).
    if (m.regNum(3) !== FIB_LOOKUP_SIZE) return m.setReg(0, -EINVAL);
    const flags = m.lo[4]! >>> 0;
    if (m.hi[4] !== 0 || (flags & ~0x1f) !== 0) return m.setReg(0, -EINVAL);
    const p = m.bytesAt(pc, 2, FIB_LOOKUP_SIZE, true);
    if (p[0] !== AF_INET && p[0] !== AF_INET6) return m.setReg(0, -EAFNOSUPPORT);
    m.setReg(0, ctx.fib.lookup(p, flags));
  });
  h.set(BPF_FUNC.check_mtu, (m, pc) => {
    // bpf_check_mtu(ctx, ifindex, *mtu_len, len_diff, flags): the XDP variant takes no flags.
    if (m.lo[5] !== 0 || m.hi[5] !== 0) return m.setReg(0, -EINVAL);
    const x = ctx.xdp();
    const ifindex = m.regU32(2);
    // ifindex 0 is the receiving device (xdp->rxq->dev), which always exists.
    const mtu = ifindex === 0 ? (ctx.fib.mtu(x.ingressIfindex) ?? DEFAULT_MTU) : ctx.fib.mtu(ifindex);
    if (mtu === undefined) return m.setReg(0, -ENODEV);
    const p = m.bytesAt(pc, 3, 4, true);
    const given = (p[0]! | (p[1]! << 8) | (p[2]! << 16) | (p[3]! << 24)) >>> 0;
    // Lengths are L2 (the mtu plus the Ethernet header), in the kernel's int arithmetic.
    let len = given ? (given + ETH_HLEN) | 0 : x.dataEnd - x.data;
    len = (len + m.lo[4]!) | 0;
    p[0] = mtu & 0xff;
    p[1] = (mtu >>> 8) & 0xff;
    p[2] = (mtu >>> 16) & 0xff;
    p[3] = mtu >>> 24;
    // BPF_MTU_CHK_RET_FRAG_NEEDED or BPF_MTU_CHK_RET_SUCCESS.
    m.setReg(0, len > mtu + ETH_HLEN ? 1 : 0);
  });
  h.set(BPF_FUNC.map_lookup_percpu_elem, (m, pc) => {
    // bpf_map_lookup_percpu_elem(map, key, cpu): that cpu's copy; NULL past nr_cpu_ids (the map's cpu count here).
    const { map } = mapArg(m, pc, 1);
    const key = m.bytesAt(pc, 2, map.keySize, false);
    const cpu = m.regU32(3);
    const v = cpu < map.nCpus ? map.lookup(key, cpu) : undefined;
    if (!v) return m.setReg(0, 0);
    let cache = valueRegions.get(map);
    if (!cache) valueRegions.set(map, (cache = new WeakMap()));
    let r = cache.get(v);
    if (!r) cache.set(v, (r = valueRegion(m, map, v)));
    m.setPtr(0, r, 0);
  });
  objectHelpers({ maps: ctx.maps, cpu: () => ctx.env.cpu, xdp: ctx.xdp, log: ctx.log, mapIndexOf }, h);
  contextHelpers({ maps: ctx.maps, cpu: () => ctx.env.cpu, virtAddrBits: () => ctx.env.virtAddrBits ?? 48, mapIndexOf }, h);
  return h;
}

/** One's-complement end-around fold to 16 bits. */
function fold16(x: number): number {
  while (x > 0xffff) x = (x & 0xffff) + Math.floor(x / 0x10000);
  return x;
}

/** csum_partial(b[at, at+len), seed) folded to 16 bits: the one's-complement sum of little-endian 16-bit words. */
function csumPartial16(b: Uint8Array, at: number, len: number, seed: number): number {
  let s = (seed & 0xffff) + (seed >>> 16);
  const end = at + len;
  for (let i = at; i + 1 < end; i += 2) s += b[i]! | (b[i + 1]! << 8);
  if (len & 1) s += b[end - 1]!;
  return fold16(s);
}
