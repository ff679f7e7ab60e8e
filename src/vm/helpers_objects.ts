/**
 * Helpers for the map kinds real-world XDP programs reach through helpers
 * (issue 13): bpf_tail_call over a PROG_ARRAY (the kernel's limit of 33
 * tail calls; an empty slot falls through), bpf_perf_event_output into a
 * PERF_EVENT_ARRAY (BPF_F_CURRENT_CPU, the packet appended with
 * BPF_F_CTXLEN_MASK, as xdpdump uses it), the RINGBUF helpers (reserve,
 * submit, discard, output, and query: positions as if user space consumed
 * every committed record at once), the queue/stack and bloom filter
 * helpers (push, pop, peek) and bpf_spin_lock/unlock (one cpu runs a program
 * at a time here, so a lock is always free). Records go to the VM's event
 * log for the console. Errors follow kernel/bpf/ringbuf.c,
 * kernel/trace/bpf_trace.c and net/core/filter.c.
 */
import type { BpfMap } from '../maps';
import type { HelperFn, Machine } from './interp';
import { VmFault, type Region } from './memory';
import { E2BIG, EAGAIN, EFAULT, EINVAL } from '../isa/errno';

/** MAX_TAIL_CALL_CNT (include/linux/bpf.h). */
export const MAX_TAIL_CALL_CNT = 33;
export const BPF_F_CURRENT_CPU = 0xffffffff;


/** One record a program emitted: what the console shows. */
export interface VmEvent {
  kind: 'perf' | 'ringbuf';
  /** The map's index and name in the program's map list. */
  map: number;
  mapName: string;
  /** perf: the cpu (perf buffer) it went to; ringbuf: the cpu it ran on. */
  cpu: number;
  data: Uint8Array;
}

/** Events kept per VM: the newest EVENTS_KEPT (older ones are counted as dropped, as a full perf buffer drops). */
export const EVENTS_KEPT = 1024;

export interface EventLog {
  events: VmEvent[];
  dropped: number;
}

export function pushEvent(log: EventLog, ev: VmEvent): void {
  if (log.events.length >= EVENTS_KEPT) {
    log.events.shift();
    log.dropped++;
  }
  log.events.push(ev);
}

export interface ObjectHelperContext {
  maps: readonly BpfMap[];
  cpu(): number;
  /** The xdp_buff fields these helpers use (helpers.ts's XdpBuffState). */
  xdp(): { buf: Uint8Array; data: number; dataEnd: number; tailCall: number; tailCalls: number };
  log: EventLog;
  mapIndexOf(m: Machine, pc: number, reg: number): number;
}

/**
 * A ring buffer's positions and reservations. User space consumes each
 * record as soon as it is committed, but (as in the kernel) never past the
 * oldest record still reserved: the consumer position is that record's
 * position, or the producer's when nothing is reserved.
 */
interface RingState {
  /** Producer position: bytes ever reserved or output (headers included). */
  prod: number;
  /** Reserved and not yet submitted or discarded, by region id: the region handed out, its size and position. */
  live: Map<number, { region: Region; size: number; pos: number }>;
  /** Free regions by size for reuse. */
  free: Map<number, Region[]>;
}

/** The consumer position of a ring (see RingState). */
function consumerPos(rs: RingState): number {
  let cons = rs.prod;
  for (const r of rs.live.values()) if (r.pos < cons) cons = r.pos;
  return cons;
}

export function objectHelpers(ctx: ObjectHelperContext, h: Map<number, HelperFn>): void {
  h.set(12, (m, pc) => {
    // bpf_tail_call(ctx, prog_array, index): on success the program does not come back.
    const map = ctx.maps[ctx.mapIndexOf(m, pc, 2)]!;
    const x = ctx.xdp();
    const slot = m.regU32(3);
    if (x.tailCalls >= MAX_TAIL_CALL_CNT || !map.lookupIndex) return;
    if (map.lookupCounter) map.lookupCounter.n++;
    const v = map.lookupIndex(slot, 0);
    if (!v) return;
    x.tailCall = (v[0]! | (v[1]! << 8) | (v[2]! << 16) | (v[3]! << 24)) >>> 0;
    x.tailCalls++;
    m.unwound = true;
  });

  h.set(25, (m, pc) => {
    // bpf_perf_event_output(ctx, map, flags, data, size).
    const index = ctx.mapIndexOf(m, pc, 2);
    const map = ctx.maps[index]!;
    const lo = m.lo[3]! >>> 0;
    const hi = m.hi[3]! >>> 0;
    // BPF_F_INDEX_MASK in the low word, BPF_F_CTXLEN_MASK (20 bits) in the high word, nothing else.
    if (hi & ~0xfffff) return m.setReg(0, -EINVAL);
    const cpu = lo === BPF_F_CURRENT_CPU ? ctx.cpu() : lo;
    if (cpu >= map.maxEntries) return m.setReg(0, -E2BIG);
    const size = m.regNum(5);
    const data = m.bytesAt(pc, 4, size, false);
    const x = ctx.xdp();
    const ctxLen = hi & 0xfffff;
    if (ctxLen > x.dataEnd - x.data) return m.setReg(0, -EFAULT);
    const rec = new Uint8Array(size + ctxLen);
    rec.set(data);
    rec.set(x.buf.subarray(x.data, x.data + ctxLen), size);
    pushEvent(ctx.log, { kind: 'perf', map: index, mapName: map.name, cpu, data: rec });
    m.setReg(0, 0);
  });

  const rings = new Map<number, RingState>();
  const ring = (index: number): RingState => {
    let r = rings.get(index);
    if (!r) rings.set(index, (r = { prod: 0, live: new Map(), free: new Map() }));
    return r;
  };
  // A record takes an 8-byte header and its data rounded up to 8 (BPF_RINGBUF_HDR_SZ).
  const footprint = (size: number): number => 8 + Math.ceil(size / 8) * 8;

  h.set(130, (m, pc) => {
    // bpf_ringbuf_output(ringbuf, data, size, flags): user space consumes at once, so only the size limits it.
    const index = ctx.mapIndexOf(m, pc, 1);
    const map = ctx.maps[index]!;
    const size = m.regNum(3);
    if (m.hi[4] !== 0 || (m.lo[4]! & ~3) !== 0) return m.setReg(0, -EINVAL);
    const rs = ring(index);
    if (footprint(size) + rs.prod - consumerPos(rs) > map.maxEntries) return m.setReg(0, -EAGAIN);
    rs.prod += footprint(size);
    pushEvent(ctx.log, { kind: 'ringbuf', map: index, mapName: map.name, cpu: ctx.cpu(), data: m.bytesAt(pc, 2, size, false).slice() });
    m.setReg(0, 0);
  });
  h.set(131, (m, pc) => {
    // bpf_ringbuf_reserve(ringbuf, size, flags): zeroed memory the program fills, or NULL.
    const index = ctx.mapIndexOf(m, pc, 1);
    const map = ctx.maps[index]!;
    const size = m.regNum(2);
    if (m.lo[3] !== 0 || m.hi[3] !== 0 || size < 0 || size > map.maxEntries) return m.setReg(0, 0);
    const rs = ring(index);
    if (footprint(size) + rs.prod - consumerPos(rs) > map.maxEntries) return m.setReg(0, 0);
    const pool = rs.free.get(size);
    let region = pool?.pop();
    if (region) region.bytes.fill(0);
    else region = m.regions.add('mem', `ringbuf_mem(${map.name})`, new Uint8Array(size), true);
    rs.live.set(region.id, { region, size, pos: rs.prod });
    rs.prod += footprint(size);
    m.setPtr(0, region, 0);
  });
  const finish = (submit: boolean) => (m: Machine, pc: number): void => {
    // bpf_ringbuf_submit/discard(data, flags): data must be what reserve returned.
    const id = m.pv[1]!;
    for (const [index, rs] of rings) {
      const res = rs.live.get(id);
      if (!res) continue;
      rs.live.delete(id);
      if (submit) pushEvent(ctx.log, { kind: 'ringbuf', map: index, mapName: ctx.maps[index]!.name, cpu: ctx.cpu(), data: res.region.bytes.slice() });
      let pool = rs.free.get(res.size);
      if (!pool) rs.free.set(res.size, (pool = []));
      pool.push(res.region);
      return;
    }
    throw new VmFault(pc, 'helper', `pc ${pc}: bpf_ringbuf_${submit ? 'submit' : 'discard'}: R1 is not a reserved ring buffer record`, 1);
  };
  h.set(132, finish(true));
  h.set(133, finish(false));

  h.set(134, (m, pc) => {
    // bpf_ringbuf_query(ringbuf, flags): BPF_RB_AVAIL_DATA, _RING_SIZE, _CONS_POS, _PROD_POS; any other flags 0.
    const index = ctx.mapIndexOf(m, pc, 1);
    const rs = ring(index);
    const flags = m.hi[2] !== 0 ? -1 : m.lo[2]!;
    const cons = consumerPos(rs);
    m.setReg(0, flags === 0 ? rs.prod - cons : flags === 1 ? ctx.maps[index]!.maxEntries : flags === 2 ? cons : flags === 3 ? rs.prod : 0);
  });

  // bpf_map_push_elem(map, value, flags), bpf_map_pop_elem(map, value), bpf_map_peek_elem(map, value): queue and
  // stack maps, and bloom filters (push sets the value's bits, peek tests them, pop is -EOPNOTSUPP).
  h.set(87, (m, pc) => {
    const map = ctx.maps[ctx.mapIndexOf(m, pc, 1)]!;
    const value = m.bytesAt(pc, 2, map.valueSize, false);
    // A flag above the low word is above BPF_EXIST: -EINVAL like any other bad flag.
    const flags = m.hi[3] !== 0 ? 0xffffffff : m.lo[3]! >>> 0;
    m.setReg(0, map.push ? map.push(value, flags) : -EINVAL);
  });
  const take = (remove: boolean) => (m: Machine, pc: number): void => {
    const map = ctx.maps[ctx.mapIndexOf(m, pc, 1)]!;
    // A bloom filter's peek reads the value it tests (no bytes are written back).
    if (!remove && map.peekElem) {
      m.setReg(0, map.peekElem(m.bytesAt(pc, 2, map.valueSize, false)));
      return;
    }
    const out = m.bytesAt(pc, 2, map.valueSize, true);
    m.setReg(0, map.pop ? map.pop(out, remove) : -EINVAL);
  };
  h.set(88, take(true));
  h.set(89, take(false));

  // bpf_spin_lock / bpf_spin_unlock: nothing runs concurrently with the program here.
  h.set(93, (m) => m.setReg(0, 0));
  h.set(94, (m) => m.setReg(0, 0));
}
