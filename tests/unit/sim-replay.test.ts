/** Determinism, stepping, replay and snapshots: what the UI's time controls rely on. */
import { describe, expect, it } from 'vitest';
import { checkInvariants, findScenario, nativeXdp2, Simulation, XDP_DROP, XDP_PASS, XDP_TX, type SimConfig } from '../../src/sim';
import { examplePrograms } from '../../src/engine/programs';
import { actionBySport, base } from './sim-helpers';

const cfg = (seed = 1, trace = true): SimConfig => ({
  ...base({ rxRingSize: 32, traffic: { linkGbps: 40, maxPackets: 3000, sources: [{ ratePps: 9e6, sportCount: 50, randomFlows: true, burst: 8 }, { ratePps: 9e6, l3: 'ipv6' }] } }),
  seed,
  trace,
});
const prog = () => actionBySport([XDP_DROP, XDP_PASS, XDP_TX]);

function hashOf(c: SimConfig): { hash: number; count: number } {
  const sim = new Simulation(c, prog());
  while (sim.stepEvent());
  return { hash: sim.traceHash, count: sim.machine.trace.count };
}

describe('determinism', () => {
  it('the same scenario and seed give the same event stream, bit for bit', () => {
    const a = hashOf(cfg(1));
    expect(a.count).toBeGreaterThan(10000);
    expect(hashOf(cfg(1))).toEqual(a);
    expect(hashOf(cfg(2)).hash).not.toBe(a.hash);
  });

  it('keeping records or not does not change the stream', () => {
    const a = hashOf(cfg(1));
    expect(hashOf({ ...cfg(1), keepTrace: false })).toEqual(a);
  });

  // run()'s fast loops (one CPU; a queue's CPU and the AF_XDP application's)
  // against stepEvent with the trace off: no trace hash to compare, so the
  // counters, the clocks, the profile and the step count must agree, in
  // setups where a full ring drops many frames.
  it.each(['seed000-xdp2-tx', 'seed001-l2fwd-zc', 'seed002-i40e-i40e-native'])('with the trace off, running and stepping agree: %s', (name) => {
    const s = findScenario(name)!;
    const c = s.config();
    const make = () =>
      new Simulation(
        { ...c, trace: false, keepTrace: false, devmapProgram: c.devmapProg ? examplePrograms('xdp_redirect_map_egress') : undefined },
        examplePrograms(s.program!),
      );
    const a = make();
    // Uneven slices: a run must stop on its packet count in the middle of a run of drops.
    for (const n of [1, 777, 5000, 3, 12_000]) a.run({ packets: n });
    a.run({ maxSteps: 1001 });
    const b = make();
    while (b.steps < a.steps) b.stepEvent();
    expect(a.counters().rx_missed).toBeGreaterThan(1000);
    expect(b.offered).toBe(a.offered);
    expect(b.counters()).toEqual(a.counters());
    expect(b.machine.cpus.map((cpu) => [cpu.now, cpu.state, cpu.wakeAt])).toEqual(a.machine.cpus.map((cpu) => [cpu.now, cpu.state, cpu.wakeAt]));
    expect(b.profile(0)).toEqual(a.profile(0));
    expect(b.now()).toBe(a.now());
  });

  it('stepping one event at a time gives the same stream as running', () => {
    const a = new Simulation(cfg(3), prog());
    a.run({ packets: 1500 });
    const b = new Simulation(cfg(3), prog());
    while (b.offered < 1500) b.step('event');
    expect(b.traceHash).toBe(a.traceHash);
    expect(b.steps).toBe(a.steps);
  });
});

describe('stepping and replay', () => {
  it("step('packet') finishes exactly one more packet; step('poll') stops at a poll boundary", () => {
    const sim = new Simulation(cfg(1), prog());
    sim.run({ packets: 100 });
    const done = sim.nic.packetsDone;
    sim.step('packet');
    expect(sim.nic.packetsDone).toBe(done + 1);
    sim.step('packet', 5);
    expect(sim.nic.packetsDone).toBe(done + 6);
    const polls = sim.counters().polls;
    sim.step('poll');
    expect(sim.counters().polls).toBe(polls + 1);
    expect(['idle', 'poll_begin']).toContain(sim.snapshot({ profile: false }).cpus[0]!.state);
    expect(checkInvariants(sim)).toEqual([]);
  });

  it('rewindTo replays to an earlier step exactly, including program swaps made on the way', () => {
    const sim = new Simulation(cfg(5), prog());
    sim.run({ packets: 500 });
    const mid = sim.steps;
    const midHash = sim.traceHash;
    const midSnap = JSON.stringify(sim.snapshot({ profile: false }).queues);
    sim.attach(nativeXdp2());
    sim.run({ packets: 500 });
    const endHash = sim.traceHash;
    const back = sim.rewindTo(mid);
    expect(back.steps).toBe(mid);
    expect(back.traceHash).toBe(midHash);
    expect(JSON.stringify(back.snapshot({ profile: false }).queues)).toBe(midSnap);
    back.run({ packets: 500 });
    expect(back.traceHash).toBe(endHash);
  });
});

describe('snapshot', () => {
  it('shows every ring slot with its owner, the indices, the cache, the tx ring, and page locations that add up', () => {
    const sim = new Simulation(cfg(1), prog());
    sim.run({ packets: 700 });
    const s = sim.snapshot();
    const q = s.queues[0]!;
    expect(q.rx.slots).toHaveLength(32);
    expect(q.rx.slots.filter((x) => x.owner === 'hw')).toHaveLength(q.rx.prod - q.rx.hw);
    expect(q.rx.slots.filter((x) => x.state === 'sw')).toHaveLength(q.rx.hw - q.rx.cons);
    expect(q.cache.level).toBe(q.cache.pages.length);
    expect(q.tx.slots).toHaveLength(64);
    const held = Object.entries(s.pages.byLocation).filter(([k]) => k !== 'free').reduce((a, [, v]) => a + v, 0);
    const ringPages = q.rx.prod - q.rx.cons + q.cache.level + (q.tx.prod - q.tx.cons);
    expect(held).toBe(ringPages);
    expect(s.counters.offered).toBe(sim.offered);
    expect(s.profile.length).toBeGreaterThan(3);
    expect(JSON.parse(JSON.stringify(s)).queues[0].rx.size).toBe(32);
    // The events behind the snapshot are there to step through.
    expect(sim.events(0, 5).map((e) => e.seq)).toEqual([0, 1, 2, 3, 4]);
  });
});

describe('trace window', () => {
  it('keeps at most `limit` records, dropping the oldest, without changing the hash', () => {
    const small = new Simulation(cfg(1), prog());
    (small.machine.trace as unknown as { limit: number }).limit = 2048;
    while (small.stepEvent());
    const full = new Simulation(cfg(1), prog());
    while (full.stepEvent());
    const t = small.machine.trace;
    expect(t.hash).toBe(full.machine.trace.hash);
    expect(t.count - t.base).toBeLessThanOrEqual(2048);
    expect(t.get(t.count - 1)).toEqual(full.machine.trace.get(t.count - 1));
    expect(t.get(0)).toBeUndefined();
  });
});
