/**
 * Seed 002 (devmap xdp_prog run at flush, 2021): xdp_redirect_map from an
 * i40e 10G port into a devmap whose entry is a second i40e port or a veth,
 * generic / native / native + a program on the devmap entry, before and
 * after the patch. Model next to published, each within ±10%; conservation
 * across the rx ring, the bulk queues, the target's ring and the veth
 * peer; the redirect error a target without XDP support produces. All
 * three programs (xdp_redirect_map, the devmap entry's, the veth peer's
 * XDP_DROP) are C compiled by src/cc, run in the VM.
 */
import { describe, expect, it } from 'vitest';
import { checkInvariants, findScenario, runScenario, SCENARIOS, Simulation, type SimConfig } from '../../src/sim';
import { examplePrograms } from '../../src/engine/programs';
import { DEV_MAP_BULK_SIZE } from '../../src/sim/devmap';

const names = SCENARIOS.filter((s) => s.seed === '002').map((s) => s.name);

describe('seed 002: XDP_REDIRECT into a devmap, i40e -> i40e / veth (each ±10%)', () => {
  it('has the 12 published setups', () => expect(names).toHaveLength(12));

  it.each(names)('%s', (name) => {
    const s = findScenario(name)!;
    const r = runScenario(s, { programs: examplePrograms, packets: 60_000 });
    expect(r.program_engine).toBe('vm');
    const c = s.config();
    // The devmap entry's program and the veth peer's run as bytecode too.
    expect(r.other_programs.map((o) => `${o.role} ${o.engine}`)).toEqual([
      ...(c.devmapProg ? ['devmap entry vm'] : []),
      ...(c.redirectTarget === 'devmap-veth' ? ['veth peer vm'] : []),
    ]);
    const pub = s.published.rate_pps!;
    console.log(`${name.padEnd(40)} [vm] model ${(r.rate_pps / 1e6).toFixed(2).padStart(6)} Mpps   published ${(pub / 1e6).toFixed(2).padStart(6)} Mpps   (${((r.rate_pps / pub - 1) * 100).toFixed(1)}%)`);
    expect(Math.abs(r.rate_pps / pub - 1)).toBeLessThanOrEqual(0.1);
    expect(r.warnings).toEqual([]);
    expect(r.counters.xdp_redirect_err).toBe(0);
  });

  it('orders as published: veth beats i40e natively, the devmap program costs more after the patch, plain native gains', () => {
    const rate = (n: string) => runScenario(findScenario(n)!, { programs: examplePrograms, packets: 40_000 }).rate_pps;
    for (const t of ['i40e', 'veth']) {
      expect(rate(`seed002-flush-i40e-${t}-native`)).toBeGreaterThan(rate(`seed002-i40e-${t}-native`));
      expect(rate(`seed002-flush-i40e-${t}-native-devprog`)).toBeLessThan(rate(`seed002-i40e-${t}-native-devprog`));
    }
    expect(rate('seed002-i40e-veth-native')).toBeGreaterThan(rate('seed002-i40e-i40e-native'));
    expect(rate('seed002-i40e-i40e-generic')).toBeGreaterThan(rate('seed002-i40e-veth-generic'));
  });
});

function smallSim(name: string, over: Partial<SimConfig> = {}, packets = 3000): Simulation {
  const s = findScenario(name)!;
  const c = s.config();
  const progs = { devmapProgram: examplePrograms('xdp_redirect_map_egress'), vethPeerProgram: examplePrograms('xdp_drop') };
  return new Simulation({ ...c, ...progs, rxRingSize: 64, txRingSize: 64, memoryPages: 1024, keepTrace: true, ...over, traffic: { ...c.traffic, maxPackets: packets } }, examplePrograms(s.program!));
}

describe('devmap bulk queues and targets', () => {
  it.each(names)('conserves pages and packets at every step: %s', (name) => {
    const sim = smallSim(name, { trace: false });
    let steps = 0;
    while (sim.stepEvent()) {
      if (++steps % 5 === 0) {
        const e = checkInvariants(sim);
        if (e.length) throw new Error(`${name} after step ${steps}: ${e.slice(0, 3).join('; ')}`);
      }
    }
    expect(checkInvariants(sim)).toEqual([]);
    const c = sim.counters();
    expect(sim.offered).toBe(3000);
    // Everything redirected has been sent (or dropped by the peer) once the machine is idle.
    expect(c.redirect_done).toBe(c.xdp_redirect);
  });

  it('native redirect bulks up to 16 frames per ndo_xdp_xmit; generic sends one skb at a time', () => {
    const nat = smallSim('seed002-flush-i40e-i40e-native', {}, 20_000);
    nat.run({});
    const d = (nat.nic as unknown as { devmap: { flushSizes: number[]; flushes: number } }).devmap;
    expect(Math.max(...d.flushSizes)).toBe(DEV_MAP_BULK_SIZE);
    expect(d.flushSizes.every((n) => n >= 1 && n <= DEV_MAP_BULK_SIZE)).toBe(true);
    const gen = smallSim('seed002-flush-i40e-i40e-generic', {}, 2000);
    gen.run({});
    const g = (gen.nic as unknown as { devmap: { flushes: number; sent: number } }).devmap;
    expect(g.flushes).toBe(0);
    expect(g.sent).toBe(gen.counters().xdp_redirect);
  });

  it('runs the devmap program at enqueue before the patch and over the bulk at flush after it', () => {
    // Profiles name where the entry's program ran: dev_map_run_prog (enqueue) or dev_map_bpf_prog_run (flush).
    const syms = (name: string) => new Set(runScenario(findScenario(name)!, { programs: examplePrograms, packets: 5000 }).profile.map((e) => e.symbol));
    const before = syms('seed002-i40e-veth-native-devprog');
    const after = syms('seed002-flush-i40e-veth-native-devprog');
    expect(before.has('dev_map_run_prog') && !before.has('dev_map_bpf_prog_run')).toBe(true);
    expect(after.has('dev_map_bpf_prog_run') && !after.has('dev_map_run_prog')).toBe(true);
    expect(syms('seed002-flush-i40e-veth-native').has('veth_xdp_rcv_one')).toBe(true);
    expect(syms('seed002-flush-i40e-i40e-native').has('i40e_xdp_xmit')).toBe(true);
  });

  it.each(['seed002-flush-i40e-veth-native', 'seed002-flush-i40e-i40e-native'])('a target that cannot send XDP frames drops them with -ENXIO and says why: %s', (name) => {
    const sim = smallSim(name, { redirectTargetXdp: false }, 2000);
    sim.run({});
    const c = sim.counters();
    expect(c.xdp_redirect).toBeGreaterThan(0);
    expect(c.xdp_redirect_err).toBe(c.xdp_redirect);
    expect(c.redirect_done).toBe(0);
    expect(sim.nic.warnings).toHaveLength(1);
    expect(sim.nic.warnings[0]).toMatch(name.includes('veth') ? /veth_xdp_xmit: -ENXIO: the peer has no XDP program/ : /ndo_xdp_xmit: -ENXIO: no XDP tx rings on the target/);
    const ex = sim.events().filter((e) => e.kind === 'xdp_exception');
    expect(ex.length).toBe(c.xdp_redirect);
    expect(ex.every((e) => e.detail === -6)).toBe(true);
    expect(checkInvariants(sim)).toEqual([]);
  });
});

describe('the devmap entry and veth peer programs are given, never assumed', () => {
  it('refuses a devmap program or a veth peer without a program to run, in one line', () => {
    const c = findScenario('seed002-flush-i40e-veth-native-devprog')!.config();
    expect(() => new Simulation({ ...c, vethPeerProgram: examplePrograms('xdp_drop') }, null)).toThrow(/^devmapProg needs devmapProgram/);
    expect(() => new Simulation({ ...c, devmapProgram: examplePrograms('xdp_redirect_map_egress') }, null)).toThrow(/needs vethPeerProgram/);
    expect(() => new Simulation({ ...c, devmapProgram: examplePrograms('xdp_redirect_map_egress'), redirectTargetXdp: false }, null)).not.toThrow();
  });
});
