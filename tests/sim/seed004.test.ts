/**
 * Seed 004 (vmxnet3 XDP, 2023): the skb-mode vs native-mode table, model
 * next to published. Native mode reaches the backend's ceiling for every
 * action; skb mode is bound by the guest CPU (skb, pskb_expand_head, the
 * skb tx path), and XDP_PASS by the guest's stack in both. The programs
 * (xdp_rxq_info, xdp_redirect_cpu) are C compiled by src/cc, run in the VM.
 */
import { describe, expect, it } from 'vitest';
import { checkInvariants, findScenario, runScenario, SCENARIOS, Simulation } from '../../src/sim';
import { examplePrograms } from '../../src/engine/programs';

const names = SCENARIOS.filter((s) => s.seed === '004').map((s) => s.name);

describe('seed 004: vmxnet3, skb-mode vs native-mode (each ±10%)', () => {
  it('has the 16 published setups', () => expect(names).toHaveLength(16));

  it.each(names)('%s', (name) => {
    const s = findScenario(name)!;
    const r = runScenario(s, { programs: examplePrograms, packets: 60_000 });
    expect(r.program_engine).toBe('vm');
    const pub = s.published.rate_pps!;
    console.log(`${name.padEnd(28)} [vm] model ${(r.rate_pps / 1e3).toFixed(0).padStart(5)} Kpps   published ${(pub / 1e3).toFixed(0).padStart(5)} Kpps   (${((r.rate_pps / pub - 1) * 100).toFixed(1)}%)`);
    expect(Math.abs(r.rate_pps / pub - 1)).toBeLessThanOrEqual(0.1);
    expect(r.warnings).toEqual([]);
  });

  it('native beats skb mode for every action and size, as published', () => {
    for (const size of ['64', '512'])
      for (const action of ['drop', 'pass', 'tx', 'redirect']) {
        const skb = runScenario(findScenario(`seed004-${size}-${action}-skb`)!, { programs: examplePrograms, packets: 30_000 }).rate_pps;
        const nat = runScenario(findScenario(`seed004-${size}-${action}-native`)!, { programs: examplePrograms, packets: 30_000 }).rate_pps;
        expect(nat).toBeGreaterThan(skb);
      }
  });

  it('64 B frames come through the data ring; pages and packets are conserved on every path', () => {
    for (const name of ['seed004-64-tx-native', 'seed004-512-redirect-native', 'seed004-64-pass-skb', 'seed004-512-tx-skb']) {
      const s = findScenario(name)!;
      const sim = new Simulation({ ...s.config(), rxRingSize: 64, txRingSize: 64, trace: false, traffic: { ...s.config().traffic, maxPackets: 3000 } }, examplePrograms(s.program!));
      let steps = 0;
      while (sim.stepEvent()) {
        if (++steps % 7 === 0) {
          const e = checkInvariants(sim);
          if (e.length) throw new Error(`${name} after step ${steps}: ${e.slice(0, 3).join('; ')}`);
        }
      }
      expect(checkInvariants(sim)).toEqual([]);
      expect(sim.offered).toBe(3000);
    }
  });
});

describe('vmxnet3 snapshot and control', () => {
  it('shows the page_pool as the ring cache, and refuses an MTU too large for XDP', () => {
    const s = findScenario('seed004-512-tx-native')!;
    const sim = new Simulation({ ...s.config(), rxRingSize: 64, txRingSize: 64, trace: false }, examplePrograms(s.program!));
    sim.run({ packets: 2000 });
    const q = sim.snapshot().queues[0]!;
    expect(q.cache.kind).toBe('page_pool');
    expect(q.cache.level).toBe(q.cache.pages.length);
    expect(sim.snapshot().mode).toBe('page_pool');
    const m = sim.setMtu(3000);
    expect(!m.ok && m.message).toBe('vmxnet3: MTU 3000 too large for XDP (max 2496)');
    expect(sim.setMtu(2000)).toEqual({ ok: true });
    sim.run({ packets: 500 });
    expect(checkInvariants(sim)).toEqual([]);
  });
});
