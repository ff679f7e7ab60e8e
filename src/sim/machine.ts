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
  /** Cycles per profile symbol charged as they happen (index: CompiledCosts.symbols); see `sym`. */
  readonly eagerSym: Float64Array;
  /** How many times each deferred cost step was charged (Machine.charge: their cycles are added up when read). */
  readonly stepTimes: Float64Array;
  pollDone = 0;
  /** The last IDLE_HISTORY idle stretches (cycles), for the idle governor's prediction; no history yet predicts a long stretch (the next timer). */
  readonly idleHist = new Float64Array(IDLE_HISTORY).fill(Infinity);
  idleHistAt = 0;
  constructor(
    readonly id: number,
    nsyms: number,
    nsteps: number,
    private readonly costs: CompiledCosts | null = null,
    private readonly deferred: Uint8Array | null = null,
  ) {
    this.eagerSym = new Float64Array(nsyms);
    this.stepTimes = new Float64Array(nsteps);
  }

  /** Cycles per profile symbol (index: CompiledCosts.symbols): the eager sums plus the deferred steps' counts times their cycles. A fresh array. */
  get sym(): Float64Array {
    const out = Float64Array.from(this.eagerSym);
    const c = this.costs;
    const d = this.deferred;
    if (!c || !d) return out;
    for (let step = 0; step < d.length; step++) {
      const n = this.stepTimes[step]!;
      if (!d[step] || n === 0) continue;
      for (let k = c.start[step]!; k < c.start[step + 1]!; k++) out[c.partSym[k]!]! += c.partCycles[k]! * n;
    }
    return out;
  }
}

/**
 * Which cost steps may be counted instead of summed per symbol as they
 * happen. The profile must come out bit for bit as a running sum would (the
 * goldens record it to the last digit), so a step is deferred only when all
 * its symbols take nothing but values that a double adds exactly — multiples
 * of 2^-10 — whatever the order: then count x cycles, added at the end, is
 * the running sum. Symbols charged any other value (0.6 cycles per eBPF
 * instruction, say, or idle stretches) keep the running sum, and so do the
 * steps charging them.
 */
function deferrableSteps(c: CompiledCosts, idleSyms: readonly number[]): Uint8Array {
  const nsteps = c.total.length;
  const exactSym = new Uint8Array(c.symbols.length).fill(1);
  // chargeIdle adds any length of idle time to these.
  for (const s of idleSyms) if (s >= 0) exactSym[s] = 0;
  for (let k = 0; k < c.partCycles.length; k++) if (!Number.isInteger(c.partCycles[k]! * 1024)) exactSym[c.partSym[k]!] = 0;
  const out = new Uint8Array(nsteps);
  for (let step = 0; step < nsteps; step++) {
    let ok = 1;
    for (let k = c.start[step]!; k < c.start[step + 1]!; k++) if (!exactSym[c.partSym[k]!]) ok = 0;
    out[step] = ok;
  }
  return out;
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
  /** Per cost step, 1 when charging it only counts (deferrableSteps). */
  private readonly deferred: Uint8Array;
  /** costs.total, held here: one load less per charge. */
  private readonly totals: Float64Array;
  /** Per cost step with exactly one part: its symbol (else -1) and cycles, so charging it eagerly needs no loop over parts. */
  private readonly soleSym: Int32Array;
  private readonly soleCycles: Float64Array;

  constructor(readonly cfg: ResolvedConfig) {
    this.costs = new CompiledCosts(cfg.hw.costs);
    this.alloc = new PageAllocator(cfg.memoryPages);
    this.trace = new Trace(cfg.trace, cfg.keepTrace);
    this.journey = new Journey(cfg.trace && cfg.keepTrace, this.trace);
    this.totals = this.costs.total;
    this.deferred = deferrableSteps(this.costs, [this.costs.symbolId('intel_idle'), this.costs.symbolId('poll_idle')]);
    const c = this.costs;
    this.soleSym = new Int32Array(c.total.length).fill(-1);
    this.soleCycles = new Float64Array(c.total.length);
    for (let step = 0; step < c.total.length; step++) {
      if (c.start[step + 1]! - c.start[step]! !== 1) continue;
      this.soleSym[step] = c.partSym[c.start[step]!]!;
      this.soleCycles[step] = c.partCycles[c.start[step]!]!;
    }
    // One CPU per rx queue, plus the AF_XDP application's own CPU when a socket is configured.
    this.cpus = Array.from({ length: cfg.queues + (cfg.xsk ? 1 : 0) }, (_, i) => new Cpu(i, this.costs.symbols.length, this.costs.total.length, this.costs, this.deferred));
    this.cyclesPerNs = cfg.hw.clockHz / 1e9;
    this.idleSym = this.costs.symbolId('intel_idle');
    this.pollIdleSym = this.costs.symbolId('poll_idle');
  }

  /** Charge one cost step to a CPU: its clock advances, its profile grows. */
  charge(cpu: Cpu, step: number, times = 1): void {
    // Counting is one add; the profile's per-symbol sums are made when read (Cpu.sym).
    // Kept this small on purpose: V8 inlines it into the per-packet path.
    if (this.deferred[step] === 1) cpu.stepTimes[step]! += times;
    else this.chargeParts(cpu, step, times);
    cpu.now += this.totals[step]! * times;
  }

  /**
   * charge(cpu, a), then charge(cpu, b, nb) and charge(cpu, c, nc) for the
   * counts that are not 0: the same adds in the same order (the clock's
   * left to right, each symbol's in step order), with the clock and the
   * tables loaded once for the three (the per-packet run of a program).
   */
  charge3(cpu: Cpu, a: number, b: number, nb: number, c: number, nc: number): void {
    const d = this.deferred;
    const t = this.totals;
    let now = cpu.now;
    if (d[a] === 1) cpu.stepTimes[a]! += 1;
    else this.chargeParts(cpu, a, 1);
    now += t[a]!;
    if (nb !== 0) {
      if (d[b] === 1) cpu.stepTimes[b]! += nb;
      else this.chargeParts(cpu, b, nb);
      now += t[b]! * nb;
    }
    if (nc !== 0) {
      if (d[c] === 1) cpu.stepTimes[c]! += nc;
      else this.chargeParts(cpu, c, nc);
      now += t[c]! * nc;
    }
    cpu.now = now;
  }

  /** charge(cpu, a); charge(cpu, b): the same adds in the same order, the clock loaded and stored once. */
  charge2(cpu: Cpu, a: number, b: number): void {
    const d = this.deferred;
    const t = this.totals;
    if (d[a] === 1) cpu.stepTimes[a]! += 1;
    else this.chargeParts(cpu, a, 1);
    if (d[b] === 1) cpu.stepTimes[b]! += 1;
    else this.chargeParts(cpu, b, 1);
    // Left to right: (now + t[a]) + t[b], as two charges add them.
    cpu.now = cpu.now + t[a]! + t[b]!;
  }

  /** The running per-symbol sums of a step that cannot be deferred (the same adds, in the same order, as the loop over its parts). */
  private chargeParts(cpu: Cpu, step: number, times: number): void {
    const sole = this.soleSym[step]!;
    if (sole >= 0) {
      cpu.eagerSym[sole]! += this.soleCycles[step]! * times;
      return;
    }
    const c = this.costs;
    const end = c.start[step + 1]!;
    for (let k = c.start[step]!; k < end; k++) cpu.eagerSym[c.partSym[k]!]! += c.partCycles[k]! * times;
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
    cpu.eagerSym[short ? this.pollIdleSym : this.idleSym]! += to - from;
    h[cpu.idleHistAt] = to - from;
    cpu.idleHistAt = (cpu.idleHistAt + 1) % IDLE_HISTORY;
  }
}
