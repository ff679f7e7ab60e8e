/**
 * An mlx4-like driver (ConnectX-3, the 2016 XDP series, seed 000/003):
 * rx descriptor rings with a completion queue, interrupt moderation, the
 * NAPI poll, the XDP hook and its actions, the per-ring page cache
 * (mlx4_en_rx_recycle), the dedicated XDP tx ring per rx ring with
 * doorbell batching, and the two rx buffer schemes (order-3 fragments
 * without XDP, one order-0 page per packet with it).
 *
 * Methods carry the kernel's function names so the code reads next to
 * drivers/net/ethernet/mellanox/mlx4/en_rx.c and en_tx.c. Every method that
 * does work charges its cost step to the CPU running it; nothing here
 * computes a rate.
 */
import { Cpu, CpuState as CpuStateEnum, type Machine } from '../machine';
import { S as CostSteps } from '../cost';
import { K as TraceKinds } from '../trace';
import { DmaDir as DmaDirEnum, PAGE_SIZE as PAGE_SIZE_, PageLoc as PageLocEnum } from '../page_alloc';
import * as xdpActions from '../program';
import { XdpBuff, type XdpHook } from '../program';
import { SocketQueue } from '../stack';
import type { AttachResult, MtuResult, NicDriver, RedirectHandler } from './driver';
import { DevmapTarget } from '../devmap';
import { TxWire, wireCyclesPerByte } from '../wire';
import { XdpTxRing, XdpXmit } from './xdp_tx_ring';
import { bpf_prog_run_xdp as runXdp, xdp_prepare_buff as prepareBuff } from './xdp_run';
import { napi_complete_arm as arm, napi_schedule_irq as irq, rx_irq_moderate as moderate } from './napi';

export type { RedirectHandler } from './driver';
/** The tx ring moved to ./xdp_tx_ring.ts; importers from here keep working. */
export { XdpTxRing } from './xdp_tx_ring';

// Module-local copies of imported constants: on the per-packet path a
// cross-module binding is a getter call when the module is transpiled on
// its own (tsx, vitest); a local object or const is a plain load.
const S = { ...CostSteps };
const K = { ...TraceKinds };
const PAGE_SIZE = PAGE_SIZE_;
const PageLoc = {
  FREE: PageLocEnum.FREE,
  RX_RING: PageLocEnum.RX_RING,
  PAGE_CACHE: PageLocEnum.PAGE_CACHE,
  TX_RING: PageLocEnum.TX_RING,
  STACK: PageLocEnum.STACK,
  IN_FLIGHT: PageLocEnum.IN_FLIGHT,
  FRAGS: PageLocEnum.FRAGS,
} as const;
const DmaDir = { NONE: DmaDirEnum.NONE, FROM_DEVICE: DmaDirEnum.FROM_DEVICE, BIDIRECTIONAL: DmaDirEnum.BIDIRECTIONAL } as const;
const CpuState = { IDLE: CpuStateEnum.IDLE, POLL_BEGIN: CpuStateEnum.POLL_BEGIN, POLL_RX: CpuStateEnum.POLL_RX, POLL_END: CpuStateEnum.POLL_END } as const;
const XDP_ABORTED = xdpActions.XDP_ABORTED;
const XDP_DROP = xdpActions.XDP_DROP;
const XDP_PASS = xdpActions.XDP_PASS;
const XDP_TX = xdpActions.XDP_TX;
const XDP_REDIRECT = xdpActions.XDP_REDIRECT;
const bpf_prog_run_xdp = runXdp;
const xdp_prepare_buff = prepareBuff;
const napi_schedule_irq = irq;
const rx_irq_moderate = moderate;
const napi_complete_arm = arm;

/** NAPI weight (NAPI_POLL_WEIGHT). */
export const NAPI_BUDGET = 64;
/** mlx4's page cache: 2 x the NAPI budget (MLX4_EN_CACHE_SIZE). */
export const MLX4_EN_CACHE_SIZE = 2 * NAPI_BUDGET;
/** Ring the XDP tx doorbell once this many frames are pending. */
export const MLX4_EN_DOORBELL_BUDGET = 8;
/** XDP_PACKET_HEADROOM. */
export const XDP_PACKET_HEADROOM = 256;
/** Largest rx fragment (FRAG_SZ0): with XDP a frame must fit in one. */
export const FRAG_SZ0 = 1536;
/** MLX4_EN_EFF_MTU: the MTU plus Ethernet header and two VLAN tags. */
export const mlx4EffMtu = (mtu: number): number => mtu + 14 + 2 * 4;
/** Order-3 allocations for the legacy fragment scheme (MLX4_EN_ALLOC_ORDER). */
export const MLX4_EN_ALLOC_ORDER = 3;

export const enum SlotState {
  /** No buffer: waiting for refill. */
  EMPTY = 0,
  /** Buffer posted: owned by the hardware. */
  HW = 1,
  /** Frame written and CQE posted: owned by software until the poll consumes it. */
  SW = 2,
}
export const SLOT_STATE_NAMES = ['empty', 'hw', 'sw'] as const;

export interface RingCounters {
  rx_packets: number;
  rx_bytes: number;
  rx_missed: number;
  rx_oversize: number;
  rx_flushed: number;
  rx_no_xdp: number;
  xdp_aborted: number;
  xdp_drop: number;
  xdp_pass: number;
  xdp_tx: number;
  xdp_redirect: number;
  xdp_redirect_err: number;
  /** Redirected frames that reached their target (transmitted, or consumed by the remote CPU). */
  redirect_done: number;
  xdp_unknown: number;
  tx_packets: number;
  tx_dropped: number;
  tx_doorbells: number;
  tx_flushed: number;
  stack_rx: number;
  stack_dropped: number;
  sock_delivered: number;
  sock_dropped: number;
  cache_put: number;
  cache_full: number;
  cache_get: number;
  cache_empty: number;
  alloc_fail: number;
  interrupts: number;
  polls: number;
  budget_exhausted: number;
}

export function newRingCounters(): RingCounters {
  return {
    rx_packets: 0, rx_bytes: 0, rx_missed: 0, rx_oversize: 0, rx_flushed: 0, rx_no_xdp: 0,
    xdp_aborted: 0, xdp_drop: 0, xdp_pass: 0, xdp_tx: 0, xdp_redirect: 0, xdp_redirect_err: 0, redirect_done: 0, xdp_unknown: 0,
    tx_packets: 0, tx_dropped: 0, tx_doorbells: 0, tx_flushed: 0,
    stack_rx: 0, stack_dropped: 0, sock_delivered: 0, sock_dropped: 0,
    cache_put: 0, cache_full: 0, cache_get: 0, cache_empty: 0, alloc_fail: 0,
    interrupts: 0, polls: 0, budget_exhausted: 0,
  };
}

export class RxRing {
  readonly mask: number;
  readonly slotPage: Int32Array;
  /** Offset of the buffer within its page (fragments) — the frame starts at +headroom. */
  readonly slotOff: Int32Array;
  readonly slotLen: Int32Array;
  readonly slotPkt: Float64Array;
  readonly slotState: Uint8Array;
  /** Cycle at which the NIC wrote the frame. */
  readonly slotTime: Float64Array;
  /** Next completion to process. */
  cons = 0;
  /** Next posted slot the NIC will fill. */
  hw = 0;
  /** Next slot to refill. */
  prod = 0;
  readonly cache = new Int32Array(MLX4_EN_CACHE_SIZE);
  cacheCount = 0;
  /** The ring's program pointer (swapped with xchg semantics when replacing a program). */
  prog: XdpHook | null = null;
  /** Legacy scheme: the order-3 page being carved, and the next offset. */
  fragPage = -1;
  fragOff = 0;
  /** Completion-queue interrupt state. */
  armed = true;
  cqeSinceArm = 0;
  firstCqeAt = Infinity;
  readonly c: RingCounters = newRingCounters();
  readonly tx: XdpTxRing;

  constructor(
    readonly index: number,
    readonly size: number,
    txSize: number,
    readonly cpu: Cpu,
  ) {
    this.mask = size - 1;
    this.slotPage = new Int32Array(size).fill(-1);
    this.slotOff = new Int32Array(size);
    this.slotLen = new Int32Array(size);
    this.slotPkt = new Float64Array(size).fill(-1);
    this.slotState = new Uint8Array(size);
    this.slotTime = new Float64Array(size);
    this.tx = new XdpTxRing(txSize);
  }
}

export class Mlx4En implements NicDriver {
  /** mlx4 (seed 000), or i40e: the same rx/tx machinery with i40e's costs, page reuse on redirect, and generic XDP (seed 002). */
  readonly kind: 'mlx4' | 'i40e';
  readonly rings: RxRing[];
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
  private readonly xdp = new XdpBuff();
  /** Warnings shown once (bpf_warn_invalid_xdp_action semantics). */
  readonly warnings: string[] = [];
  private warnedActions = new Set<number>();
  redirect: RedirectHandler | null = null;
  /** XDP_REDIRECT's devmap target (a second port), when configured. */
  readonly devmap: DevmapTarget | null;
  /** XDP_TX on each rx ring's tx ring, out of this port's wire. */
  private readonly xdpTx: XdpXmit;
  private readonly coalFrames: number;
  private readonly coalCycles: number;
  /** Per-packet-ending callback (the simulation counts finished packets for stepping). */
  packetsDone = 0;

  constructor(readonly m: Machine) {
    const cfg = m.cfg;
    this.mtu = cfg.mtu;
    this.rings = m.cpus.map((cpu, i) => new RxRing(i, cfg.rxRingSize, cfg.txRingSize, cpu));
    this.sockets = cfg.stack.kind === 'socket' ? new SocketQueue(cfg.stack, cfg.hw.clockHz / cfg.stack.appPps) : null;
    this.xdpTx = new XdpXmit(m, {
      wire: new TxWire(wireCyclesPerByte(cfg.hw.linkGbps, m.cyclesPerNs)),
      latency: cfg.hw.txLatencyNs * m.cyclesPerNs,
      doorbellBudget: MLX4_EN_DOORBELL_BUDGET,
      postStep: S.tx_post,
      completeStep: S.tx_complete,
      complete: (cpu, r, page, packet) => this.mlx4_en_recycle_tx_desc(cpu, r, page, packet),
    });
    this.coalFrames = cfg.rxCoalFrames;
    this.coalCycles = cfg.rxCoalUsecs * 1000 * m.cyclesPerNs;
    this.kind = cfg.driver === 'i40e' ? 'i40e' : 'mlx4';
    this.devmap = this.newDevmapTarget();
    this.configureBuffers(null);
    for (const r of this.rings) this.mlx4_en_refill_rx_buffers(r, null);
  }

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
      // i40e reuses a returned rx page (its refcount bias comes back); mlx4's second port frees it.
      returnFrame: this.kind === 'i40e' ? (cpu, page) => this.i40e_reuse_rx_page(cpu, page) : undefined,
      warn: (msg) => this.warnOnce(-3, msg),
    });
  }

  /** i40e_reuse_rx_page: a frame returned by the redirect target goes back to its rx ring's recycling. */
  private i40e_reuse_rx_page(cpu: Cpu, page: number): void {
    const r = this.rings[this.m.alloc.owner[page]!] ?? this.rings[0]!;
    if (this.mlx4_en_rx_recycle(cpu, r, page, -1)) return;
    this.m.charge(cpu, S.dma_unmap);
    this.m.charge(cpu, S.free_order0);
    this.m.alloc.free(page);
  }

  /** Frames the devmap target finished (redirect_done) or failed (xdp_redirect_err) since the last look. */
  private devmapSeen = { finished: 0, errors: 0 };
  private reapDevmap(r: RxRing): void {
    const d = this.devmap!;
    r.c.redirect_done += d.finished - this.devmapSeen.finished;
    r.c.xdp_redirect_err += d.errors - this.devmapSeen.errors;
    this.devmapSeen.finished = d.finished;
    this.devmapSeen.errors = d.errors;
  }

  get prog(): XdpHook | null {
    return this.rings[0]!.prog;
  }

  setXdp(prog: XdpHook | null): AttachResult {
    return this.mlx4_xdp_set(prog);
  }

  changeMtu(mtu: number): MtuResult {
    return this.mlx4_en_change_mtu(mtu);
  }

  framesInTransit(): number {
    return this.devmap ? this.devmap.inTransit() : 0;
  }

  cacheView(i: number): { kind: 'mlx4_page_cache'; size: number; level: number; pages: number[] } {
    const r = this.rings[i]!;
    return { kind: 'mlx4_page_cache', size: MLX4_EN_CACHE_SIZE, level: r.cacheCount, pages: Array.from(r.cache.subarray(0, r.cacheCount)) };
  }

  forEachPageRef(visit: (page: number, loc: PageLocEnum, what: string) => void): void {
    for (const r of this.rings) {
      for (let i = r.cons; i < r.prod; i++) visit(r.slotPage[i & r.mask]!, PageLoc.RX_RING, `rx ring ${r.index} slot ${i & r.mask}`);
      for (let i = 0; i < r.cacheCount; i++) visit(r.cache[i]!, PageLoc.PAGE_CACHE, `page cache ${r.index}`);
      r.tx.forEachPage((page, s) => visit(page, PageLoc.TX_RING, `xdp tx ring ${r.index} slot ${s}`));
      if (r.fragPage >= 0) visit(r.fragPage, PageLoc.FRAGS, `ring ${r.index} fragment allocator`);
    }
    this.devmap?.forEachPageRef(visit);
    if (this.sockets) for (const p of this.sockets.held()) visit(p, PageLoc.STACK, 'socket receive queue');
  }

  // ---------------------------------------------------------------- control

  /** Buffer layout for the next port start. */
  private configureBuffers(prog: XdpHook | null): void {
    const eff = mlx4EffMtu(this.mtu);
    this.mode = prog && this.m.cfg.xdpRxMode === 'order0' ? 'order0' : 'frags';
    this.fragStride = Math.max(FRAG_SZ0, Math.ceil(eff / 64) * 64);
    this.headroom = this.mode === 'order0' ? XDP_PACKET_HEADROOM : 0;
    this.bufCap = this.mode === 'order0' ? PAGE_SIZE - XDP_PACKET_HEADROOM : this.fragStride;
  }

  /**
   * mlx4_xdp_set: attach, replace or detach. Attaching or detaching
   * reconfigures the rings (port stop/start: every buffer is released and
   * reallocated in the new scheme); replacing one program with another
   * only exchanges each ring's program pointer.
   */
  mlx4_xdp_set(prog: XdpHook | null): AttachResult {
    if (prog && mlx4EffMtu(this.mtu) > FRAG_SZ0) {
      return { ok: false, message: `mlx4_en: cannot set XDP: MTU ${this.mtu} needs more than one rx fragment (largest MTU with XDP: ${FRAG_SZ0 - mlx4EffMtu(0)})` };
    }
    const had = this.prog !== null;
    if (had === (prog !== null)) {
      for (const r of this.rings) r.prog = prog; // xchg(&ring->xdp_prog, prog)
      return { ok: true, restarted: false };
    }
    this.mlx4_en_stop_port();
    for (const r of this.rings) r.prog = prog;
    this.configureBuffers(prog);
    this.mlx4_en_start_port();
    return { ok: true, restarted: true };
  }

  /** mlx4_en_change_mtu: refused while XDP runs if the frame would need fragments. */
  mlx4_en_change_mtu(mtu: number): MtuResult {
    if (!Number.isInteger(mtu) || mtu < 68 || mtu > 9600) return { ok: false, message: `mlx4_en: bad MTU size ${mtu}` };
    if (this.prog && mlx4EffMtu(mtu) > FRAG_SZ0) {
      return { ok: false, message: `mlx4_en: MTU ${mtu} requires multiple rx fragments but XDP is running (largest: ${FRAG_SZ0 - mlx4EffMtu(0)})` };
    }
    this.mlx4_en_stop_port();
    this.mtu = mtu;
    this.configureBuffers(this.prog);
    this.mlx4_en_start_port();
    return { ok: true };
  }

  /** Release every buffer: frames not yet processed are lost (rx_flushed). */
  private mlx4_en_stop_port(): void {
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
      while (r.cacheCount > 0) this.freePage(r, r.cache[--r.cacheCount]!);
      if (r.fragPage >= 0) {
        this.putFragRef(r.fragPage);
        r.fragPage = -1;
      }
    }
  }

  private mlx4_en_start_port(): void {
    for (const r of this.rings) this.mlx4_en_refill_rx_buffers(r, null);
  }

  // ---------------------------------------------------------------- the NIC

  /**
   * The hardware receives one frame at `t` (cycles): DMA into the next
   * posted buffer and write a completion, or drop it when none is posted.
   */
  nicReceive(ringIndex: number, frame: Uint8Array, packet: number, t: number): void {
    const r = this.rings[ringIndex]!;
    const tr = this.m.trace;
    if (frame.length > this.bufCap) {
      r.c.rx_oversize++;
      if (tr.on) tr.emit(K.rx_missed, t, r.cpu.id, r.index, -1, packet, -1, frame.length);
      return;
    }
    if (r.hw === r.prod) {
      r.c.rx_missed++;
      if (tr.on) tr.emit(K.rx_missed, t, r.cpu.id, r.index, -1, packet, -1, 0);
      return;
    }
    const s = r.hw & r.mask;
    const page = r.slotPage[s]!;
    this.m.alloc.memory.set(frame, page * PAGE_SIZE + r.slotOff[s]! + this.headroom);
    r.slotLen[s] = frame.length;
    r.slotPkt[s] = packet;
    r.slotTime[s] = t;
    r.slotState[s] = SlotState.SW;
    r.hw++;
    r.c.rx_packets++;
    r.c.rx_bytes += frame.length;
    if (tr.on) tr.emit(K.nic_rx, t, r.cpu.id, r.index, s, packet, page, frame.length);
    rx_irq_moderate(r, t, this.coalFrames, this.coalCycles);
  }

  // ---------------------------------------------------------------- NAPI

  /**
   * Advance one CPU by one step of its softirq life: wake on the interrupt,
   * begin a poll, process one completion, or end the poll.
   */
  step(cpu: Cpu): void {
    const r = this.rings[cpu.id]!;
    const m = this.m;
    const tr = m.trace;
    switch (cpu.state) {
      case CpuState.IDLE:
        napi_schedule_irq(m, cpu, r);
        return;
      case CpuState.POLL_BEGIN:
        m.charge(cpu, S.napi_poll);
        r.c.polls++;
        if (tr.on) tr.emit(K.napi_poll, cpu.now, cpu.id, r.index, -1, -1, -1, NAPI_BUDGET);
        this.mlx4_en_process_tx_cq(cpu, r);
        if (this.devmap) {
          this.devmap.complete(cpu);
          this.reapDevmap(r);
        }
        this.reapSocket(cpu, r);
        cpu.pollDone = 0;
        cpu.state = CpuState.POLL_RX;
        return;
      case CpuState.POLL_RX:
        if (cpu.pollDone < NAPI_BUDGET && r.cons < r.hw) {
          this.mlx4_en_process_rx_cq_one(cpu, r);
          cpu.pollDone++;
        } else cpu.state = CpuState.POLL_END;
        return;
      case CpuState.POLL_END: {
        this.xdpTx.flush(cpu, r); // mlx4_en_xmit_doorbell for what the batching left pending
        this.xdp_do_flush(cpu, r);
        if (this.devmap) {
          // The flush scheduled the veth peer's NAPI on this CPU; net_rx_action runs it next.
          this.devmap.veth_poll(cpu);
          this.reapDevmap(r);
        }
        this.mlx4_en_refill_rx_buffers(r, cpu);
        if (cpu.pollDone >= NAPI_BUDGET) {
          // Budget used up: net_rx_action polls again without re-enabling the interrupt.
          r.c.budget_exhausted++;
          cpu.state = CpuState.POLL_BEGIN;
          return;
        }
        m.charge(cpu, S.napi_complete);
        if (tr.on) tr.emit(K.napi_complete, cpu.now, cpu.id, r.index, -1, -1, -1, cpu.pollDone);
        this.armCq(r, cpu);
        cpu.state = CpuState.IDLE;
        cpu.idleSince = cpu.now;
        return;
      }
    }
  }

  /** mlx4_en_arm_cq: completions already pending count toward moderation at once. */
  private armCq(r: RxRing, cpu: Cpu): void {
    napi_complete_arm(r, cpu, this.coalFrames, this.coalCycles);
    // XDP tx completions still outstanding raise their own (moderated) interrupt.
    const txDone = r.tx.nextDone();
    if (txDone < Infinity) cpu.wakeAt = Math.min(cpu.wakeAt, Math.max(cpu.now, txDone) + this.coalCycles);
    // So do the redirect target's completions.
    if (this.devmap && this.devmap.nextDone() < Infinity) cpu.wakeAt = Math.min(cpu.wakeAt, Math.max(cpu.now, this.devmap.nextDone()) + this.coalCycles);
    // The socket's application frees pages later; wake to reap them if nothing else will.
    if (this.sockets && this.sockets.length > 0) cpu.wakeAt = Math.min(cpu.wakeAt, Math.max(cpu.now, this.sockets!.freeAt[this.sockets!.head]!));
  }

  /** One iteration of mlx4_en_process_rx_cq's loop: the packet at the consumer index. */
  private mlx4_en_process_rx_cq_one(cpu: Cpu, r: RxRing): void {
    const m = this.m;
    const tr = m.trace;
    const s = r.cons & r.mask;
    const page = r.slotPage[s]!;
    const len = r.slotLen[s]!;
    const packet = r.slotPkt[s]!;
    const off = r.slotOff[s]!;
    m.charge(cpu, S.rx_cqe);
    m.charge(cpu, S.dma_sync_cpu);
    if (tr.on) tr.emit(K.dma_sync, cpu.now, cpu.id, r.index, s, packet, page, len);
    r.slotState[s] = SlotState.EMPTY;
    r.slotPage[s] = -1;
    r.slotPkt[s] = -1;
    r.cons++;
    if (this.mode === 'order0') m.alloc.loc[page] = PageLoc.IN_FLIGHT;
    this.packetsDone++;

    const prog = r.prog;
    const base = page * PAGE_SIZE + off;
    if (!prog) {
      r.c.rx_no_xdp++;
      this.deliverSkb(cpu, r, page, packet, base + this.headroom, len);
      return;
    }
    if (m.cfg.xdpMode === 'generic') {
      this.do_xdp_generic(cpu, r, prog, page, packet, base, len, s);
      return;
    }
    const x = this.xdp;
    xdp_prepare_buff(x, m.alloc.memory, base, base + this.headroom, len, this.mode === 'order0' ? PAGE_SIZE : this.fragStride, r.index);
    let act = bpf_prog_run_xdp(m, cpu, prog, x);
    if (x.fault !== undefined) {
      this.warnOnce(-2, `program fault: ${x.fault} (treated as XDP_ABORTED)`);
      act = XDP_ABORTED;
    }
    if (tr.on) tr.emit(K.xdp_run, cpu.now, cpu.id, r.index, s, packet, page, act);
    // Before patch 07 (fragments) the driver knew only DROP and PASS.
    if (act === XDP_TX && this.mode === 'frags') act = 0x100 | XDP_TX;
    switch (act) {
      case XDP_PASS:
        r.c.xdp_pass++;
        if (tr.on) tr.emit(K.xdp_pass, cpu.now, cpu.id, r.index, s, packet, page, 0);
        this.deliverSkb(cpu, r, page, packet, x.data, x.dataEnd - x.data);
        return;
      case XDP_TX:
        r.c.xdp_tx++;
        if (tr.on) tr.emit(K.xdp_tx, cpu.now, cpu.id, r.index, s, packet, page, 0);
        this.mlx4_en_xmit_frame(cpu, r, page, packet, x.data, x.dataEnd - x.data);
        return;
      case XDP_REDIRECT:
        r.c.xdp_redirect++;
        m.charge(cpu, S.xdp_redirect);
        if (tr.on) tr.emit(K.xdp_redirect, cpu.now, cpu.id, r.index, s, packet, page, x.redirectIfindex);
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
        if (tr.on) tr.emit(K.xdp_exception, cpu.now, cpu.id, r.index, s, packet, page, XDP_REDIRECT);
        this.dropBuffer(cpu, r, page, packet);
        return;
      case XDP_ABORTED:
        r.c.xdp_aborted++;
        if (tr.on) tr.emit(K.xdp_exception, cpu.now, cpu.id, r.index, s, packet, page, XDP_ABORTED);
        this.dropBuffer(cpu, r, page, packet);
        return;
      case XDP_DROP:
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

  /**
   * Generic (skb-mode) XDP (i40e only here): the driver builds an skb
   * (i40e_build_skb), netif_receive_skb reaches do_xdp_generic, which needs
   * XDP_PACKET_HEADROOM and so copies the frame (pskb_expand_head), runs the
   * program and acts on the skb. XDP_REDIRECT goes out one skb at a time
   * (xdp_do_generic_redirect): no bulk queue, a doorbell per packet.
   */
  private do_xdp_generic(cpu: Cpu, r: RxRing, prog: XdpHook, page: number, packet: number, base: number, len: number, s: number): void {
    const m = this.m;
    const tr = m.trace;
    m.charge(cpu, S.skb_build);
    m.charge(cpu, S.generic_xdp);
    m.charge(cpu, S.pskb_expand_head);
    m.charge(cpu, S.copy_line, (len + 63) >> 6);
    const x = this.xdp;
    xdp_prepare_buff(x, m.alloc.memory, base, base + this.headroom, len, PAGE_SIZE, r.index);
    let act = bpf_prog_run_xdp(m, cpu, prog, x);
    if (x.fault !== undefined) {
      this.warnOnce(-2, `program fault: ${x.fault} (treated as XDP_ABORTED)`);
      act = XDP_ABORTED;
    }
    if (tr.on) tr.emit(K.xdp_run, cpu.now, cpu.id, r.index, s, packet, page, act);
    switch (act) {
      case XDP_PASS:
        r.c.xdp_pass++;
        if (tr.on) tr.emit(K.xdp_pass, cpu.now, cpu.id, r.index, s, packet, page, 0);
        this.deliverSkb(cpu, r, page, packet, x.data, x.dataEnd - x.data, true);
        return;
      case XDP_REDIRECT:
        r.c.xdp_redirect++;
        m.charge(cpu, S.xdp_redirect);
        if (tr.on) tr.emit(K.xdp_redirect, cpu.now, cpu.id, r.index, s, packet, page, x.redirectIfindex);
        if (this.devmap && this.devmap.opts.xdpCapable) {
          // The skb path needs no XDP support in the target: dev_queue_xmit works on any device.
          this.devmap.genericXmit(cpu, page, packet, x.dataEnd - x.data);
          this.reapDevmap(r);
          return;
        }
        r.c.xdp_redirect_err++;
        if (tr.on) tr.emit(K.xdp_exception, cpu.now, cpu.id, r.index, s, packet, page, XDP_REDIRECT);
        break;
      case XDP_TX:
        // generic_xdp_tx is not modelled on this driver: say so, and count the frame as a tx drop.
        r.c.xdp_tx++;
        r.c.tx_dropped++;
        this.warnOnce(-4, 'generic XDP_TX is not modelled on the i40e driver: frames counted as tx_dropped');
        break;
      case XDP_ABORTED:
        r.c.xdp_aborted++;
        if (tr.on) tr.emit(K.xdp_exception, cpu.now, cpu.id, r.index, s, packet, page, XDP_ABORTED);
        break;
      case XDP_DROP:
        r.c.xdp_drop++;
        if (tr.on) tr.emit(K.xdp_drop, cpu.now, cpu.id, r.index, s, packet, page, 0);
        break;
      default:
        r.c.xdp_unknown++;
        this.warnOnce(act, `Illegal XDP return value ${act}, expect packet loss`);
        if (tr.on) tr.emit(K.xdp_unknown, cpu.now, cpu.id, r.index, s, packet, page, act);
    }
    m.charge(cpu, S.skb_free);
    this.dropBuffer(cpu, r, page, packet);
  }

  private warnOnce(key: number, msg: string): void {
    if (this.warnedActions.has(key)) return;
    this.warnedActions.add(key);
    this.warnings.push(msg);
  }

  /** XDP_DROP / ABORTED / failure: recycle into the page cache, else free the fragment. */
  private dropBuffer(cpu: Cpu, r: RxRing, page: number, packet: number): void {
    if (this.mode === 'order0' && this.mlx4_en_rx_recycle(cpu, r, page, packet)) return;
    this.mlx4_en_free_frag(cpu, r, page, packet);
  }

  /** mlx4_en_rx_recycle: keep a dma-mapped page in the ring's cache if there is room. */
  mlx4_en_rx_recycle(cpu: Cpu, r: RxRing, page: number, packet: number): boolean {
    if (!this.m.cfg.pageCache) return false;
    if (r.cacheCount >= MLX4_EN_CACHE_SIZE) {
      r.c.cache_full++;
      return false;
    }
    this.m.charge(cpu, S.page_cache_put);
    r.cache[r.cacheCount++] = page;
    const a = this.m.alloc;
    a.loc[page] = PageLoc.PAGE_CACHE;
    a.owner[page] = r.index;
    r.c.cache_put++;
    const tr = this.m.trace;
    if (tr.on) tr.emit(K.page_cache_put, cpu.now, cpu.id, r.index, -1, packet, page, r.cacheCount);
    return true;
  }

  /** mlx4_en_free_frag: unmap and drop the driver's reference (frees the page on the last one). */
  private mlx4_en_free_frag(cpu: Cpu, r: RxRing, page: number, packet: number): void {
    const m = this.m;
    m.charge(cpu, S.rx_frag_free);
    if (this.mode === 'order0') {
      m.charge(cpu, S.dma_unmap);
      m.charge(cpu, S.free_order0);
      this.traceFree(cpu, r, page, packet, 0);
      m.alloc.free(page);
    } else if (this.putFragRefCharged(cpu, r, page)) this.traceFree(cpu, r, page, packet, 3);
  }

  private traceFree(cpu: Cpu, r: RxRing, page: number, packet: number, order: number): void {
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

  private freePage(_r: RxRing, page: number): void {
    this.m.alloc.free(page);
  }

  // ---------------------------------------------------------------- refill

  /**
   * mlx4_en_refill_rx_buffers: post a buffer on every empty slot, from the
   * page cache first (order-0 mode), else from the page allocator. An
   * allocation failure leaves the slot empty; the NIC will drop when it
   * runs out of posted buffers. `cpu` null: port start (not charged).
   */
  mlx4_en_refill_rx_buffers(r: RxRing, cpu: Cpu | null): void {
    const m = this.m;
    const a = m.alloc;
    const tr = m.trace;
    let posted = 0;
    while (r.prod - r.cons < r.size) {
      const s = r.prod & r.mask;
      let page: number;
      let off = 0;
      if (this.mode === 'order0') {
        if (r.cacheCount > 0) {
          page = r.cache[--r.cacheCount]!;
          r.c.cache_get++;
          if (cpu) m.charge(cpu, S.page_cache_get);
          if (tr.on) tr.emit(K.page_cache_get, cpu?.now ?? 0, r.cpu.id, r.index, s, -1, page, r.cacheCount);
        } else {
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
        if (r.fragPage < 0 || r.fragOff + this.fragStride > PAGE_SIZE << MLX4_EN_ALLOC_ORDER) {
          if (r.fragPage >= 0) {
            if (cpu) {
              if (this.putFragRefCharged(cpu, r, r.fragPage)) this.traceFree(cpu, r, r.fragPage, -1, 3);
            } else this.putFragRef(r.fragPage);
            r.fragPage = -1;
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
          r.fragPage = p;
          r.fragOff = 0;
          if (cpu) {
            m.charge(cpu, S.alloc_order3);
            m.charge(cpu, S.dma_map);
          }
          if (tr.on) tr.emit(K.page_alloc, cpu?.now ?? 0, r.cpu.id, r.index, s, -1, p, MLX4_EN_ALLOC_ORDER);
        }
        page = r.fragPage;
        off = r.fragOff;
        r.fragOff += this.fragStride;
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
  private deliverSkb(cpu: Cpu, r: RxRing, page: number, packet: number, _data: number, _len: number, skbBuilt = false): void {
    const m = this.m;
    const a = m.alloc;
    const tr = m.trace;
    if (!skbBuilt) m.charge(cpu, S.skb_build);
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

  /** mlx4_en_xmit_frame: post the page on the ring's XDP tx ring (a doorbell every MLX4_EN_DOORBELL_BUDGET); full ring → tx_dropped, recycle. */
  private mlx4_en_xmit_frame(cpu: Cpu, r: RxRing, page: number, packet: number, data: number, len: number): void {
    if (this.xdpTx.xmit(cpu, r, page, packet, data, len)) this.m.alloc.owner[page] = r.index;
    else this.dropBuffer(cpu, r, page, packet);
  }

  /** mlx4_en_process_tx_cq for the XDP tx ring: completed frames' pages go back to the rx ring's cache. */
  private mlx4_en_process_tx_cq(cpu: Cpu, r: RxRing): void {
    this.xdpTx.process_tx_cq(cpu, r);
  }

  /** mlx4_en_recycle_tx_desc: into the originating rx ring's cache, else free. */
  private mlx4_en_recycle_tx_desc(cpu: Cpu, r: RxRing, page: number, packet: number): void {
    if (this.mlx4_en_rx_recycle(cpu, r, page, packet)) return;
    const m = this.m;
    m.charge(cpu, S.dma_unmap);
    m.charge(cpu, S.free_order0);
    this.traceFree(cpu, r, page, packet, 0);
    m.alloc.free(page);
  }
}
