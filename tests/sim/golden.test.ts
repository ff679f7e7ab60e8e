/**
 * The golden check: every named scenario and a set of app-like machines,
 * recorded once (trace hash, every counter, the profile, and for the app's
 * machines the whole engine snapshot) and compared byte for byte. Refactors
 * of src/sim and src/engine must leave these files unchanged; a change in
 * behaviour is a deliberate `UPDATE_GOLDEN=1 npx vitest run tests/sim/golden.test.ts`
 * and shows up in the diff of tests/sim/golden/.
 */
import { readFileSync, writeFileSync, mkdirSync, existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { nativePrograms, runScenario, SCENARIOS } from '../../src/sim';
import { examplePrograms } from '../../src/engine/programs';
import { DEFAULT_SETTINGS, type SimSettings } from '../../src/engine';
import { DriverSim } from '../../src/engine/simAdapter';
import { loadProgram } from '../../src/engine/vmHook';
import { compile } from '../../src/cc';
import { EXAMPLES } from '../../src/examples';
import { parseSpec, type ParsedSpec } from '../../src/isa';

const DIR = join(dirname(fileURLToPath(import.meta.url)), 'golden');
const UPDATE = process.env.UPDATE_GOLDEN === '1';

/** Compare `value` (as indented JSON) with the recorded file, or record it under UPDATE_GOLDEN=1. */
function golden(name: string, value: unknown): void {
  const text = `${JSON.stringify(value, null, 1)}\n`;
  const file = join(DIR, name);
  if (UPDATE || !existsSync(file)) {
    if (!UPDATE) throw new Error(`${file} is missing: record it with UPDATE_GOLDEN=1`);
    mkdirSync(DIR, { recursive: true });
    writeFileSync(file, text);
    return;
  }
  expect(text).toBe(readFileSync(file, 'utf8'));
}

/** FNV-1a over a string: large views (ring slots, page maps) are recorded by hash. */
function fnv(s: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193) >>> 0;
  return h.toString(16).padStart(8, '0');
}

const json = (v: unknown): string => JSON.stringify(v, (_k, x: unknown) => (x instanceof Uint8Array ? Array.from(x) : x));

describe('golden: named scenarios', () => {
  // A shortened measuring window keeps this quick; the warm-up is each scenario's own.
  it.each(SCENARIOS.map((s) => s.name))('%s', (name) => {
    const s = SCENARIOS.find((x) => x.name === name)!;
    const out: Record<string, unknown> = {};
    for (const [engine, programs] of [['vm', examplePrograms], ['native', nativePrograms]] as const) {
      const r = runScenario(s, { programs, packets: 4_000 });
      out[engine] = { trace_hash: r.trace_hash.toString(16), program: r.program, other: r.other_programs, counters: r.counters, profile: r.profile, rates: r.rates, idle: r.idle_percent, warnings: r.warnings };
    }
    golden(`scenario-${name}.json`, out);
  });
});

function program(id: string): ParsedSpec {
  const ex = EXAMPLES.find((e) => e.id === id)!;
  const c = compile(ex.source, { file: 'prog.c' });
  const p = parseSpec(JSON.parse(JSON.stringify(c.spec)));
  if ('error' in p) throw new Error(p.error);
  return p;
}

type Driver = Partial<SimSettings['driver']>;
const MACHINES: { name: string; prog: string; driver: Driver; traffic?: Partial<SimSettings['traffic']> }[] = [
  { name: 'mlx4-native-xdp1', prog: 'xdp1', driver: {} },
  { name: 'mlx4-native-xdp2-flows-2q', prog: 'xdp2', driver: { queues: 2 }, traffic: { profile: 'flows', ratePps: 8e6, mix: { udp: 0.5, tcp: 0.2, icmp: 0.1, ipv6: 0.2 } } },
  { name: 'mlx4-nocache-pass', prog: 'xdp-pass-count', driver: { pageCache: false }, traffic: { profile: 'bursts' } },
  { name: 'mlx4-generic-xdp1', prog: 'xdp1', driver: { xdpMode: 'generic' } },
  { name: 'mlx4-devmap-port', prog: 'xdp_redirect_map', driver: { redirect: 'devmap-port' } },
  { name: 'vmxnet3-native-xdp1', prog: 'xdp1', driver: { nic: 'vmxnet3', model: 'seed2023-esxi-vmxnet3' } },
  { name: 'vmxnet3-generic-xdp2', prog: 'xdp2', driver: { nic: 'vmxnet3', model: 'seed2023-esxi-vmxnet3', xdpMode: 'generic' } },
  { name: 'vmxnet3-cpumap', prog: 'xdp_redirect_cpu', driver: { nic: 'vmxnet3', model: 'seed2023-esxi-vmxnet3', redirect: 'cpumap-drop' }, traffic: { ratePps: 6e6 } },
  { name: 'i40e-native-xdp2', prog: 'xdp2', driver: { nic: 'i40e', model: 'seed2021-i40e-10g' } },
  { name: 'i40e-devmap-i40e', prog: 'xdp_redirect_map', driver: { nic: 'i40e', model: 'seed2021-i40e-10g', redirect: 'devmap-i40e' }, traffic: { ratePps: 14e6 } },
  { name: 'i40e-devmap-i40e-entry-enqueue', prog: 'xdp_redirect_map', driver: { nic: 'i40e', model: 'seed2021-i40e-10g', redirect: 'devmap-i40e', entryProg: 'enqueue' } },
  { name: 'i40e-devmap-veth-entry-flush', prog: 'xdp_redirect_map', driver: { nic: 'i40e', model: 'seed2021-i40e-10g', redirect: 'devmap-veth', entryProg: 'flush' } },
  { name: 'i40e-devmap-veth-generic', prog: 'xdp_redirect_map', driver: { nic: 'i40e', model: 'seed2021-i40e-10g', redirect: 'devmap-veth', xdpMode: 'generic' } },
  { name: 'i40e-xsk-zc-l2fwd', prog: 'xdpsock', driver: { nic: 'i40e', model: 'seed2019-gold6140-i40e-25g', xsk: 'zc' }, traffic: { ratePps: 20e6 } },
  { name: 'i40e-xsk-zc-rxdrop', prog: 'xdpsock', driver: { nic: 'i40e', model: 'seed2019-gold6140-i40e-25g', xsk: 'zc', xskApp: 'rxdrop' } },
  { name: 'i40e-xsk-copy-txonly', prog: 'xdpsock', driver: { nic: 'i40e', model: 'seed2019-gold6140-i40e-25g', xsk: 'copy', xskApp: 'txonly' } },
  { name: 'i40e-xsk-copy-l2fwd', prog: 'xdpsock', driver: { nic: 'i40e', model: 'seed2019-gold6140-i40e-25g', xsk: 'copy' } },
  { name: 'i40e-xsk-skb-l2fwd', prog: 'xdpsock', driver: { nic: 'i40e', model: 'seed2019-gold6140-i40e-25g', xsk: 'skb', xdpMode: 'generic' } },
];

describe('golden: app-like machines (the engine snapshot)', () => {
  it.each(MACHINES.map((m) => m.name))('%s', (name) => {
    const m = MACHINES.find((x) => x.name === name)!;
    const settings: SimSettings = { traffic: { ...DEFAULT_SETTINGS.traffic, ...m.traffic }, driver: { ...DEFAULT_SETTINGS.driver, ...m.driver } };
    const d = new DriverSim(loadProgram);
    d.reset(settings, { program: program(m.prog) }, null);
    const frames: unknown[] = [];
    // Step the way the app does: single events, then packets, then NAPI polls, then a long run.
    d.advance('event', 37);
    d.advance('packet', 5);
    // (A NAPI step waits for every CPU to leave its poll; the AF_XDP application's CPU busy-polls forever.)
    if (!m.driver.xsk) d.advance('napi', 3);
    frames.push(d.snapshot());
    d.advance('packet', 6_000);
    const s = d.snapshot();
    const trace = d['sim'].traceHash.toString(16);
    const views = { rings: fnv(json(s.rings)), redirect: s.redirect && { ...s.redirect, txRing: s.redirect.txRing && fnv(json(s.redirect.txRing)) }, xsk: s.xsk && { ...s.xsk, umem: fnv(json(s.xsk.umem)), rings: fnv(json(s.xsk.rings)) }, pageMap: fnv(json(s.pageMap)) };
    golden(`machine-${name}.json`, {
      trace_hash: trace,
      attached: s.attached,
      settings: s.settings,
      events: s.events,
      packets: s.packets,
      nowNs: s.nowNs,
      actions: s.actions,
      counters: s.counters,
      profile: s.profile,
      gauges: s.gauges,
      series: fnv(json(s.series)),
      recent: s.recent,
      views,
      early: fnv(json(frames)),
      maps: d.maps(),
    });
  });
});
