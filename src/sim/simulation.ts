/**
 * The Simulation: the discrete-event loop over the NIC, the CPUs and the
 * wire, and the API the UI engine, the CLI and the tests drive.
 *
 * Time is virtual: cycles of the profile's CPU clock. The loop always
 * advances whichever comes first — the next frame arriving on the wire, or
 * the CPU whose clock is furthest behind — so the rx ring a CPU looks at is
 * exactly the ring at that CPU's time. Nothing reads a wall clock and the
 * only randomness is the seeded RNG, so a config and a seed give one event
 * stream, and stepping back is replaying from the start (the checkpoint)
 * to an earlier step.
 */
import { TrafficGenerator } from '../net/traffic';
import { profileFrom, type ProfileEntry } from './cost';
import { resolveConfig, type ResolvedConfig, type SimConfig } from './config';
import { CPU_STATE_NAMES, CpuState as CpuStateEnum, Machine, type Cpu } from './machine';
import { newRingCounters, SLOT_STATE_NAMES, type RingCounters, type RxRing } from './nic/rx_ring';
import { Mlx4En } from './nic/mlx4';
import { I40e } from './nic/i40e';
import type { NicDriver, RedirectHandler } from './nic/driver';
import { Vmxnet3 } from './nic/vmxnet3';
import { I40eXsk } from './nic/i40e_xsk';
import { nic_receive as receive } from './nic/napi';
import { PAGE_LOC_NAMES, PageLoc } from './page_alloc';
import type { XdpHook } from './program';
import type { TraceEvent } from './trace';

/** Stepping units; 'napi' is another name for 'poll' (one napi->poll() call). */
export type StepKind = 'event' | 'packet' | 'poll' | 'napi';

export interface RingSlotView {
  state: (typeof SLOT_STATE_NAMES)[number];
  /** Who owns the descriptor: the NIC ('hw') or the driver ('sw'). */
  owner: 'hw' | 'sw';
  page: number;
  packet: number;
  len: number;
}

export interface QueueSnapshot {
  index: number;
  cpu: number;
  rx: { size: number; cons: number; hw: number; prod: number; slots: RingSlotView[] };
  /** mlx4: the ring's page cache (128); vmxnet3: the page_pool (alloc cache + ptr_ring). */
  cache: { kind: 'mlx4_page_cache' | 'i40e_page_reuse' | 'page_pool'; size: number; level: number; pages: number[] };
  tx: { size: number; prod: number; doorbell: number; cons: number; slots: { state: 'empty' | 'pending' | 'hw' | 'done'; page: number; packet: number }[] };
  program: string | null;
  counters: RingCounters;
}

export interface SimSnapshot {
  /** Virtual time: the earliest CPU clock or the last arrival, in cycles and ns. */
  cycle: number;
  timeNs: number;
  steps: number;
  hw: { name: string; cpu: string; nic: string; clockHz: number; linkGbps: number };
  mode: string;
  driver: string;
  mtu: number;
  cpus: { id: number; state: (typeof CPU_STATE_NAMES)[number]; cycle: number; idlePercent: number }[];
  queues: QueueSnapshot[];
  counters: RingCounters & { offered: number };
  pages: { total: number; free: number; byLocation: Record<string, number> };
  rates: SimRates;
  profile: ProfileEntry[];
  warnings: string[];
  traceCount: number;
  traceHash: number;
}

export interface SimRates {
  /** Over the measurement window (see markWindow), in packets per second of virtual time. */
  windowNs: number;
  offered_pps: number;
  rx_pps: number;
  rx_missed_pps: number;
  xdp_drop_pps: number;
  xdp_pass_pps: number;
  xdp_tx_pps: number;
  tx_pps: number;
  stack_pps: number;
  /** Packets the driver finished with (all actions, and the stack path). */
  processed_pps: number;
  /** Redirected frames that reached their end (sent by the target, dropped by a veth peer, forwarded by AF_XDP l2fwd). */
  redirect_pps: number;
}

// Local copies: imported bindings are getter calls when transpiled per module.
const CpuState = { IDLE: CpuStateEnum.IDLE, POLL_BEGIN: CpuStateEnum.POLL_BEGIN } as const;
const nic_receive = receive;

type ControlOp = { at: number; op: 'attach'; prog: XdpHook | null } | { at: number; op: 'mtu'; mtu: number };

export class Simulation {
  readonly cfg: ResolvedConfig;
  readonly machine: Machine;
  readonly nic: NicDriver;
  readonly traffic: TrafficGenerator;
  /** Loop iterations so far (the unit of stepping by event). */
  steps = 0;
  /** Frames that reached the NIC. */
  offered = 0;
  private lastArrival = 0;
  private readonly controls: ControlOp[] = [];
  /** After a rewind: the ops of the abandoned future, replayed if the run continues unchanged. */
  private pending: ControlOp[] = [];
  private nextOpAt = Infinity;
  private window = { cycle: 0, counters: newRingCounters(), offered: 0, sym: [] as Float64Array[] };
  private readonly hashInit: number;

  constructor(
    private readonly config: SimConfig,
    prog: XdpHook | null = null,
  ) {
    this.cfg = resolveConfig(config);
    this.machine = new Machine(this.cfg);
    this.nic = newDriver(this.machine);
    this.traffic = new TrafficGenerator(this.cfg.traffic, this.cfg.seed);
    this.hashInit = this.machine.trace.hash;
    if (prog) {
      const r = this.nic.setXdp(prog);
      if (!r.ok) throw new Error(r.message);
      this.controls.push({ at: -1, op: 'attach', prog }); // part of construction
    }
    this.markWindow();
  }

  // ------------------------------------------------------------ control

  /** Attach, replace (prog→prog: no ring restart) or detach (null) the XDP program. */
  attach(prog: XdpHook | null): { ok: true; restarted: boolean } | { ok: false; message: string } {
    this.discardFuture();
    return this.doAttach(prog);
  }

  private doAttach(prog: XdpHook | null): { ok: true; restarted: boolean } | { ok: false; message: string } {
    const r = this.nic.setXdp(prog);
    if (r.ok) this.controls.push({ at: this.steps, op: 'attach', prog });
    return r;
  }

  setMtu(mtu: number): { ok: true } | { ok: false; message: string } {
    this.discardFuture();
    return this.doSetMtu(mtu);
  }

  private doSetMtu(mtu: number): { ok: true } | { ok: false; message: string } {
    const r = this.nic.changeMtu(mtu);
    if (r.ok) this.controls.push({ at: this.steps, op: 'mtu', mtu });
    return r;
  }

  /** Where XDP_REDIRECT frames go (devmap/cpumap/xsk land here in later issues); none → redirect error, drop. */
  setRedirectHandler(h: RedirectHandler | null): void {
    this.nic.redirect = h;
  }

  // ------------------------------------------------------------ the loop

  /** True when traffic has ended and every CPU is idle with nothing pending. */
  get finished(): boolean {
    if (this.traffic.nextNs !== Infinity) return false;
    for (const c of this.machine.cpus) if (c.state !== CpuState.IDLE || c.wakeAt !== Infinity) return false;
    return true;
  }

  /** One event: a frame arriving, or one CPU step. Returns false when finished. */
  stepEvent(): boolean {
    if (this.steps === this.nextOpAt) this.applyPending();
    const m = this.machine;
    const arrival = this.traffic.nextNs * m.cyclesPerNs;
    let cpu: Cpu | null = null;
    let t = Infinity;
    for (const c of m.cpus) {
      const ct = c.state === CpuState.IDLE ? c.wakeAt : c.now;
      if (ct < t) {
        t = ct;
        cpu = c;
      }
    }
    if (arrival <= t) {
      if (arrival === Infinity) return false;
      const tr = this.traffic;
      const q = this.cfg.queues === 1 ? 0 : this.rssQueue(tr.nextHash);
      nic_receive(m, this.nic.rings[q]!, this.nic, tr.nextFrame, tr.produced - 1, arrival);
      this.offered++;
      this.lastArrival = arrival;
      tr.advance();
    } else this.nic.step(cpu!);
    this.steps++;
    return true;
  }

  /** The RSS indirection table: 128 entries spread round robin over the queues (mlx4's default). */
  private rssQueue(hash: number): number {
    return (hash & 127) % this.cfg.queues;
  }

  step(kind: StepKind = 'event', count = 1): number {
    let n = 0;
    for (; n < count; n++) {
      if (kind === 'event') {
        if (!this.stepEvent()) break;
      } else if (kind === 'packet') {
        const target = this.nic.packetsDone + 1;
        while (this.nic.packetsDone < target) if (!this.stepEvent()) return n;
      } else {
        const polls = this.polls();
        while (this.polls() === polls) if (!this.stepEvent()) return n;
        // Run to the end of that poll.
        while (this.machine.cpus.some((c) => c.state !== CpuState.IDLE && c.state !== CpuState.POLL_BEGIN)) if (!this.stepEvent()) return n + 1;
      }
    }
    return n;
  }

  private polls(): number {
    return this.nic.rings.reduce((a, r) => a + r.c.polls, 0);
  }

  /**
   * Run until `packets` more frames have been offered, or `ns` more virtual
   * nanoseconds have passed, or the traffic ends — whichever first.
   */
  run(opts: { packets?: number; ns?: number; maxSteps?: number } = {}): void {
    const stopOffered = opts.packets !== undefined ? this.offered + opts.packets : Infinity;
    const stopCycle = opts.ns !== undefined ? this.now() + opts.ns * this.machine.cyclesPerNs : Infinity;
    const stopSteps = opts.maxSteps !== undefined ? this.steps + opts.maxSteps : Infinity;
    if (stopCycle === Infinity && this.machine.cpus.length === 1) {
      this.runOneCpu(stopOffered, stopSteps);
      return;
    }
    if (stopCycle === Infinity && this.machine.cpus.length === 2 && this.cfg.queues === 1) {
      this.runTwoCpus(stopOffered, stopSteps);
      return;
    }
    while (this.offered < stopOffered && this.steps < stopSteps) {
      if (stopCycle !== Infinity && this.now() >= stopCycle) break;
      if (!this.stepEvent()) break;
    }
  }

  /**
   * run() on a one-CPU machine (one queue, no AF_XDP application CPU): the
   * loop of stepEvent with the choice between the wire and the CPU written
   * out, event for event the same order (an arrival wins a tie). Kept apart
   * from runTwoCpus on purpose: that loop with both CPUs the same one costs
   * ~2% more instructions per packet on mlx4 xdp1 (valgrind, node --predictable).
   */
  private runOneCpu(stopOffered: number, stopSteps: number): void {
    const cpu = this.machine.cpus[0]!;
    const tr = this.traffic;
    const nic = this.nic;
    const cyclesPerNs = this.machine.cyclesPerNs;
    const m = this.machine;
    const ring = nic.rings[0]!;
    while (this.offered < stopOffered && this.steps < stopSteps) {
      if (this.steps === this.nextOpAt) this.applyPending();
      // The next frame's arrival, worked out afresh each time round: carried over from the last round, a local
      // double is boxed by V8 (a heap number per frame: the loop's on-stack-replaced entry takes it tagged).
      const arrival = tr.nextNs * cyclesPerNs;
      const t = cpu.state === CpuState.IDLE ? cpu.wakeAt : cpu.now;
      if (arrival <= t) {
        if (arrival === Infinity) return;
        this.lastArrival = arrival;
        this.receiveNext(m, ring);
      } else nic.step(cpu);
      this.steps++;
    }
  }

  /**
   * run() on one queue's CPU and the AF_XDP application's: stepEvent's loop
   * with the earlier of the two CPUs picked inline (the first on a tie, as
   * stepEvent's scan does), event for event the same order.
   */
  private runTwoCpus(stopOffered: number, stopSteps: number): void {
    const c0 = this.machine.cpus[0]!;
    const c1 = this.machine.cpus[1]!;
    const tr = this.traffic;
    const nic = this.nic;
    const cyclesPerNs = this.machine.cyclesPerNs;
    const m = this.machine;
    const ring = nic.rings[0]!;
    while (this.offered < stopOffered && this.steps < stopSteps) {
      if (this.steps === this.nextOpAt) this.applyPending();
      // As in runOneCpu: the arrival afresh each time round.
      const arrival = tr.nextNs * cyclesPerNs;
      const t0 = c0.state === CpuState.IDLE ? c0.wakeAt : c0.now;
      const t1 = c1.state === CpuState.IDLE ? c1.wakeAt : c1.now;
      if (arrival <= (t1 < t0 ? t1 : t0)) {
        if (arrival === Infinity) return;
        this.lastArrival = arrival;
        this.receiveNext(m, ring);
      } else nic.step(t1 < t0 ? c1 : c0);
      this.steps++;
    }
  }

  /**
   * The traffic's next frame reaches queue 0 at lastArrival (cycles, set by
   * the caller): the fast run loops' wire event. The time travels in the
   * field, not as an argument: a double passed to a call V8 did not inline
   * is boxed, a heap number per frame (the loops' on-stack-replaced code
   * does not always inline this).
   */
  private receiveNext(m: Machine, ring: RxRing): void {
    const tr = this.traffic;
    nic_receive(m, ring, this.nic, tr.nextFrame, tr.produced - 1, this.lastArrival);
    this.offered++;
    tr.advance();
  }

  /** Virtual now: the latest point any part of the machine has reached (cycles). */
  now(): number {
    let t = this.lastArrival;
    for (const c of this.machine.cpus) t = Math.max(t, c.state === CpuState.IDLE ? c.idleSince : c.now);
    return t;
  }

  // ------------------------------------------------------------ replay

  /** Step back: rebuild from the config and replay to `steps` (exact: the core is deterministic). */
  rewindTo(steps: number): Simulation {
    const fresh = new Simulation(this.config, null);
    const ops = this.controls;
    let k = 0;
    // Construction-time ops first; an op recorded at step n ran after n steps,
    // so it belongs to the replay only if the replay goes past n.
    while (k < ops.length && ops[k]!.at < 0) fresh.apply(ops[k++]!);
    while (fresh.steps < steps) {
      while (k < ops.length && ops[k]!.at <= fresh.steps) fresh.apply(ops[k++]!);
      const next = k < ops.length ? Math.min(steps, ops[k]!.at) : steps;
      if (fresh.steps >= next && fresh.steps < steps) {
        if (!fresh.stepEvent()) break;
        continue;
      }
      while (fresh.steps < next) if (!fresh.stepEvent()) break;
      if (fresh.steps < next) break;
    }
    fresh.pending = ops.slice(k);
    fresh.nextOpAt = fresh.pending.length ? Math.max(fresh.steps, fresh.pending[0]!.at) : Infinity;
    return fresh;
  }

  private apply(op: ControlOp): void {
    if (op.op === 'attach') this.doAttach(op.prog);
    else this.doSetMtu(op.mtu);
  }

  /** A user's change after a rewind starts a new timeline. */
  private discardFuture(): void {
    this.pending = [];
    this.nextOpAt = Infinity;
  }

  private applyPending(): void {
    while (this.pending.length && this.pending[0]!.at <= this.steps) this.apply(this.pending.shift()!);
    this.nextOpAt = this.pending.length ? this.pending[0]!.at : Infinity;
  }

  // ------------------------------------------------------------ measurement

  /** Start a measurement window now: rates and the profile count from here. */
  markWindow(): void {
    this.window = {
      cycle: this.now(),
      counters: this.counters(),
      offered: this.offered,
      sym: this.machine.cpus.map((c) => c.sym),
    };
  }

  counters(): RingCounters {
    const total = newRingCounters();
    for (const r of this.nic.rings) for (const k of Object.keys(total) as (keyof RingCounters)[]) total[k] += r.c[k];
    return total;
  }

  rates(): SimRates {
    const c = this.counters();
    const w = this.window;
    const ns = (this.now() - w.cycle) / this.machine.cyclesPerNs;
    const per = (v: number) => (ns > 0 ? (v * 1e9) / ns : 0);
    const d = (k: keyof RingCounters) => c[k] - w.counters[k];
    const processed = d('xdp_drop') + d('xdp_aborted') + d('xdp_pass') + d('xdp_tx') + d('xdp_redirect') + d('xdp_unknown') + d('rx_no_xdp');
    return {
      windowNs: ns,
      offered_pps: per(this.offered - w.offered),
      rx_pps: per(d('rx_packets')),
      rx_missed_pps: per(d('rx_missed')),
      xdp_drop_pps: per(d('xdp_drop')),
      xdp_pass_pps: per(d('xdp_pass')),
      xdp_tx_pps: per(d('xdp_tx')),
      tx_pps: per(d('tx_packets')),
      stack_pps: per(d('stack_rx')),
      processed_pps: per(processed),
      redirect_pps: per(d('redirect_done')),
    };
  }

  /** perf report for one CPU over the window (idle included, as `perf record -a` sees it). */
  profile(cpu = 0): ProfileEntry[] {
    const c = this.machine.cpus[cpu]!;
    const base = this.window.sym[cpu]!;
    const d = c.sym;
    for (let i = 0; i < d.length; i++) d[i] = d[i]! - (base[i] ?? 0);
    // A CPU idle right now has been idle since idleSince: count it.
    if (c.state === CpuState.IDLE) {
      const upto = Math.max(this.now(), c.idleSince);
      const from = Math.max(c.idleSince, this.window.cycle);
      if (upto > from) d[this.machine.idleSym]! += upto - from;
    }
    return profileFrom(this.machine.costs.symbols, d);
  }

  idlePercent(cpu = 0): number {
    return this.profile(cpu)
      .filter((e) => e.symbol === 'intel_idle' || e.symbol === 'poll_idle')
      .reduce((a, e) => a + e.percent, 0);
  }

  // ------------------------------------------------------------ views

  /** Trace records [from, to) (when kept). */
  events(from = 0, to?: number): TraceEvent[] {
    return this.machine.trace.slice(from, to);
  }

  get traceHash(): number {
    return this.machine.trace.hash;
  }

  /** Location of every page (PAGE_LOC_NAMES index), for the page map view. */
  pageLocations(): Uint8Array {
    return Uint8Array.from(this.machine.alloc.loc);
  }

  snapshot(opts: { profile?: boolean } = {}): SimSnapshot {
    const m = this.machine;
    const a = m.alloc;
    const byLocation: Record<string, number> = {};
    for (const n of PAGE_LOC_NAMES) byLocation[n] = 0;
    for (let p = 0; p < a.totalPages; p++) {
      const l = a.loc[p]!;
      if (l === PageLoc.TAIL) continue;
      byLocation[PAGE_LOC_NAMES[l]!]! += l === PageLoc.FREE ? 0 : 1;
    }
    byLocation.free = a.freePages;
    const cyc = this.now();
    return {
      cycle: cyc,
      timeNs: cyc / m.cyclesPerNs,
      steps: this.steps,
      hw: { name: this.cfg.hw.name, cpu: this.cfg.hw.cpu, nic: this.cfg.hw.nic, clockHz: this.cfg.hw.clockHz, linkGbps: this.cfg.hw.linkGbps },
      mode: this.nic.mode,
      driver: this.nic.kind,
      mtu: this.nic.mtu,
      cpus: m.cpus.map((c) => ({ id: c.id, state: CPU_STATE_NAMES[c.state]!, cycle: c.state === CpuState.IDLE ? Math.max(c.idleSince, cyc) : c.now, idlePercent: opts.profile === false ? NaN : this.idlePercent(c.id) })),
      queues: this.nic.rings.map((r) => {
        const slots: RingSlotView[] = [];
        for (let s = 0; s < r.size; s++) {
          const st = SLOT_STATE_NAMES[r.slotState[s]!]!;
          slots.push({ state: st, owner: st === 'hw' ? 'hw' : 'sw', page: r.slotPage[s]!, packet: r.slotPkt[s]!, len: st === 'sw' ? r.slotLen[s]! : 0 });
        }
        const tx = r.tx;
        const txSlots: QueueSnapshot['tx']['slots'] = [];
        for (let s = 0; s < tx.size; s++) {
          const page = tx.slotPage[s]!;
          const done = tx.slotDone[s]!;
          txSlots.push({ state: page < 0 ? 'empty' : done === Infinity ? 'pending' : done <= cyc ? 'done' : 'hw', page, packet: tx.slotPkt[s]! });
        }
        return {
          index: r.index,
          cpu: r.cpu.id,
          rx: { size: r.size, cons: r.cons, hw: r.hw, prod: r.prod, slots },
          cache: this.nic.cacheView(r.index),
          tx: { size: tx.size, prod: tx.prod, doorbell: tx.db, cons: tx.cons, slots: txSlots },
          program: r.prog?.name ?? null,
          counters: { ...r.c },
        };
      }),
      counters: { ...this.counters(), offered: this.offered },
      pages: { total: a.totalPages, free: a.freePages, byLocation },
      rates: this.rates(),
      profile: opts.profile === false ? [] : this.profile(0),
      warnings: [...this.nic.warnings],
      traceCount: m.trace.count,
      traceHash: m.trace.hash,
    };
  }

  /** The trace hash a fresh simulation starts from (for tests). */
  get initialTraceHash(): number {
    return this.hashInit;
  }
}

/** The driver model the configuration names: i40e with an AF_XDP socket, vmxnet3, i40e, or mlx4. */
function newDriver(m: Machine): NicDriver {
  const cfg = m.cfg;
  if (cfg.xsk) return new I40eXsk(m, cfg.xsk);
  if (cfg.driver === 'vmxnet3') return new Vmxnet3(m);
  if (cfg.driver === 'i40e') return new I40e(m);
  return new Mlx4En(m);
}
