/**
 * XDP_REDIRECT into a DEVMAP (kernel/bpf/devmap.c): each CPU keeps a bulk
 * queue of up to DEV_MAP_BULK_SIZE frames per target device; a full queue,
 * or xdp_do_flush at the end of the NAPI poll, hands the whole bulk to the
 * target's ndo_xdp_xmit — one call and one doorbell per bulk, which is the
 * point of bulking. The target here is a second NIC port with its own tx
 * ring: frames go out at wire speed and their completion returns the pages
 * (xdp_return_frame: a foreign page is simply freed).
 */
import type { Cpu, Machine } from './machine';
import { S as CostSteps } from './cost';
import { K as TraceKinds } from './trace';
import { PageLoc as PageLocEnum } from './page_alloc';

const S = { ...CostSteps };
const K = { ...TraceKinds };
const LOC_REDIRECT = PageLocEnum.REDIRECT;
const LOC_TX = PageLocEnum.TX_RING;

/** DEV_MAP_BULK_SIZE. */
export const DEV_MAP_BULK_SIZE = 16;

export class DevmapTarget {
  /** Per CPU: the bulk queue (pages, packets, lengths). */
  readonly bq: { pages: Int32Array; packets: Float64Array; lens: Int32Array; n: number }[];
  /** The target port's tx ring. */
  readonly txPage: Int32Array;
  readonly txPkt: Float64Array;
  readonly txDone: Float64Array;
  txProd = 0;
  txCons = 0;
  readonly mask: number;
  private wireFree = 0;
  private readonly cyclesPerByte: number;
  private readonly latency: number;
  flushes = 0;
  xmitDropped = 0;
  sent = 0;
  /** Frames per flush, for the UI and tests. */
  readonly flushSizes: number[] = [];

  constructor(
    readonly m: Machine,
    readonly txSize: number,
  ) {
    this.bq = m.cpus.map(() => ({ pages: new Int32Array(DEV_MAP_BULK_SIZE), packets: new Float64Array(DEV_MAP_BULK_SIZE), lens: new Int32Array(DEV_MAP_BULK_SIZE), n: 0 }));
    this.txPage = new Int32Array(txSize).fill(-1);
    this.txPkt = new Float64Array(txSize).fill(-1);
    this.txDone = new Float64Array(txSize).fill(Infinity);
    this.mask = txSize - 1;
    this.cyclesPerByte = (8 / m.cfg.hw.linkGbps) * m.cyclesPerNs;
    this.latency = m.cfg.hw.txLatencyNs * m.cyclesPerNs;
  }

  /** dev_map_enqueue → bq_enqueue: queue the frame; a full queue flushes first-in-line. */
  enqueue(cpu: Cpu, page: number, packet: number, len: number): void {
    const q = this.bq[cpu.id]!;
    this.m.charge(cpu, S.devmap_enqueue);
    q.pages[q.n] = page;
    q.packets[q.n] = packet;
    q.lens[q.n] = len;
    q.n++;
    this.m.alloc.loc[page] = LOC_REDIRECT;
    if (q.n === DEV_MAP_BULK_SIZE) this.bq_xmit_all(cpu);
  }

  /** __dev_flush (from xdp_do_flush): send this CPU's pending bulk. */
  flush(cpu: Cpu): void {
    if (this.bq[cpu.id]!.n > 0) this.bq_xmit_all(cpu);
  }

  /** bq_xmit_all: one ndo_xdp_xmit for the bulk; frames that do not fit are dropped (xdp_return_frame). */
  private bq_xmit_all(cpu: Cpu): void {
    const q = this.bq[cpu.id]!;
    const m = this.m;
    const tr = m.trace;
    m.charge(cpu, S.devmap_xmit);
    this.flushes++;
    this.flushSizes.push(q.n);
    let t = cpu.now + this.latency;
    for (let k = 0; k < q.n; k++) {
      const page = q.pages[k]!;
      if (this.txProd - this.txCons >= this.txSize) {
        this.xmitDropped++;
        m.alloc.free(page);
        continue;
      }
      m.charge(cpu, S.devmap_xmit_frame);
      const s = this.txProd & this.mask;
      const start = Math.max(t, this.wireFree);
      const done = start + (Math.max(q.lens[k]!, 60) + 24) * this.cyclesPerByte;
      this.wireFree = done;
      t = start;
      this.txPage[s] = page;
      this.txPkt[s] = q.packets[k]!;
      this.txDone[s] = done;
      m.alloc.loc[page] = LOC_TX;
      this.txProd++;
    }
    m.charge(cpu, S.tx_doorbell);
    if (tr.on) tr.emit(K.tx_doorbell, cpu.now, cpu.id, -1, -1, -1, -1, q.n);
    q.n = 0;
  }

  /** The target's tx completions up to `now`: pages freed. Returns frames completed. */
  complete(cpu: Cpu): number {
    let n = 0;
    while (this.txCons < this.txProd && this.txDone[this.txCons & this.mask]! <= cpu.now) {
      const s = this.txCons & this.mask;
      this.m.charge(cpu, S.xdp_return_frame);
      this.m.alloc.free(this.txPage[s]!);
      this.txPage[s] = -1;
      this.txPkt[s] = -1;
      this.txDone[s] = Infinity;
      this.txCons++;
      this.sent++;
      n++;
    }
    return n;
  }

  /** Frames queued or on the target's tx ring. */
  inTransit(): number {
    return this.bq.reduce((a, q) => a + q.n, 0) + (this.txProd - this.txCons);
  }

  /** The earliest pending tx completion (for the interrupt that reaps it). */
  nextDone(): number {
    return this.txCons < this.txProd ? this.txDone[this.txCons & this.mask]! : Infinity;
  }

  forEachPageRef(visit: (page: number, loc: PageLocEnum, what: string) => void): void {
    this.bq.forEach((q, c) => {
      for (let k = 0; k < q.n; k++) visit(q.pages[k]!, LOC_REDIRECT, `devmap bulk queue cpu ${c}`);
    });
    for (let i = this.txCons; i < this.txProd; i++) visit(this.txPage[i & this.mask]!, LOC_TX, `redirect target tx ring slot ${i & this.mask}`);
  }
}
