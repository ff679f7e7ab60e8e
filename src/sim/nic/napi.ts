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
