/**
 * A vmxnet3-like driver (VMware's paravirtual NIC, seed 004): ring0 with
 * one buffer per descriptor, the rx data ring into which the backend copies
 * frames up to 128 bytes (so the driver never maps them), page_pool-backed
 * buffers with XDP_PACKET_HEADROOM when a native program is attached, XDP_TX
 * frames posted in batches and returned with xdp_return_frame_bulk at tx
 * completion, XDP_REDIRECT into a cpumap (../cpumap.ts) whose bulk queues
 * are flushed at xdp_do_flush, and generic (skb-mode) XDP for comparison: the skb is built
 * first, the 256-byte headroom made by pskb_expand_head, then the program
 * runs.
 *
 * The backend (the hypervisor's vmxnet3 emulation, on other host cores) is
 * the wire here: it delivers frames with a per-frame cost plus a per-byte
 * cost, which is why every native action tops out near the same rate.
 * Ring 1 (LRO pages) is not modelled: XDP turns LRO off. The poll loop is
 * the shared one (./napi.ts); this file has vmxnet3's hooks.
 */
import type { Cpu, Machine } from '../machine';
import { J } from '../journey';
import { PAGE_SIZE as PAGE_SIZE_, PageLoc as PageLocEnum, pageAddr as pageAddr_ } from '../page_alloc';
import { PagePool, PpSource as PpSourceEnum, PP_ALLOC_CACHE_SIZE } from '../page_pool';
import { XdpBuff, type XdpHook } from '../program';
import { SocketQueue } from '../stack';
import { RxRing, XDP_PACKET_HEADROOM as HEADROOM } from './rx_ring';
import type { AttachResult, MtuResult, NicDriver, RedirectHandler, RedirectTarget } from './driver';
import { CpumapTarget } from '../cpumap';
import { TxWire, wireCyclesPerByte } from '../wire';
import { XdpXmit } from './xdp_xmit';
import { column } from '../column';
import { bpf_prog_run_xdp as runXdp, xdp_prepare_buff as prepareBuff } from './xdp_run';
import { napi_complete_arm as arm, napi_poll_step as pollStep, type NapiDriver, type RxDma } from './napi';

const enum S { dma_sync_cpu = 5, alloc_order0 = 14, dma_map = 18, rx_doorbell = 21, stack_rx = 27, stack_drop = 28, stack_deliver = 29, xdp_redirect = 30, vmx_rx_complete = 31, pkt_line_miss = 32, copy_line = 33, pp_alloc_fast = 34, pp_refill = 35, pp_alloc_slow = 36, pp_recycle_direct = 37, pp_put_ring = 38, skb_alloc = 39, build_skb = 40, skb_free = 41, generic_xdp = 42, pskb_expand_head = 43, generic_xdp_tx = 44, vmx_skb_xmit = 45, vmx_xdp_xmit = 46, vmx_tx_complete = 47, vmx_tx_line = 48, xdp_return_frame = 49 }
const enum K { xdp_run = 6, xdp_exception = 7, xdp_drop = 8, xdp_pass = 9, xdp_tx = 10, xdp_redirect = 11, xdp_unknown = 12, page_cache_put = 13, page_cache_get = 14, page_alloc = 15, page_free = 16, rx_refill = 17, rx_doorbell = 18, skb_build = 23, stack_free = 24, oom = 25 }
const PAGE_SIZE = PAGE_SIZE_;
const pageAddr = pageAddr_;
const LOC = {
  RX_RING: PageLocEnum.RX_RING,
  PAGE_CACHE: PageLocEnum.PAGE_CACHE,
  TX_RING: PageLocEnum.TX_RING,
  STACK: PageLocEnum.STACK,
  IN_FLIGHT: PageLocEnum.IN_FLIGHT,
  REDIRECT: PageLocEnum.REDIRECT,
} as const;
/** enum xdp_action (include/uapi/linux/bpf.h). */
const enum xdp_action { XDP_ABORTED = 0, XDP_DROP = 1, XDP_PASS = 2, XDP_TX = 3, XDP_REDIRECT = 4 }
const bpf_prog_run_xdp = runXdp;
const xdp_prepare_buff = prepareBuff;
const napi_poll_step = pollStep;
const napi_complete_arm = arm;
// Numbers read per packet, as file-local const enums: the transpiler writes each use as a
// literal (an imported binding is a getter under tsx/vitest; a module-level object is a load
// and checks). tests/unit/sim-const-enums.test.ts holds each to its definition.
// PpSource stays an object: pool.lastSrc has page_pool's own enum type.
const enum SlotState { EMPTY = 0, HW = 1 }
const enum DmaDir { FROM_DEVICE = 1, BIDIRECTIONAL = 3 }
const PpSource = { SLOW: PpSourceEnum.SLOW, FAIL: PpSourceEnum.FAIL } as const;
const XDP_PACKET_HEADROOM = HEADROOM;

/** VMXNET3_DEF_RXDATA_DESC_SIZE: frames up to this size arrive in the data ring. */
export const VMXNET3_RXDATA_DESC_SIZE = 128;
/** VMXNET3_MAX_SKB_BUF_SIZE: one ring0 buffer. */
export const VMXNET3_MAX_SKB_BUF_SIZE = 3072;
/** SKB_DATA_ALIGN(sizeof(struct skb_shared_info)) on x86-64. */
export const SKB_SHARED_INFO_SIZE = 320;
/** Largest MTU with XDP: one ring0 buffer minus the XDP headroom and the skb_shared_info tail. */
export const VMXNET3_XDP_MAX_MTU = VMXNET3_MAX_SKB_BUF_SIZE - XDP_PACKET_HEADROOM - SKB_SHARED_INFO_SIZE;
/** NET_SKB_PAD: the headroom of an ordinary rx skb (too small for XDP, hence pskb_expand_head in generic mode). */
export const NET_SKB_PAD = 64;
/** Frames the driver defers before writing the TXPROD register (the device's txThreshold; assumed). */
export const VMXNET3_TX_THRESHOLD = 32;

const lines = (len: number) => (len + 63) >> 6;

export class Vmxnet3 implements NicDriver, NapiDriver, RxDma {
  readonly kind = 'vmxnet3' as const;
  readonly rings: RxRing[];
  readonly pools: PagePool[];
  private readonly dataRing: Uint8Array[];
  /** Per queue and slot, the last view dataRingFrame made. */
  private readonly dataRingViews: Uint8Array[][];
  /** Per queue and slot, the data ring's frame length (-1: none): plain arrays (../column.ts says why). */
  private readonly dataLen: number[][];
  /**
   * Per queue and slot, the frame the data ring's slot holds (null: none
   * known). Only rx_dma writes the data ring and frames are never modified,
   * so a slot given the same frame again already holds its bytes.
   */
  private readonly dataFrame: (Uint8Array | null)[][];
  mtu: number;
  readonly warnings: string[] = [];
  private readonly warned = new Set<number>();
  readonly sockets: SocketQueue | null;
  packetsDone = 0;
  redirect: RedirectHandler | null = null;
  readonly napiTrace = true;
  private readonly native: boolean;
  /** XDP_REDIRECT's cpumap target, when configured. */
  readonly cpumap: CpumapTarget | null;
  private readonly xdp = new XdpBuff();
  /** XDP_TX (and generic XDP's transmit) on each rx ring's tx ring, out through the backend. */
  private readonly xdpTx: XdpXmit;

  constructor(readonly m: Machine) {
    const cfg = m.cfg;
    this.mtu = cfg.mtu;
    this.native = cfg.xdpMode === 'native';
    this.rings = m.cpus.map((cpu, i) => new RxRing(i, cfg.rxRingSize, cfg.txRingSize, cpu));
    // The remote CPU drops each frame: a page_pool page goes back to its pool, an skb's page is freed.
    this.cpumap = cfg.redirectTarget === 'cpumap-drop' ? new CpumapTarget(m, this.rings, (r, page, pooled) => (pooled ? this.ppPut(r, page) : m.alloc.free(page))) : null;
    this.pools = this.rings.map((r) => new PagePool(m.alloc, r.index, r.size));
    this.dataRing = this.rings.map((r) => new Uint8Array(r.size * VMXNET3_RXDATA_DESC_SIZE));
    this.dataLen = this.rings.map((r) => column(r.size, -1));
    this.dataFrame = this.rings.map((r) => new Array<Uint8Array | null>(r.size).fill(null));
    this.dataRingViews = this.dataRing.map((d, qi) => Array.from({ length: this.rings[qi]!.size }, (_, s) => d.subarray(s * VMXNET3_RXDATA_DESC_SIZE, s * VMXNET3_RXDATA_DESC_SIZE)));
    this.sockets = cfg.stack.kind === 'socket' ? new SocketQueue(cfg.stack, cfg.hw.clockHz / cfg.stack.appPps) : null;
    this.xdpTx = new XdpXmit(m, {
      // The backend sends each frame with a fixed cost plus its bytes.
      wire: new TxWire(wireCyclesPerByte(cfg.hw.linkGbps, m.cyclesPerNs), (cfg.traffic.perFrameNs ?? 0) * m.cyclesPerNs),
      latency: cfg.hw.txLatencyNs * m.cyclesPerNs,
      doorbellBudget: VMXNET3_TX_THRESHOLD,
      postStep: -1, // vmx_xdp_xmit / vmx_skb_xmit, charged by the caller, cover the descriptor
      completeStep: S.vmx_tx_complete,
      complete: (cpu, r, page, packet) => this.txReturn(cpu, r, page, packet),
    });
    for (const r of this.rings) r.moderate(cfg.rxCoalFrames, cfg.rxCoalUsecs, m.cyclesPerNs);
    this.setMaxFrame();
    for (const r of this.rings) this.refill(r, null);
  }

  /** The backend takes frames up to the MTU plus the Ethernet header and FCS. */
  private setMaxFrame(): void {
    for (const r of this.rings) r.maxFrame = this.mtu + 18;
  }

  get prog(): XdpHook | null {
    return this.rings[0]!.prog;
  }

  redirectTarget(): RedirectTarget | null {
    return this.cpumap;
  }

  afXdp(): null {
    return null;
  }

  /** 'page_pool' when a native program owns the buffers, else 'skb'. */
  get mode(): string {
    return this.prog && this.native ? 'page_pool' : 'skb';
  }

  private get headroom(): number {
    return this.mode === 'page_pool' ? XDP_PACKET_HEADROOM : NET_SKB_PAD;
  }

  // ---------------------------------------------------------------- control

  /** vmxnet3_xdp_set: checks the MTU, then (for native mode) re-creates the rx queues with page_pool buffers. */
  setXdp(prog: XdpHook | null): AttachResult {
    if (prog && this.mtu > VMXNET3_XDP_MAX_MTU) return { ok: false, message: `vmxnet3: MTU ${this.mtu} too large for XDP (max ${VMXNET3_XDP_MAX_MTU})` };
    const had = this.prog !== null;
    if (had === (prog !== null) || !this.native) {
      for (const r of this.rings) r.prog = prog;
      return { ok: true, restarted: false };
    }
    this.stopQueues();
    for (const r of this.rings) r.prog = prog;
    for (const r of this.rings) this.refill(r, null);
    return { ok: true, restarted: true };
  }

  changeMtu(mtu: number): MtuResult {
    if (!Number.isInteger(mtu) || mtu < 60 || mtu > 9000) return { ok: false, message: `vmxnet3: bad MTU ${mtu}` };
    if (this.prog && mtu > VMXNET3_XDP_MAX_MTU) return { ok: false, message: `vmxnet3: MTU ${mtu} too large for XDP (max ${VMXNET3_XDP_MAX_MTU})` };
    this.stopQueues();
    this.mtu = mtu;
    this.setMaxFrame();
    for (const r of this.rings) this.refill(r, null);
    return { ok: true };
  }

  private stopQueues(): void {
    const a = this.m.alloc;
    this.rings.forEach((r, i) => {
      this.xdpTx.stop(r);
      this.cpumap?.stop(r);
      for (let s = 0; s < r.size; s++) {
        if (r.slotPage[s]! >= 0) a.free(r.slotPage[s]!);
        r.slotPage[s] = -1;
        r.slotPkt[s] = -1;
        r.slotState[s] = SlotState.EMPTY;
        this.dataLen[i]![s] = -1;
      }
      r.c.rx_flushed += r.hw - r.cons;
      r.cons = r.hw = r.prod;
      this.pools[i]!.drain();
    });
  }

  cacheView(i: number): { kind: 'page_pool'; size: number; level: number; pages: number[] } {
    const pool = this.pools[i]!;
    const pages = pool.held();
    return { kind: 'page_pool', size: PP_ALLOC_CACHE_SIZE + pool.ringSize, level: pages.length, pages };
  }

  framesInTransit(): number {
    return this.cpumap ? this.cpumap.inTransit() : 0;
  }

  forEachPageRef(visit: (page: number, loc: PageLocEnum, what: string) => void): void {
    this.rings.forEach((r, i) => {
      // Every slot's buffer: posted, completed, or kept for reposting after a data-ring frame.
      for (let s = 0; s < r.size; s++) if (r.slotPage[s]! >= 0) visit(r.slotPage[s]!, LOC.RX_RING, `ring0 ${r.index} slot ${s}`);
      for (const p of this.pools[i]!.held()) visit(p, LOC.PAGE_CACHE, `page_pool ${r.index}`);
      r.tx.forEachPage((page, s) => visit(page, LOC.TX_RING, `tx ring ${r.index} slot ${s}`));
      this.cpumap?.forEachPageRef(i, visit);
    });
    if (this.sockets) for (const p of this.sockets.held()) visit(p, LOC.STACK, 'socket receive queue');
  }

  // ---------------------------------------------------------------- the backend

  /** The backend copies small frames into the rx data ring (ring0's buffer stays unused), larger ones into ring0's buffer. */
  rx_dma(r: RxRing, s: number, frame: Uint8Array): number {
    const page = r.slotPage[s]!;
    if (frame.length <= VMXNET3_RXDATA_DESC_SIZE) {
      const held = this.dataFrame[r.index]!;
      // The slot already holding this very frame: the copy would write the bytes that are there.
      if (held[s] !== frame) {
        this.dataRing[r.index]!.set(frame, s * VMXNET3_RXDATA_DESC_SIZE);
        held[s] = frame;
      }
      this.dataLen[r.index]![s] = frame.length;
    } else {
      this.m.alloc.memory.set(frame, pageAddr(page) + this.headroom);
      this.dataLen[r.index]![s] = -1;
    }
    return page;
  }

  // ---------------------------------------------------------------- NAPI (vmxnet3_poll_rx_only)

  step(cpu: Cpu): void {
    napi_poll_step(this.m, cpu, this.rings[cpu.id]!, this);
  }

  napi_clean_tx(cpu: Cpu, r: RxRing): void {
    this.vmxnet3_tq_tx_complete(cpu, r);
    this.reapSocket(cpu, r);
  }

  napi_rx_one(cpu: Cpu, r: RxRing): void {
    this.vmxnet3_rq_rx_complete_one(cpu, r);
  }

  napi_flush(cpu: Cpu, r: RxRing): void {
    this.cpumap?.xdp_do_flush(cpu, r);
    this.xdpTx.flush(cpu, r); // write TXPROD for what the threshold left pending
  }

  napi_refill(cpu: Cpu, r: RxRing): void {
    this.refill(r, cpu);
  }

  napi_rearm(cpu: Cpu, r: RxRing): void {
    napi_complete_arm(r, cpu);
    const txDone = r.tx.nextDone();
    if (txDone < Infinity) cpu.wakeAt = Math.min(cpu.wakeAt, Math.max(cpu.now, txDone) + r.coalCycles);
    else if (this.sockets && this.sockets.length > 0) cpu.wakeAt = Math.min(cpu.wakeAt, Math.max(cpu.now, this.sockets.freeAt[this.sockets.head]!));
  }

  private warnOnce(key: number, msg: string): void {
    if (this.warned.has(key)) return;
    this.warned.add(key);
    this.warnings.push(msg);
  }

  /** One completion of vmxnet3_rq_rx_complete. */
  private vmxnet3_rq_rx_complete_one(cpu: Cpu, r: RxRing): void {
    const m = this.m;
    const a = m.alloc;
    const qi = r.index;
    const s = r.cons & r.mask;
    const len = r.slotLen[s]!;
    const packet = r.slotPkt[s]!;
    const small = this.dataLen[qi]![s]! >= 0;
    m.charge(cpu, S.vmx_rx_complete);
    r.slotState[s] = SlotState.EMPTY;
    r.slotPkt[s] = -1;
    r.cons++;
    this.packetsDone++;
    const prog = r.prog;
    let page: number;
    let data: number;
    if (prog && this.native) {
      if (small) {
        // vmxnet3_process_xdp_small: a page from the pool, the frame copied out of the data ring.
        page = this.ppAlloc(cpu, r);
        if (page < 0) {
          r.c.alloc_fail++;
          r.c.xdp_drop++;
          this.dataLen[qi]![s] = -1;
          return;
        }
        m.charge(cpu, S.pkt_line_miss);
        m.chargeTimes(cpu, S.copy_line, lines(len));
        a.memory.set(this.dataRingFrame(qi, s, len), pageAddr(page) + XDP_PACKET_HEADROOM);
        this.dataLen[qi]![s] = -1;
      } else {
        page = r.slotPage[s]!;
        r.slotPage[s] = -1;
        m.charge(cpu, S.dma_sync_cpu);
        m.charge(cpu, S.pkt_line_miss);
      }
      a.loc[page] = LOC.IN_FLIGHT;
      data = pageAddr(page) + XDP_PACKET_HEADROOM;
      this.runNative(cpu, r, prog, page, packet, data, len, s);
      return;
    }
    // The skb path: with no program, or with a generic (skb-mode) one.
    if (small) {
      page = a.alloc(0);
      if (page < 0) {
        r.c.alloc_fail++;
        r.c.rx_missed++;
        this.dataLen[qi]![s] = -1;
        return;
      }
      m.charge(cpu, S.skb_alloc);
      m.charge(cpu, S.pkt_line_miss);
      m.chargeTimes(cpu, S.copy_line, lines(len));
      a.memory.set(this.dataRingFrame(qi, s, len), pageAddr(page) + NET_SKB_PAD);
      this.dataLen[qi]![s] = -1;
    } else {
      page = r.slotPage[s]!;
      r.slotPage[s] = -1;
      m.chargeTimes(cpu, S.pkt_line_miss, lines(len));
    }
    a.loc[page] = LOC.IN_FLIGHT;
    data = pageAddr(page) + NET_SKB_PAD;
    if (!prog) {
      r.c.rx_no_xdp++;
      this.deliverSkb(cpu, r, page, packet, false);
      return;
    }
    this.runGeneric(cpu, r, prog, page, packet, data, len, s);
  }

  private run(cpu: Cpu, r: RxRing, prog: XdpHook, hardStart: number, data: number, len: number, s: number, page: number, packet: number): number {
    const m = this.m;
    const x = this.xdp;
    xdp_prepare_buff(x, m.alloc.memory, hardStart, data, len, PAGE_SIZE, r.index);
    let act = bpf_prog_run_xdp(m, cpu, prog, x);
    if (x.fault !== undefined) {
      this.warnOnce(-2, `program fault: ${x.fault} (treated as XDP_ABORTED)`);
      act = xdp_action.XDP_ABORTED;
    }
    if (m.trace.on) m.trace.emit(K.xdp_run, cpu.now, cpu.id, r.index, s, packet, page, act);
    return act;
  }

  /** Native XDP on a page_pool page (vmxnet3_run_xdp). */
  private runNative(cpu: Cpu, r: RxRing, prog: XdpHook, page: number, packet: number, data: number, len: number, s: number): void {
    const m = this.m;
    const tr = m.trace;
    const act = this.run(cpu, r, prog, pageAddr(page), data, len, s, page, packet);
    const x = this.xdp;
    switch (act) {
      case xdp_action.XDP_PASS:
        r.c.xdp_pass++;
        if (tr.on) tr.emit(K.xdp_pass, cpu.now, cpu.id, r.index, s, packet, page, 0);
        m.charge(cpu, S.build_skb);
        this.deliverSkb(cpu, r, page, packet, true);
        return;
      case xdp_action.XDP_TX:
        r.c.xdp_tx++;
        if (tr.on) tr.emit(K.xdp_tx, cpu.now, cpu.id, r.index, s, packet, page, 0);
        m.charge(cpu, S.vmx_xdp_xmit);
        this.xmit(cpu, r, page, packet, x.data, x.dataEnd - x.data, true);
        return;
      case xdp_action.XDP_REDIRECT:
        r.c.xdp_redirect++;
        m.charge(cpu, S.xdp_redirect);
        if (tr.on) tr.emit(K.xdp_redirect, cpu.now, cpu.id, r.index, s, packet, page, x.redirectIfindex);
        if (this.cpumap) {
          this.cpumap.enqueue(cpu, r, page, packet);
          return;
        }
        r.c.xdp_redirect_err++;
        if (tr.on) tr.emit(K.xdp_exception, cpu.now, cpu.id, r.index, s, packet, page, xdp_action.XDP_REDIRECT);
        this.ppRecycleDirect(cpu, r, page, packet);
        return;
      case xdp_action.XDP_DROP:
        r.c.xdp_drop++;
        if (tr.on) tr.emit(K.xdp_drop, cpu.now, cpu.id, r.index, s, packet, page, 0);
        this.ppRecycleDirect(cpu, r, page, packet);
        return;
      case xdp_action.XDP_ABORTED:
        r.c.xdp_aborted++;
        if (tr.on) tr.emit(K.xdp_exception, cpu.now, cpu.id, r.index, s, packet, page, xdp_action.XDP_ABORTED);
        this.ppRecycleDirect(cpu, r, page, packet);
        return;
      default:
        r.c.xdp_unknown++;
        this.warnOnce(act, `Illegal XDP return value ${act}, expect packet loss`);
        if (tr.on) tr.emit(K.xdp_unknown, cpu.now, cpu.id, r.index, s, packet, page, act);
        this.ppRecycleDirect(cpu, r, page, packet);
    }
  }

  /** Generic XDP (do_xdp_generic) on an skb: make 256 bytes of headroom, run, act on the skb. */
  private runGeneric(cpu: Cpu, r: RxRing, prog: XdpHook, page: number, packet: number, data: number, len: number, s: number): void {
    const m = this.m;
    const a = m.alloc;
    const tr = m.trace;
    m.charge(cpu, S.generic_xdp);
    // pskb_expand_head: a new head with XDP_PACKET_HEADROOM, the frame copied over.
    const head = a.alloc(0);
    if (head < 0) {
      r.c.alloc_fail++;
      r.c.xdp_drop++;
      m.charge(cpu, S.skb_free);
      a.free(page);
      return;
    }
    m.charge(cpu, S.pskb_expand_head);
    m.chargeTimes(cpu, S.copy_line, lines(len));
    a.memory.copyWithin(pageAddr(head) + XDP_PACKET_HEADROOM, data, data + len);
    a.free(page);
    a.loc[head] = LOC.IN_FLIGHT;
    page = head;
    const act = this.run(cpu, r, prog, pageAddr(head), pageAddr(head) + XDP_PACKET_HEADROOM, len, s, head, packet);
    const x = this.xdp;
    switch (act) {
      case xdp_action.XDP_PASS:
        r.c.xdp_pass++;
        if (tr.on) tr.emit(K.xdp_pass, cpu.now, cpu.id, r.index, s, packet, page, 0);
        this.deliverSkb(cpu, r, page, packet, false);
        return;
      case xdp_action.XDP_TX:
        r.c.xdp_tx++;
        if (tr.on) tr.emit(K.xdp_tx, cpu.now, cpu.id, r.index, s, packet, page, 0);
        m.charge(cpu, S.generic_xdp_tx);
        m.charge(cpu, S.vmx_skb_xmit);
        this.xmit(cpu, r, page, packet, x.data, x.dataEnd - x.data, false);
        return;
      case xdp_action.XDP_REDIRECT:
        r.c.xdp_redirect++;
        m.charge(cpu, S.xdp_redirect);
        if (tr.on) tr.emit(K.xdp_redirect, cpu.now, cpu.id, r.index, s, packet, page, x.redirectIfindex);
        if (this.cpumap) {
          // Generic mode has no bulk queue: each skb goes onto the remote CPU's ring at once.
          this.cpumap.generic_enqueue(cpu, r, page);
          return;
        }
        r.c.xdp_redirect_err++;
        if (tr.on) tr.emit(K.xdp_exception, cpu.now, cpu.id, r.index, s, packet, page, xdp_action.XDP_REDIRECT);
        m.charge(cpu, S.skb_free);
        a.free(page);
        return;
      default: {
        if (act === xdp_action.XDP_DROP) r.c.xdp_drop++;
        else if (act === xdp_action.XDP_ABORTED) r.c.xdp_aborted++;
        else {
          r.c.xdp_unknown++;
          this.warnOnce(act, `Illegal XDP return value ${act}, expect packet loss`);
        }
        if (tr.on) tr.emit(act === xdp_action.XDP_DROP ? K.xdp_drop : act === xdp_action.XDP_ABORTED ? K.xdp_exception : K.xdp_unknown, cpu.now, cpu.id, r.index, s, packet, page, act);
        m.charge(cpu, S.skb_free);
        if (tr.on) tr.emit(K.page_free, cpu.now, cpu.id, r.index, -1, packet, page, 0);
        a.free(page);
      }
    }
  }

  /**
   * The first `len` bytes of data-ring slot s, as a view to copy from. The
   * view is kept per slot and remade only when the length changes: a
   * subarray per packet was the copy's main cost.
   */
  private dataRingFrame(qi: number, s: number, len: number): Uint8Array {
    const views = this.dataRingViews[qi]!;
    const v = views[s]!;
    if (v.length === len) return v;
    return (views[s] = this.dataRing[qi]!.subarray(s * VMXNET3_RXDATA_DESC_SIZE, s * VMXNET3_RXDATA_DESC_SIZE + len));
  }

  // ---------------------------------------------------------------- page_pool

  private ppAlloc(cpu: Cpu | null, r: RxRing): number {
    const pool = this.pools[r.index]!;
    const page = pool.allocPage();
    const src = pool.lastSrc;
    if (cpu) {
      if (src === PpSource.SLOW) {
        this.m.charge(cpu, S.pp_alloc_slow);
        this.m.charge(cpu, S.alloc_order0);
        this.m.charge(cpu, S.dma_map);
      } else if (src !== PpSource.FAIL) {
        if (pool.lastRefill) this.m.chargeTimes(cpu, S.pp_refill, pool.lastRefill);
        this.m.charge(cpu, S.pp_alloc_fast);
      }
    }
    if (page >= 0) {
      r.c.cache_get++;
      const tr = this.m.trace;
      if (tr.on) tr.emit(src === PpSource.SLOW ? K.page_alloc : K.page_cache_get, cpu?.now ?? 0, r.cpu.id, r.index, -1, -1, page, pool.cacheCount);
    }
    return page;
  }

  private ppRecycleDirect(cpu: Cpu, r: RxRing, page: number, packet: number): void {
    this.m.charge(cpu, S.pp_recycle_direct);
    const where = this.pools[r.index]!.put(page, true);
    if (where === 'freed') r.c.cache_full++;
    else r.c.cache_put++;
    const tr = this.m.trace;
    if (tr.on) tr.emit(where === 'freed' ? K.page_free : K.page_cache_put, cpu.now, cpu.id, r.index, -1, packet, page, this.pools[r.index]!.cacheCount);
  }

  /** A page returned from outside the pool's NAPI context (stack, tx completion, remote CPU). */
  private ppPut(r: RxRing, page: number): void {
    const where = this.pools[r.index]!.put(page, false);
    if (where === 'freed') r.c.cache_full++;
    else r.c.cache_put++;
  }

  // ---------------------------------------------------------------- refill

  /** vmxnet3_rq_alloc_rx_buf: post a buffer on every empty ring0 slot (a kept buffer is simply reposted). */
  private refill(r: RxRing, cpu: Cpu | null): void {
    const m = this.m;
    const a = m.alloc;
    const tr = m.trace;
    let posted = 0;
    while (r.prod - r.cons < r.size) {
      const s = r.prod & r.mask;
      let page = r.slotPage[s]!;
      if (page < 0) {
        if (this.mode === 'page_pool') page = this.ppAlloc(cpu, r);
        else {
          page = a.alloc(0);
          if (page >= 0) {
            a.dma[page] = DmaDir.FROM_DEVICE;
            if (cpu) {
              m.charge(cpu, S.skb_alloc);
              m.charge(cpu, S.dma_map);
            }
          }
        }
        if (page < 0) {
          r.c.alloc_fail++;
          if (tr.on) tr.emit(K.oom, cpu?.now ?? 0, r.cpu.id, r.index, s, -1, -1, 0);
          break;
        }
      }
      a.loc[page] = LOC.RX_RING;
      a.owner[page] = r.index;
      r.slotPage[s] = page;
      r.slotOff[s] = 0;
      r.slotState[s] = SlotState.HW;
      if (tr.on) tr.emit(K.rx_refill, cpu?.now ?? 0, r.cpu.id, r.index, s, -1, page, 0);
      r.prod++;
      posted++;
    }
    if (posted > 0 && cpu) {
      m.charge(cpu, S.rx_doorbell);
      if (tr.on) tr.emit(K.rx_doorbell, cpu.now, cpu.id, r.index, -1, -1, -1, r.prod);
    }
  }

  // ---------------------------------------------------------------- stack

  private deliverSkb(cpu: Cpu, r: RxRing, page: number, packet: number, pooled: boolean): void {
    const m = this.m;
    const tr = m.trace;
    m.charge(cpu, S.stack_rx);
    r.c.stack_rx++;
    if (tr.on) tr.emit(K.skb_build, cpu.now, cpu.id, r.index, -1, packet, page, 0);
    m.alloc.loc[page] = LOC.STACK;
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
    if (tr.on) tr.emit(K.stack_free, cpu.now, cpu.id, r.index, -1, packet, page, 0);
    // skb_mark_for_recycle: a page_pool page goes back to its pool.
    if (pooled) {
      m.charge(cpu, S.pp_put_ring);
      this.ppPut(r, page);
    } else m.alloc.free(page);
  }

  private reapSocket(cpu: Cpu, r: RxRing): void {
    const q = this.sockets;
    if (!q) return;
    for (;;) {
      const page = q.reap(cpu.now);
      if (page < 0) return;
      // The application's CPU frees it; page_pool pages return to their pool.
      if (this.m.alloc.dma[page] === DmaDir.BIDIRECTIONAL) this.ppPut(r, page);
      else this.m.alloc.free(page);
    }
  }

  // ---------------------------------------------------------------- tx

  /** Post a frame on the ring's tx ring (TXPROD written every VMXNET3_TX_THRESHOLD frames); a full ring drops it. */
  private xmit(cpu: Cpu, r: RxRing, page: number, packet: number, data: number, len: number, pooled: boolean): void {
    if (this.xdpTx.xmit(cpu, r, page, packet, data, len)) {
      // ESXi processes a vNIC's tx in the context of the vCPU that writes TXPROD: the frame's bytes cost the guest.
      this.m.chargeTimes(cpu, S.vmx_tx_line, lines(len));
      return;
    }
    if (pooled) this.ppRecycleDirect(cpu, r, page, packet);
    else {
      this.m.charge(cpu, S.skb_free);
      this.m.alloc.free(page);
    }
  }

  /** vmxnet3_tq_tx_complete: frames the backend has sent; XDP frames go back to the pool in bulk. */
  private vmxnet3_tq_tx_complete(cpu: Cpu, r: RxRing): void {
    this.xdpTx.process_tx_cq(cpu, r);
  }

  /** A sent frame's page: xdp_return_frame_bulk into the page_pool, or the skb freed (generic XDP_TX). */
  private txReturn(cpu: Cpu, r: RxRing, page: number, packet: number): void {
    const m = this.m;
    const pool = m.alloc.dma[page] === DmaDir.BIDIRECTIONAL;
    if (pool) {
      m.charge(cpu, S.xdp_return_frame);
      this.ppPut(r, page);
    } else {
      m.charge(cpu, S.skb_free);
      m.alloc.free(page);
    }
    if (m.journey.on) {
      const loc = m.alloc.loc[page]!;
      m.journey.add(J.xdp_return_frame, cpu.now, cpu.id, packet, page, loc, pool && loc === LOC.PAGE_CACHE ? 2 : 0);
    }
  }
}
