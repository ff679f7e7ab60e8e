/**
 * Benchmark section 'seeds': every figure the seeds publish (each
 * scenario's rate, each symbol of each published perf profile) next to
 * the model's, with the tolerance of issue 16 and pass/FAIL. The same
 * comparison tests/sim/published.test.ts asserts. --quick measures fewer
 * packets (the figures move a little; the test uses the full windows).
 */
import type { CliIO } from '../io';
import type { BenchOpts } from './types';
import { runScenario, SCENARIOS } from '../../sim';
import { compareToPublished, formatFigure, seedWindow } from '../../sim/published';
import { examplePrograms } from '../../engine/programs';

export async function bench(io: CliIO, opts: BenchOpts): Promise<void> {
  let failed = 0;
  let total = 0;
  for (const s of SCENARIOS) {
    const packets = seedWindow(s);
    const r = runScenario(s, { programs: examplePrograms, packets: opts.quick ? Math.min(packets, 40_000) : packets });
    for (const f of compareToPublished(s, r)) {
      total++;
      if (!f.ok) failed++;
      const key = `${s.name}.${f.source === f.figure ? f.figure : `${f.source}.${f.figure}`}`;
      opts.figure(`${key}.published`, f.published);
      opts.figure(`${key}.model`, f.model);
      opts.figure(`${key}.ok`, f.ok);
      io.out(`  ${formatFigure(f)}\n`);
    }
  }
  opts.figure('within_tolerance', total - failed);
  opts.figure('total', total);
  io.out(`  ${total - failed} of ${total} published figures within tolerance${failed ? `; ${failed} outside` : ''}\n`);
}
