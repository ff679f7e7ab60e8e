/**
 * The journey log: the stages of a frame's life after the program's verdict
 * that the event trace does not carry per packet — the XDP_TX doorbell and
 * the wire, a devmap redirect's bulk queue, flush, egress ndo_xdp_xmit, tx
 * completion and xdp_return_frame, an AF_XDP frame's socket rings and the
 * application's work on its UMEM chunk — each with the packet it belongs
 * to, so the packet inspector can follow a frame to where its buffer goes
 * back.
 *
 * It promises: it only observes. Recording never charges a cycle, never
 * changes the machine and is not part of the trace's hash or count, so a
 * run is the same event for event with or without it (the golden check).
 * It records only while the trace keeps records (the app's machine), in a
 * bounded window like the trace's.
 */

import { grown } from './trace';

export const JOURNEY_STAGES = [
  'tx_doorbell', // the doorbell that handed the frame's descriptor to the NIC (a: frames it covered, b: tx ring slot)
  'xmit', // the NIC finished putting the frame on the wire (a: bytes, b: tx ring slot)
  'tx_clean', // tx completion reaped by the driver (a: tx ring slot)
  'bq_enqueue', // dev_map_enqueue → bq_enqueue: into this CPU's bulk queue (a: frames queued after, b: DEV_MAP_BULK_SIZE)
  'bq_xmit_all', // the bulk leaves the queue (a: frames in the bulk, b: 1 when a full queue forced it, 0 for xdp_do_flush)
  'ndo_xdp_xmit', // the egress device's ndo_xdp_xmit wrote the frame's descriptor (a: its tx ring slot)
  'xdp_return_frame', // the frame's page goes back (a: PageLoc after, b: 0 page allocator, 1 the rx ring's page reuse, 2 page_pool)
  'veth_xdp_rcv', // the veth peer ran its program on the frame (a: verdict)
  'xdp_drop_frame', // the egress side dropped the frame (a: reason: 1 tx ring full, 2 -ENXIO)
  'cpu_map_enqueue', // cpu_map_enqueue → bq_enqueue: into this rx ring's cpumap bulk queue (a: frames queued after, b: CPU_MAP_BULK_SIZE)
  'bq_flush_to_queue', // the bulk onto the remote CPU's ptr_ring (a: frames in the bulk, b: 1 when a full queue forced it, 0 for xdp_do_flush)
  'cpu_map_kthread_run', // the remote CPU's kthread took the frame and dropped it (xdp_redirect_cpu -e drop)
  'xsk_rcv', // the frame's descriptor on the socket's rx ring (a: UMEM chunk, b: rx ring entries after)
  'xsk_rx_consume', // the application took the descriptor off the rx ring (a: chunk, b: 1 l2fwd, 0 rxdrop)
  'xsk_tx_produce', // l2fwd: MACs swapped, descriptor on the socket's tx ring (a: chunk)
  'xsk_xmit', // the driver took the tx descriptor onto the NIC's tx ring (a: chunk, b: hw tx ring slot)
  'xsk_cq', // tx completion: the chunk's address on the completion ring (a: chunk)
  'xsk_fq', // the application put the chunk back on the fill ring (a: chunk, b: fill ring entries after)
] as const;
export type JourneyStage = (typeof JOURNEY_STAGES)[number];
export const J = Object.fromEntries(JOURNEY_STAGES.map((k, i) => [k, i])) as Record<JourneyStage, number>;

export interface JourneyRecord {
  /** Order of recording (not of time: a wire time may be recorded at its completion). */
  seq: number;
  /** Trace records emitted before this one: its place among them (causal order; CPUs' clocks differ). */
  after: number;
  stage: JourneyStage;
  cycle: number;
  cpu: number;
  packet: number;
  page: number;
  a: number;
  b: number;
}

export class Journey {
  /** Recording (the machine turns it on when the trace keeps records). */
  on: boolean;
  count = 0;
  base = 0;
  private cap = 0;
  private stage = new Uint8Array(0);
  private cycle = new Float64Array(0);
  private cpu = new Int8Array(0);
  private packet = new Float64Array(0);
  private after = new Float64Array(0);
  private page = new Int32Array(0);
  private a = new Float64Array(0);
  private b = new Float64Array(0);
  readonly limit: number;
  /**
   * AF_XDP: which packet each UMEM chunk holds (by the chunk's address), so
   * the socket's rings (addresses only) can be followed back to a packet.
   */
  private readonly chunkPkt = new Map<number, number>();
  /** Packets someone follows: their records survive the window (kept in `pinned`). */
  readonly followed = new Set<number>();
  private pinned: JourneyRecord[] = [];

  constructor(
    on: boolean,
    private readonly trace: { count: number },
    limit = 1 << 16,
  ) {
    this.on = on;
    this.limit = Math.max(1024, limit);
  }

  add(stage: number, cycle: number, cpu: number, packet: number, page: number, a: number, b: number): void {
    let i = this.count - this.base;
    if (i >= this.cap) {
      if (this.cap >= this.limit) {
        this.discardBefore(this.count - (this.limit >> 1));
        i = this.count - this.base;
      } else this.grow();
    }
    this.stage[i] = stage;
    this.cycle[i] = cycle;
    this.cpu[i] = cpu;
    this.packet[i] = packet;
    this.after[i] = this.trace.count;
    this.page[i] = page;
    this.a[i] = a;
    this.b[i] = b;
    this.count++;
  }

  private grow(): void {
    const cap = Math.min(this.limit, Math.max(1024, this.cap * 2));
    this.stage = grown(this.stage, cap);
    this.cycle = grown(this.cycle, cap);
    this.cpu = grown(this.cpu, cap);
    this.packet = grown(this.packet, cap);
    this.after = grown(this.after, cap);
    this.page = grown(this.page, cap);
    this.a = grown(this.a, cap);
    this.b = grown(this.b, cap);
    this.cap = cap;
  }

  /** Forget records before `seq`. */
  discardBefore(seq: number): void {
    const drop = Math.min(seq, this.count) - this.base;
    if (drop <= 0) return;
    if (this.followed.size) for (let i = 0; i < drop; i++) if (this.followed.has(this.packet[i]!)) this.pinned.push(this.record(i));
    const n = this.count - this.base - drop;
    for (const arr of [this.stage, this.cycle, this.cpu, this.packet, this.after, this.page, this.a, this.b]) arr.copyWithin(0, drop, drop + n);
    this.base += drop;
  }

  private record(i: number): JourneyRecord {
    return { seq: this.base + i, after: this.after[i]!, stage: JOURNEY_STAGES[this.stage[i]!]!, cycle: this.cycle[i]!, cpu: this.cpu[i]!, packet: this.packet[i]!, page: this.page[i]!, a: this.a[i]!, b: this.b[i]! };
  }

  /** Every record of one packet still kept (all of a followed one's), in recording order. */
  of(packet: number): JourneyRecord[] {
    const out = this.pinned.filter((r) => r.packet === packet);
    for (let i = 0; i < this.count - this.base; i++) if (this.packet[i] === packet) out.push(this.record(i));
    return out;
  }

  follow(packet: number): void {
    this.followed.add(packet);
  }

  unfollow(packet: number): void {
    this.followed.delete(packet);
    this.pinned = this.pinned.filter((r) => r.packet !== packet);
  }

  /** AF_XDP: the chunk at `addr` now holds `packet`. */
  setChunk(addr: number, packet: number): void {
    this.chunkPkt.set(addr, packet);
  }

  /** AF_XDP: the packet the chunk at `addr` holds, or -1. */
  chunkPacket(addr: number): number {
    return this.chunkPkt.get(addr) ?? -1;
  }
}
