/**
 * XDP_TX on the dedicated tx ring of each rx ring (no locks: only the rx
 * ring's NAPI context posts to it): transmit with doorbell batching, the
 * doorbell, and tx completion, counted in the rx ring's counters. The ring
 * itself is ./xdp_tx_ring.ts; what a completed frame's page becomes is the
 * driver's (its `complete` callback).
 */
import type { Cpu, Machine } from '../machine';
import { J } from '../journey';
import { PageLoc } from '../page_alloc';
import type { TxWire } from '../wire';
import type { RxRing } from './rx_ring';

// Numbers read per packet, as file-local const enums: the transpiler writes each use as a
// literal (an imported binding is a getter under tsx/vitest; a module-level object is a load
// and checks). tests/unit/sim-const-enums.test.ts holds each to its definition.
// The rest: module-local copies (a cross-module binding is a getter call under tsx/vitest).
const enum S { tx_doorbell = 23, tx_cq_poll = 24 }
const enum K { tx_post = 19, tx_doorbell = 20, tx_done = 21, tx_dropped = 22 }
const LOC_TX = PageLoc.TX_RING;

export interface XdpXmitOptions {
  /** The port's transmitter (the wire, or vmxnet3's backend). */
  wire: TxWire;
  /** From the doorbell to the NIC fetching the descriptors (cycles). */
  latency: number;
  /** Ring the doorbell once this many descriptors are written (mlx4: MLX4_EN_DOORBELL_BUDGET); the poll's end rings it for the rest. */
  doorbellBudget: number;
  /** Cost step of writing a descriptor, or -1 when the caller's transmit step already covers it. */
  postStep: number;
  /** Cost step of one completion. */
  completeStep: number;
  /** What a completed frame's page becomes (mlx4: back to the rx ring's page cache; vmxnet3: back to its page_pool). */
  complete: (cpu: Cpu, r: RxRing, page: number, packet: number) => void;
}

/**
 * XDP_TX on the dedicated tx ring of each rx ring (no locks: only the rx
 * ring's NAPI context posts to it): transmit with doorbell batching, the
 * doorbell, and tx completion, counted in the rx ring's counters. The
 * drivers keep their kernel names (mlx4_en_xmit_frame, ...) as one-line
 * methods calling these, so the code reads next to theirs.
 */
export class XdpXmit {
  // The options as plain fields: read on every frame.
  private readonly wire: TxWire;
  private readonly latency: number;
  private readonly doorbellBudget: number;
  private readonly postStep: number;
  private readonly completeStep: number;
  private readonly complete: XdpXmitOptions['complete'];

  constructor(
    readonly m: Machine,
    opts: XdpXmitOptions,
  ) {
    this.wire = opts.wire;
    this.latency = opts.latency;
    this.doorbellBudget = opts.doorbellBudget;
    this.postStep = opts.postStep;
    this.completeStep = opts.completeStep;
    this.complete = opts.complete;
  }

  /** Post a frame on r's tx ring; false when the ring is full (counted as tx_dropped: the caller disposes of the page). */
  xmit(cpu: Cpu, r: RxRing, page: number, packet: number, data: number, len: number): boolean {
    const tx = r.tx;
    const m = this.m;
    const tr = m.trace;
    if (tx.full()) {
      r.c.tx_dropped++;
      if (tr.on) tr.emit(K.tx_dropped, cpu.now, cpu.id, r.index, -1, packet, page, 0);
      return false;
    }
    if (this.postStep >= 0) m.charge(cpu, this.postStep);
    const s = tx.post(page, packet, data, len);
    m.alloc.loc[page] = LOC_TX;
    if (tr.on) tr.emit(K.tx_post, cpu.now, cpu.id, r.index, s, packet, page, len);
    if (tx.prod - tx.db >= this.doorbellBudget || tx.full()) this.doorbell(cpu, r);
    return true;
  }

  /** The MMIO doorbell: the NIC fetches the written descriptors and sends them at wire speed. */
  doorbell(cpu: Cpu, r: RxRing): void {
    const m = this.m;
    m.charge(cpu, S.tx_doorbell);
    const from = r.tx.db;
    const frames = r.tx.ring(this.wire, cpu.now + this.latency);
    const j = m.journey;
    if (j.on) for (let i = from; i < r.tx.db; i++) j.add(J.tx_doorbell, cpu.now, cpu.id, r.tx.slotPkt[i & r.tx.mask]!, r.tx.slotPage[i & r.tx.mask]!, frames, i & r.tx.mask);
    r.c.tx_doorbells++;
    if (m.trace.on) m.trace.emit(K.tx_doorbell, cpu.now, cpu.id, r.index, -1, -1, -1, frames);
  }

  /** At the end of the poll: ring the doorbell for descriptors the batching left pending. */
  flush(cpu: Cpu, r: RxRing): void {
    if (r.tx.prod !== r.tx.db) this.doorbell(cpu, r);
  }

  /** The tx completion queue: polled once if anything is due, then every frame sent by now. */
  process_tx_cq(cpu: Cpu, r: RxRing): void {
    const tx = r.tx;
    if (!tx.completed(cpu.now)) return;
    const m = this.m;
    const tr = m.trace;
    m.charge(cpu, S.tx_cq_poll);
    // tx.reap's loop, written out: this runs for every XDP_TX frame, and a closure per poll plus a call per frame shows.
    while (tx.completed(cpu.now)) {
      const s = tx.cons & tx.mask;
      const page = tx.slotPage[s]!;
      const packet = tx.slotPkt[s]!;
      if (m.journey.on) m.journey.add(J.xmit, tx.slotDone[s]!, -1, packet, page, tx.slotLen[s]!, s);
      m.charge(cpu, this.completeStep);
      tx.retire();
      r.c.tx_packets++;
      if (tr.on) tr.emit(K.tx_done, cpu.now, cpu.id, r.index, s, packet, page, 0);
      this.complete(cpu, r, page, packet);
    }
  }

  /** Port stop: every frame still on r's tx ring is freed (tx_flushed). */
  stop(r: RxRing): void {
    const a = this.m.alloc;
    r.c.tx_flushed += r.tx.flush((page) => a.free(page));
  }
}
