/**
 * The simulated host the driver runs on: CPUs with a cycle clock and a
 * per-symbol profile, the page allocator, the cost table and the trace.
 * Charging a cost step advances that CPU's clock: time is work.
 */
import { CompiledCosts } from './cost';
import { PageAllocator } from './page_alloc';
import { Trace } from './trace';
import { Journey } from './journey';
import type { ResolvedConfig } from './config';

export const enum CpuState {
  /** Waiting for an interrupt (cpuidle). */
  IDLE = 0,
  /** In net_rx_action, about to call napi->poll(). */
  POLL_BEGIN = 1,
  /** Inside the poll: one rx completion per step. */
  POLL_RX = 2,
  /** After the rx loop: doorbells, flush, refill, complete or repoll. */
  POLL_END = 3,
}
export const CPU_STATE_NAMES = ['idle', 'poll_begin', 'poll_rx', 'poll_end'] as const;

export class Cpu {
  /** This CPU's clock in cycles: the time up to which its work is done. */
  now = 0;
  state: CpuState = CpuState.IDLE;
  idleSince = 0;
  /** When an idle CPU gets its next interrupt (Infinity: none pending). */
  wakeAt = Infinity;
  /** Cycles per profile symbol (index: CompiledCosts.symbols). */
  readonly sym: Float64Array;
  pollDone = 0;
  constructor(
    readonly id: number,
    nsyms: number,
  ) {
    this.sym = new Float64Array(nsyms);
  }
}

export class Machine {
  readonly costs: CompiledCosts;
  readonly alloc: PageAllocator;
  readonly trace: Trace;
  /** Per-packet stages after the verdict (./journey.ts): observation only, outside the trace's hash. */
  readonly journey: Journey;
  readonly cpus: Cpu[];
  readonly cyclesPerNs: number;
  readonly idleSym: number;
  readonly pollIdleSym: number;

  constructor(readonly cfg: ResolvedConfig) {
    this.costs = new CompiledCosts(cfg.hw.costs);
    this.alloc = new PageAllocator(cfg.memoryPages);
    this.trace = new Trace(cfg.trace, cfg.keepTrace);
    this.journey = new Journey(cfg.trace && cfg.keepTrace, this.trace);
    // One CPU per rx queue, plus the AF_XDP application's own CPU when a socket is configured.
    this.cpus = Array.from({ length: cfg.queues + (cfg.xsk ? 1 : 0) }, (_, i) => new Cpu(i, this.costs.symbols.length));
    this.cyclesPerNs = cfg.hw.clockHz / 1e9;
    this.idleSym = this.costs.symbolId('intel_idle');
    this.pollIdleSym = this.costs.symbolId('poll_idle');
  }

  /** Charge one cost step to a CPU: its clock advances, its profile grows. */
  charge(cpu: Cpu, step: number, times = 1): void {
    const c = this.costs;
    const end = c.start[step + 1]!;
    for (let k = c.start[step]!; k < end; k++) cpu.sym[c.partSym[k]!]! += c.partCycles[k]! * times;
    cpu.now += c.total[step]! * times;
  }

  /** Account an idle stretch [from, to) to poll_idle (short) or intel_idle. */
  chargeIdle(cpu: Cpu, from: number, to: number): void {
    if (to <= from) return;
    const short = to - from < this.cfg.hw.pollIdleNs * this.cyclesPerNs;
    cpu.sym[short ? this.pollIdleSym : this.idleSym]! += to - from;
  }
}
