/**
 * The XDP_REDIRECT view (src/engine/views/redirect.ts) over real runs: the
 * redirect examples compiled, verified and run in the VM on the machines
 * their setups describe, and the settings the simulator refuses.
 */
import { describe, expect, it } from 'vitest';
import { createEngine, landedToolchain } from '../../src/engine';
import { DriverSim } from '../../src/engine/simAdapter';
import { loadProgram } from '../../src/engine/vmHook';
import { DEFAULT_SETTINGS, type RedirectView, type SimSettings, type SimSnapshot } from '../../src/engine/simTypes';
import { EXAMPLES } from '../../src/examples';
import { resolveConfig, DEV_MAP_BULK_SIZE } from '../../src/sim';
import { compileSource } from '../../src/engine/pipeline';
import type { ParsedSpec } from '../../src/isa';

function spec(id: string): ParsedSpec {
  const p = compileSource(EXAMPLES.find((e) => e.id === id)!.source, `${id}.c`);
  if ('error' in p) throw new Error(p.error);
  return p;
}

function settings(driver: Partial<SimSettings['driver']>): SimSettings {
  return { traffic: { ...DEFAULT_SETTINGS.traffic }, driver: { ...DEFAULT_SETTINGS.driver, ...driver } };
}

function machine(example: string, driver: Partial<SimSettings['driver']>, profile = 'steady'): DriverSim {
  const sim = new DriverSim(loadProgram);
  const st = settings(driver);
  st.traffic.profile = profile;
  sim.reset(st, { program: spec(example) }, null);
  return sim;
}

const counter = (v: RedirectView, name: string): number => v.counters.find((c) => c.name === name)?.value ?? NaN;
const action = (s: SimSnapshot, name: string): number => s.actions.find((a) => a.name === name)!.value;

describe('redirect view: devmap to a second i40e port (xdp_redirect_map)', () => {
  it('bulk queues fill up to 16 and empty at flush; the flush histogram adds up to the frames flushed', () => {
    const sim = machine('xdp_redirect_map', { nic: 'i40e', model: 'seed2021-i40e-10g', redirect: 'devmap-i40e' });
    const s0 = sim.snapshot();
    expect(s0.attached).toEqual({ ok: true, name: 'xdp_redirect_map_prog' });
    expect(s0.redirect?.kind).toBe('devmap');
    expect(s0.redirect?.target).toBe('i40e port 2');
    let maxN = 0;
    let emptied = 0;
    let prev = 0;
    const prods = new Set<number>();
    for (let i = 0; i < 6000; i++) {
      sim.advance('event', 1);
      const v = sim.snapshot().redirect!;
      const q = v.bulk[0]!;
      expect(q.size).toBe(DEV_MAP_BULK_SIZE);
      expect(q.n).toBeLessThanOrEqual(DEV_MAP_BULK_SIZE);
      expect(q.packets).toHaveLength(q.n);
      // Frames wait in arrival order.
      for (let k = 1; k < q.packets.length; k++) expect(q.packets[k]!).toBeGreaterThan(q.packets[k - 1]!);
      maxN = Math.max(maxN, q.n);
      if (prev > 0 && q.n < prev) emptied++;
      prev = q.n;
      prods.add(v.txRing!.pointers.find((p) => p.name === 'prod')!.index);
    }
    expect(maxN).toBe(DEV_MAP_BULK_SIZE);
    expect(emptied).toBeGreaterThan(5);
    const s = sim.snapshot();
    const v = s.redirect!;
    const flushedByHist = v.flushSizes.reduce((a, f) => a + f.size * f.count, 0);
    expect(v.flushSizes.map((f) => f.size)).toEqual(Array.from({ length: 16 }, (_, i) => i + 1));
    expect(flushedByHist).toBeGreaterThan(100);
    expect(flushedByHist).toBe(counter(v, 'flushed'));
    expect(v.flushSizes.reduce((a, f) => a + f.count, 0)).toBe(counter(v, 'flushes'));
    // Every frame the program redirected is flushed or still waiting in a bulk queue…
    const waiting = v.bulk.reduce((a, q) => a + q.n, 0);
    expect(counter(v, 'enqueued')).toBe(flushedByHist + waiting);
    expect(counter(v, 'enqueued')).toBe(action(s, 'REDIRECT'));
    // …and every flushed frame is on the target's ring, sent, or dropped by a full ring.
    const onRing = v.txRing!.slots.filter((x) => x !== 0).length;
    expect(counter(v, 'sent') + onRing + counter(v, 'xmit_dropped')).toBe(flushedByHist);
    expect(counter(v, 'sent')).toBeGreaterThan(0);
    expect(counter(v, 'errors')).toBe(0);
    // The target's tx ring moved round.
    expect(prods.size).toBeGreaterThan(10);
    const prod = v.txRing!.pointers.find((p) => p.name === 'prod')!.index;
    const cons = v.txRing!.pointers.find((p) => p.name === 'cons')!.index;
    expect((prod - cons + v.txRing!.size) % v.txRing!.size).toBe(onRing);
  });

  it('a veth target runs its peer program and a devmap entry program, both as VM bytecode', () => {
    const sim = machine('xdp_redirect_map', { nic: 'i40e', model: 'seed2021-i40e-10g', redirect: 'devmap-veth', entryProg: 'flush' });
    sim.advance('event', 8000);
    const v = sim.snapshot().redirect!;
    expect(v.target).toBe('veth0 (peer runs xdp_drop)');
    expect(v.entryProgram).toEqual({ name: 'xdp_redirect_map_egress', runsAt: 'flush' });
    expect(v.txRing!.label).toBe('veth0 peer ptr_ring');
    // The entry program runs once per flushed frame (after the patch: at flush time) and passes them all.
    expect(counter(v, 'entry_prog_runs')).toBe(counter(v, 'flushed'));
    expect(counter(v, 'entry_prog_drops')).toBe(0);
    expect(counter(v, 'sent')).toBeGreaterThan(0);
  });

  it('with the entry program run at enqueue, it runs on frames still in the bulk queue', () => {
    const sim = machine('xdp_redirect_map', { nic: 'i40e', model: 'seed2021-i40e-10g', redirect: 'devmap-i40e', entryProg: 'enqueue' });
    sim.advance('event', 5000);
    const v = sim.snapshot().redirect!;
    expect(v.entryProgram?.runsAt).toBe('enqueue');
    expect(counter(v, 'entry_prog_runs')).toBe(counter(v, 'enqueued'));
  });

  it('without a target the devmap slot is empty: bpf_redirect_map returns XDP_ABORTED, traced as an exception', () => {
    const sim = machine('xdp_redirect_map', {});
    sim.advance('event', 3000);
    const s = sim.snapshot();
    expect(s.redirect).toBeNull();
    expect(action(s, 'ABORTED')).toBeGreaterThan(0);
    expect(action(s, 'REDIRECT')).toBe(0);
    expect(s.recent.some((r) => r.text.includes('xdp_exception'))).toBe(true);
    const maps = sim.maps();
    expect(maps.find((m) => m.name === 'tx_port')!.entries).toEqual([]);
  });
});

describe('redirect view: cpumap (xdp_redirect_cpu on vmxnet3)', () => {
  it('per-CPU bulk queues of 8, the histogram sums to the frames flushed, the remote CPU drops them', () => {
    const sim = machine('xdp_redirect_cpu', { nic: 'vmxnet3', model: 'seed2023-esxi-vmxnet3', redirect: 'cpumap-drop' });
    let maxN = 0;
    for (let i = 0; i < 4000; i++) {
      sim.advance('event', 1);
      const q = sim.snapshot().redirect!.bulk[0]!;
      expect(q.packets).toHaveLength(q.n);
      maxN = Math.max(maxN, q.n);
    }
    const s = sim.snapshot();
    const v = s.redirect!;
    expect(v.kind).toBe('cpumap');
    expect(v.txRing).toBeNull();
    expect(v.bulk[0]!.size).toBe(8);
    expect(maxN).toBeGreaterThan(1);
    expect(maxN).toBeLessThan(8); // a full queue is flushed on the enqueue that fills it
    const flushed = v.flushSizes.reduce((a, f) => a + f.size * f.count, 0);
    expect(flushed).toBe(counter(v, 'flushed'));
    expect(flushed).toBeGreaterThan(50);
    expect(counter(v, 'enqueued')).toBe(flushed + v.bulk.reduce((a, q) => a + q.n, 0));
    expect(counter(v, 'remote_dropped')).toBe(flushed);
    expect(action(s, 'REDIRECT')).toBe(counter(v, 'enqueued'));
    expect(s.gauges[0]!.id).toBe('page-pool');
  });
});

describe('settings and the machine', () => {
  it('refuses vmxnet3 with a devmap target with the simulator\'s reason; the default machine keeps running', () => {
    const e = createEngine(landedToolchain);
    e.build(e.hello().examples[0]!.source);
    const before = e.simStep('event', 2000);
    expect(before.ok).toBe(true);
    let reason = '';
    try {
      resolveConfig({ driver: 'vmxnet3', redirectTarget: 'devmap-i40e', traffic: { linkGbps: 10, sources: [] } });
    } catch (err) {
      reason = (err as Error).message;
    }
    expect(reason).not.toBe('');
    const r = e.simConfigure({ driver: { nic: 'vmxnet3', redirect: 'devmap-i40e' } });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.reason).toContain(reason);
    expect(r.reason).not.toMatch(/\n|at .*\.ts/);
    const after = e.simStep('event', 2000);
    expect(after.ok).toBe(true);
    if (!after.ok || !before.ok) return;
    expect(after.snapshot.settings.driver.nic).toBe('mlx4');
    expect(after.snapshot.settings.driver.redirect).toBe('none');
    expect(after.snapshot.events).toBe(before.snapshot.events + 2000);
    expect(after.snapshot.packets).toBeGreaterThan(before.snapshot.packets);
    expect(after.snapshot.attached.ok).toBe(true);
  });

  it('refuses a cpumap on a driver without one, and generic XDP on mlx4', () => {
    const e = createEngine(landedToolchain);
    const r1 = e.simConfigure({ driver: { redirect: 'cpumap-drop' } });
    expect(r1.ok ? '' : r1.reason).toMatch(/cpumap-drop.*vmxnet3/);
    const r2 = e.simConfigure({ driver: { xdpMode: 'generic' } });
    expect(r2.ok ? '' : r2.reason).toMatch(/generic/);
    const r3 = e.simConfigure({ driver: { nic: 'vmxnet3', model: 'seed2023-esxi-vmxnet3', redirect: 'cpumap-drop' } });
    expect(r3.ok).toBe(true);
  });

  it('xdp1 on 4 queues: each CPU counts in its own per-CPU map slot, the slots sum to the drops, and a gauge per ring', () => {
    // 256 flows: RSS spreads them over the four rings.
    const sim = machine('xdp1', { queues: 4, nic: 'mlx4' }, 'flows');
    const s0 = sim.snapshot();
    expect(s0.rings.filter((r) => r.kind === 'rx')).toHaveLength(4);
    sim.advance('event', 20_000);
    const s = sim.snapshot();
    const rxcnt = sim.maps().find((m) => m.name === 'rxcnt')!;
    expect(rxcnt.percpu).toBe(true);
    const udp = rxcnt.entries.find((e) => e.key.replace(/\s/g, '') === '11000000')!;
    expect(udp.value).toHaveLength(4);
    const le64 = (hex: string) => Number(BigInt('0x' + (hex.replace(/\s/g, '').match(/../g) ?? []).reverse().join('')));
    const sum = udp.value.reduce((a, h) => a + le64(h), 0);
    expect(sum).toBe(action(s, 'DROP'));
    expect(sum).toBeGreaterThan(100);
    // Each CPU counts in its own slot: every ring's CPU has handled packets, so every slot has counts.
    expect(udp.value.map(le64).every((v) => v > 0)).toBe(true);
    const caches = s.gauges.filter((g) => g.id.startsWith('page-cache'));
    expect(caches.map((g) => g.label)).toEqual([0, 1, 2, 3].map((i) => `page cache (rx ring ${i}, CPU ${i})`));
  });

  it('hello offers the redirect examples with their setups', () => {
    const ex = createEngine(landedToolchain).hello().examples;
    expect(ex.find((x) => x.name === 'xdp_redirect_map')?.setup).toEqual({ nic: 'i40e', model: 'seed2021-i40e-10g', redirect: 'devmap-i40e' });
    expect(ex.find((x) => x.name === 'xdp_redirect_cpu')?.setup?.redirect).toBe('cpumap-drop');
    expect(ex.find((x) => x.name === 'xdp1')?.setup).toBeUndefined();
  });
});
