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

/** How many past idle stretches the idle governor averages (the menu governor keeps 8 intervals). */
export const IDLE_HISTORY = 8;

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
  /** The last IDLE_HISTORY idle stretches (cycles), for the idle governor's prediction; no history yet predicts a long stretch (the next timer). */
  readonly idleHist = new Float64Array(IDLE_HISTORY).fill(Infinity);
  idleHistAt = 0;
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

  /**
   * Account an idle stretch [from, to) to poll_idle or intel_idle. The
   * governor cannot know how long the CPU will be idle: like the menu
   * governor it predicts the stretch from the recent ones (their mean) and
   * picks poll_idle when the prediction is shorter than pollIdleNs. A
   * mispredicted stretch is spent whole in the state picked (poll_idle
   * spins until the interrupt).
   */
  chargeIdle(cpu: Cpu, from: number, to: number): void {
    if (to <= from) return;
    const h = cpu.idleHist;
    let sum = 0;
    for (let i = 0; i < IDLE_HISTORY; i++) sum += h[i]!;
    const short = sum / IDLE_HISTORY < this.cfg.hw.pollIdleNs * this.cyclesPerNs;
    cpu.sym[short ? this.pollIdleSym : this.idleSym]! += to - from;
    h[cpu.idleHistAt] = to - from;
    cpu.idleHistAt = (cpu.idleHistAt + 1) % IDLE_HISTORY;
  }
}
