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
 * per CPU second and per wall second, 'met' or 'not met', each scenario
 * measured in fresh processes from the bundle (sim_child.ts: what one
 * simulation in the app's worker runs), the best of three, with the figure
 * from the bench's own process beside it. A packet counts
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
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { findScenario, nativePrograms, SCENARIOS, Simulation, type ProgramResolver } from '../../sim';
import { examplePrograms } from '../../engine/programs';
import { bundleChild, runChild } from './child';
import { scenarioRate, type ScenarioRate } from './sim_rate';

const here = path.dirname(fileURLToPath(import.meta.url));

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
  const vmRates = scenarios(io, opts);
  await targets(io, opts, vmRates);
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

/** The issue-16 targets: simulated packets per second with the VM running the programs, tracing off. */
const TARGETS: { label: string; scenario: string; target: number }[] = [
  { label: 'mlx4 xdp1 drop', scenario: 'seed000-xdp1-drop', target: 10e6 },
  { label: 'XDP_TX (mlx4 xdp2)', scenario: 'seed000-xdp2-tx', target: 5e6 },
  { label: 'devmap redirect (i40e -> i40e)', scenario: 'seed002-i40e-i40e-native', target: 5e6 },
  { label: 'cpumap redirect (vmxnet3 64 B)', scenario: 'seed004-64-redirect-native', target: 5e6 },
  { label: 'AF_XDP l2fwd zero-copy', scenario: 'seed001-l2fwd-zc', target: 5e6 },
];

function scenarios(io: CliIO, opts: BenchOpts): Map<string, ScenarioRate> {
  const quick = opts.quick;
  const cpuS = quick ? 0.05 : 0.3;
  const rounds = quick ? 1 : 3;
  io.out(`  every named scenario, tracing off: simulated packets per wall second, each measured for >= ${cpuS} s of CPU after warm-up, best of ${rounds};\n`);
  io.out(`  'cpu': per second of this process's CPU time, steadier than wall time on a shared machine\n`);
  io.out(`  ${'scenario'.padEnd(42)} ${'VM'.padStart(8)} ${'native'.padStart(8)}   VM / native   ${'VM cpu'.padStart(8)} ${'nat cpu'.padStart(8)}   VM / native (cpu)\n`);
  const vmRates = new Map<string, ScenarioRate>();
  for (const s of SCENARIOS) {
    const vm = scenarioRate(s, examplePrograms, cpuS, rounds);
    const native = scenarioRate(s, nativePrograms, cpuS, rounds);
    vmRates.set(s.name, vm);
    opts.figure(`${s.name}.vm_pps_wall`, vm.wall);
    opts.figure(`${s.name}.vm_pps_cpu`, vm.cpu);
    opts.figure(`${s.name}.native_pps_wall`, native.wall);
    opts.figure(`${s.name}.native_pps_cpu`, native.cpu);
    io.out(`  ${s.name.padEnd(42)} ${mpps(vm.wall)} ${mpps(native.wall)}   ${(vm.wall / native.wall).toFixed(2).padStart(11)}   ${mpps(vm.cpu)} ${mpps(native.cpu)}   ${(vm.cpu / native.cpu).toFixed(2)}\n`);
  }
  return vmRates;
}

const mpps = (v: number): string => `${(v / 1e6).toFixed(2).padStart(6)} M`;

/**
 * The issue-16 targets. Each is measured in fresh processes (sim_child.ts,
 * the best of several: a process's JIT state and the machine's noise vary
 * between processes), as the app's worker runs one simulation from the
 * bundle; the figure from this process, after every other scenario ran
 * through the same driver code, is printed beside it (its call sites have
 * seen every driver: slower, and not what a user runs).
 */
async function targets(io: CliIO, opts: BenchOpts, inProcess: Map<string, ScenarioRate>): Promise<void> {
  const quick = opts.quick;
  const procs = quick ? 1 : 3;
  const cpuS = quick ? 0.05 : 0.3;
  const rounds = quick ? 1 : 3;
  const tmp = mkdtempSync(path.join(tmpdir(), 'xdp-lab-bench-sim-'));
  try {
    const child = await bundleChild(path.join(here, 'sim_child.ts'), tmp);
    io.out(`  targets (issue 16), VM programs, tracing off: packets the driver finished per CPU second (the verdict) and per wall second,\n`);
    io.out(`  each scenario in ${procs} fresh process${procs > 1 ? 'es' : ''} (${child.bundled ? 'the bundle, as the app runs it' : 'through tsx: esbuild missing'}), the best; 'in-bench': this process, after every scenario;\n`);
    io.out(`  'wire': frames the NIC was offered per CPU second, those it dropped for want of a buffer (rx_missed) included\n`);
    for (const t of TARGETS) {
      let best: ScenarioRate | undefined;
      let failure = '';
      for (let i = 0; i < procs; i++) {
        const r = runChild<ScenarioRate>(child, [t.scenario, String(cpuS), String(rounds)]);
        if (typeof r === 'string') failure = r;
        else best = best ? { wall: Math.max(best.wall, r.wall), cpu: Math.max(best.cpu, r.cpu), offeredCpu: Math.max(best.offeredCpu, r.offeredCpu) } : r;
      }
      if (!best) {
        io.out(`  ${t.label.padEnd(32)} ${t.scenario}: ${failure}\n`);
        opts.figure(`target.${t.scenario}.met`, false);
        continue;
      }
      const inBench = inProcess.get(t.scenario);
      const verdict = (v: number) => (v >= t.target ? 'met' : 'not met');
      opts.figure(`target.${t.scenario}.pps_cpu`, best.cpu);
      opts.figure(`target.${t.scenario}.pps_wall`, best.wall);
      opts.figure(`target.${t.scenario}.offered_pps_cpu`, best.offeredCpu);
      opts.figure(`target.${t.scenario}.in_bench_pps_cpu`, inBench?.cpu ?? null);
      opts.figure(`target.${t.scenario}.target`, t.target);
      opts.figure(`target.${t.scenario}.met`, best.cpu >= t.target);
      io.out(`  ${t.label.padEnd(32)} ${t.scenario.padEnd(28)} >= ${(t.target / 1e6).toFixed(0).padStart(2)} M:  cpu ${mpps(best.cpu)} ${verdict(best.cpu).padEnd(7)}  wall ${mpps(best.wall)} ${verdict(best.wall).padEnd(7)}  wire ${mpps(best.offeredCpu)}  in-bench ${inBench ? mpps(inBench.cpu) : '     -'}\n`);
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}
