/**
 * Benchmark section 'sim': simulated packets per second of wall time for
 * xdp1 on the seed 2016 setup (one core, 20.2 Mpps offered, page cache on),
 * with tracing off and on, measured side by side in one run.
 */
import type { CliIO } from '../io';
import { findScenario, Simulation } from '../../sim';
import { scenarioPrograms } from '../sim_programs';

export async function bench(io: CliIO, opts: { quick: boolean }): Promise<void> {
  const s = findScenario('seed000-xdp1-drop')!;
  const programs = await scenarioPrograms();
  const packets = opts.quick ? 300_000 : 2_000_000;
  const measure = (trace: boolean, keep: boolean) => {
    const prog = programs('xdp1');
    const sim = new Simulation({ ...s.config(), trace, keepTrace: keep }, prog);
    sim.run({ packets: 20_000 }); // warm up the JIT and the rings
    const t0 = performance.now();
    sim.run({ packets });
    const ms = performance.now() - t0;
    return { pps: (packets / ms) * 1000, events: sim.machine.trace.count, engine: prog.engine };
  };
  // Interleave the runs so machine noise hits both alike; keep the best of each.
  const off: number[] = [];
  const on: number[] = [];
  const onKept: number[] = [];
  let engine = '';
  for (let i = 0; i < (opts.quick ? 1 : 3); i++) {
    const a = measure(false, false);
    engine = a.engine;
    off.push(a.pps);
    on.push(measure(true, false).pps);
    onKept.push(measure(true, true).pps);
  }
  const best = (v: number[]) => Math.max(...v);
  io.out(`  xdp1 drop, seed000-xdp1-drop setup (program engine: ${engine}), ${packets.toLocaleString('en-US')} packets a run\n`);
  io.out(`  tracing off:              ${(best(off) / 1e6).toFixed(2)} M simulated packets/s   (target >= 2.00)\n`);
  io.out(`  tracing on (hash only):   ${(best(on) / 1e6).toFixed(2)} M simulated packets/s   (${(best(on) / best(off)).toFixed(2)} x off)\n`);
  io.out(`  tracing on (records kept): ${(best(onKept) / 1e6).toFixed(2)} M simulated packets/s   (${(best(onKept) / best(off)).toFixed(2)} x off)\n`);
}
