/**
 * Benchmark section 'sim': simulated packets per second of wall time for
 * xdp1 on the seed 2016 setup (one core, 20.2 Mpps offered, page cache on),
 * tracing off and on, measured side by side in one run, for both program
 * engines: the compiled example in the VM (the real thing; its speed is the
 * interpreter's) and the simulator's native reference (the driver model
 * alone, which is what the >= 2 M/s target is about). Then every named
 * scenario, tracing off: simulated packets per wall second with the VM
 * programs next to the same setup with the native stand-ins (the anchor),
 * and the same per second of the process's CPU time (steadier when the
 * machine is shared); each measured for at least 0.3 s of CPU (time-based,
 * best of 3), then a target block: the issue-16 scenarios against their
 * targets (mlx4 xdp1 drop >= 10 M/s; XDP_TX, devmap, cpumap, AF_XDP >= 5 M/s),
 * per CPU second and per wall second, 'met' or 'not met'. A packet counts
 * when the driver is done with it (the strict reading); next to it, the
 * frames the wire offered per CPU second, which is more where the NIC drops
 * some for want of a buffer (XDP_TX, devmap, AF_XDP run past their CPU).
 * Last, memory: the heap after a full collection at 1e5 simulated packets
 * and again at 1e7 (1e6 with --quick), which stays flat when nothing on
 * the per-packet path is kept.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { CliIO } from '../io';
import type { BenchOpts } from './types';
import { findScenario, nativePrograms, SCENARIOS, Simulation, type ProgramResolver, type Scenario } from '../../sim';
import { examplePrograms } from '../../engine/programs';

export async function bench(io: CliIO, opts: BenchOpts): Promise<void> {
  const s = findScenario('seed000-xdp1-drop')!;
  const packets = opts.quick ? 200_000 : 1_000_000;
  const measure = (programs: ProgramResolver, trace: boolean, keep: boolean, n: number) => {
    const sim = new Simulation({ ...s.config(), trace, keepTrace: keep }, programs('xdp1'));
    sim.run({ packets: 20_000 }); // warm up the JIT, the rings and the page cache
    const t0 = performance.now();
    sim.run({ packets: n });
    return (n / (performance.now() - t0)) * 1000;
  };
  const rows: [string, ProgramResolver, boolean, boolean, number][] = [
    ['native xdp1, tracing off', nativePrograms, false, false, packets],
    ['native xdp1, tracing on (hashed)', nativePrograms, true, false, packets],
    ['native xdp1, tracing on (records)', nativePrograms, true, true, packets],
    ['VM xdp1 (bytecode), tracing off', examplePrograms, false, false, packets / 5],
    ['VM xdp1 (bytecode), tracing on (records)', examplePrograms, true, true, packets / 5],
  ];
  // Interleave rounds so machine noise hits every row alike; keep each row's best.
  const best = rows.map(() => 0);
  for (let round = 0; round < (opts.quick ? 1 : 3); round++) rows.forEach((r, i) => (best[i] = Math.max(best[i]!, measure(r[1], r[2], r[3], r[4]))));
  io.out(`  xdp1 drop on the seed000-xdp1-drop setup; simulated packets per second of wall time (best of ${opts.quick ? 1 : 3})\n`);
  rows.forEach((r, i) => {
    opts.figure(`seed000-xdp1-drop.${r[0]}.pps`, best[i]!);
    const ratio = i === 0 ? '(target >= 2.00 M/s)' : `(${(best[i]! / best[0]!).toFixed(2)} x native, tracing off)`;
    io.out(`  ${r[0].padEnd(42)} ${(best[i]! / 1e6).toFixed(2).padStart(6)} M/s   ${ratio}\n`);
  });
  scenarios(io, opts);
  memory(io, opts);
}

/** A full collection: `gc` exposed on demand (the flag only takes effect in a fresh context). */
function collect(): void {
  setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
}

/** Heap in use after a full collection, typed-array stores included, in MB. */
function heapMb(): number {
  collect();
  const u = process.memoryUsage();
  return (u.heapUsed + u.arrayBuffers) / 2 ** 20;
}

function memory(io: CliIO, opts: BenchOpts): void {
  const quick = opts.quick;
  const s = findScenario('seed000-xdp1-drop')!;
  const far = quick ? 1e6 : 1e7;
  const sim = new Simulation({ ...s.config(), trace: false, keepTrace: false }, examplePrograms('xdp1'));
  sim.run({ packets: 1e5 });
  const at1e5 = heapMb();
  sim.run({ packets: far - 1e5 });
  const atFar = heapMb();
  opts.figure('memory.heap_mb_at_1e5', at1e5);
  opts.figure(`memory.heap_mb_at_${far === 1e7 ? '1e7' : '1e6'}`, atFar);
  io.out(`  memory, VM xdp1 tracing off: heap after GC ${at1e5.toFixed(1)} MB at 1e5 packets, ${atFar.toFixed(1)} MB at ${far === 1e7 ? '1e7' : '1e6'} (${(atFar - at1e5 >= 0 ? '+' : '') + (atFar - at1e5).toFixed(2)} MB)\n`);
}

/** Packets per wall second and per second of this process's CPU time, of one scenario's setup, tracing off (its own programs from `programs`).
 * Time-based: after the warm-up it runs 20,000-packet slices until at least `cpuS` seconds of CPU have gone by
 * (a fixed 20k-packet window was too short for steady state: JIT tier-up, ring and page-cache churn, GC),
 * and keeps the best of `rounds` such windows on the same warmed simulation. */
function scenarioRate(s: Scenario, programs: ProgramResolver, cpuS: number, rounds: number): { wall: number; cpu: number; offeredCpu: number } {
  const cfg = s.config();
  const devmapProgram = cfg.devmapProg ? programs('xdp_redirect_map_egress') : undefined;
  const vethPeerProgram = cfg.redirectTarget === 'devmap-veth' && (cfg.redirectTargetXdp ?? true) ? programs('xdp_drop') : undefined;
  const sim = new Simulation({ ...cfg, devmapProgram, vethPeerProgram, trace: false, keepTrace: false }, s.program ? programs(s.program) : null);
  sim.run({ packets: Math.min(s.warmup, 20_000) });
  let wall = 0;
  let cpu = 0;
  let offeredCpu = 0;
  for (let round = 0; round < rounds; round++) {
    const done0 = sim.nic.packetsDone;
    const offered0 = sim.offered;
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    let used = 0;
    do {
      sim.run({ packets: 20_000 });
      const c = process.cpuUsage(c0);
      used = (c.user + c.system) / 1e6;
    } while (used < cpuS);
    const wallMs = performance.now() - t0;
    const done = sim.nic.packetsDone - done0;
    wall = Math.max(wall, (done / wallMs) * 1000);
    cpu = Math.max(cpu, done / used);
    offeredCpu = Math.max(offeredCpu, (sim.offered - offered0) / used);
  }
  return { wall, cpu, offeredCpu };
}

/** The issue-16 targets: simulated packets per second with the VM running the programs, tracing off. */
const TARGETS: { label: string; scenario: string; target: number }[] = [
  { label: 'mlx4 xdp1 drop', scenario: 'seed000-xdp1-drop', target: 10e6 },
  { label: 'XDP_TX (mlx4 xdp2)', scenario: 'seed000-xdp2-tx', target: 5e6 },
  { label: 'devmap redirect (i40e -> i40e)', scenario: 'seed002-i40e-i40e-native', target: 5e6 },
  { label: 'cpumap redirect (vmxnet3 64 B)', scenario: 'seed004-64-redirect-native', target: 5e6 },
  { label: 'AF_XDP l2fwd zero-copy', scenario: 'seed001-l2fwd-zc', target: 5e6 },
];

function scenarios(io: CliIO, opts: BenchOpts): void {
  const quick = opts.quick;
  const cpuS = quick ? 0.05 : 0.3;
  const rounds = quick ? 1 : 3;
  io.out(`  every named scenario, tracing off: simulated packets per wall second, each measured for >= ${cpuS} s of CPU after warm-up, best of ${rounds};\n`);
  io.out(`  'cpu': per second of this process's CPU time, steadier than wall time on a shared machine\n`);
  io.out(`  ${'scenario'.padEnd(42)} ${'VM'.padStart(8)} ${'native'.padStart(8)}   VM / native   ${'VM cpu'.padStart(8)} ${'nat cpu'.padStart(8)}   VM / native (cpu)\n`);
  const vmRates = new Map<string, { wall: number; cpu: number; offeredCpu: number }>();
  for (const s of SCENARIOS) {
    const vm = scenarioRate(s, examplePrograms, cpuS, rounds);
    const native = scenarioRate(s, nativePrograms, cpuS, rounds);
    vmRates.set(s.name, vm);
    opts.figure(`${s.name}.vm_pps_wall`, vm.wall);
    opts.figure(`${s.name}.vm_pps_cpu`, vm.cpu);
    opts.figure(`${s.name}.native_pps_wall`, native.wall);
    opts.figure(`${s.name}.native_pps_cpu`, native.cpu);
    const m = (v: number) => `${(v / 1e6).toFixed(2).padStart(6)} M`;
    io.out(`  ${s.name.padEnd(42)} ${m(vm.wall)} ${m(native.wall)}   ${(vm.wall / native.wall).toFixed(2).padStart(11)}   ${m(vm.cpu)} ${m(native.cpu)}   ${(vm.cpu / native.cpu).toFixed(2)}\n`);
  }
  io.out(`  targets (issue 16), VM programs, tracing off: packets the driver finished per CPU second and per wall second (the verdict);\n`);
  io.out(`  'wire': frames the NIC was offered per CPU second, those it dropped for want of a buffer (rx_missed) included\n`);
  for (const t of TARGETS) {
    const r = vmRates.get(t.scenario);
    if (!r) {
      io.out(`  ${t.label.padEnd(32)} scenario ${t.scenario} missing\n`);
      continue;
    }
    const verdict = (v: number) => (v >= t.target ? 'met' : 'not met');
    opts.figure(`target.${t.scenario}.pps_cpu`, r.cpu);
    opts.figure(`target.${t.scenario}.offered_pps_cpu`, r.offeredCpu);
    opts.figure(`target.${t.scenario}.target`, t.target);
    opts.figure(`target.${t.scenario}.met`, r.cpu >= t.target);
    const m = (v: number) => `${(v / 1e6).toFixed(2).padStart(6)} M`;
    io.out(`  ${t.label.padEnd(32)} ${t.scenario.padEnd(28)} >= ${(t.target / 1e6).toFixed(0).padStart(2)} M:  cpu ${m(r.cpu)} ${verdict(r.cpu).padEnd(7)}  wall ${m(r.wall)} ${verdict(r.wall).padEnd(7)}  wire ${m(r.offeredCpu)}\n`);
  }
}
