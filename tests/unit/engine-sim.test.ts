/**
 * The engine's simulation control: attach on accepted builds only, step and
 * step back (replay), and the worker run loop's pacing. The machine here is
 * a minimal deterministic SimPort (a counter), standing in for src/sim so the
 * engine's own logic is tested in isolation.
 */
import { describe, expect, it } from 'vitest';
import { bytesToHex, encodeProgram, insn, type ParsedSpec } from '../../src/isa';
import { createEngine, DEFAULT_SETTINGS, landedToolchain, type SimPort, type SimSettings, type SimSnapshot, type Toolchain, type EngineEvent, type Attach } from '../../src/engine';
import { RunLoop } from '../../src/worker/runLoop';

/** Counts events; a packet is 3 events; `limit` events exist in total. */
class CounterSim implements SimPort {
  events = 0;
  resets = 0;
  program: ParsedSpec | null = null;
  settings: SimSettings = DEFAULT_SETTINGS;
  constructor(private readonly limit = Infinity) {}
  reason = '';
  reset(settings: SimSettings, attach: Attach): void {
    this.events = 0;
    this.resets++;
    this.program = 'program' in attach ? attach.program : null;
    this.reason = 'reason' in attach ? attach.reason : '';
    this.settings = settings;
  }
  advance(unit: 'event' | 'packet' | 'napi', count: number): number {
    const per = unit === 'event' ? 1 : 3;
    const can = Math.min(count, Math.floor((this.limit - this.events) / per));
    this.events += can * per;
    return can;
  }
  eventCount(): number {
    return this.events;
  }
  snapshot(): SimSnapshot {
    return {
      nowNs: this.events * 10, events: this.events, packets: Math.floor(this.events / 3), napiPolls: 0,
      attached: this.program ? { ok: true, name: 'prog' } : { ok: false, reason: 'no program' },
      rings: [], gauges: [], actions: [], counters: [], series: [], profile: [], recent: [],
      settings: this.settings, canStepBack: this.events > 0, redirect: null, xsk: null, pageMap: null,
    };
  }
}

const PASS = bytesToHex(encodeProgram([insn(0xb7, 0, 0, 0, 2), insn(0x95)]));

function toolchain(sim: CounterSim, accept: () => boolean): Toolchain {
  return {
    ...landedToolchain,
    compile: () => ({ spec: { prog_type: 'xdp', insns: PASS }, diagnostics: [] }),
    verify: () => (accept() ? { accepted: true, log: '', states: [] } : { accepted: false, log: '', error: 'R0 !read_ok', errorPc: 1, states: [] }),
    sim: () => sim,
  };
}

describe('engine simulation control', () => {
  it('attaches only programs the verifier accepts', () => {
    const sim = new CounterSim();
    let ok = false;
    const e = createEngine(toolchain(sim, () => ok));
    e.build('bad');
    expect(sim.program).toBeNull();
    expect(sim.reason).toBe('the verifier rejected the program');
    ok = true;
    e.build('good');
    expect(sim.program?.insns.length).toBe(2);
    const r = e.simSnapshot();
    expect(r.ok && r.snapshot.attached.ok).toBe(true);
  });

  it('steps forward by unit and back by one event, exactly', () => {
    const sim = new CounterSim();
    const e = createEngine(toolchain(sim, () => true));
    e.build('p');
    e.simStep('packet', 2);
    expect(sim.events).toBe(6);
    const back = e.simStepBack();
    expect(back.ok && back.snapshot.events).toBe(5);
    e.simStepBack();
    expect(sim.events).toBe(4);
  });

  it('refuses to step back past the replay limit, and says what to do', () => {
    const sim = new CounterSim();
    const e = createEngine(toolchain(sim, () => true));
    e.build('p');
    const r = e.simStep('event', 600_000);
    expect(r.ok && r.snapshot.canStepBack).toBe(false);
    const back = e.simStepBack();
    expect(back).toEqual({ ok: false, reason: 'stepping back replays the run from the start, and 599,999 events is more than 500,000: reset to step from the beginning' });
    expect(sim.events).toBe(600_000);
  });

  it('keeps settings across a configure and restarts the machine', () => {
    const sim = new CounterSim();
    const e = createEngine(toolchain(sim, () => true));
    e.simStep('event', 5);
    const r = e.simConfigure({ driver: { ringSize: 1024 } });
    expect(r.ok && r.snapshot.settings.driver).toEqual({ ...DEFAULT_SETTINGS.driver, ringSize: 1024 });
    expect(sim.events).toBe(0);
  });
});

describe('worker run loop', () => {
  function harness(limit = Infinity) {
    const sim = new CounterSim(limit);
    const e = createEngine(toolchain(sim, () => true));
    e.build('p');
    let t = 0;
    const queue: { at: number; fn: () => void }[] = [];
    const posted: EngineEvent[] = [];
    const loop = new RunLoop(e, {
      // Reading the clock costs a little, as real work does.
      now: () => (t += 0.25),
      schedule: (fn, ms) => void queue.push({ at: t + ms, fn }),
      post: (ev) => void posted.push(ev),
    });
    /** Advance wall time by `ms`, running due callbacks; each simStep costs `cost` ms. */
    const run = (ms: number) => {
      const end = t + ms;
      while (queue.length) {
        queue.sort((a, b) => a.at - b.at);
        if (queue[0]!.at > end) break;
        const q = queue.shift()!;
        t = Math.max(t, q.at);
        q.fn();
        t += 0.5;
      }
      t = end;
    };
    return { sim, loop, run, posted };
  }

  it('runs about `speed` events per second of wall time', () => {
    const h = harness();
    h.loop.set(true, 100);
    h.run(2000);
    expect(h.sim.events).toBeGreaterThanOrEqual(190);
    expect(h.sim.events).toBeLessThanOrEqual(201);
  });

  it('posts snapshots at most 30 times a second', () => {
    const h = harness();
    h.loop.set(true, 'max');
    h.run(1000);
    const snaps = h.posted.filter((p) => p.type === 'snapshot').length;
    expect(snaps).toBeGreaterThan(10);
    expect(snaps).toBeLessThanOrEqual(31);
    expect(h.sim.events).toBeGreaterThan(1000);
  });

  it('a pause posts where the machine stopped, even inside the snapshot frame limit', () => {
    const h = harness();
    h.loop.set(true, 'max');
    h.run(20);
    h.loop.set(false, 'max');
    const snaps = h.posted.filter((p): p is Extract<EngineEvent, { type: 'snapshot' }> => p.type === 'snapshot');
    expect(snaps.at(-1)!.snapshot.events).toBe(h.sim.events);
    expect(h.posted.at(-1)).toEqual({ type: 'run', running: false, speed: 'max' });
    // Pausing again posts nothing new.
    const n = h.posted.length;
    h.loop.set(false, 'max');
    expect(h.posted.filter((p) => p.type === 'snapshot')).toHaveLength(snaps.length);
    expect(h.posted.length).toBe(n + 1);
  });

  it('a full-speed run keeps to its share of the wall clock, until lifted or until the deadline', () => {
    const events = (setup: (h: ReturnType<typeof harness>) => void, ms = 1000) => {
      const h = harness();
      setup(h);
      h.loop.set(true, 'max');
      h.run(ms);
      return h;
    };
    const full = events(() => {}).sim.events;
    const quarter = events((h) => h.loop.setShare(0.25, 10_000)).sim.events;
    expect(quarter / full).toBeGreaterThan(0.2);
    expect(quarter / full).toBeLessThan(0.32);
    // The deadline halfway: about a quarter for the first half, all of it for the second.
    const deadline = events((h) => h.loop.setShare(0.25, 500)).sim.events;
    expect(deadline / full).toBeGreaterThan(0.55);
    expect(deadline / full).toBeLessThan(0.7);
    // Lifted at 500 ms (what the UI does once the editor is up): the same.
    const h = events((x) => x.loop.setShare(0.25, 10_000), 500);
    h.loop.setShare(1, 0);
    h.run(500);
    expect(h.sim.events / full).toBeGreaterThan(0.55);
    expect(h.sim.events / full).toBeLessThan(0.7);
  });

  it('pauses, and stops with a reason when the traffic runs out', () => {
    const h = harness(50);
    h.loop.set(true, 'max');
    h.run(100);
    expect(h.sim.events).toBe(50);
    expect(h.posted.at(-1)).toEqual({ type: 'run', running: false, speed: 'max', reason: 'the traffic ran out' });
    h.loop.set(false, 'max');
    expect(h.loop.running).toBe(false);
  });
});
