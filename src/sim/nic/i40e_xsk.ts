/**
 * i40e with an AF_XDP socket bound to queue 0 (seed 001): the xdpsock
 * program redirects every frame into the XSKMAP slot of its rx queue, and
 * the socket's application runs on a CPU of its own.
 *
 * Modes (XDP_ZEROCOPY, XDP_COPY, XDP_SKB):
 *   zc    the rx ring is posted with UMEM chunks taken from the fill ring
 *         (i40e_alloc_rx_buffers_zc → xskq_cons_read_addr); the NIC DMAs
 *         straight into the UMEM; i40e_run_xdp_zc → xsk_rcv only writes an
 *         rx descriptor. Tx: the NAPI poll takes descriptors from the tx
 *         ring (i40e_xmit_zc → xskq_cons_peek_desc) onto the HW tx ring;
 *         i40e_clean_xdp_tx_irq puts sent addresses on the completion ring.
 *         No fill entries → slots stay empty → the NIC drops (rx_missed).
 *   copy  native XDP on the driver's own pages; xsk_rcv copies the frame
 *         into a chunk from the fill ring (none: rx_dropped). Tx goes
 *         through sendto() on the application's CPU: xsk_generic_xmit
 *         builds an skb per descriptor, copies the data and calls the
 *         driver's xmit (a doorbell each); the skb's destructor puts the
 *         address on the completion ring when the NIC is done.
 *   skb   generic XDP: an skb per frame, do_xdp_generic, xsk_generic_rcv
 *         copies into the UMEM; tx as in copy mode.
 * The application (xdpsock): rxdrop (rx ring → fill ring), l2fwd (rx ring
 * → swap MACs in the UMEM → tx ring; completion ring → fill ring), txonly
 * (tx ring from its own frames; completion ring → free list).
 *
 * Every UMEM chunk the application registered is, at every step, in one
 * place: fill ring, NIC rx ring, rx ring, the application, tx ring, NIC tx
 * ring or completion ring (checkUmemChunks via extraInvariants). The
 * driver's own pages (copy and skb mode) are recycled in place (i40e page
 * reuse) and are not modelled as allocator pages.
 */
import { Cpu, CpuState as CpuStateEnum, type Machine } from '../machine';
import { J } from '../journey';
import type { PageLoc } from '../page_alloc';
import { XdpBuff, type XdpHook } from '../program';
import type { AfXdpSocket, AttachResult, MtuResult, NicDriver, RedirectHandler } from './driver';
import { NAPI_BUDGET as NAPI_BUDGET_, RxRing, XDP_PACKET_HEADROOM as HEADROOM } from './rx_ring';
import {
  checkUmemChunks,
  XdpUmem,
  XskQueue,
  xskq_cons_peek_desc as peekDesc,
  xskq_cons_read_addr as readAddr,
  addr_base as addrBase,
  addr_hi as addrHi,
  addr_lo as addrLo,
  addr_value as addrValue,
  xsk_statistics,
  xsk_umem_encode_addr as encodeAddr,
  type XskAddr,
  type XskDesc,
} from '../xsk';
import type { XskConfig } from '../config';
import { column } from '../column';
import { TxWire, wireCyclesPerByte } from '../wire';
import { XdpTxRing } from './xdp_tx_ring';
import { bpf_prog_run_xdp as runXdp, xdp_prepare_buff as prepareBuff } from './xdp_run';
import { napi_complete_arm as arm, napi_poll_step as pollStep, type NapiDriver, type RxDma } from './napi';

// Numbers read per packet, as file-local const enums: the transpiler writes each use as a
// literal (an imported binding is a getter under tsx/vitest; a module-level object is a load
// and checks). tests/unit/sim-const-enums.test.ts holds each to its definition.
const enum S { rx_cqe = 4, page_cache_get = 10, rx_doorbell = 21, tx_doorbell = 23, tx_cq_poll = 24, tx_complete = 25, skb_build = 26, xdp_redirect = 30, copy_line = 33, skb_free = 41, generic_xdp = 42, pskb_expand_head = 43, xdp_do_flush = 53, rx_cqe_zc = 65, xsk_rcv_zc = 66, xsk_rcv_copy = 67, xsk_unaligned_addr = 68, xsk_fill_get = 69, xsk_xmit_zc = 70, xsk_skb_tx_complete = 71, xsk_generic_xmit = 72, xsk_sendto = 73, xsk_app_batch = 74, xsk_app_pkt = 75, xsk_app_recycle = 76, xsk_app_spin = 77 }
/** The driver's own rx buffer per slot in copy and skb mode. */
const SLOT_BUF_SIZE = 2048;
const enum K { xdp_run = 6, xdp_exception = 7, xdp_redirect = 11 }
const CpuState = { IDLE: CpuStateEnum.IDLE, POLL_BEGIN: CpuStateEnum.POLL_BEGIN, POLL_RX: CpuStateEnum.POLL_RX, POLL_END: CpuStateEnum.POLL_END } as const;
const bpf_prog_run_xdp = runXdp;
// Module-local copies of the per-packet ring helpers (an imported binding is a getter call under tsx/vitest).
const xskq_cons_peek_desc = peekDesc;
const xskq_cons_read_addr = readAddr;
const addr_value = addrValue;
const addr_base = addrBase;
const addr_lo = addrLo;
const addr_hi = addrHi;
const xsk_umem_encode_addr = encodeAddr;
const xdp_prepare_buff = prepareBuff;
const napi_poll_step = pollStep;
const napi_complete_arm = arm;
const enum SlotState { EMPTY = 0, HW = 1 }
/** enum xdp_action (include/uapi/linux/bpf.h). */
const enum xdp_action { XDP_ABORTED = 0, XDP_DROP = 1, XDP_PASS = 2, XDP_TX = 3, XDP_REDIRECT = 4 }
// The budget, read for every frame: a local copy too (each imported read was a getter and a megamorphic keyed load).
const NAPI_BUDGET = NAPI_BUDGET_;
/** XDP_PACKET_HEADROOM: in zero-copy mode the frame starts this far after the UMEM headroom. */
const XDP_PACKET_HEADROOM = HEADROOM;
/** xdpsock's BATCH_SIZE. */
const BATCH_SIZE = 64;
/** xsk_generic_xmit's TX_BATCH_SIZE: descriptors sent per sendto(). */
const TX_BATCH_SIZE = 16;
/** How long the application's busy loop takes when it finds nothing to do (one spin of the loop). */
const APP_SPIN_CYCLES = 200;

export class I40eXsk implements NicDriver, NapiDriver, RxDma, AfXdpSocket {
  readonly kind = 'i40e' as const;
  /** This model's poll is not traced at its start and end (only its interrupts and completions). */
  readonly napiTrace = false;
  readonly rings: RxRing[];
  readonly mode: string;
  readonly mtu: number;
  readonly warnings: string[] = [];
  readonly sockets = null;
  redirect: RedirectHandler | null = null;
  packetsDone = 0;
  readonly umem: XdpUmem;
  readonly fq: XskQueue;
  readonly rx: XskQueue;
  readonly tx: XskQueue;
  readonly cq: XskQueue;
  /** Frames xsk_rcv could not deliver (rx ring full, or no fill entry in copy mode). */
  rxDropped = 0;
  /** The application's own chunks (txonly's free list; l2fwd/rxdrop hold none between loops). */
  private readonly appFree: number[] = [];
  /** The NIC rx ring's UMEM address per slot (zero-copy), or -1: a plain array (../column.ts says why). */
  private readonly slotAddr: number[];
  /** Copy/skb mode: the driver's own rx buffers (recycled in place). */
  private readonly slotBuf: Uint8Array[];
  /** The array slotBuf's buffers are views of. */
  private readonly slotMem: Uint8Array;
  /** The HW tx ring: each descriptor's data is the UMEM chunk the completion ring gets back (no allocator page). */
  private readonly hwTx: XdpTxRing;
  private readonly wire: TxWire;
  private readonly txLatency: number;
  private readonly xdp = new XdpBuff();
  private prog_: XdpHook | null = null;
  readonly app: Cpu;
  /** Chunks registered and in circulation (the conservation target). */
  readonly chunksInUse: number;
  /** xsk.mode and xsk.app as flags, read on the per-packet path (the config does not change while bound). */
  private readonly zc: boolean;
  private readonly skbMode: boolean;
  private readonly l2fwd: boolean;
  private readonly txonly: boolean;
  /** rings[0], the only queue (one load less than through the array per packet). */
  private readonly ring: RxRing;
  /** Where a received frame starts in its chunk: the UMEM headroom, then XDP_PACKET_HEADROOM. */
  private readonly frameOff: number;

  constructor(
    readonly m: Machine,
    readonly xsk: XskConfig,
  ) {
    const cfg = m.cfg;
    this.mtu = cfg.mtu;
    this.mode = `af_xdp-${xsk.mode}`;
    this.zc = xsk.mode === 'zc';
    this.skbMode = xsk.mode === 'skb';
    this.l2fwd = xsk.app === 'l2fwd';
    this.txonly = xsk.app === 'txonly';
    this.frameOff = xsk.headroom + XDP_PACKET_HEADROOM;
    this.ring = new RxRing(0, cfg.rxRingSize, 2, m.cpus[0]!);
    this.rings = [this.ring];
    this.app = m.cpus[m.cpus.length - 1]!;
    this.app.state = CpuState.POLL_RX; // xdpsock busy-polls its rings
    this.umem = new XdpUmem({ size: xsk.frames * xsk.chunkSize, chunkSize: xsk.chunkSize, headroom: xsk.headroom, unaligned: xsk.unaligned });
    this.fq = new XskQueue('fill', xsk.ringSize);
    this.rx = new XskQueue('rx', xsk.ringSize);
    this.tx = new XskQueue('tx', xsk.ringSize);
    this.cq = new XskQueue('completion', xsk.ringSize);
    // Int32: a UMEM is at most MAX_FRAME_BUFFER (2^28) bytes (resolveConfig), so every chunk address is a small integer.
    if (this.umem.size > 2 ** 31) throw new Error(`i40e: a UMEM of ${this.umem.size} bytes is over the 2^31 its rx slots hold`);
    this.slotAddr = column(cfg.rxRingSize, -1);
    // One array under all the slots' buffers: a program's xdp_buff then lies in the same array
    // packet after packet (the VM hook keeps its views per array; a new array would drop them).
    this.slotMem = new Uint8Array(xsk.mode === 'zc' ? 0 : cfg.rxRingSize * SLOT_BUF_SIZE);
    this.slotBuf = xsk.mode === 'zc' ? [] : Array.from({ length: cfg.rxRingSize }, (_, s) => this.slotMem.subarray(s * SLOT_BUF_SIZE, (s + 1) * SLOT_BUF_SIZE));
    this.hwTx = new XdpTxRing(cfg.txRingSize);
    this.wire = new TxWire(wireCyclesPerByte(cfg.hw.linkGbps, m.cyclesPerNs));
    this.txLatency = cfg.hw.txLatencyNs * m.cyclesPerNs;
    // No rx-frames limit on this model's i40e: rx-usecs alone; any frame length fits a chunk (the ring's maxFrame stays Infinity).
    this.ring.moderate(Infinity, cfg.rxCoalUsecs, m.cyclesPerNs);
    // xdpsock: the fill ring gets XSK_RING_PROD__DEFAULT_NUM_DESCS frames (all of them for txonly: its free list).
    const posted = xsk.app === 'txonly' ? 0 : Math.min(xsk.ringSize, xsk.frames);
    for (let i = 0; i < posted; i++) this.fq.xskq_prod_reserve_addr(addr_lo(i * xsk.chunkSize), addr_hi(i * xsk.chunkSize));
    if (xsk.app === 'txonly') for (let i = 0; i < xsk.frames; i++) this.appFree.push(i * xsk.chunkSize);
    this.chunksInUse = xsk.app === 'txonly' ? xsk.frames : posted;
    // In unaligned mode xdpsock still hands out chunk-sized frames; the kernel adds the headroom as an offset.
    this.i40e_alloc_rx_buffers(null);
  }

  get prog(): XdpHook | null {
    return this.prog_;
  }

  redirectTarget(): null {
    return null;
  }

  afXdp(): AfXdpSocket {
    return this;
  }

  fillRingEmpty(): number {
    return this.rings[0]!.c.alloc_fail;
  }

  /** The UMEM chunk a buffer address falls in: the journey's key for the frame in it. */
  private chunkOf(addr: number): number {
    return addr - this.umem.chunkOffset(addr);
  }

  /** The journey: the packet in the chunk at `addr` (a ring entry's: its low 48 bits) reached `stage` (nothing when no packet is known for it). */
  private journeyChunk(cpu: Cpu, stage: number, addr: number, b: number, at = cpu.now, cpuId = cpu.id): void {
    const j = this.m.journey;
    const key = this.chunkOf(addr);
    const packet = j.chunkPacket(key);
    if (packet >= 0) j.add(stage, at, cpuId, packet, -1, key, b);
  }

  // A buffer address as user space writes it to a ring is (addr_lo(addr),
  // addr_hi(addr)): in unaligned mode too, where it is xsk_umem_encode_addr
  // with offset 0, the same bits. Ring entries travel as those two numbers.
  // This model's UMEM is at most 2^31 bytes (the constructor refuses a larger
  // one): every address is below 2^32, its high word 0, so the per-packet
  // paths write (addr, 0) without the conversion.

  // Scratch records for the per-packet ring traffic: each is filled and
  // consumed at once, so nothing is allocated per packet.
  /** What xsk_umem_encode_addr writes for an unaligned rx descriptor. */
  private readonly addrOut: XskAddr = { hi: 0, lo: 0 };
  /** A descriptor taken from the tx ring. */
  private readonly txDesc: XskDesc = { addr: 0, len: 0 };

  setXdp(prog: XdpHook | null): AttachResult {
    this.prog_ = prog;
    this.rings[0]!.prog = prog;
    return { ok: true, restarted: false };
  }

  changeMtu(mtu: number): MtuResult {
    return mtu === this.mtu ? { ok: true } : { ok: false, message: 'i40e: changing the MTU with an AF_XDP socket bound is not modelled' };
  }

  cacheView(): { kind: 'page_pool'; size: number; level: number; pages: number[] } {
    return { kind: 'page_pool', size: 0, level: 0, pages: [] };
  }

  framesInTransit(): number {
    // Redirected frames not yet finished: on the rx ring, in the application, and (l2fwd) on the tx ring or the HW tx ring.
    return this.rx.entries + this.inApp + (this.xsk.app === 'l2fwd' ? this.tx.entries + (this.hwTx.prod - this.hwTx.cons) : 0);
  }

  /** Frames the application holds between taking them from rx and putting them on tx (always 0 between steps). */
  private inApp = 0;

  forEachPageRef(_visit: (page: number, loc: PageLoc, what: string) => void): void {
    // No allocator pages: zero-copy buffers are UMEM chunks; copy-mode buffers are recycled in place.
  }

  extraInvariants(): string[] {
    const nicRx: number[] = [];
    const r = this.rings[0]!;
    if (this.xsk.mode === 'zc') for (let i = r.cons; i < r.prod; i++) nicRx.push(this.slotAddr[i & r.mask]!);
    nicRx.push(...this.reused);
    const nicTx: number[] = [];
    this.hwTx.forEachPage((_, s) => nicTx.push(this.hwTx.slotData[s]!));
    return checkUmemChunks(this.umem, { fq: this.fq, rx: this.rx, tx: this.tx, cq: this.cq }, { 'NIC rx ring': nicRx, 'NIC tx ring': nicTx, app: this.appFree }, this.chunksInUse);
  }

  statistics(): ReturnType<typeof xsk_statistics> {
    return xsk_statistics({ fq: this.fq, rx: this.rx, tx: this.tx, rxDropped: this.rxDropped });
  }

  // ---------------------------------------------------------------- the NIC

  /** Zero-copy: the NIC writes into the UMEM chunk the slot was posted with; copy/skb: into the driver's own buffer. */
  rx_dma(_r: RxRing, s: number, frame: Uint8Array): number {
    if (this.zc) this.umem.data.set(frame, this.umem.xp_mem(this.slotAddr[s]! + this.frameOff));
    else this.slotBuf[s]!.set(frame.length <= SLOT_BUF_SIZE - XDP_PACKET_HEADROOM ? frame : frame.subarray(0, SLOT_BUF_SIZE - XDP_PACKET_HEADROOM), XDP_PACKET_HEADROOM);
    return -1;
  }

  // ---------------------------------------------------------------- CPUs

  step(cpu: Cpu): void {
    if (cpu === this.app) this.xdpsock_loop(cpu);
    else this.i40e_napi_poll_step(cpu);
  }

  private i40e_napi_poll_step(cpu: Cpu): void {
    napi_poll_step(this.m, cpu, this.ring, this);
  }

  napi_clean_tx(cpu: Cpu): void {
    this.i40e_clean_tx_irq(cpu);
    if (this.zc) this.i40e_xmit_zc(cpu);
  }

  napi_rx_one(cpu: Cpu, r: RxRing): void {
    this.i40e_clean_rx_irq_one(cpu, r);
  }

  napi_flush(cpu: Cpu): void {
    if (this.rxProduced) {
      // xsk_flush: publish the rx producer index and wake the socket.
      this.m.charge(cpu, S.xdp_do_flush);
      this.rxProduced = 0;
    }
  }

  napi_refill(cpu: Cpu): void {
    this.i40e_alloc_rx_buffers(cpu);
  }

  napi_rearm(cpu: Cpu, r: RxRing): void {
    napi_complete_arm(r, cpu);
    // Pending tx completions, or zero-copy tx work the application kicked, raise their own interrupt.
    const txDone = this.hwTx.nextDone();
    if (txDone < Infinity) cpu.wakeAt = Math.min(cpu.wakeAt, Math.max(cpu.now, txDone) + this.ring.coalCycles);
    if (this.zc && this.tx.entries > 0) cpu.wakeAt = Math.min(cpu.wakeAt, cpu.now + this.ring.coalCycles);
  }

  private rxProduced = 0;

  /** One rx descriptor: run the program; XDP_REDIRECT into the XSKMAP → xsk_rcv. */
  private i40e_clean_rx_irq_one(cpu: Cpu, r: RxRing): void {
    const m = this.m;
    const tr = m.trace;
    const s = r.cons & r.mask;
    const len = r.slotLen[s]!;
    const packet = r.slotPkt[s]!;
    const zc = this.zc;
    const chunk = this.slotAddr[s]!;
    m.charge(cpu, zc ? S.rx_cqe_zc : S.rx_cqe);
    r.slotState[s] = SlotState.EMPTY;
    r.slotPkt[s] = -1;
    this.slotAddr[s] = -1;
    r.cons++;
    this.packetsDone++;
    const generic = this.skbMode;
    if (generic) {
      m.charge(cpu, S.skb_build);
      m.charge(cpu, S.generic_xdp);
      m.charge(cpu, S.pskb_expand_head);
    }
    const x = this.xdp;
    const prog = this.prog_;
    let act = xdp_action.XDP_PASS;
    if (prog) {
      // Copy mode: the slot's buffer within slotMem, unless a chunk is larger than the buffer (then the
      // buffer alone, so the program's frame ends where the buffer does).
      const own = !zc && this.umem.chunkSize > SLOT_BUF_SIZE;
      const hardStart = zc ? this.umem.xp_mem(chunk + this.umem.headroom) : own ? 0 : s * SLOT_BUF_SIZE;
      xdp_prepare_buff(x, zc ? this.umem.data : own ? this.slotBuf[s]! : this.slotMem, hardStart, hardStart + XDP_PACKET_HEADROOM, len, this.umem.chunkSize, 0);
      act = bpf_prog_run_xdp(m, cpu, prog, x);
      if (x.fault !== undefined) act = xdp_action.XDP_ABORTED;
    }
    if (tr.on) tr.emit(K.xdp_run, cpu.now, cpu.id, 0, s, packet, -1, act);
    if (act !== xdp_action.XDP_REDIRECT) {
      // Not the xdpsock program's verdict: drop (PASS would need the stack, which this model leaves out).
      if (act === xdp_action.XDP_DROP || act === xdp_action.XDP_ABORTED || act === xdp_action.XDP_PASS) {
        if (act === xdp_action.XDP_PASS) this.warnOnce('XDP_PASS with an AF_XDP socket bound: the stack is not modelled here, frames dropped');
        r.c[act === xdp_action.XDP_DROP ? 'xdp_drop' : act === xdp_action.XDP_ABORTED ? 'xdp_aborted' : 'xdp_pass']++;
        if (act === xdp_action.XDP_PASS) {
          r.c.stack_rx++;
          r.c.stack_dropped++;
        }
      } else {
        r.c.xdp_unknown++;
        this.warnOnce(`Illegal XDP return value ${act}, expect packet loss`);
      }
      if (zc) this.i40e_reuse_rx_buffer_zc(chunk);
      return;
    }
    r.c.xdp_redirect++;
    m.charge(cpu, S.xdp_redirect);
    if (tr.on) tr.emit(K.xdp_redirect, cpu.now, cpu.id, 0, s, packet, -1, 0);
    // bpf_redirect(ifindex) names a device, not the socket: this machine has no other device, so xdp_do_redirect fails.
    const toDevice = x.redirectIfindex >= 0;
    if (toDevice) this.warnOnce('bpf_redirect(ifindex) with only an AF_XDP socket to deliver to: redirect to a device fails here (use bpf_redirect_map on the XSKMAP)');
    if (toDevice || !this.xsk_rcv(cpu, zc ? chunk : -1, s, len, packet)) {
      r.c.xdp_redirect_err++;
      if (!toDevice) this.rxDropped++; // the socket's rx_dropped: its rx ring was full or the fill ring empty
      if (tr.on) tr.emit(K.xdp_exception, cpu.now, cpu.id, 0, s, packet, -1, xdp_action.XDP_REDIRECT);
      if (zc) this.i40e_reuse_rx_buffer_zc(chunk);
    }
    if (generic) m.charge(cpu, S.skb_free);
  }

  /** A zero-copy buffer the program did not pass to the socket goes back to the fill ring's place: the head of the refill (i40e_reuse_rx_buffer_zc). */
  private i40e_reuse_rx_buffer_zc(chunk: number): void {
    this.reused.push(chunk);
  }

  private readonly reused: number[] = [];

  /** The frame in slot s's buffer (len bytes after the headroom), as a view kept per slot until the length changes. */
  private slotFrame(s: number, len: number): Uint8Array {
    const v = this.slotFrames[s];
    if (v !== undefined && v.length === len) return v;
    return (this.slotFrames[s] = this.slotBuf[s]!.subarray(XDP_PACKET_HEADROOM, XDP_PACKET_HEADROOM + len));
  }
  private readonly slotFrames: (Uint8Array | undefined)[] = [];

  /**
   * xsk_rcv: zero-copy only writes a descriptor for the chunk the NIC filled;
   * copy (and xsk_generic_rcv in skb mode) takes a fill-ring address and
   * copies the frame into it. False when the frame cannot be delivered.
   */
  // xsk_rcv is inlined into the per-packet rx step: what only copy mode,
  // unaligned mode or the journey do lives in methods of its own, so the
  // inlined body stays small (TurboFan's inlining budget counts whole
  // functions, untaken branches too).
  private xsk_rcv(cpu: Cpu, chunk: number, s: number, len: number, packet: number): boolean {
    const rx = this.rx;
    if (rx.free === 0) return false;
    let base = chunk;
    if (chunk >= 0) this.m.charge(cpu, S.xsk_rcv_zc);
    else if ((base = this.__xsk_rcv(cpu, s, len)) < 0) return false;
    // The descriptor: aligned mode the frame's address; unaligned mode the base with the headroom as the offset.
    if (this.umem.unaligned) this.xsk_rcv_unaligned_desc(cpu, base, len);
    else rx.xskq_prod_reserve_desc(base + this.frameOff, 0, len, 0);
    this.rxProduced++;
    if (this.m.journey.on) this.journeyRcv(cpu, base, packet);
    return true;
  }

  /** Copy mode's xsk_rcv (__xsk_rcv): the frame copied into a fill-ring chunk; the chunk, or -1 when the fill ring is empty. */
  private __xsk_rcv(cpu: Cpu, s: number, len: number): number {
    const m = this.m;
    m.charge(cpu, S.xsk_rcv_copy);
    const addr = xskq_cons_read_addr(this.fq, this.umem);
    if (addr < 0) return -1;
    this.umem.data.set(this.slotFrame(s, len), this.umem.xp_mem(addr + this.frameOff));
    m.chargeTimes(cpu, S.copy_line, (len + 63) >> 6);
    return addr;
  }

  /** Unaligned mode's rx descriptor: the chunk's base with the frame offset in the high 16 bits. */
  private xsk_rcv_unaligned_desc(cpu: Cpu, base: number, len: number): void {
    this.m.charge(cpu, S.xsk_unaligned_addr);
    const a = xsk_umem_encode_addr(base, this.frameOff, this.addrOut);
    this.rx.xskq_prod_reserve_desc(a.lo, a.hi, len, 0);
  }

  /** The journey: the packet is now in the chunk at `base`, on the socket's rx ring. */
  private journeyRcv(cpu: Cpu, base: number, packet: number): void {
    const j = this.m.journey;
    const key = this.chunkOf(base);
    j.setChunk(key, packet);
    j.add(J.xsk_rcv, cpu.now, cpu.id, packet, -1, key, this.rx.entries);
  }

  /** i40e_alloc_rx_buffers(_zc): post every empty slot (zero-copy: with a fill-ring chunk; none left → the slot stays empty). */
  private i40e_alloc_rx_buffers(cpu: Cpu | null): void {
    const r = this.ring;
    const m = this.m;
    let posted = 0;
    while (r.prod - r.cons < r.size) {
      const s = r.prod & r.mask;
      if (this.zc) {
        let addr = this.reused.pop() ?? -1;
        if (addr < 0) {
          addr = xskq_cons_read_addr(this.fq, this.umem);
          if (addr < 0) {
            r.c.alloc_fail++;
            break;
          }
          if (cpu) m.charge(cpu, S.xsk_fill_get);
        }
        this.slotAddr[s] = addr;
      } else if (cpu) m.charge(cpu, S.page_cache_get);
      r.slotState[s] = SlotState.HW;
      r.prod++;
      posted++;
    }
    if (posted && cpu) m.charge(cpu, S.rx_doorbell);
  }

  /** i40e_xmit_zc: descriptors from the socket's tx ring onto the HW ring, one doorbell. */
  private i40e_xmit_zc(cpu: Cpu): void {
    const m = this.m;
    let n = 0;
    while (!this.hwTx.full() && n < NAPI_BUDGET) {
      const d = xskq_cons_peek_desc(this.tx, this.umem, this.txDesc);
      if (!d) break;
      m.charge(cpu, S.xsk_xmit_zc);
      if (this.umem.unaligned) m.charge(cpu, S.xsk_unaligned_addr);
      this.postTx(cpu, d.addr, d.len);
      n++;
    }
    if (n) m.charge(cpu, S.tx_doorbell);
  }

  /** One descriptor on the HW tx ring, fetched at once (the caller charges the doorbell). */
  private postTx(cpu: Cpu, addr: number, len: number): void {
    // The completion ring gets the chunk back: the descriptor's address without the frame offset.
    const slot = this.hwTx.post(-1, -1, addr - this.umem.chunkOffset(addr), len);
    if (this.m.journey.on) this.journeyChunk(cpu, J.xsk_xmit, addr, slot);
    this.hwTx.ring(this.wire, cpu.now + this.txLatency);
  }

  /** i40e_clean_tx_irq / i40e_clean_xdp_tx_irq: sent frames' chunks onto the completion ring. */
  private i40e_clean_tx_irq(cpu: Cpu): void {
    const m = this.m;
    m.charge(cpu, S.tx_cq_poll);
    // Copy mode: the skb is consumed here and its destructor (xsk_destruct_skb) completes the address.
    this.hwTx.reap(m, cpu, this.zc ? S.tx_complete : S.xsk_skb_tx_complete, this.xsk_tx_completed);
  }

  private readonly xsk_tx_completed = (_page: number, _packet: number, s: number, sentAt: number): void => {
    const addr = this.hwTx.slotData[s]!;
    this.cq.xskq_prod_reserve_addr(addr, 0);
    if (this.m.journey.on) {
      const cpu = this.rings[0]!.cpu;
      const packet = this.m.journey.chunkPacket(this.hwTx.slotData[s]!);
      if (packet >= 0) this.m.journey.add(J.xmit, sentAt, -1, packet, -1, this.hwTx.slotLen[s]!, s);
      this.journeyChunk(cpu, J.xsk_cq, this.hwTx.slotData[s]!, this.cq.entries);
    }
    if (this.l2fwd) this.ring.c.redirect_done++;
  };

  // ---------------------------------------------------------------- the application

  /** One iteration of xdpsock's main loop (rx_drop / l2fwd / tx_only), busy polling. */
  private xdpsock_loop(cpu: Cpu): void {
    const m = this.m;
    const before = cpu.now;
    // rxdrop recycles straight to the fill ring: no completions to reap.
    if (this.l2fwd || this.txonly) this.complete_tx(cpu);
    if (this.txonly) this.tx_only(cpu);
    else this.rx_batch(cpu, this.l2fwd);
    if (cpu.now === before) {
      // Nothing to do: one more spin of the busy loop.
      m.charge(cpu, S.xsk_app_spin);
      cpu.now = Math.max(cpu.now, before + APP_SPIN_CYCLES);
    }
  }

  /** complete_tx_l2fwd: kick the kernel for pending tx (sendto), then recycle completed addresses. */
  private complete_tx(cpu: Cpu): void {
    const m = this.m;
    if (this.tx.entries > 0 && !this.zc) {
      m.charge(cpu, S.xsk_sendto);
      this.xsk_generic_xmit(cpu);
    } else if (this.tx.entries > 0 && this.zc) {
      m.charge(cpu, S.xsk_sendto);
      // The wakeup (ndo_xsk_async_xmit) schedules the NAPI poll that transmits.
      const napi = this.ring.cpu;
      if (napi.state === CpuState.IDLE) napi.wakeAt = Math.min(napi.wakeAt, cpu.now);
    }
    let n = 0;
    while (this.cq.entries > 0 && n < BATCH_SIZE) {
      const i = this.cq.consumer;
      const lo = this.cq.peekLo(i);
      const hi = this.cq.peekHi(i);
      this.cq.release();
      m.charge(cpu, S.xsk_app_recycle);
      if (this.txonly) this.appFree.push(addr_base(lo, hi));
      else {
        this.fq.xskq_prod_reserve_addr(lo, hi);
        if (m.journey.on) this.journeyChunk(cpu, J.xsk_fq, addr_base(lo, hi), this.fq.entries);
      }
      n++;
    }
  }

  /** xsk_generic_xmit (copy and skb mode, on the sending CPU): an skb per descriptor, a doorbell each. */
  private xsk_generic_xmit(cpu: Cpu): void {
    const m = this.m;
    for (let n = 0; n < TX_BATCH_SIZE && !this.hwTx.full(); n++) {
      const d = xskq_cons_peek_desc(this.tx, this.umem, this.txDesc);
      if (!d) break;
      m.charge(cpu, S.xsk_generic_xmit);
      m.chargeTimes(cpu, S.copy_line, (d.len + 63) >> 6);
      if (this.umem.unaligned) m.charge(cpu, S.xsk_unaligned_addr);
      this.postTx(cpu, d.addr, d.len);
      m.charge(cpu, S.tx_doorbell);
      // The NAPI CPU reaps the completion.
      const napi = this.rings[0]!.cpu;
      if (napi.state === CpuState.IDLE) napi.wakeAt = Math.min(napi.wakeAt, this.hwTx.slotDone[(this.hwTx.prod - 1) & this.hwTx.mask]! + this.ring.coalCycles);
    }
  }

  /** rx_drop / l2fwd: a batch from the rx ring; l2fwd swaps MACs and puts each frame on the tx ring. */
  private rx_batch(cpu: Cpu, fwd: boolean): void {
    const m = this.m;
    // Up to a batch of what rx holds and what the ring it goes to (tx, or the fill ring) has room for.
    const out = fwd ? this.tx : this.fq;
    const n = Math.min(this.rx.entries, BATCH_SIZE, out.free);
    if (n === 0) return;
    m.charge(cpu, S.xsk_app_batch);
    for (let k = 0; k < n; k++) {
      const i = this.rx.consumer;
      const lo = this.rx.peekLo(i);
      const hi = this.rx.peekHi(i);
      const len = this.rx.peekLen(i);
      this.rx.release();
      this.inApp++;
      m.charge(cpu, S.xsk_app_pkt);
      if (m.journey.on) this.journeyChunk(cpu, J.xsk_rx_consume, addr_base(lo, hi), fwd ? 1 : 0);
      if (fwd) {
        // swap_mac_addresses on the frame in the UMEM (the first touch of the data on this CPU).
        const start = this.umem.xp_mem(this.umem.xp_raw_addr(lo, hi));
        // Each 6-byte address as a u32 and a u16, both read before either is written: the same bytes, 8 accesses instead of 24.
        const v = this.umem.view;
        const dst0 = v.getUint32(start, true);
        const dst1 = v.getUint16(start + 4, true);
        v.setUint32(start, v.getUint32(start + 6, true), true);
        v.setUint16(start + 4, v.getUint16(start + 10, true), true);
        v.setUint32(start + 6, dst0, true);
        v.setUint16(start + 10, dst1, true);
        this.tx.xskq_prod_reserve_desc(lo, hi, len, 0);
        if (m.journey.on) this.journeyChunk(cpu, J.xsk_tx_produce, addr_base(lo, hi), this.tx.entries);
      } else {
        const addr = this.umem.unaligned ? addr_base(lo, hi) : addr_value(lo, hi);
        const chunk = addr - this.umem.chunkOffset(addr);
        this.fq.xskq_prod_reserve_addr(chunk, 0);
        if (m.journey.on) this.journeyChunk(cpu, J.xsk_fq, addr, this.fq.entries);
        this.ring.c.redirect_done++;
      }
      this.inApp--;
    }
  }

  /** tx_only: frames from the free list onto the tx ring (a fixed 64-byte UDP frame, as xdpsock's). */
  private tx_only(cpu: Cpu): void {
    const n = Math.min(this.appFree.length, this.tx.free, BATCH_SIZE);
    if (n === 0) return;
    this.m.charge(cpu, S.xsk_app_batch);
    for (let k = 0; k < n; k++) {
      const addr = this.appFree.pop()!;
      this.m.charge(cpu, S.xsk_app_pkt);
      this.tx.xskq_prod_reserve_desc(addr, 0, 60, 0);
    }
  }

  private readonly warned = new Set<string>();
  private warnOnce(msg: string): void {
    if (this.warned.has(msg)) return;
    this.warned.add(msg);
    this.warnings.push(msg);
  }

  /**
   * Read-only, for views: every UMEM chunk address held outside the four
   * socket rings: posted on an i40e rx descriptor (zero-copy; with the
   * buffers i40e_reuse_rx_buffer_zc keeps for the next refill), on an i40e
   * tx descriptor not yet cleaned, or in xdpsock's free frame list.
   */
  forEachHeldChunk(visit: (addr: number, where: 'nic_rx' | 'nic_tx' | 'app') => void): void {
    const r = this.rings[0]!;
    if (this.xsk.mode === 'zc') for (let i = r.cons; i < r.prod; i++) if (this.slotAddr[i & r.mask]! >= 0) visit(this.slotAddr[i & r.mask]!, 'nic_rx');
    for (const a of this.reused) visit(a, 'nic_rx');
    this.hwTx.forEachPage((_, s) => visit(this.hwTx.slotData[s]!, 'nic_tx'));
    for (const a of this.appFree) visit(a, 'app');
  }
}
