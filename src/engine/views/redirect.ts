/**
 * The XDP_REDIRECT target as the UI draws it: per-CPU bulk queues, the
 * target's tx ring, flush sizes and counters (see RedirectView).
 *
 * Read only: it looks at the driver's redirect target (NicDriver's
 * redirectTarget(): a DevmapTarget or a CpumapTarget, whichever driver
 * holds it) and never changes it, so
 * drawing the view cannot change the run. Every frame handed to a devmap
 * target is at any moment in a bulk queue, on the target's ring, or
 * finished (sent, dropped, failed): the counters below are built on that
 * promise (src/sim/devmap.ts), which is why `enqueued` needs no counter of
 * its own.
 */
import { CPU_MAP_BULK_SIZE, DEV_MAP_BULK_SIZE, type CpumapTarget, type DevmapTarget, type Simulation } from '../../sim';
import type { CounterView, RedirectView, RingView, SlotLegend } from '../simTypes';

/** A counter's rate (per second of simulated time) by its name; 0 when not sampled. */
export type RateOf = (name: string) => number;

export interface RedirectViewOptions {
  /** Runs of the devmap entry's program so far (the engine loads it, so the engine counts them). */
  entryRuns?: number;
  rate?: RateOf;
}

const NIC_TX_LEGEND: SlotLegend[] = [
  { state: 'empty', owner: 'none', label: 'tx free' },
  { state: 'hw', owner: 'hw', label: 'ndo_xdp_xmit: owned by the target NIC' },
  { state: 'done', owner: 'sw', label: 'sent, awaiting tx completion' },
];
const VETH_LEGEND: SlotLegend[] = [
  { state: 'empty', owner: 'none', label: 'ptr_ring free' },
  { state: 'queued', owner: 'sw', label: "on the peer's ptr_ring, awaiting veth_poll" },
];

/** null when the machine has no redirect target. */
export function redirectView(sim: Simulation, opts: RedirectViewOptions = {}): RedirectView | null {
  const t = sim.nic.redirectTarget();
  if (!t) return null;
  return t.type === 'devmap' ? devmapView(sim, t, opts) : cpumapView(t, opts);
}

/** The counters the view shows, by name (also what the engine samples for their rates). */
export function redirectCounts(sim: Simulation): Record<string, number> {
  const t = sim.nic.redirectTarget();
  if (!t) return {};
  return t.type === 'devmap' ? devmapCounts(t) : cpumapCounts(t);
}

function histogram(hist: Float64Array, max: number): { size: number; count: number }[] {
  const out: { size: number; count: number }[] = [];
  for (let size = 1; size <= max; size++) out.push({ size, count: hist[size] ?? 0 });
  return out;
}

function framesFlushed(hist: Float64Array): number {
  let n = 0;
  for (let size = 1; size < hist.length; size++) n += size * hist[size]!;
  return n;
}

function flushes(hist: Float64Array): number {
  let n = 0;
  for (let size = 1; size < hist.length; size++) n += hist[size]!;
  return n;
}

function devmapCounts(d: DevmapTarget): Record<string, number> {
  const c: Record<string, number> = {
    enqueued: d.finished + d.errors + d.inTransit(),
    flushes: flushes(d.flushHist),
    flushed: framesFlushed(d.flushHist),
    sent: d.sent,
    xmit_dropped: d.xmitDropped,
    errors: d.errors,
  };
  if (d.opts.devProg) c.entry_prog_drops = d.progDropped;
  return c;
}

function devmapView(sim: Simulation, d: DevmapTarget, opts: RedirectViewOptions): RedirectView {
  const veth = d.opts.kind === 'veth';
  const now = sim.now();
  const ring = d.tx;
  const slots: number[] = new Array<number>(ring.size);
  for (let s = 0; s < ring.size; s++) {
    if (ring.slotPage[s]! < 0) slots[s] = 0;
    else if (veth) slots[s] = 1;
    else slots[s] = ring.slotDone[s]! > now ? 1 : 2;
  }
  const txRing: RingView = {
    id: 'redirect-tx',
    label: veth ? `${d.opts.name} peer ptr_ring` : `${d.opts.name} XDP tx ring`,
    kind: 'tx',
    size: ring.size,
    slots,
    legend: veth ? VETH_LEGEND : NIC_TX_LEGEND,
    pointers: [
      { name: 'prod', index: ring.prod & ring.mask },
      { name: 'cons', index: ring.cons & ring.mask },
    ],
  };
  const counts = devmapCounts(d);
  if (d.opts.devProg && opts.entryRuns !== undefined) counts.entry_prog_runs = opts.entryRuns;
  return {
    kind: 'devmap',
    target: veth ? `${d.opts.name} (peer runs ${d.opts.peerProg?.name ?? 'no program'})` : d.opts.name,
    entryProgram: d.opts.devProg ? { name: d.opts.devProg.name, runsAt: d.opts.runProgAtFlush ? 'flush' : 'enqueue' } : null,
    bulk: d.bq.map((q, cpu) => ({ cpu, n: q.n, size: DEV_MAP_BULK_SIZE, packets: Array.from(q.packets.subarray(0, q.n)) })),
    txRing,
    flushSizes: histogram(d.flushHist, DEV_MAP_BULK_SIZE),
    counters: toCounters(counts, opts.rate),
  };
}

function cpumapCounts(c: CpumapTarget): Record<string, number> {
  let redirected = 0;
  let errors = 0;
  let done = 0;
  for (const r of c.rings) {
    redirected += r.c.xdp_redirect;
    errors += r.c.xdp_redirect_err;
    done += r.c.redirect_done;
  }
  return {
    enqueued: redirected - errors,
    flushes: flushes(c.flushHist),
    flushed: framesFlushed(c.flushHist),
    // The remote CPU's kthread drops what it takes off its ptr_ring (xdp_redirect_cpu -e drop).
    remote_dropped: done,
    errors,
  };
}

function cpumapView(c: CpumapTarget, opts: RedirectViewOptions): RedirectView {
  return {
    kind: 'cpumap',
    target: "remote CPU's kthread (xdp_redirect_cpu -e drop)",
    entryProgram: null,
    bulk: c.bq.map((q, i) => ({ cpu: c.rings[i]?.cpu.id ?? i, n: q.n, size: CPU_MAP_BULK_SIZE, packets: Array.from(q.packets.subarray(0, q.n)) })),
    txRing: null,
    flushSizes: histogram(c.flushHist, CPU_MAP_BULK_SIZE),
    counters: toCounters(cpumapCounts(c), opts.rate),
  };
}

function toCounters(c: Record<string, number>, rate: RateOf | undefined): CounterView[] {
  return Object.entries(c).map(([name, value]) => ({ name, value, rate: rate ? rate(name) : 0 }));
}
