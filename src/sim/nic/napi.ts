/**
 * The softirq life every driver model shares, written once: the rx
 * interrupt that wakes an idle CPU (napi_schedule), the NAPI poll loop
 * (net_rx_action calling napi->poll: clean tx, up to NAPI_BUDGET rx
 * completions, flush, refill, then napi_complete_done and re-arm, or poll
 * again when the budget ran out), interrupt moderation, and the NIC side of
 * one frame arriving (DMA into the next posted buffer, a completion).
 *
 * What each of those steps does to buffers is the driver's: it implements
 * NapiDriver's hooks, named after the kernel steps. The loop runs one step
 * per call (the simulation interleaves CPUs and the wire step by step).
 */
import { CpuState as CpuStateEnum, type Cpu, type Machine } from '../machine';
import { NAPI_BUDGET as NAPI_BUDGET_, SlotState as SlotStateEnum, type RxRing } from './rx_ring';

// Numbers read per packet, as file-local const enums: the transpiler writes each use as a
// literal (an imported binding is a getter under tsx/vitest; a module-level object is a load
// and checks). tests/unit/sim-const-enums.test.ts holds each to its definition.
// Functions and the rest: module-local copies (a cross-module binding is a getter call when the
// module is transpiled on its own, tsx and vitest; a local const is a plain load).
const enum S { irq = 0, idle_wake = 1, napi_poll = 2, napi_complete = 3 }
const enum K { nic_rx = 0, rx_missed = 1, irq = 2, napi_poll = 3, napi_complete = 4 }
const NAPI_BUDGET = NAPI_BUDGET_;
const SLOT_SW = SlotStateEnum.SW;
const ST = { IDLE: CpuStateEnum.IDLE, POLL_BEGIN: CpuStateEnum.POLL_BEGIN, POLL_RX: CpuStateEnum.POLL_RX, POLL_END: CpuStateEnum.POLL_END } as const;

/** A driver's part of the NAPI poll (its napi->poll, cut at the points the loop calls). */
export interface NapiDriver {
  /** Whether the poll's start and end are traced (napi_poll / napi_complete events). */
  readonly napiTrace: boolean;
  /** At the poll's start: reap tx completions (and whatever else the driver cleans first). */
  napi_clean_tx(cpu: Cpu, r: RxRing): void;
  /** One rx completion at r.cons: run XDP, act on the verdict. */
  napi_rx_one(cpu: Cpu, r: RxRing): void;
  /** After the rx loop: doorbells for pending tx, xdp_do_flush. */
  napi_flush(cpu: Cpu, r: RxRing): void;
  /** Post buffers on the empty slots. */
  napi_refill(cpu: Cpu, r: RxRing): void;
  /** After napi_complete_done: re-enable the interrupt (and schedule wake-ups for outstanding work). */
  napi_rearm(cpu: Cpu, r: RxRing): void;
}

/**
 * One step of a CPU's softirq life on ring r: wake on the interrupt, begin a
 * poll, process one completion, or end the poll.
 */
export function napi_poll_step(m: Machine, cpu: Cpu, r: RxRing, d: NapiDriver): void {
  // The step a busy CPU takes for each packet, first and alone: this small function is then inlined into the
  // simulation's loop, and the rest of the poll (a step per interrupt or poll) stays a call.
  if (cpu.state === ST.POLL_RX && cpu.pollDone < NAPI_BUDGET && r.cons < r.hw) {
    d.napi_rx_one(cpu, r);
    cpu.pollDone++;
  } else napi_poll_other_step(m, cpu, r, d);
}

/** napi_poll_step's every other step: the interrupt, the poll's start, the end of its rx loop, its end. */
function napi_poll_other_step(m: Machine, cpu: Cpu, r: RxRing, d: NapiDriver): void {
  switch (cpu.state) {
    case ST.IDLE:
      napi_schedule_irq(m, cpu, r);
      return;
    case ST.POLL_BEGIN:
      m.charge(cpu, S.napi_poll);
      r.c.polls++;
      if (d.napiTrace && m.trace.on) m.trace.emit(K.napi_poll, cpu.now, cpu.id, r.index, -1, -1, -1, NAPI_BUDGET);
      d.napi_clean_tx(cpu, r);
      cpu.pollDone = 0;
      cpu.state = ST.POLL_RX;
      return;
    case ST.POLL_RX:
      // The budget is spent or the ring is empty (napi_poll_step took the other case).
      cpu.state = ST.POLL_END;
      return;
    case ST.POLL_END:
      d.napi_flush(cpu, r);
      d.napi_refill(cpu, r);
      if (cpu.pollDone >= NAPI_BUDGET) {
        // Budget used up: net_rx_action polls again without re-enabling the interrupt.
        r.c.budget_exhausted++;
        cpu.state = ST.POLL_BEGIN;
        return;
      }
      m.charge(cpu, S.napi_complete);
      if (d.napiTrace && m.trace.on) m.trace.emit(K.napi_complete, cpu.now, cpu.id, r.index, -1, -1, -1, cpu.pollDone);
      d.napi_rearm(cpu, r);
      cpu.state = ST.IDLE;
      cpu.idleSince = cpu.now;
      return;
  }
}

/**
 * The rx interrupt (the driver's irq handler → napi_schedule): the CPU
 * leaves idle at its wake time (the idle stretch accounted), the ring's
 * interrupt stays masked until the poll completes, and the poll begins.
 */
export function napi_schedule_irq(m: Machine, cpu: Cpu, r: RxRing): void {
  m.chargeIdle(cpu, cpu.idleSince, cpu.wakeAt);
  cpu.now = Math.max(cpu.now, cpu.wakeAt);
  cpu.wakeAt = Infinity;
  m.charge(cpu, S.idle_wake);
  m.charge(cpu, S.irq);
  r.armed = false;
  r.c.interrupts++;
  if (m.trace.on) m.trace.emit(K.irq, cpu.now, cpu.id, r.index, -1, -1, -1, r.hw - r.cons);
  cpu.state = ST.POLL_BEGIN;
}

/**
 * Interrupt moderation as a completion is written at `t` while the ring's
 * interrupt is armed: it fires after r.coalFrames completions (rx-frames;
 * Infinity: no frame limit) or r.coalCycles after the first (rx-usecs).
 */
export function rx_irq_moderate(r: RxRing, t: number): void {
  if (!r.armed) return;
  r.cqeSinceArm++;
  if (r.cqeSinceArm === 1) r.firstCqeAt = t;
  const at = r.cqeSinceArm >= r.coalFrames ? t : r.firstCqeAt + r.coalCycles;
  if (at < r.cpu.wakeAt) r.cpu.wakeAt = at;
}

/**
 * napi_complete_done re-arming the ring's interrupt: completions already
 * pending count toward moderation at once. Sets when the CPU wakes next
 * for rx; the driver may bring it forward for its other work.
 */
export function napi_complete_arm(r: RxRing, cpu: Cpu): void {
  r.armed = true;
  r.cqeSinceArm = r.hw - r.cons;
  r.firstCqeAt = r.cqeSinceArm > 0 ? cpu.now : Infinity;
  cpu.wakeAt = r.cqeSinceArm >= r.coalFrames ? cpu.now : r.firstCqeAt + r.coalCycles;
}

/** Where the NIC writes a frame: the driver copies it into the slot's buffer and says which page that is (-1: not an allocator page). */
export interface RxDma {
  /** DMA the frame into slot s's buffer; the page it landed in, for the trace. */
  rx_dma(r: RxRing, s: number, frame: Uint8Array): number;
}

/**
 * The hardware receives one frame at `t` (cycles): DMA into the next
 * posted buffer and write a completion (interrupt moderation counts it),
 * or drop it when the frame is too long or no buffer is posted. What the
 * NIC checks is the ring's (its buffers' size, its moderation settings):
 * the driver is asked only where the bytes go, and only when they go.
 */
export function nic_receive(m: Machine, r: RxRing, d: RxDma, frame: Uint8Array, packet: number, t: number): void {
  const tr = m.trace;
  const len = frame.length;
  if (len > r.maxFrame) {
    r.c.rx_oversize++;
    if (tr.on) tr.emit(K.rx_missed, t, r.cpu.id, r.index, -1, packet, -1, len);
    return;
  }
  if (r.hw === r.prod) {
    r.c.rx_missed++;
    if (tr.on) tr.emit(K.rx_missed, t, r.cpu.id, r.index, -1, packet, -1, 0);
    return;
  }
  const s = r.hw & r.mask;
  const page = d.rx_dma(r, s, frame);
  r.slotLen[s] = len;
  r.slotPkt[s] = packet;
  r.slotState[s] = SLOT_SW;
  r.hw++;
  r.c.rx_packets++;
  r.c.rx_bytes += len;
  if (tr.on) tr.emit(K.nic_rx, t, r.cpu.id, r.index, s, packet, page, len);
  rx_irq_moderate(r, t);
}
