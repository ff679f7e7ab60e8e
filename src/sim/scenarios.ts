/**
 * The seeds' setups by name: hardware profile, traffic, program and driver
 * configuration, plus the number the seed published, so the CLI
 * (`xdp-lab sim --scenario NAME`), the tests and the UI run the same thing
 * and print the model next to the paper. Later seeds (AF_XDP, devmap
 * redirect, vmxnet3) add entries here with their own drivers and metrics.
 */
import { pktgenSample03 } from '../net/profiles';
import type { TrafficSpec } from '../net/traffic';
import type { SimConfig } from './config';
import type { ProfileEntry } from './cost';
import { SEED2016_E5, SEED2016_I7, SEED2019_GOLD6140_I40E, SEED2021_I40E, SEED2023_VMXNET3 } from './hw';
import type { RingCounters } from './nic/rx_ring';
import { nativeConst, nativeXdp1, nativeXdp2, XDP_DROP, XDP_PASS, XDP_REDIRECT, XDP_TX, type XdpHook } from './program';
import { Simulation, type SimRates } from './simulation';
import { SEED000_I7_BASELINE, SEED000_I7_XDP_PASS, SEED000_PATCH06, SEED000_PATCH07_AFTER, SEED000_PATCH07_BEFORE, type PublishedProfile } from './published';

/** The programs scenarios use, by the sample's name (src/examples once compiled; see ProgramResolver). */
export type ScenarioProgram =
  | 'xdp1'
  | 'xdp2'
  | 'xdp_pass'
  | 'xdp_rxq_info_drop'
  | 'xdp_rxq_info_pass'
  | 'xdp_rxq_info_tx'
  | 'xdp_redirect_cpu'
  | 'xdp_redirect_map'
  | 'xdpsock'
  // Not a scenario's ingress program: seed 002's devmap-entry program and its veth peer's program.
  | 'xdp_redirect_map_egress'
  | 'xdp_drop'
  | null;

/** Which rate is "the" rate of a scenario. */
export type ScenarioMetric = keyof Pick<SimRates, 'xdp_drop_pps' | 'tx_pps' | 'stack_pps' | 'processed_pps' | 'redirect_pps'>;

export interface Scenario {
  name: string;
  seed: string;
  title: string;
  program: ScenarioProgram;
  metric: ScenarioMetric;
  /** What the seed reports for this setup. */
  published: { rate_pps?: number; idle_percent?: number; profiles?: readonly PublishedProfile[]; source: string };
  config(): SimConfig;
  /** Packets run before measuring (rings and caches reach steady state) and measured. */
  warmup: number;
  measure: number;
}

export interface ScenarioResult {
  scenario: string;
  title: string;
  hw: string;
  program: string | null;
  program_engine: 'vm' | 'native' | null;
  /** The other programs the setup runs: the devmap entry's (seed 002 "2nd xdp_prog") and the veth peer's. */
  other_programs: { role: 'devmap entry' | 'veth peer'; name: string; engine: 'vm' | 'native' }[];
  rate_pps: number;
  idle_percent: number;
  profile: { symbol: string; percent: number }[];
  counters: RingCounters & { offered: number };
  rates: SimRates;
  published: Scenario['published'];
  warnings: string[];
  trace_hash: number;
}

/**
 * seed 000: "./pktgen_sample03_burst_single_flow.sh -t 4": four pktgen
 * threads, one UDP flow, 64-byte frames (60 without FCS), bursts of 32.
 * Each thread sends as fast as its CPU allows, so the threads' rates differ
 * a little (patch 06 prints them: 5,056,638 / 5,133,311 / 5,077,431 /
 * 5,043,067 pps, 20.31 Mpps in all) and their bursts drift past each other
 * instead of arriving in lockstep. Nor does one thread send like a clock:
 * between its bursts the sending CPU takes its own tx-completion interrupts
 * and timer ticks, and the sending NIC arbitrates between the threads' tx
 * rings, so the pause before each burst varies (src/net/profiles.ts,
 * PKTGEN_JITTER). That is what
 * makes the receiver's idle gaps vary in length, and the idle governor's
 * choice with them (src/sim/hw.ts, pollIdleNs).
 */
export const SEED000_PKTGEN_THREAD_PPS = [5_056_638, 5_133_311, 5_077_431, 5_043_067] as const;
const seed000Traffic = (): TrafficSpec => ({ linkGbps: 40, sources: pktgenSample03(SEED000_PKTGEN_THREAD_PPS) });

const E5 = SEED2016_E5.name;
const I7 = SEED2016_I7.name;
/*
 * mlx4 runs with adaptive rx moderation on (the driver's default): when the
 * average frame is 256 B or less (MLX4_EN_AVG_PKT_SMALL) it sets the
 * moderation time to MLX4_EN_RX_COAL_TIME_LOW, 0 us, so a completion on an
 * armed CQ raises the event at once. With 60-byte frames every seed 000
 * run is in that state: a CPU that keeps up (xdp1 with the page cache)
 * takes an interrupt every few dozen packets (mlx4_eq_int, tasklet_action
 * and the cpuidle exit in patch 07's "After" profile). The hardware
 * profile keeps the static ethtool values (16 us) for other uses.
 */
const RINGS = { rxRingSize: 1024, txRingSize: 512, memoryPages: 8192, rxCoalUsecs: 0 } as const;

export const SCENARIOS: Scenario[] = [
  {
    name: 'seed000-xdp1-drop',
    seed: '000',
    title: 'xdp1 drop + per-protocol count, page cache on (E5-1630 v3, ConnectX-3 40G, one core)',
    program: 'xdp1',
    metric: 'xdp_drop_pps',
    published: { rate_pps: 20.2e6, idle_percent: 40, profiles: [SEED000_PATCH07_AFTER], source: 'seed 000 patch 07: after the page cache the allocator leaves the profile, ~40% idle (intel_idle 31.7% + poll_idle 7.5%)' },
    config: () => ({ hw: E5, ...RINGS, pageCache: true, xdpRxMode: 'order0', traffic: seed000Traffic() }),
    warmup: 50_000,
    measure: 400_000,
  },
  {
    name: 'seed000-xdp1-drop-nocache',
    seed: '000',
    title: 'xdp1 before the page cache: order-3 fragments, every frag freed and reallocated',
    program: 'xdp1',
    metric: 'xdp_drop_pps',
    published: {
      rate_pps: 20.4e6,
      profiles: [SEED000_PATCH06, SEED000_PATCH07_BEFORE],
      source: 'seed 000 patch 06 (~20 Mpps, 20403027 drops/s) and patch 07 "Before" perf report',
    },
    config: () => ({ hw: E5, ...RINGS, pageCache: false, xdpRxMode: 'frags', traffic: seed000Traffic() }),
    warmup: 50_000,
    measure: 400_000,
  },
  {
    name: 'seed000-xdp2-tx',
    seed: '000',
    title: 'xdp2: swap MACs, XDP_TX for UDP, on the dedicated XDP tx ring',
    program: 'xdp2',
    metric: 'tx_pps',
    published: { rate_pps: 10e6, source: 'seed 000 patch 12: single core forwarding ~10 Mpps' },
    config: () => ({ hw: E5, ...RINGS, pageCache: true, xdpRxMode: 'order0', traffic: seed000Traffic() }),
    warmup: 50_000,
    measure: 400_000,
  },
  {
    name: 'seed000-order3-baseline',
    seed: '000',
    title: 'no XDP: order-3 fragments, iptables raw DROP (i7-4790K, CX3-pro)',
    program: null,
    metric: 'stack_pps',
    published: { rate_pps: 4_453_022, profiles: [SEED000_I7_BASELINE], source: 'seed 000, order-0 vs order-N thread: baseline 4,453,022 pps' },
    config: () => ({ hw: I7, ...RINGS, stack: { kind: 'iptables-raw-drop' }, traffic: seed000Traffic() }),
    warmup: 30_000,
    measure: 150_000,
  },
  {
    name: 'seed000-xdp-pass-order0',
    seed: '000',
    title: 'XDP_PASS program: one order-0 page per packet, iptables raw DROP (i7-4790K, CX3-pro)',
    program: 'xdp_pass',
    metric: 'stack_pps',
    published: { rate_pps: 3_295_798, profiles: [SEED000_I7_XDP_PASS], source: 'seed 000, order-0 vs order-N thread: XDP_PASS 3,295,798 pps (-26%)' },
    config: () => ({ hw: I7, ...RINGS, pageCache: true, xdpRxMode: 'order0', stack: { kind: 'iptables-raw-drop' }, traffic: seed000Traffic() }),
    warmup: 30_000,
    measure: 150_000,
  },
];

/*
 * seed 004: testpmd txonly from the other VM, 64 or 512 B UDP, several
 * flows; offered above what the backend delivers. The backend is the link:
 * a fixed per-frame cost plus 10 Gbit/s per byte ([fit], see hw.ts).
 */
const VMX_BACKEND_NS = 370;
const seed004Traffic = (size: number): TrafficSpec => ({
  linkGbps: 10,
  perFrameNs: VMX_BACKEND_NS,
  sources: [{ ratePps: 4e6, frameLen: size - 4, l4: 'udp', sportCount: 16 }],
});
const SEED004: Record<string, Record<string, [number, number]>> = {
  // size -> action -> [skb-mode, native] pps, as published
  '64': { drop: [1.6e6, 2.4e6], pass: [338e3, 367e3], tx: [1.1e6, 2.3e6], redirect: [1.3e6, 2.3e6] },
  '512': { drop: [863e3, 1.3e6], pass: [275e3, 376e3], tx: [554e3, 1.2e6], redirect: [659e3, 1.2e6] },
};
const SEED004_PROGRAM = { drop: 'xdp_rxq_info_drop', pass: 'xdp_rxq_info_pass', tx: 'xdp_rxq_info_tx', redirect: 'xdp_redirect_cpu' } as const;
const SEED004_METRIC = { drop: 'xdp_drop_pps', pass: 'stack_pps', tx: 'tx_pps', redirect: 'processed_pps' } as const;
for (const size of ['64', '512']) {
  for (const action of ['drop', 'pass', 'tx', 'redirect'] as const) {
    for (const [mi, mode] of (['skb', 'native'] as const).entries()) {
      SCENARIOS.push({
        name: `seed004-${size}-${action}-${mode}`,
        seed: '004',
        title: `vmxnet3, ${size} B UDP, ${action === 'redirect' ? 'XDP_REDIRECT to a cpumap whose CPU drops' : `XDP_${action.toUpperCase()}`}, ${mode === 'skb' ? 'generic (skb) mode' : 'native mode'}`,
        program: SEED004_PROGRAM[action],
        metric: SEED004_METRIC[action],
        published: { rate_pps: SEED004[size]![action]![mi]!, source: `seed 004 performance table (${size}B, ${mode === 'skb' ? 'skb-mode' : 'native-mode'})` },
        config: () => ({
          driver: 'vmxnet3',
          hw: SEED2023_VMXNET3.name,
          xdpMode: mode === 'skb' ? 'generic' : 'native',
          redirectTarget: 'cpumap-drop',
          rxRingSize: 1024,
          txRingSize: 512,
          memoryPages: 8192,
          traffic: seed004Traffic(Number(size)),
        }),
        warmup: 20_000,
        measure: 100_000,
      });
    }
  }
}

/*
 * seed 002: "./pktgen_sample03_burst_single_flow.sh -i eno1 -t 10 -s 64":
 * ten pktgen threads, one flow, 64 B frames, at 10G line rate (14.88 Mpps);
 * xdp_redirect_map from the i40e port into a devmap whose entry is a second
 * i40e port or a veth (its peer runs XDP_DROP). Generic = xdp_redirect_map
 * -S; native; native with a program on the devmap entry. Before the patch
 * (5.12-rc4) that program runs at enqueue, after it at flush.
 */
const SEED002: Record<string, Record<string, [number, number, number]>> = {
  // [patched?] -> target -> [generic, native, native + 2nd prog] pps, as published
  before: { i40e: [1.9e6, 9.6e6, 8.4e6], veth: [1.7e6, 11.7e6, 9.8e6] },
  flush: { i40e: [1.9e6, 9.8e6, 8.0e6], veth: [1.7e6, 12.0e6, 9.4e6] },
};
for (const patch of ['before', 'flush'] as const) {
  for (const target of ['i40e', 'veth'] as const) {
    for (const [mi, mode] of (['generic', 'native', 'native-devprog'] as const).entries()) {
      SCENARIOS.push({
        name: `seed002-${patch === 'flush' ? 'flush-' : ''}i40e-${target}-${mode}`,
        seed: '002',
        title: `xdp_redirect_map i40e -> ${target === 'veth' ? 'veth (XDP_DROP on the peer)' : 'i40e'}, ${mode === 'generic' ? 'generic (skb) mode' : mode === 'native' ? 'native' : 'native + a program on the devmap entry'}, ${patch === 'flush' ? 'devmap prog run at flush (the patch)' : '5.12-rc4 (devmap prog run at enqueue)'}`,
        program: 'xdp_redirect_map',
        metric: 'processed_pps',
        published: {
          rate_pps: SEED002[patch]![target]![mi]!,
          source: `seed 002 table: ${patch === 'flush' ? '5.12 rc4 + patch' : '5.12 rc4'}, xdp_redirect_map i40e->${target}, ${['Generic', 'Native', 'Native + 2nd xdp_prog'][mi]}`,
        },
        config: () => ({
          driver: 'i40e',
          hw: SEED2021_I40E.name,
          xdpMode: mode === 'generic' ? 'generic' : 'native',
          redirectTarget: target === 'veth' ? 'devmap-veth' : 'devmap-i40e',
          devmapProg: mode === 'native-devprog',
          devmapFlushPatch: patch === 'flush',
          rxRingSize: 512,
          txRingSize: 512,
          memoryPages: 8192,
          traffic: { linkGbps: 10, sources: pktgenSample03(Array.from({ length: 10 }, () => 14.88e6 / 10)) },
        }),
        warmup: 30_000,
        measure: 150_000,
      });
    }
  }
}

/*
 * seed 001: xdpsock -i IF -q 0 -l (l2fwd) in SKB (-S), zero-copy (-z, with
 * and without -u for unaligned chunks) and copy (-c) mode; 2048 B chunks;
 * 64 B frames offered at 25G line rate (37.2 Mpps).
 */
const SEED001 = [
  ['skb', 'skb', false, 1.7e6, 'SKB mode'],
  ['zc', 'zc', false, 15.3e6, 'Zero-copy, aligned (baseline)'],
  ['zc-unaligned', 'zc', true, 14.5e6, 'Zero-copy, unaligned'],
  ['copy', 'copy', false, 2.08e6, 'Copy'],
] as const;
for (const [suffix, mode, unaligned, pps, column] of SEED001) {
  SCENARIOS.push({
    name: `seed001-l2fwd-${suffix}`,
    seed: '001',
    title: `AF_XDP xdpsock l2fwd, ${mode === 'zc' ? 'zero-copy' : mode === 'copy' ? 'copy mode' : 'SKB mode'}${unaligned ? ', unaligned chunks' : ''} (i40e 25G, Gold 6140, 2048 B chunks)`,
    program: 'xdpsock',
    metric: 'redirect_pps',
    published: { rate_pps: pps, source: `seed 001 cover letter table (buffer size 2048): ${column}` },
    config: () => ({
      driver: 'i40e',
      hw: SEED2019_GOLD6140_I40E.name,
      xdpMode: mode === 'skb' ? 'generic' : 'native',
      xsk: { mode, app: 'l2fwd', chunkSize: 2048, headroom: 0, unaligned, frames: 4096, ringSize: 2048 },
      rxRingSize: 512,
      txRingSize: 512,
      memoryPages: 1024,
      traffic: { linkGbps: 25, sources: [{ ratePps: 37.2e6, frameLen: 60, l4: 'udp', burst: 32 }] },
    }),
    warmup: 30_000,
    measure: 150_000,
  });
}

/** Turns a scenario's program name into a hook (the CLI supplies compiled examples run in the VM). */
export type ProgramResolver = (name: Exclude<ScenarioProgram, null>) => XdpHook;

/** The simulator's reference programs (used when no resolver is given). */
export const nativePrograms: ProgramResolver = (name) => {
  switch (name) {
    case 'xdp1':
      return nativeXdp1();
    case 'xdp2':
      return nativeXdp2();
    case 'xdp_pass':
      return nativeConst(XDP_PASS, 'xdp_pass');
    case 'xdp_rxq_info_drop':
      return nativeConst(XDP_DROP, 'xdp_rxq_info -a XDP_DROP', 2);
    case 'xdp_rxq_info_pass':
      return nativeConst(XDP_PASS, 'xdp_rxq_info -a XDP_PASS', 2);
    case 'xdp_rxq_info_tx':
      return nativeConst(XDP_TX, 'xdp_rxq_info -a XDP_TX', 2, true);
    case 'xdp_redirect_cpu':
      return nativeConst(XDP_REDIRECT, 'xdp_redirect_cpu -c 0', 1);
    case 'xdpsock':
      // samples/bpf xdpsock_kern.c: bpf_redirect_map(&xsks_map, ctx->rx_queue_index, 0) after a lookup.
      return nativeConst(XDP_REDIRECT, 'xdpsock', 1);
    case 'xdp_redirect_map':
      // samples/bpf xdp_redirect_map: swap MACs, count in a percpu array, bpf_redirect_map(&tx_port, 0, 0).
      return nativeConst(XDP_REDIRECT, 'xdp_redirect_map', 1, true);
    case 'xdp_redirect_map_egress':
      return nativeConst(XDP_PASS, 'xdp_redirect_map_egress', 1);
    case 'xdp_drop':
      return nativeConst(XDP_DROP, 'xdp_drop on the veth peer', 0);
  }
};

export function findScenario(name: string): Scenario | undefined {
  return SCENARIOS.find((s) => s.name === name);
}

export function runScenario(
  s: Scenario,
  opts: { programs?: ProgramResolver; packets?: number; trace?: boolean; seed?: number } = {},
): ScenarioResult {
  const resolve = opts.programs ?? nativePrograms;
  const prog = s.program ? resolve(s.program) : null;
  const cfg = s.config();
  // The devmap entry's program and the veth peer's come from the same resolver as the ingress program.
  const devmapProgram = cfg.devmapProg ? resolve('xdp_redirect_map_egress') : undefined;
  const vethPeerProgram = cfg.redirectTarget === 'devmap-veth' && (cfg.redirectTargetXdp ?? true) ? resolve('xdp_drop') : undefined;
  const other: ScenarioResult['other_programs'] = [];
  if (devmapProgram) other.push({ role: 'devmap entry', name: devmapProgram.name, engine: devmapProgram.engine });
  if (vethPeerProgram) other.push({ role: 'veth peer', name: vethPeerProgram.name, engine: vethPeerProgram.engine });
  // Events are hashed (not kept) by default, so trace_hash identifies the run's event stream.
  const sim = new Simulation({ ...cfg, devmapProgram, vethPeerProgram, trace: opts.trace ?? true, keepTrace: false, seed: opts.seed ?? 1 }, prog);
  sim.run({ packets: s.warmup });
  sim.markWindow();
  sim.run({ packets: opts.packets ?? s.measure });
  const rates = sim.rates();
  const profile: ProfileEntry[] = sim.profile(0);
  return {
    scenario: s.name,
    title: s.title,
    hw: sim.cfg.hw.name,
    program: prog?.name ?? null,
    program_engine: prog?.engine ?? null,
    other_programs: other,
    rate_pps: Math.round(rates[s.metric]),
    idle_percent: Math.round(sim.idlePercent(0) * 100) / 100,
    profile: profile.map((e) => ({ symbol: e.symbol, percent: Math.round(e.percent * 100) / 100 })),
    counters: { ...sim.counters(), offered: sim.offered },
    rates,
    published: s.published,
    warnings: [...sim.nic.warnings],
    trace_hash: sim.traceHash,
  };
}
