/**
 * The simulated host the driver runs on: CPUs with a cycle clock and a
 * per-symbol profile, the page allocator, the cost table and the trace.
 * Charging a cost step advances that CPU's clock: time is work.
 */
import { CompiledCosts } from './cost';
import { PageAllocator } from './page_alloc';
import { Trace } from './trace';
import { Journey } from './journey';
import { doubleColumn } from './column';
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
  /** Cycles per profile symbol added as they happen: the idle stretches (chargeIdle); see `sym`. */
  readonly idleCycles: Float64Array;
  /** How many times each cost step was charged (Machine.charge): the profile is these counts times the steps' cycles, made when read. A plain array of doubles (./column.ts says why). */
  readonly stepTimes: number[];
  pollDone = 0;
  /** The last IDLE_HISTORY idle stretches (cycles), for the idle governor's prediction; no history yet predicts a long stretch (the next timer). */
  readonly idleHist = new Float64Array(IDLE_HISTORY).fill(Infinity);
  idleHistAt = 0;
  constructor(
    readonly id: number,
    nsyms: number,
    nsteps: number,
    private readonly costs: CompiledCosts | null = null,
  ) {
    this.idleCycles = new Float64Array(nsyms);
    this.stepTimes = doubleColumn(nsteps);
  }

  /**
   * Cycles per profile symbol (index: CompiledCosts.symbols): the idle
   * stretches plus each step's count times its parts' cycles. One product
   * per step and symbol, not a running sum of every charge: the profile
   * does not depend on the order work was charged in, and costs one add per
   * charge (a count) on the per-packet path. A fresh array.
   */
  get sym(): Float64Array {
    const out = Float64Array.from(this.idleCycles);
    const c = this.costs;
    if (!c) return out;
    for (let step = 0; step < this.stepTimes.length; step++) {
      const n = this.stepTimes[step]!;
      if (n === 0) continue;
      for (let k = c.start[step]!; k < c.start[step + 1]!; k++) out[c.partSym[k]!]! += c.partCycles[k]! * n;
    }
    return out;
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
  /** costs.total, held here as a plain array (./column.ts): one load less per charge. */
  private readonly totals: number[];

  constructor(readonly cfg: ResolvedConfig) {
    this.costs = new CompiledCosts(cfg.hw.costs);
    this.alloc = new PageAllocator(cfg.memoryPages);
    this.trace = new Trace(cfg.trace, cfg.keepTrace);
    this.journey = new Journey(cfg.trace && cfg.keepTrace, this.trace);
    this.totals = Array.from(this.costs.total);
    // One CPU per rx queue, plus the AF_XDP application's own CPU when a socket is configured.
    this.cpus = Array.from({ length: cfg.queues + (cfg.xsk ? 1 : 0) }, (_, i) => new Cpu(i, this.costs.symbols.length, this.costs.total.length, this.costs));
    this.cyclesPerNs = cfg.hw.clockHz / 1e9;
    this.idleSym = this.costs.symbolId('intel_idle');
    this.pollIdleSym = this.costs.symbolId('poll_idle');
  }

  /** Charge one cost step to a CPU: its clock advances, its profile grows (a count: Cpu.sym). */
  charge(cpu: Cpu, step: number): void {
    // Kept this small on purpose: V8 inlines it into the per-packet path, and every byte of it counts against
    // each caller's inlining budget at each call site (hence no `times` parameter: chargeTimes).
    cpu.stepTimes[step]! += 1;
    cpu.now += this.totals[step]!;
  }

  /** charge `times` times at once (per cache line copied, per frame of a bulk): the same clock and counts. */
  chargeTimes(cpu: Cpu, step: number, times: number): void {
    cpu.stepTimes[step]! += times;
    cpu.now += this.totals[step]! * times;
  }

  /**
   * charge(cpu, a), then charge(cpu, b, nb) and charge(cpu, c, nc): the
   * clock's adds in the same order (left to right), with the clock and the
   * tables loaded once for the three (the per-packet run of a program).
   */
  charge3(cpu: Cpu, a: number, b: number, nb: number, c: number, nc: number): void {
    const t = this.totals;
    const times = cpu.stepTimes;
    times[a]! += 1;
    times[b]! += nb;
    times[c]! += nc;
    // A count of 0 adds 0 to the clock (x + 0 * y === x for the finite y and the positive clock here): no branch,
    // which keeps this small enough for V8 to inline with the rest of the program's run.
    cpu.now = cpu.now + t[a]! + t[b]! * nb + t[c]! * nc;
  }

  /** charge(cpu, a); charge(cpu, b): the same adds in the same order, the clock loaded and stored once. */
  charge2(cpu: Cpu, a: number, b: number): void {
    const t = this.totals;
    cpu.stepTimes[a]! += 1;
    cpu.stepTimes[b]! += 1;
    // Left to right: (now + t[a]) + t[b], as two charges add them.
    cpu.now = cpu.now + t[a]! + t[b]!;
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
    cpu.idleCycles[short ? this.pollIdleSym : this.idleSym]! += to - from;
    h[cpu.idleHistAt] = to - from;
    cpu.idleHistAt = (cpu.idleHistAt + 1) % IDLE_HISTORY;
  }
}
