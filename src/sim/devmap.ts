/**
 * XDP_REDIRECT into a DEVMAP (kernel/bpf/devmap.c): each CPU keeps a bulk
 * queue of up to DEV_MAP_BULK_SIZE frames per target device; a full queue,
 * or xdp_do_flush at the end of the NAPI poll, hands the whole bulk to the
 * target's ndo_xdp_xmit — one call and one doorbell per bulk, which is the
 * point of bulking.
 *
 * Targets:
 *   'nic'  a second NIC port (mlx4_en_xdp_xmit / i40e_xdp_xmit): frames go
 *          on its XDP tx ring, out at wire speed; tx completion
 *          (i40e_clean_tx_irq) returns each frame (xdp_return_frame).
 *   'veth' a veth device: veth_xdp_xmit puts frames on the peer's ptr_ring
 *          (VETH_RING_SIZE) and schedules the peer's NAPI on this CPU;
 *          veth_poll runs the peer's XDP program (XDP_DROP in seed 002)
 *          and returns the frames.
 * A devmap entry may carry its own program (BPF_XDP_DEVMAP). Before the
 * 2021 patch (seed 002) dev_map_enqueue ran it on each frame as it was
 * enqueued; after it, bq_xmit_all runs it over the whole bulk at flush time.
 * A target that cannot transmit XDP frames (no XDP tx rings, or a veth
 * peer with no program) makes ndo_xdp_xmit fail: every frame of the bulk
 * is dropped, counted as a redirect error and traced with the reason.
 *
 * It promises: every frame it was given is, at any moment, in exactly one
 * place (a bulk queue, the target's ring) or finished (`finished`, `errors`).
 */
import type { Cpu, Machine } from './machine';
import { J } from './journey';
import { PAGE_SIZE as PAGE_SIZE_, PageLoc as PageLocEnum, pageAddr as pageAddr_ } from './page_alloc';
import { XdpBuff, type XdpHook } from './program';
import { TxWire, wireCyclesPerByte } from './wire';
import { XdpTxRing } from './nic/xdp_tx_ring';
import { bpf_prog_run_xdp as runXdp, xdp_prepare_buff as prepareBuff } from './nic/xdp_run';

// Numbers read per packet, as file-local const enums: the transpiler writes each use as a
// literal (an imported binding is a getter under tsx/vitest; a module-level object is a load
// and checks). tests/unit/sim-const-enums.test.ts holds each to its definition.
const enum S { xdp_run = 6, tx_doorbell = 23, tx_complete = 25, skb_free = 41, xdp_return_frame = 49, devmap_enqueue = 54, devmap_xmit = 55, devmap_xmit_frame = 56, devmap_prog_enqueue = 57, devmap_prog_flush = 58, devmap_bq_prepatch = 59, veth_xdp_xmit_frame = 60, veth_poll = 61, veth_xdp_rcv_one = 62, generic_dev_xmit = 63, generic_veth_xmit = 64 }
const enum K { xdp_exception = 7, xdp_drop = 8, tx_doorbell = 20 }
const LOC_REDIRECT = PageLocEnum.REDIRECT;
const LOC_TX = PageLocEnum.TX_RING;
const LOC_IN_FLIGHT = PageLocEnum.IN_FLIGHT;
// Read for every frame a devmap or veth program runs on: local copies (an imported binding is a getter call under tsx/vitest).
const PAGE_SIZE = PAGE_SIZE_;
const pageAddr = pageAddr_;
/** enum xdp_action (include/uapi/linux/bpf.h). */
const enum xdp_action { XDP_ABORTED = 0, XDP_DROP = 1, XDP_PASS = 2, XDP_TX = 3, XDP_REDIRECT = 4 }
const bpf_prog_run_xdp = runXdp;
const xdp_prepare_buff = prepareBuff;

/** DEV_MAP_BULK_SIZE. */
export const DEV_MAP_BULK_SIZE = 16;
/** VETH_RING_SIZE: the peer's xdp ptr_ring. */
export const VETH_RING_SIZE = 256;
/** veth_poll's budget: the NAPI budget. */
const VETH_NAPI_BUDGET = 64;
/** ENXIO: what ndo_xdp_xmit returns when the target has no way to send XDP frames. */
export const ENXIO = 6;

export interface DevmapTargetOptions {
  kind: 'nic' | 'veth';
  /** The target device's name, for messages. */
  name: string;
  /** Can the target send XDP frames (i40e: XDP tx rings exist; veth: the peer has a program)? */
  xdpCapable: boolean;
  /** The program on the devmap entry (BPF_XDP_DEVMAP), if any. */
  devProg: XdpHook | null;
  /** Seed 002's patch: run the devmap program at flush (true) or at enqueue (false). */
  runProgAtFlush: boolean;
  /** The veth peer's program (seed 002: XDP_DROP). */
  peerProg: XdpHook | null;
  /** xdp_return_frame: where a finished frame's page goes (default: the page allocator). */
  returnFrame?: (cpu: Cpu, page: number) => void;
  /** A message shown once (the driver's warnings list). */
  warn?: (msg: string) => void;
}

export class DevmapTarget {
  readonly type = 'devmap' as const;
  /** Per CPU: the bulk queue (pages, packets, frame data offsets in memory, lengths). */
  readonly bq: { pages: Int32Array; packets: Float64Array; datas: Float64Array; lens: Int32Array; n: number }[];
  /** The target port's XDP tx ring ('nic'), or the veth peer's ptr_ring ('veth': a frame is there once posted). */
  readonly tx: XdpTxRing;
  /** The target port's wire. */
  private readonly wire: TxWire;
  private readonly latency: number;
  private readonly x = new XdpBuff();
  readonly opts: DevmapTargetOptions;
  flushes = 0;
  /** Frames ndo_xdp_xmit could not place (ring full). */
  xmitDropped = 0;
  /** Frames the devmap program dropped. */
  progDropped = 0;
  sent = 0;
  /** Frames with a final fate: sent, or dropped by the ring, the devmap program or the veth peer. */
  finished = 0;
  /** Frames dropped because the target cannot transmit XDP frames (redirect errors). */
  errors = 0;
  /** Frames per flush, for the UI and tests (the last 1024). */
  readonly flushSizes: number[] = [];
  /** Every flush by bulk size (index 0..DEV_MAP_BULK_SIZE), unbounded: the UI's histogram. */
  readonly flushHist = new Float64Array(DEV_MAP_BULK_SIZE + 1);
  private warned = false;
  // The options as plain fields, decided once (the entry and its target do not change): read on every frame.
  private readonly veth: boolean;
  /** The entry's program when it runs at enqueue (before the flush patch), else null. */
  private readonly progAtEnqueue: XdpHook | null;
  /** The entry's program when it runs at flush (after the patch), else null. */
  private readonly progAtFlush: XdpHook | null;
  /** Before the flush patch: bq_enqueue's per-frame bookkeeping. */
  private readonly bqPrepatch: boolean;
  private readonly returnTo: DevmapTargetOptions['returnFrame'];

  constructor(
    readonly m: Machine,
    txSize: number,
    opts: Partial<DevmapTargetOptions> = {},
  ) {
    this.opts = { kind: 'nic', name: 'port 2', xdpCapable: true, devProg: null, runProgAtFlush: true, peerProg: null, ...opts };
    this.tx = new XdpTxRing(this.opts.kind === 'veth' ? VETH_RING_SIZE : txSize);
    this.bq = m.cpus.map(() => ({
      pages: new Int32Array(DEV_MAP_BULK_SIZE),
      packets: new Float64Array(DEV_MAP_BULK_SIZE),
      datas: new Float64Array(DEV_MAP_BULK_SIZE),
      lens: new Int32Array(DEV_MAP_BULK_SIZE),
      n: 0,
    }));
    this.wire = new TxWire(wireCyclesPerByte(m.cfg.hw.linkGbps, m.cyclesPerNs));
    this.latency = m.cfg.hw.txLatencyNs * m.cyclesPerNs;
    const o = this.opts;
    this.veth = o.kind === 'veth';
    this.progAtEnqueue = o.devProg && !o.runProgAtFlush ? o.devProg : null;
    this.progAtFlush = o.devProg && o.runProgAtFlush ? o.devProg : null;
    this.bqPrepatch = !m.cfg.devmapFlushPatch;
    this.returnTo = o.returnFrame;
  }

  /** xdp_return_frame: the page goes back to its owner (the rx ring's recycling, or the allocator). */
  private returnFrame(cpu: Cpu, page: number, packet: number): void {
    const m = this.m;
    m.charge(cpu, S.xdp_return_frame);
    if (this.returnTo) this.returnTo(cpu, page);
    else m.alloc.free(page);
    if (m.journey.on) {
      const loc = m.alloc.loc[page]!;
      m.journey.add(J.xdp_return_frame, cpu.now, cpu.id, packet, page, loc, loc === PageLocEnum.PAGE_CACHE ? 1 : 0);
    }
  }

  /**
   * dev_map_run_prog / dev_map_bpf_prog_run_skb's XDP twin: run the entry's
   * program on one frame. Returns true when the frame goes on (XDP_PASS).
   */
  private dev_map_run_prog(cpu: Cpu, prog: XdpHook, page: number, packet: number, data: number, len: number): boolean {
    const m = this.m;
    const x = this.x;
    // The devmap's own xdp_buff: rx_queue_index 0 (no rx queue of this device).
    xdp_prepare_buff(x, m.alloc.memory, pageAddr(page), data, len, PAGE_SIZE, 0);
    let act = bpf_prog_run_xdp(m, cpu, prog, x);
    if (x.fault !== undefined) act = xdp_action.XDP_ABORTED;
    if (act === xdp_action.XDP_PASS) return true;
    // Anything else drops the frame (the kernel warns on TX/REDIRECT from a devmap program).
    const tr = m.trace;
    if (tr.on) tr.emit(act === xdp_action.XDP_ABORTED || act === xdp_action.XDP_REDIRECT ? K.xdp_exception : K.xdp_drop, cpu.now, cpu.id, -1, -1, packet, page, act);
    this.progDropped++;
    this.finished++;
    this.returnFrame(cpu, page, packet);
    return false;
  }

  /** dev_map_enqueue → bq_enqueue: queue the frame; a full queue flushes first. */
  enqueue(cpu: Cpu, page: number, packet: number, data: number, len: number): void {
    const q = this.bq[cpu.id]!;
    const m = this.m;
    m.charge(cpu, S.devmap_enqueue);
    const prog = this.progAtEnqueue;
    if (prog) {
      // Before the flush patch: the entry's program runs here, one frame at a time.
      m.charge(cpu, S.devmap_prog_enqueue);
      if (!this.dev_map_run_prog(cpu, prog, page, packet, data, len)) return;
    }
    // Before the patch bq_enqueue set dev_rx/xdp_prog/flush_node on every frame (bq_xmit_all cleared them).
    if (this.bqPrepatch) m.charge(cpu, S.devmap_bq_prepatch);
    let n = q.n;
    if (n === DEV_MAP_BULK_SIZE) {
      this.bq_xmit_all(cpu, true);
      n = 0;
    }
    q.pages[n] = page;
    q.packets[n] = packet;
    q.datas[n] = data;
    q.lens[n] = len;
    q.n = ++n;
    m.alloc.loc[page] = LOC_REDIRECT;
    if (m.journey.on) m.journey.add(J.bq_enqueue, cpu.now, cpu.id, packet, page, n, DEV_MAP_BULK_SIZE);
  }

  /** __dev_flush (from xdp_do_flush): send this CPU's pending bulk. */
  flush(cpu: Cpu): void {
    if (this.bq[cpu.id]!.n > 0) this.bq_xmit_all(cpu, false);
  }

  /**
   * bq_xmit_all: after the patch, the entry's program runs over the bulk
   * first (dev_map_bpf_prog_run), then one ndo_xdp_xmit for what is left.
   */
  private bq_xmit_all(cpu: Cpu, full: boolean): void {
    const q = this.bq[cpu.id]!;
    const m = this.m;
    const tr = m.trace;
    m.charge(cpu, S.devmap_xmit);
    if (m.journey.on) for (let k = 0; k < q.n; k++) m.journey.add(J.bq_xmit_all, cpu.now, cpu.id, q.packets[k]!, q.pages[k]!, q.n, full ? 1 : 0);
    this.flushes++;
    if (this.flushSizes.length < 1024) this.flushSizes.push(q.n);
    this.flushHist[q.n] = (this.flushHist[q.n] ?? 0) + 1;
    let n = q.n;
    const prog = this.progAtFlush;
    if (prog) {
      let kept = 0;
      for (let k = 0; k < n; k++) {
        m.charge(cpu, S.devmap_prog_flush);
        const page = q.pages[k]!;
        m.alloc.loc[page] = LOC_IN_FLIGHT;
        if (!this.dev_map_run_prog(cpu, prog, page, q.packets[k]!, q.datas[k]!, q.lens[k]!)) continue;
        m.alloc.loc[page] = LOC_REDIRECT;
        q.pages[kept] = page;
        q.packets[kept] = q.packets[k]!;
        q.datas[kept] = q.datas[k]!;
        q.lens[kept] = q.lens[k]!;
        kept++;
      }
      n = kept;
    }
    q.n = 0;
    if (n === 0) return;
    if (!this.opts.xdpCapable) {
      // ndo_xdp_xmit returned -ENXIO: bq_xmit_all frees the bulk; trace_xdp_devmap_xmit reports the error.
      const why =
        this.opts.kind === 'veth'
          ? `${this.opts.name}: veth_xdp_xmit: -ENXIO: the peer has no XDP program, so it cannot receive XDP frames (load one on the peer)`
          : `${this.opts.name}: ndo_xdp_xmit: -ENXIO: no XDP tx rings on the target (load an XDP program on it)`;
      if (!this.warned && this.opts.warn) this.opts.warn(why);
      this.warned = true;
      for (let k = 0; k < n; k++) {
        const page = q.pages[k]!;
        if (tr.on) tr.emit(K.xdp_exception, cpu.now, cpu.id, -1, -1, q.packets[k]!, page, -ENXIO);
        if (m.journey.on) m.journey.add(J.xdp_drop_frame, cpu.now, cpu.id, q.packets[k]!, page, 2, 0);
        this.errors++;
        this.returnFrame(cpu, page, q.packets[k]!);
      }
      return;
    }
    if (this.veth) this.veth_xdp_xmit(cpu, q, n);
    else this.ndo_xdp_xmit_nic(cpu, q, n);
  }

  /** i40e_xdp_xmit / mlx4_en_xdp_xmit: descriptors on the target's XDP tx ring, one doorbell. */
  private ndo_xdp_xmit_nic(cpu: Cpu, q: DevmapTarget['bq'][number], n: number): void {
    const m = this.m;
    const tr = m.trace;
    const j = m.journey;
    const loc = m.alloc.loc;
    const tx = this.tx;
    const { pages, packets, datas, lens } = q;
    // The NIC fetches the whole bulk from when the driver starts writing it.
    const at = cpu.now + this.latency;
    // Nothing completes meanwhile: the ring has this much room for the whole bulk.
    const room = tx.size - (tx.prod - tx.cons);
    for (let k = 0; k < n; k++) {
      const page = pages[k]!;
      const packet = packets[k]!;
      if (k >= room) {
        this.xmitDropped++;
        this.finished++;
        if (j.on) j.add(J.xdp_drop_frame, cpu.now, cpu.id, packet, page, 1, 0);
        this.returnFrame(cpu, page, packet);
        continue;
      }
      m.charge(cpu, S.devmap_xmit_frame);
      const slot = tx.post(page, packet, datas[k]!, lens[k]!);
      if (j.on) j.add(J.ndo_xdp_xmit, cpu.now, cpu.id, packet, page, slot, 0);
      loc[page] = LOC_TX;
    }
    const from = tx.db;
    tx.ring(this.wire, at);
    m.charge(cpu, S.tx_doorbell);
    if (j.on) for (let i = from; i < tx.db; i++) j.add(J.tx_doorbell, cpu.now, cpu.id, tx.slotPkt[i & tx.mask]!, tx.slotPage[i & tx.mask]!, tx.db - from, i & tx.mask);
    if (tr.on) tr.emit(K.tx_doorbell, cpu.now, cpu.id, -1, -1, -1, -1, n);
  }

  /** veth_xdp_xmit: frames onto the peer's ptr_ring (full → dropped), then __veth_xdp_flush schedules its NAPI. */
  private veth_xdp_xmit(cpu: Cpu, q: DevmapTarget['bq'][number], n: number): void {
    const m = this.m;
    const j = m.journey;
    const loc = m.alloc.loc;
    const tx = this.tx;
    const { pages, packets, datas, lens } = q;
    for (let k = 0; k < n; k++) {
      const page = pages[k]!;
      const packet = packets[k]!;
      if (tx.full()) {
        this.xmitDropped++;
        this.finished++;
        if (j.on) j.add(J.xdp_drop_frame, cpu.now, cpu.id, packet, page, 1, 0);
        this.returnFrame(cpu, page, packet);
        continue;
      }
      m.charge(cpu, S.veth_xdp_xmit_frame);
      const slot = tx.post(page, packet, datas[k]!, lens[k]!);
      if (j.on) j.add(J.ndo_xdp_xmit, cpu.now, cpu.id, packet, page, slot, 0);
      tx.ready(cpu.now);
      loc[page] = LOC_REDIRECT;
    }
  }

  /**
   * veth_poll on this CPU (net_rx_action runs the NAPI the flush scheduled):
   * veth_xdp_rcv takes up to a budget of frames from the ptr_ring and runs
   * the peer's program on each. Returns frames finished.
   */
  veth_poll(cpu: Cpu): number {
    const tx = this.tx;
    if (!this.veth || tx.cons === tx.prod) return 0;
    const m = this.m;
    const tr = m.trace;
    const j = m.journey;
    const x = this.x;
    const prog = this.opts.peerProg;
    m.charge(cpu, S.veth_poll);
    let n = 0;
    while (tx.cons < tx.prod && n < VETH_NAPI_BUDGET) {
      const s = tx.cons & tx.mask;
      const page = tx.slotPage[s]!;
      const packet = tx.slotPkt[s]!;
      m.charge(cpu, S.veth_xdp_rcv_one);
      let act = xdp_action.XDP_PASS;
      if (prog) {
        // The peer's verdict is all that counts here: a fault is not told apart.
        xdp_prepare_buff(x, m.alloc.memory, pageAddr(page), tx.slotData[s]!, tx.slotLen[s]!, PAGE_SIZE, 0);
        act = bpf_prog_run_xdp(m, cpu, prog, x);
      }
      if (tr.on) tr.emit(K.xdp_drop, cpu.now, cpu.id, -1, s, packet, page, act);
      if (j.on) j.add(J.veth_xdp_rcv, cpu.now, cpu.id, packet, page, act, s);
      // The peer's verdict ends the frame here either way: the model has no stack behind the veth.
      tx.retire();
      this.sent++;
      this.finished++;
      this.returnFrame(cpu, page, packet);
      n++;
    }
    return n;
  }

  /** The target's tx completions up to `now` (i40e_clean_tx_irq): frames returned. */
  complete(cpu: Cpu): number {
    const tx = this.tx;
    if (this.veth || !tx.completed(cpu.now)) return 0;
    const m = this.m;
    const j = m.journey;
    let n = 0;
    // The ring's completed/retire, as XdpXmit.process_tx_cq: tx.reap's callback would be a call per frame here.
    while (tx.completed(cpu.now)) {
      const s = tx.cons & tx.mask;
      const page = tx.slotPage[s]!;
      const packet = tx.slotPkt[s]!;
      m.charge(cpu, S.tx_complete);
      if (j.on) {
        j.add(J.xmit, tx.slotDone[s]!, -1, packet, page, tx.slotLen[s]!, s);
        j.add(J.tx_clean, cpu.now, cpu.id, packet, page, s, 0);
      }
      tx.retire();
      this.returnFrame(cpu, page, packet);
      n++;
    }
    // Nothing reads them while frames are returned: counted once for the batch.
    this.sent += n;
    this.finished += n;
    return n;
  }

  /**
   * Generic (skb-mode) XDP's redirect (xdp_do_generic_redirect →
   * dev_map_generic_redirect → dev_queue_xmit): no bulking, one skb and one
   * doorbell per packet; a veth target forwards the skb to its peer, whose
   * program runs on the skb (veth_xdp_rcv_skb) and drops it.
   */
  genericXmit(cpu: Cpu, page: number, packet: number, len: number): void {
    const m = this.m;
    const tr = m.trace;
    if (this.opts.kind === 'veth') {
      m.charge(cpu, S.generic_veth_xmit);
      if (this.opts.peerProg) m.charge(cpu, S.xdp_run);
      this.sent++;
      this.finished++;
      if (tr.on) tr.emit(K.xdp_drop, cpu.now, cpu.id, -1, -1, packet, page, 0);
      m.charge(cpu, S.skb_free);
      this.returnFrame(cpu, page, packet);
      return;
    }
    m.charge(cpu, S.generic_dev_xmit);
    const tx = this.tx;
    if (tx.full()) {
      this.xmitDropped++;
      this.finished++;
      m.charge(cpu, S.skb_free);
      this.returnFrame(cpu, page, packet);
      return;
    }
    tx.post(page, packet, -1, len);
    tx.ring(this.wire, cpu.now + this.latency);
    m.alloc.loc[page] = LOC_TX;
    m.charge(cpu, S.tx_doorbell);
    if (tr.on) tr.emit(K.tx_doorbell, cpu.now, cpu.id, -1, -1, packet, page, 1);
  }

  /** Frames queued, on the target's ring, or on the veth peer's ring. */
  inTransit(): number {
    return this.bq.reduce((a, q) => a + q.n, 0) + (this.tx.prod - this.tx.cons);
  }

  /** The earliest pending tx completion (for the interrupt that reaps it); veth work is done in the poll. */
  nextDone(): number {
    if (this.veth) return Infinity;
    return this.tx.nextDone();
  }

  forEachPageRef(visit: (page: number, loc: PageLocEnum, what: string) => void): void {
    this.bq.forEach((q, c) => {
      for (let k = 0; k < q.n; k++) visit(q.pages[k]!, LOC_REDIRECT, `devmap bulk queue cpu ${c}`);
    });
    const veth = this.opts.kind === 'veth';
    this.tx.forEachPage((page, s) => visit(page, veth ? LOC_REDIRECT : LOC_TX, `${this.opts.name} ${veth ? 'peer ptr_ring' : 'tx ring'} slot ${s}`));
  }
}
