/**
 * The rx model the 2016 XDP series drivers share (mlx4 and, in this
 * simulator, i40e's native XDP path): without XDP, order-3 pages carved
 * into fragments; with XDP, one order-0 page per packet with
 * XDP_PACKET_HEADROOM; the verdicts (XDP_PASS builds an skb, XDP_TX posts
 * on the rx ring's own XDP tx ring with doorbell batching, XDP_REDIRECT
 * into a devmap entry, XDP_DROP/ABORTED recycle the page), port stop/start
 * on attach, and stack delivery. It implements the shared NAPI loop's hooks
 * (./napi.ts).
 *
 * What differs per driver is abstract here and lives in the driver's own
 * file: where a dropped or transmitted page is recycled and where refill
 * takes pages back from (mlx4.ts: the page cache, mlx4_en_rx_recycle;
 * i40e.ts: i40e's page reuse), and generic (skb-mode) XDP (i40e.ts).
 *
 * Every method that does work charges its cost step to the CPU running it;
 * nothing here computes a rate.
 */
import type { Cpu, Machine } from '../machine';
import { PAGE_SIZE as PAGE_SIZE_, PageLoc as PageLocEnum, pageAddr as pageAddr_ } from '../page_alloc';
import { XdpBuff, type XdpHook } from '../program';
import { SocketQueue } from '../stack';
import type { AttachResult, MtuResult, NicDriver, RedirectHandler, RedirectTarget } from './driver';
import { DevmapTarget, type DevmapTargetOptions } from '../devmap';
import { TxWire, wireCyclesPerByte } from '../wire';
import { XdpXmit } from './xdp_xmit';
import { RxRing, XDP_PACKET_HEADROOM as HEADROOM } from './rx_ring';
import { bpf_prog_run_xdp as runXdp, xdp_prepare_buff as prepareBuff } from './xdp_run';
import { napi_complete_arm as arm, napi_poll_step as pollStep, type NapiDriver, type RxDma } from './napi';

// Numbers read per packet, as file-local const enums: the transpiler writes each use as a
// literal (an imported binding is a getter under tsx/vitest; a module-level object is a load
// and checks). tests/unit/sim-const-enums.test.ts holds each to its definition.
// Functions and the rest: module-local copies (a cross-module binding is a getter call when the
// module is transpiled on its own, tsx and vitest; a local const is a plain load).
const enum S { rx_cqe = 4, dma_sync_cpu = 5, rx_alloc_frag = 11, rx_alloc_page = 12, order0_page_miss = 13, alloc_order0 = 14, free_order0 = 15, alloc_order3 = 16, free_order3 = 17, dma_map = 18, dma_unmap = 19, rx_frag_free = 20, rx_doorbell = 21, tx_post = 22, tx_complete = 25, skb_build = 26, stack_rx = 27, stack_drop = 28, stack_deliver = 29, xdp_redirect = 30, pkt_line_miss = 32, xdp_do_flush = 53 }
const enum K { dma_sync = 5, xdp_run = 6, xdp_exception = 7, xdp_drop = 8, xdp_pass = 9, xdp_tx = 10, xdp_redirect = 11, xdp_unknown = 12, page_alloc = 15, page_free = 16, rx_refill = 17, rx_doorbell = 18, skb_build = 23, stack_free = 24, oom = 25 }
const PAGE_SIZE = PAGE_SIZE_;
const pageAddr = pageAddr_;
const enum PageLoc { RX_RING = 1, TX_RING = 3, STACK = 4, IN_FLIGHT = 5, FRAGS = 6 }
const enum DmaDir { NONE = 0, FROM_DEVICE = 1, BIDIRECTIONAL = 3 }
const enum SlotState { EMPTY = 0, HW = 1 }
const XDP_PACKET_HEADROOM = HEADROOM;
/** enum xdp_action (include/uapi/linux/bpf.h). */
const enum xdp_action { XDP_ABORTED = 0, XDP_DROP = 1, XDP_PASS = 2, XDP_TX = 3, XDP_REDIRECT = 4 }
const bpf_prog_run_xdp = runXdp;
const xdp_prepare_buff = prepareBuff;
const napi_poll_step = pollStep;
const napi_complete_arm = arm;

/** Largest rx fragment (FRAG_SZ0): with XDP a frame must fit in one. */
export const FRAG_SZ0 = 1536;
/** MLX4_EN_EFF_MTU: the MTU plus Ethernet header and two VLAN tags. */
export const mlx4EffMtu = (mtu: number): number => mtu + 14 + 2 * 4;
/** Order-3 allocations for the legacy fragment scheme (MLX4_EN_ALLOC_ORDER). */
export const MLX4_EN_ALLOC_ORDER = 3;

export abstract class XdpPageDriver implements NicDriver, NapiDriver, RxDma {
  abstract readonly kind: 'mlx4' | 'i40e';
  readonly napiTrace = true;
  readonly rings: RxRing[];
  /** Per ring, the legacy scheme's order-3 page being carved (-1: none) and the next offset in it. */
  private readonly frags: { page: number; off: number }[];
  /** 'frags': order-3 pages split into strides; 'order0': one page per packet. */
  mode: 'frags' | 'order0' = 'frags';
  /** Buffer stride in fragment mode (ALIGN(eff MTU, cache line), at least FRAG_SZ0). */
  fragStride = FRAG_SZ0;
  mtu: number;
  /** Headroom before the frame in each buffer. */
  headroom = 0;
  /** The frame capacity of one buffer. */
  bufCap = FRAG_SZ0;
  readonly sockets: SocketQueue | null;
  protected readonly xdp = new XdpBuff();
  /** Generic (skb) XDP: the configuration's, read once (a string compare per packet otherwise). */
  private readonly genericXdp: boolean;
  /** Warnings shown once (bpf_warn_invalid_xdp_action semantics). */
  readonly warnings: string[] = [];
  private warnedActions = new Set<number>();
  redirect: RedirectHandler | null = null;
  /** XDP_REDIRECT's devmap target (a second port), when configured. */
  readonly devmap: DevmapTarget | null;
  /** XDP_TX on each rx ring's tx ring, out of this port's wire. */
  private readonly xdpTx: XdpXmit;
  /**
   * Whether rx_dma keeps each page's DMA'd frame (PageAllocator.dmaFrame) and
   * skips the copy when a page gets the same frame at the same place again:
   * order-0 pages only, and only while the program provably never writes
   * the packet (XdpHook.packetReadOnly). Pages handed to a redirect target
   * (whose programs may write them) lose their frame first.
   */
  private dmaKeep = false;
  /** Per-packet-ending callback (the simulation counts finished packets for stepping). */
  packetsDone = 0;

  /** Subclasses call start() once their own recycling store exists (the first refill takes from it). */
  constructor(
    readonly m: Machine,
    doorbellBudget: number,
  ) {
    const cfg = m.cfg;
    this.genericXdp = cfg.xdpMode === 'generic';
    this.mtu = cfg.mtu;
    this.rings = m.cpus.map((cpu, i) => new RxRing(i, cfg.rxRingSize, cfg.txRingSize, cpu));
    this.frags = this.rings.map(() => ({ page: -1, off: 0 }));
    this.sockets = cfg.stack.kind === 'socket' ? new SocketQueue(cfg.stack, cfg.hw.clockHz / cfg.stack.appPps) : null;
    this.xdpTx = new XdpXmit(m, {
      wire: new TxWire(wireCyclesPerByte(cfg.hw.linkGbps, m.cyclesPerNs)),
      latency: cfg.hw.txLatencyNs * m.cyclesPerNs,
      doorbellBudget,
      postStep: S.tx_post,
      completeStep: S.tx_complete,
      complete: (cpu, r, page, packet) => this.recycle_tx_desc(cpu, r, page, packet),
    });
    for (const r of this.rings) r.moderate(cfg.rxCoalFrames, cfg.rxCoalUsecs, m.cyclesPerNs);
    this.devmap = this.newDevmapTarget();
    this.configureBuffers(null);
  }

  /** The first refill (port start at probe time). */
  protected start(): void {
    for (const r of this.rings) this.refill_rx_buffers(r, null);
  }

  // ------------------------------------------------------ the driver's own

  /** Keep a dropped or transmitted order-0 page for refill; false when the store is full (or off). */
  protected abstract rx_recycle(cpu: Cpu, r: RxRing, page: number, packet: number): boolean;
  /** Take a kept page for slot s (counted, charged when cpu is given, traced), or -1 when none is kept. */
  protected abstract rx_recycled_page(r: RxRing, s: number, cpu: Cpu | null): number;
  /** Port stop: free every kept page. */
  protected abstract rx_recycle_drain(r: RxRing): void;
  /** Visit the pages kept for ring r (the invariant checker). */
  protected abstract rx_recycle_pages(r: RxRing, visit: (page: number, loc: PageLocEnum, what: string) => void): void;
  abstract cacheView(ring: number): { kind: 'mlx4_page_cache' | 'i40e_page_reuse' | 'page_pool'; size: number; level: number; pages: number[] };
  /** xdp_return_frame for the devmap target's finished frames (absent: the page allocator takes them). */
  protected devmapReturnFrame(): DevmapTargetOptions['returnFrame'] {
    return undefined;
  }
  /** Generic (skb-mode) XDP, for drivers that model it. */
  protected do_xdp_generic?(cpu: Cpu, r: RxRing, prog: XdpHook, page: number, packet: number, base: number, len: number, s: number): void;

  /** The devmap entry XDP_REDIRECT sends to, per the configuration. */
  private newDevmapTarget(): DevmapTarget | null {
    const cfg = this.m.cfg;
    if (!cfg.redirectTarget.startsWith('devmap')) return null;
    const veth = cfg.redirectTarget === 'devmap-veth';
    return new DevmapTarget(this.m, cfg.txRingSize, {
      kind: veth ? 'veth' : 'nic',
      name: veth ? 'veth0' : cfg.redirectTarget === 'devmap-i40e' ? 'i40e port 2' : 'port 2',
      xdpCapable: cfg.redirectTargetXdp,
      // samples/bpf xdp_redirect_map's egress program (resolveConfig insists on one with devmapProg).
      devProg: cfg.devmapProg ? cfg.devmapProgram : null,
      runProgAtFlush: cfg.devmapFlushPatch,
      peerProg: veth && cfg.redirectTargetXdp ? cfg.vethPeerProgram : null,
      returnFrame: this.devmapReturnFrame(),
      warn: (msg) => this.warnOnce(-3, msg),
    });
  }

  /** Frames the devmap target finished (redirect_done) or failed (xdp_redirect_err) since the last look. */
  private devmapSeen = { finished: 0, errors: 0 };
  protected reapDevmap(r: RxRing): void {
    const d = this.devmap!;
    r.c.redirect_done += d.finished - this.devmapSeen.finished;
    r.c.xdp_redirect_err += d.errors - this.devmapSeen.errors;
    this.devmapSeen.finished = d.finished;
    this.devmapSeen.errors = d.errors;
  }

  get prog(): XdpHook | null {
    return this.rings[0]!.prog;
  }

  redirectTarget(): RedirectTarget | null {
    return this.devmap;
  }

  afXdp(): null {
    return null;
  }

  setXdp(prog: XdpHook | null): AttachResult {
    return this.xdp_set(prog);
  }

  changeMtu(mtu: number): MtuResult {
    return this.change_mtu(mtu);
  }

  framesInTransit(): number {
    return this.devmap ? this.devmap.inTransit() : 0;
  }

  forEachPageRef(visit: (page: number, loc: PageLocEnum, what: string) => void): void {
    for (const r of this.rings) {
      for (let i = r.cons; i < r.prod; i++) visit(r.slotPage[i & r.mask]!, PageLocEnum.RX_RING, `rx ring ${r.index} slot ${i & r.mask}`);
      this.rx_recycle_pages(r, visit);
      r.tx.forEachPage((page, s) => visit(page, PageLocEnum.TX_RING, `xdp tx ring ${r.index} slot ${s}`));
      if (this.frags[r.index]!.page >= 0) visit(this.frags[r.index]!.page, PageLocEnum.FRAGS, `ring ${r.index} fragment allocator`);
    }
    this.devmap?.forEachPageRef(visit);
    if (this.sockets) for (const p of this.sockets.held()) visit(p, PageLocEnum.STACK, 'socket receive queue');
  }

  // ---------------------------------------------------------------- control

  /** Buffer layout for the next port start. */
  private configureBuffers(prog: XdpHook | null): void {
    const eff = mlx4EffMtu(this.mtu);
    this.mode = prog && this.m.cfg.xdpRxMode === 'order0' ? 'order0' : 'frags';
    this.fragStride = Math.max(FRAG_SZ0, Math.ceil(eff / 64) * 64);
    this.headroom = this.mode === 'order0' ? XDP_PACKET_HEADROOM : 0;
    this.bufCap = this.mode === 'order0' ? PAGE_SIZE - XDP_PACKET_HEADROOM : this.fragStride;
    for (const r of this.rings) r.maxFrame = this.bufCap;
  }

  /**
   * mlx4_xdp_set (i40e_xdp_setup): attach, replace or detach. Attaching or detaching
   * reconfigures the rings (port stop/start: every buffer is released and
   * reallocated in the new scheme); replacing one program with another
   * only exchanges each ring's program pointer.
   */
  xdp_set(prog: XdpHook | null): AttachResult {
    if (prog && mlx4EffMtu(this.mtu) > FRAG_SZ0) {
      return { ok: false, message: `${this.modname()}: cannot set XDP: MTU ${this.mtu} needs more than one rx fragment (largest MTU with XDP: ${FRAG_SZ0 - mlx4EffMtu(0)})` };
    }
    const had = this.prog !== null;
    if (had === (prog !== null)) {
      for (const r of this.rings) r.prog = prog; // xchg(&ring->xdp_prog, prog)
      this.keepDmaFrames(prog);
      return { ok: true, restarted: false };
    }
    this.stop_port();
    for (const r of this.rings) r.prog = prog;
    this.configureBuffers(prog);
    this.keepDmaFrames(prog);
    this.start_port();
    return { ok: true, restarted: true };
  }

  /** A new program: what the pages hold was vouched for by the old one only (it could not write them), so forget it; keep frames from now on if this one cannot write either. */
  private keepDmaFrames(prog: XdpHook | null): void {
    this.m.alloc.clearDmaFrames();
    this.dmaKeep = this.mode === 'order0' && prog !== null && prog.packetReadOnly === true;
  }

  /** The kernel module that prints this driver's messages (the refusals name the driver the user chose). */
  private modname(): string {
    return this.kind === 'mlx4' ? 'mlx4_en' : 'i40e';
  }

  /** mlx4_en_change_mtu: refused while XDP runs if the frame would need fragments. */
  change_mtu(mtu: number): MtuResult {
    if (!Number.isInteger(mtu) || mtu < 68 || mtu > 9600) return { ok: false, message: `${this.modname()}: bad MTU size ${mtu}` };
    if (this.prog && mlx4EffMtu(mtu) > FRAG_SZ0) {
      return { ok: false, message: `${this.modname()}: MTU ${mtu} requires multiple rx fragments but XDP is running (largest: ${FRAG_SZ0 - mlx4EffMtu(0)})` };
    }
    this.stop_port();
    this.mtu = mtu;
    this.configureBuffers(this.prog);
    this.start_port();
    return { ok: true };
  }

  /** Release every buffer: frames not yet processed are lost (rx_flushed). */
  private stop_port(): void {
    for (const r of this.rings) {
      this.xdpTx.stop(r);
      for (let i = r.cons; i < r.prod; i++) {
        const s = i & r.mask;
        if (i < r.hw) r.c.rx_flushed++;
        this.releaseRxBuffer(r, r.slotPage[s]!);
        r.slotPage[s] = -1;
        r.slotPkt[s] = -1;
        r.slotState[s] = SlotState.EMPTY;
      }
      r.cons = r.hw = r.prod;
      this.rx_recycle_drain(r);
      if (this.frags[r.index]!.page >= 0) {
        this.putFragRef(this.frags[r.index]!.page);
        this.frags[r.index]!.page = -1;
      }
    }
  }

  private start_port(): void {
    for (const r of this.rings) this.refill_rx_buffers(r, null);
  }

  // ---------------------------------------------------------------- the NIC

  /**
   * DMA into the slot's buffer, after the headroom. When the page already
   * holds this very frame at this very place, untouched since (dmaKeep), the
   * copy would write the bytes that are there: it is skipped. A copy whose
   * frame is not kept makes every kept one unsure: they are forgotten.
   */
  rx_dma(r: RxRing, s: number, frame: Uint8Array): number {
    const page = r.slotPage[s]!;
    const at = pageAddr(page) + r.slotOff[s]! + this.headroom;
    const a = this.m.alloc;
    if (this.dmaKeep && this.redirect === null) {
      if (a.dmaFrame[page] === frame && a.dmaAt[page] === at) return page;
      a.dmaFrame[page] = frame;
      a.dmaAt[page] = at;
      a.dmaTagged = true;
    } else a.clearDmaFrames();
    a.memory.set(frame, at);
    return page;
  }

  // ---------------------------------------------------------------- NAPI

  step(cpu: Cpu): void {
    napi_poll_step(this.m, cpu, this.rings[cpu.id]!, this);
  }

  napi_clean_tx(cpu: Cpu, r: RxRing): void {
    this.process_tx_cq(cpu, r);
    if (this.devmap) {
      this.devmap.complete(cpu);
      this.reapDevmap(r);
    }
    this.reapSocket(cpu, r);
  }

  napi_rx_one(cpu: Cpu, r: RxRing): void {
    this.process_rx_cq_one(cpu, r);
  }

  napi_flush(cpu: Cpu, r: RxRing): void {
    this.xdpTx.flush(cpu, r); // the tx doorbell for what the batching left pending
    this.xdp_do_flush(cpu, r);
    if (this.devmap) {
      // The flush scheduled the veth peer's NAPI on this CPU; net_rx_action runs it next.
      this.devmap.veth_poll(cpu);
      this.reapDevmap(r);
    }
  }

  napi_refill(cpu: Cpu, r: RxRing): void {
    this.refill_rx_buffers(r, cpu);
  }

  napi_rearm(cpu: Cpu, r: RxRing): void {
    this.armCq(r, cpu);
  }

  /** Re-arm the completion queue (mlx4_en_arm_cq): completions already pending count toward moderation at once. */
  private armCq(r: RxRing, cpu: Cpu): void {
    napi_complete_arm(r, cpu);
    // XDP tx completions still outstanding raise their own (moderated) interrupt.
    const txDone = r.tx.nextDone();
    if (txDone < Infinity) cpu.wakeAt = Math.min(cpu.wakeAt, Math.max(cpu.now, txDone) + r.coalCycles);
    // So do the redirect target's completions.
    if (this.devmap && this.devmap.nextDone() < Infinity) cpu.wakeAt = Math.min(cpu.wakeAt, Math.max(cpu.now, this.devmap.nextDone()) + r.coalCycles);
    // The socket's application frees pages later; wake to reap them if nothing else will.
    if (this.sockets && this.sockets.length > 0) cpu.wakeAt = Math.min(cpu.wakeAt, Math.max(cpu.now, this.sockets!.freeAt[this.sockets!.head]!));
  }

  /** One iteration of the rx completion loop (mlx4_en_process_rx_cq, i40e_clean_rx_irq): the packet at the consumer index. */
  private process_rx_cq_one(cpu: Cpu, r: RxRing): void {
    const m = this.m;
    const tr = m.trace;
    const s = r.cons & r.mask;
    const page = r.slotPage[s]!;
    const len = r.slotLen[s]!;
    const packet = r.slotPkt[s]!;
    const off = r.slotOff[s]!;
    // A fragment of an order-3 page fresh from the allocator: the frame's first line is cold when the driver first reads it (mlx4 frags mode; recycled order-0 pages were touched one ring ago).
    if (this.mode === 'frags') {
      m.charge(cpu, S.rx_cqe);
      m.charge(cpu, S.pkt_line_miss);
      m.charge(cpu, S.dma_sync_cpu);
    } else m.charge2(cpu, S.rx_cqe, S.dma_sync_cpu);
    if (tr.on) tr.emit(K.dma_sync, cpu.now, cpu.id, r.index, s, packet, page, len);
    r.slotState[s] = SlotState.EMPTY;
    r.slotPage[s] = -1;
    r.slotPkt[s] = -1;
    r.cons++;
    if (this.mode === 'order0') m.alloc.loc[page] = PageLoc.IN_FLIGHT;
    this.packetsDone++;

    const prog = r.prog;
    const base = pageAddr(page) + off;
    if (!prog) {
      r.c.rx_no_xdp++;
      this.deliverSkb(cpu, r, page, packet, base + this.headroom, len);
      return;
    }
    if (this.genericXdp && this.do_xdp_generic) {
      this.do_xdp_generic(cpu, r, prog, page, packet, base, len, s);
      return;
    }
    const x = this.xdp;
    xdp_prepare_buff(x, m.alloc.memory, base, base + this.headroom, len, this.mode === 'order0' ? PAGE_SIZE : this.fragStride, r.index);
    let act = bpf_prog_run_xdp(m, cpu, prog, x);
    if (x.fault !== undefined) {
      this.warnOnce(-2, `program fault: ${x.fault} (treated as XDP_ABORTED)`);
      act = xdp_action.XDP_ABORTED;
    }
    if (tr.on) tr.emit(K.xdp_run, cpu.now, cpu.id, r.index, s, packet, page, act);
    // Before patch 07 (fragments) the driver knew only DROP and PASS.
    if (act === xdp_action.XDP_TX && this.mode === 'frags') act = 0x100 | xdp_action.XDP_TX;
    switch (act) {
      case xdp_action.XDP_PASS:
        r.c.xdp_pass++;
        if (tr.on) tr.emit(K.xdp_pass, cpu.now, cpu.id, r.index, s, packet, page, 0);
        this.deliverSkb(cpu, r, page, packet, x.data, x.dataEnd - x.data);
        return;
      case xdp_action.XDP_TX:
        r.c.xdp_tx++;
        if (tr.on) tr.emit(K.xdp_tx, cpu.now, cpu.id, r.index, s, packet, page, 0);
        this.xmit_frame(cpu, r, page, packet, x.data, x.dataEnd - x.data);
        return;
      case xdp_action.XDP_REDIRECT:
        r.c.xdp_redirect++;
        m.charge(cpu, S.xdp_redirect);
        if (tr.on) tr.emit(K.xdp_redirect, cpu.now, cpu.id, r.index, s, packet, page, x.redirectIfindex);
        // The redirect target may write the page (its own programs): its DMA'd frame is no longer vouched for.
        m.alloc.dmaFrame[page] = null;
        if (this.redirect && this.redirect(cpu, r, x, page, packet)) {
          r.c.redirect_done++;
          return;
        }
        if (this.devmap && this.mode === 'order0') {
          this.devmap.enqueue(cpu, page, packet, x.data, x.dataEnd - x.data);
          this.reapDevmap(r);
          return;
        }
        // xdp_do_redirect failed (no target): the driver drops, trace_xdp_exception fires.
        r.c.xdp_redirect_err++;
        if (tr.on) tr.emit(K.xdp_exception, cpu.now, cpu.id, r.index, s, packet, page, xdp_action.XDP_REDIRECT);
        this.dropBuffer(cpu, r, page, packet);
        return;
      case xdp_action.XDP_ABORTED:
        r.c.xdp_aborted++;
        if (tr.on) tr.emit(K.xdp_exception, cpu.now, cpu.id, r.index, s, packet, page, xdp_action.XDP_ABORTED);
        this.dropBuffer(cpu, r, page, packet);
        return;
      case xdp_action.XDP_DROP:
        r.c.xdp_drop++;
        if (tr.on) tr.emit(K.xdp_drop, cpu.now, cpu.id, r.index, s, packet, page, 0);
        this.dropBuffer(cpu, r, page, packet);
        return;
      default:
        r.c.xdp_unknown++;
        this.warnOnce(act, `Illegal XDP return value ${act & 0xff}${act & 0x100 ? ' (XDP_TX needs order-0 pages: not supported by this driver version)' : ''}, expect packet loss`);
        if (tr.on) tr.emit(K.xdp_unknown, cpu.now, cpu.id, r.index, s, packet, page, act & 0xff);
        this.dropBuffer(cpu, r, page, packet);
    }
  }

  protected warnOnce(key: number, msg: string): void {
    if (this.warnedActions.has(key)) return;
    this.warnedActions.add(key);
    this.warnings.push(msg);
  }

  /** XDP_DROP / ABORTED / failure: recycle the page, else free the fragment. */
  protected dropBuffer(cpu: Cpu, r: RxRing, page: number, packet: number): void {
    if (this.mode === 'order0' && this.rx_recycle(cpu, r, page, packet)) return;
    this.free_frag(cpu, r, page, packet);
  }

  /** Unmap and drop the driver's reference (mlx4_en_free_frag; frees the page on the last one). */
  private free_frag(cpu: Cpu, r: RxRing, page: number, packet: number): void {
    const m = this.m;
    m.charge(cpu, S.rx_frag_free);
    if (this.mode === 'order0') {
      m.charge(cpu, S.dma_unmap);
      m.charge(cpu, S.free_order0);
      this.traceFree(cpu, r, page, packet, 0);
      m.alloc.free(page);
    } else if (this.putFragRefCharged(cpu, r, page)) this.traceFree(cpu, r, page, packet, 3);
  }

  protected traceFree(cpu: Cpu, r: RxRing, page: number, packet: number, order: number): void {
    const tr = this.m.trace;
    if (tr.on) tr.emit(K.page_free, cpu.now, cpu.id, r.index, -1, packet, page, order);
  }

  /** put_page on a fragment's order-3 page, charging the unmap and free when it was the last reference. */
  private putFragRefCharged(cpu: Cpu, _r: RxRing, page: number): boolean {
    const a = this.m.alloc;
    if (--a.refcount[page]! > 0) return false;
    this.m.charge(cpu, S.dma_unmap);
    this.m.charge(cpu, S.free_order3);
    a.refcount[page] = 1;
    a.free(page);
    return true;
  }

  /** put_page without a CPU (port stop). */
  private putFragRef(page: number): void {
    const a = this.m.alloc;
    if (--a.refcount[page]! > 0) return;
    a.refcount[page] = 1;
    a.free(page);
  }

  /** Release a posted/completed rx buffer at port stop. */
  private releaseRxBuffer(_r: RxRing, page: number): void {
    if (this.m.alloc.order[page] === MLX4_EN_ALLOC_ORDER && this.m.alloc.loc[page] === PageLoc.FRAGS) this.putFragRef(page);
    else this.m.alloc.free(page);
  }


  // ---------------------------------------------------------------- refill

  /**
   * Refill (mlx4_en_refill_rx_buffers, i40e_alloc_rx_buffers): post a buffer
   * on every empty slot, from the driver's recycled pages first (order-0
   * mode), else from the page allocator. An
   * allocation failure leaves the slot empty; the NIC will drop when it
   * runs out of posted buffers. `cpu` null: port start (not charged).
   */
  refill_rx_buffers(r: RxRing, cpu: Cpu | null): void {
    const m = this.m;
    const a = m.alloc;
    const tr = m.trace;
    let posted = 0;
    while (r.prod - r.cons < r.size) {
      const s = r.prod & r.mask;
      let page: number;
      let off = 0;
      if (this.mode === 'order0') {
        page = this.rx_recycled_page(r, s, cpu);
        if (page < 0) {
          if (m.cfg.pageCache) r.c.cache_empty++;
          page = a.alloc(0);
          if (page < 0) {
            r.c.alloc_fail++;
            if (tr.on) tr.emit(K.oom, cpu?.now ?? 0, r.cpu.id, r.index, s, -1, -1, 0);
            break;
          }
          a.dma[page] = DmaDir.BIDIRECTIONAL;
          if (cpu) {
            m.charge(cpu, S.alloc_order0);
            m.charge(cpu, S.rx_alloc_page);
            m.charge(cpu, S.order0_page_miss);
            m.charge(cpu, S.dma_map);
          }
          if (tr.on) tr.emit(K.page_alloc, cpu?.now ?? 0, r.cpu.id, r.index, s, -1, page, 0);
        }
        a.loc[page] = PageLoc.RX_RING;
        a.owner[page] = r.index;
      } else {
        if (this.frags[r.index]!.page < 0 || this.frags[r.index]!.off + this.fragStride > PAGE_SIZE << MLX4_EN_ALLOC_ORDER) {
          if (this.frags[r.index]!.page >= 0) {
            if (cpu) {
              if (this.putFragRefCharged(cpu, r, this.frags[r.index]!.page)) this.traceFree(cpu, r, this.frags[r.index]!.page, -1, 3);
            } else this.putFragRef(this.frags[r.index]!.page);
            this.frags[r.index]!.page = -1;
          }
          const p = a.alloc(MLX4_EN_ALLOC_ORDER);
          if (p < 0) {
            r.c.alloc_fail++;
            if (tr.on) tr.emit(K.oom, cpu?.now ?? 0, r.cpu.id, r.index, s, -1, -1, MLX4_EN_ALLOC_ORDER);
            break;
          }
          a.dma[p] = DmaDir.FROM_DEVICE;
          a.loc[p] = PageLoc.FRAGS;
          a.owner[p] = r.index;
          // refcount 1 is the driver's own hold while it carves the page.
          this.frags[r.index]!.page = p;
          this.frags[r.index]!.off = 0;
          if (cpu) {
            m.charge(cpu, S.alloc_order3);
            m.charge(cpu, S.dma_map);
          }
          if (tr.on) tr.emit(K.page_alloc, cpu?.now ?? 0, r.cpu.id, r.index, s, -1, p, MLX4_EN_ALLOC_ORDER);
        }
        page = this.frags[r.index]!.page;
        off = this.frags[r.index]!.off;
        this.frags[r.index]!.off += this.fragStride;
        a.refcount[page]!++;
        if (cpu) m.charge(cpu, S.rx_alloc_frag);
      }
      r.slotPage[s] = page;
      r.slotOff[s] = off;
      r.slotState[s] = SlotState.HW;
      r.slotPkt[s] = -1;
      if (tr.on) tr.emit(K.rx_refill, cpu?.now ?? 0, r.cpu.id, r.index, s, -1, page, off);
      r.prod++;
      posted++;
    }
    if (posted > 0 && cpu) {
      m.charge(cpu, S.rx_doorbell);
      if (tr.on) tr.emit(K.rx_doorbell, cpu.now, cpu.id, r.index, -1, -1, -1, r.prod);
    }
  }

  // ---------------------------------------------------------------- stack

  /** Build an skb around the buffer and hand it to the stack model. */
  protected deliverSkb(cpu: Cpu, r: RxRing, page: number, packet: number, _data: number, _len: number, skbBuilt = false): void {
    const m = this.m;
    const a = m.alloc;
    const tr = m.trace;
    if (!skbBuilt) m.charge(cpu, S.skb_build);
    // The skb holds its own page reference; the driver still drops the ring's (mlx4_en_free_frag, i40e_put_rx_buffer).
    m.charge(cpu, S.rx_frag_free);
    m.charge(cpu, S.stack_rx);
    r.c.stack_rx++;
    if (tr.on) tr.emit(K.skb_build, cpu.now, cpu.id, r.index, -1, packet, page, 0);
    if (this.mode === 'order0') {
      // The page leaves the driver: unmapped, owned by the skb.
      m.charge(cpu, S.dma_unmap);
      a.dma[page] = DmaDir.NONE;
      a.loc[page] = PageLoc.STACK;
      a.owner[page] = -1;
    }
    if (this.sockets) {
      m.charge(cpu, S.stack_deliver);
      if (this.sockets.enqueue(page, packet, cpu.now)) {
        r.c.sock_delivered++;
        return;
      }
      r.c.sock_dropped++;
    } else {
      m.charge(cpu, S.stack_drop);
      r.c.stack_dropped++;
    }
    this.stackFree(cpu, r, page, packet);
  }

  /** The stack's kfree_skb releasing the page (charged to the CPU freeing it, if any). */
  private stackFree(cpu: Cpu | null, r: RxRing, page: number, packet: number): void {
    const a = this.m.alloc;
    const tr = this.m.trace;
    if (tr.on) tr.emit(K.stack_free, cpu?.now ?? r.cpu.now, r.cpu.id, r.index, -1, packet, page, 0);
    if (a.order[page] === MLX4_EN_ALLOC_ORDER && a.loc[page] === PageLoc.FRAGS) {
      if (cpu) {
        if (this.putFragRefCharged(cpu, r, page)) this.traceFree(cpu, r, page, packet, 3);
      } else this.putFragRef(page);
      return;
    }
    if (cpu) this.m.charge(cpu, S.free_order0);
    this.traceFree(cpu ?? r.cpu, r, page, packet, 0);
    a.free(page);
  }

  /** The socket's application (on another CPU) has consumed skbs: their pages are freed. */
  private reapSocket(cpu: Cpu, r: RxRing): void {
    const q = this.sockets;
    if (!q) return;
    for (;;) {
      const pkt = q.peekPacket();
      const page = q.reap(cpu.now);
      if (page < 0) return;
      this.stackFree(null, r, page, pkt);
    }
  }

  /** xdp_do_flush: send the devmap bulk queued during this poll (one ndo_xdp_xmit per bulk). */
  private xdp_do_flush(cpu: Cpu, r: RxRing): void {
    const d = this.devmap;
    if (!d || d.bq[cpu.id]!.n === 0) return;
    this.m.charge(cpu, S.xdp_do_flush);
    d.flush(cpu);
    this.reapDevmap(r);
  }

  // ---------------------------------------------------------------- XDP_TX

  /** XDP_TX (mlx4_en_xmit_frame, i40e_xmit_xdp_tx_ring): post the page on the ring's XDP tx ring (a doorbell every doorbellBudget); full ring → tx_dropped, recycle. */
  private xmit_frame(cpu: Cpu, r: RxRing, page: number, packet: number, data: number, len: number): void {
    if (this.xdpTx.xmit(cpu, r, page, packet, data, len)) this.m.alloc.owner[page] = r.index;
    else this.dropBuffer(cpu, r, page, packet);
  }

  /** The XDP tx ring's completions (mlx4_en_process_tx_cq): completed frames' pages are recycled. */
  private process_tx_cq(cpu: Cpu, r: RxRing): void {
    this.xdpTx.process_tx_cq(cpu, r);
  }

  /** A sent frame's page (mlx4_en_recycle_tx_desc): recycled for the originating rx ring, else freed. */
  private recycle_tx_desc(cpu: Cpu, r: RxRing, page: number, packet: number): void {
    if (this.rx_recycle(cpu, r, page, packet)) return;
    const m = this.m;
    m.charge(cpu, S.dma_unmap);
    m.charge(cpu, S.free_order0);
    this.traceFree(cpu, r, page, packet, 0);
    m.alloc.free(page);
  }
}
