/**
 * The driver-neutral rx ring every NIC model posts buffers on: descriptor
 * slots (page, offset, length, packet, state), the three indices that say
 * who owns which slot, the ring's interrupt-moderation state, its XDP tx
 * ring, its program pointer and its counters; and the two numbers every
 * XDP driver shares, NAPI_BUDGET and XDP_PACKET_HEADROOM.
 *
 * It promises: cons <= hw <= prod and prod - cons <= size; slots in
 * [cons, hw) hold completed frames (software owns them), slots in
 * [hw, prod) are posted buffers (the NIC owns them). Where buffers come
 * from and where they go back to (mlx4's page cache, vmxnet3's page_pool,
 * i40e's page reuse, UMEM chunks) is each driver's, not the ring's.
 */
import type { Cpu } from '../machine';
import type { XdpHook } from '../program';
import { XdpTxRing } from './xdp_tx_ring';
import { column } from '../column';

/** NAPI weight (NAPI_POLL_WEIGHT): completions one poll may process. */
export const NAPI_BUDGET = 64;
/** XDP_PACKET_HEADROOM: the room in front of the frame a native XDP buffer reserves. */
export const XDP_PACKET_HEADROOM = 256;

export const enum SlotState {
  /** No buffer: waiting for refill. */
  EMPTY = 0,
  /** Buffer posted: owned by the hardware. */
  HW = 1,
  /** Frame written and completion posted: owned by software until the poll consumes it. */
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
  /** The driver's page recycling (mlx4's page cache, the page_pool, i40e's page reuse): put, refused, taken, found empty. */
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
  // Plain arrays, not typed ones: ../column.ts says why.
  readonly slotPage: number[];
  /** Offset of the buffer within its page (fragments): the frame starts at +headroom. */
  readonly slotOff: number[];
  readonly slotLen: number[];
  readonly slotPkt: number[];
  /** SlotState per slot. */
  readonly slotState: number[];
  /** Next completion to process. */
  cons = 0;
  /** Next posted slot the NIC will fill. */
  hw = 0;
  /** Next slot to refill. */
  prod = 0;
  /** The ring's program pointer (swapped with xchg semantics when replacing a program). */
  prog: XdpHook | null = null;
  /** The longest frame the posted buffers take (the driver sets it with its buffer layout): a longer one the NIC counts rx_oversize. */
  maxFrame = Infinity;
  /** Interrupt moderation (ethtool -C): the interrupt fires after coalFrames completions (rx-frames; Infinity: no frame limit) or coalCycles after the first (rx-usecs). */
  coalFrames = Infinity;
  coalCycles = 0;
  /** Completion-queue interrupt state. */
  armed = true;
  cqeSinceArm = 0;
  firstCqeAt = Infinity;
  readonly c: RingCounters = newRingCounters();
  /** The ring's XDP tx ring (XDP_TX frames go out on the rx ring's own tx ring). */
  readonly tx: XdpTxRing;

  constructor(
    readonly index: number,
    readonly size: number,
    txSize: number,
    readonly cpu: Cpu,
  ) {
    this.mask = size - 1;
    this.slotPage = column(size, -1);
    this.slotOff = column(size, 0);
    this.slotLen = column(size, 0);
    this.slotPkt = column(size, -1);
    this.slotState = column(size, SlotState.EMPTY);
    this.tx = new XdpTxRing(txSize);
  }

  /** ethtool -C: rx-frames (Infinity: no frame limit) and rx-usecs, the latter in the CPU's cycles. */
  moderate(frames: number, usecs: number, cyclesPerNs: number): void {
    this.coalFrames = frames;
    this.coalCycles = usecs * 1000 * cyclesPerNs;
  }
}
