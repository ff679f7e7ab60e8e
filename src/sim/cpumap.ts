/**
 * XDP_REDIRECT into a CPUMAP (kernel/bpf/cpumap.c), beside the devmap: each
 * rx ring keeps a bulk queue of up to CPU_MAP_BULK_SIZE frames for the
 * remote CPU; a full queue, or xdp_do_flush at the end of the NAPI poll
 * (cpu_map_flush → bq_flush_to_queue), moves the whole bulk onto the remote
 * CPU's ptr_ring at once. The remote CPU's kthread is not modelled as busy:
 * it drops every frame (xdp_redirect_cpu -e drop), handing the page back
 * to the driver that owns it (the driver's returnFrame).
 *
 * Generic (skb-mode) XDP has no bulk queue: each skb goes onto the remote
 * ring at once (consume).
 *
 * It promises: every frame given to it is in a bulk queue or finished
 * (counted in the ring's redirect_done).
 */
import type { Cpu, Machine } from './machine';
import { PageLoc } from './page_alloc';
import { J } from './journey';
import type { RxRing } from './nic/rx_ring';

// Numbers read per packet, as file-local const enums: the transpiler writes each use as a
// literal (an imported binding is a getter under tsx/vitest; a module-level object is a load
// and checks). tests/unit/sim-const-enums.test.ts holds each to its definition.
const enum S { cpumap_enqueue = 50, cpumap_flush = 51, cpumap_generic_wake = 52, xdp_do_flush = 53 }
const LOC_REDIRECT = PageLoc.REDIRECT;

/** CPU_MAP_BULK_SIZE: frames per cpumap bulk queue flush. */
export const CPU_MAP_BULK_SIZE = 8;

/** One rx ring's bulk queue for the remote CPU. */
export interface CpumapBulkQueue {
  readonly pages: Int32Array;
  readonly packets: Float64Array;
  n: number;
}

export class CpumapTarget {
  readonly type = 'cpumap' as const;
  /** Per rx ring: the bulk queue (pages, packets). */
  readonly bq: CpumapBulkQueue[];
  /** Every flush by bulk size (index 0..CPU_MAP_BULK_SIZE): the UI's histogram. */
  readonly flushHist = new Float64Array(CPU_MAP_BULK_SIZE + 1);

  constructor(
    private readonly m: Machine,
    /** The rx rings whose frames it carries (their counters count the finished frames). */
    readonly rings: readonly RxRing[],
    /** The remote CPU is done with a frame: its page goes back to its owner (pooled: a page_pool page). */
    private readonly returnFrame: (r: RxRing, page: number, pooled: boolean) => void,
  ) {
    this.bq = rings.map(() => ({ pages: new Int32Array(CPU_MAP_BULK_SIZE), packets: new Float64Array(CPU_MAP_BULK_SIZE), n: 0 }));
  }

  /** cpu_map_enqueue → bq_enqueue: into r's bulk queue; a full queue is flushed at once. */
  enqueue(cpu: Cpu, r: RxRing, page: number, packet: number): void {
    this.m.charge(cpu, S.cpumap_enqueue);
    const q = this.bq[r.index]!;
    q.pages[q.n] = page;
    q.packets[q.n] = packet;
    q.n++;
    this.m.alloc.loc[page] = LOC_REDIRECT;
    const j = this.m.journey;
    if (j.on) j.add(J.cpu_map_enqueue, cpu.now, cpu.id, packet, page, q.n, CPU_MAP_BULK_SIZE);
    if (q.n === CPU_MAP_BULK_SIZE) this.flush(cpu, r, true);
  }

  /** bq_flush_to_queue: the bulk onto the remote CPU's ptr_ring (its kthread drops them: `-e drop`). */
  bq_flush_to_queue(cpu: Cpu, r: RxRing): void {
    this.flush(cpu, r, false);
  }

  /** bq_flush_to_queue, saying (for the journey) whether a full queue forced it. */
  private flush(cpu: Cpu, r: RxRing, full: boolean): void {
    const q = this.bq[r.index]!;
    if (q.n === 0) return;
    this.flushHist[q.n] = (this.flushHist[q.n] ?? 0) + 1;
    const j = this.m.journey;
    if (j.on) for (let k = 0; k < q.n; k++) j.add(J.bq_flush_to_queue, cpu.now, cpu.id, q.packets[k]!, q.pages[k]!, q.n, full ? 1 : 0);
    this.m.chargeTimes(cpu, S.cpumap_flush, q.n);
    for (let k = 0; k < q.n; k++) this.consume(cpu, r, q.pages[k]!, true, q.packets[k]!);
    q.n = 0;
  }

  /** xdp_do_flush at the end of r's poll (nothing to do: nothing charged). */
  xdp_do_flush(cpu: Cpu, r: RxRing): void {
    if (this.bq[r.index]!.n === 0) return;
    this.m.charge(cpu, S.xdp_do_flush);
    this.bq_flush_to_queue(cpu, r);
  }

  /** Generic XDP: one skb straight onto the remote ring (charged per frame). */
  generic_enqueue(cpu: Cpu, r: RxRing, page: number): void {
    this.m.charge(cpu, S.cpumap_flush);
    this.m.charge(cpu, S.cpumap_generic_wake);
    this.consume(cpu, r, page, false, -1);
  }

  /** The remote CPU takes a frame off its ring and drops it. */
  private consume(cpu: Cpu, r: RxRing, page: number, pooled: boolean, packet: number): void {
    r.c.redirect_done++;
    this.returnFrame(r, page, pooled);
    const j = this.m.journey;
    if (j.on && packet >= 0) {
      const loc = this.m.alloc.loc[page]!;
      j.add(J.cpu_map_kthread_run, cpu.now, -2, packet, page, 0, 0);
      j.add(J.xdp_return_frame, cpu.now, -2, packet, page, loc, loc === PageLoc.PAGE_CACHE ? (pooled ? 2 : 1) : 0);
    }
  }

  /** Queue stop: frames still queued are freed (counted finished). */
  stop(r: RxRing): void {
    const q = this.bq[r.index]!;
    for (let k = 0; k < q.n; k++) {
      this.m.alloc.free(q.pages[k]!);
      r.c.redirect_done++;
    }
    q.n = 0;
  }

  inTransit(): number {
    return this.bq.reduce((a, q) => a + q.n, 0);
  }

  /** Visit the pages queued for ring i (the invariant checker). */
  forEachPageRef(i: number, visit: (page: number, loc: PageLoc, what: string) => void): void {
    const q = this.bq[i]!;
    for (let k = 0; k < q.n; k++) visit(q.pages[k]!, LOC_REDIRECT, `cpumap bulk queue ${i}`);
  }
}
