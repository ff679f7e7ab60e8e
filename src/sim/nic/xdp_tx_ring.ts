/**
 * The XDP tx ring: descriptors a driver writes for frames it sends without
 * the stack (XDP_TX on mlx4's and vmxnet3's per-rx-ring tx ring, a devmap
 * target's ndo_xdp_xmit, i40e's AF_XDP tx), the doorbell that hands the
 * written ones to the NIC, which puts them on the wire back to back, and
 * the completions the driver reaps afterwards.
 *
 * It promises: cons <= db <= prod, prod - cons <= size; a slot between db
 * and prod is written but unknown to the NIC (done = Infinity); a slot
 * between cons and db has its completion time. What a completion does with
 * the page, which cost steps are charged and what is counted stay with the
 * driver (XdpXmit below for the rx rings' tx rings; devmap.ts and
 * i40e_xsk.ts for their own rings).
 */
import type { Cpu, Machine } from '../machine';
import { S as CostSteps } from '../cost';
import { K as TraceKinds } from '../trace';
import { PageLoc } from '../page_alloc';
import type { TxWire } from '../wire';
import type { RxRing } from './rx_ring';

// Module-local copies (see mlx4.ts: a cross-module binding is a getter call under tsx/vitest).
const S = { ...CostSteps };
const K = { ...TraceKinds };
const LOC_TX = PageLoc.TX_RING;

export class XdpTxRing {
  readonly mask: number;
  readonly slotPage: Int32Array;
  /** Where the frame's data starts (an offset into the page memory, or a UMEM address). */
  readonly slotData: Float64Array;
  readonly slotLen: Int32Array;
  readonly slotPkt: Float64Array;
  /** When the NIC finishes sending (Infinity until the doorbell is rung). */
  readonly slotDone: Float64Array;
  /** Descriptors written. */
  prod = 0;
  /** Descriptors the NIC has been told about (doorbell). */
  db = 0;
  /** Completions processed. */
  cons = 0;
  constructor(readonly size: number) {
    this.mask = size - 1;
    this.slotPage = new Int32Array(size).fill(-1);
    this.slotData = new Float64Array(size);
    this.slotLen = new Int32Array(size);
    this.slotPkt = new Float64Array(size).fill(-1);
    this.slotDone = new Float64Array(size).fill(Infinity);
  }

  /** Every descriptor is in use (written and not yet completed). */
  full(): boolean {
    return this.prod - this.cons >= this.size;
  }

  /** Write a descriptor (the NIC does not see it before the doorbell); returns its slot. The caller checks full() first. */
  post(page: number, packet: number, data: number, len: number): number {
    const s = this.prod & this.mask;
    this.slotPage[s] = page;
    this.slotData[s] = data;
    this.slotLen[s] = len;
    this.slotPkt[s] = packet;
    this.slotDone[s] = Infinity;
    this.prod++;
    return s;
  }

  /** The doorbell: the NIC fetches every written descriptor at `at` and sends them on `wire`. Returns how many. */
  ring(wire: TxWire, at: number): number {
    const frames = this.prod - this.db;
    for (; this.db < this.prod; this.db++) {
      const s = this.db & this.mask;
      this.slotDone[s] = wire.send(at, this.slotLen[s]!);
    }
    return frames;
  }

  /** Hand the written descriptors over without a wire (a veth peer's ptr_ring): each is there from `at`. */
  ready(at: number): void {
    for (; this.db < this.prod; this.db++) this.slotDone[this.db & this.mask] = at;
  }

  /** The oldest outstanding completion (for the interrupt that reaps it), or Infinity. */
  nextDone(): number {
    return this.cons < this.db ? this.slotDone[this.cons & this.mask]! : Infinity;
  }

  /** The oldest frame the NIC has finished sending by `now`? */
  completed(now: number): boolean {
    return this.cons < this.db && this.slotDone[this.cons & this.mask]! <= now;
  }

  /** Release the oldest descriptor (completed, or consumed by a peer); returns its slot, whose page and packet are now cleared (read them first). */
  retire(): number {
    const s = this.cons & this.mask;
    this.slotPage[s] = -1;
    this.slotPkt[s] = -1;
    this.slotDone[s] = Infinity;
    this.cons++;
    return s;
  }

  /**
   * Reap the completions due by `cpu.now`, oldest first, charging `step`
   * for each; the clock moves with every charge, so a frame that finishes
   * meanwhile is reaped too. `done` gets each frame's page and packet
   * (its slot's data and length are still readable). Returns how many.
   */
  reap(m: Machine, cpu: Cpu, step: number, done: (page: number, packet: number, slot: number) => void): number {
    let n = 0;
    while (this.completed(cpu.now)) {
      const s = this.cons & this.mask;
      const page = this.slotPage[s]!;
      const packet = this.slotPkt[s]!;
      m.charge(cpu, step);
      this.retire();
      done(page, packet, s);
      n++;
    }
    return n;
  }

  /** Port stop: release every frame still on the ring (sent or not); returns how many. */
  flush(release: (page: number) => void): number {
    const n = this.prod - this.cons;
    while (this.cons < this.prod) {
      const page = this.slotPage[this.cons & this.mask]!;
      this.retire();
      release(page);
    }
    this.db = this.prod;
    return n;
  }

  /** Visit the page of every frame on the ring. */
  forEachPage(visit: (page: number, slot: number) => void): void {
    for (let i = this.cons; i < this.prod; i++) visit(this.slotPage[i & this.mask]!, i & this.mask);
  }
}

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
    const frames = r.tx.ring(this.wire, cpu.now + this.latency);
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
