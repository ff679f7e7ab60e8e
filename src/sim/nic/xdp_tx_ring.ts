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
 * driver (./xdp_xmit.ts for the rx rings' tx rings; devmap.ts and
 * i40e_xsk.ts for their own rings).
 */
import type { Cpu, Machine } from '../machine';
import type { TxWire } from '../wire';
import { column } from '../column';

export class XdpTxRing {
  readonly mask: number;
  // Plain arrays, not typed ones (../column.ts says why), as the rx ring's.
  readonly slotPage: number[];
  /** Where the frame's data starts (an offset into the page memory, or a UMEM address). */
  readonly slotData: number[];
  readonly slotLen: number[];
  readonly slotPkt: number[];
  /** When the NIC finishes sending (Infinity until the doorbell is rung). */
  readonly slotDone: number[];
  /** Descriptors written. */
  prod = 0;
  /** Descriptors the NIC has been told about (doorbell). */
  db = 0;
  /** Completions processed. */
  cons = 0;
  constructor(readonly size: number) {
    this.mask = size - 1;
    this.slotPage = column(size, -1);
    this.slotData = column(size, 0);
    this.slotLen = column(size, 0);
    this.slotPkt = column(size, -1);
    this.slotDone = column(size, Infinity);
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
    // slotDone[s] is Infinity already: a free slot is one retire() released (or never used).
    this.prod++;
    return s;
  }

  /** The doorbell: the NIC fetches every written descriptor at `at` and sends them on `wire`. Returns how many. */
  ring(wire: TxWire, at: number): number {
    const prod = this.prod;
    const mask = this.mask;
    const done = this.slotDone;
    const len = this.slotLen;
    const frames = prod - this.db;
    // The doorbell index in a local: a bulk's worth of frames per call, each a field load and store less.
    for (let i = this.db; i < prod; i++) done[i & mask] = wire.send(at, len[i & mask]!);
    this.db = prod;
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
   * (its slot's data and length are still readable) and when the wire
   * finished it. Returns how many.
   */
  reap(m: Machine, cpu: Cpu, step: number, done: (page: number, packet: number, slot: number, sentAt: number) => void): number {
    let n = 0;
    while (this.completed(cpu.now)) {
      const s = this.cons & this.mask;
      const page = this.slotPage[s]!;
      const packet = this.slotPkt[s]!;
      const sentAt = this.slotDone[s]!;
      m.charge(cpu, step);
      this.retire();
      done(page, packet, s, sentAt);
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
