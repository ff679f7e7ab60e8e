/**
 * The steps of a CPU's softirq life every driver model shares: the rx
 * interrupt that wakes an idle CPU and schedules the ring's NAPI poll.
 * The poll itself (what each completion does, when the poll ends) is the
 * driver's.
 */
import { CpuState as CpuStateEnum, type Cpu, type Machine } from '../machine';
import { S as CostSteps } from '../cost';
import { K as TraceKinds } from '../trace';
import type { RxRing } from './mlx4';

const S = { ...CostSteps };
const K = { ...TraceKinds };
const POLL_BEGIN = CpuStateEnum.POLL_BEGIN;

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
  cpu.state = POLL_BEGIN;
}

/**
 * Interrupt moderation as a completion is written at `t` while the ring's
 * interrupt is armed: it fires after `coalFrames` completions (rx-frames;
 * Infinity: no frame limit) or `coalCycles` after the first (rx-usecs).
 */
export function rx_irq_moderate(r: RxRing, t: number, coalFrames: number, coalCycles: number): void {
  if (!r.armed) return;
  r.cqeSinceArm++;
  if (r.cqeSinceArm === 1) r.firstCqeAt = t;
  const at = r.cqeSinceArm >= coalFrames ? t : r.firstCqeAt + coalCycles;
  if (at < r.cpu.wakeAt) r.cpu.wakeAt = at;
}

/**
 * napi_complete_done re-arming the ring's interrupt: completions already
 * pending count toward moderation at once. Sets when the CPU wakes next
 * for rx; the driver may bring it forward for its other work.
 */
export function napi_complete_arm(r: RxRing, cpu: Cpu, coalFrames: number, coalCycles: number): void {
  r.armed = true;
  r.cqeSinceArm = r.hw - r.cons;
  r.firstCqeAt = r.cqeSinceArm > 0 ? cpu.now : Infinity;
  cpu.wakeAt = r.cqeSinceArm >= coalFrames ? cpu.now : r.firstCqeAt + coalCycles;
}
