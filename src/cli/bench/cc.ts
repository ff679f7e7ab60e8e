/**
 * Benchmark section 'cc': the compiler against clang-19 -O2, side by side.
 *
 *  - code size: our instruction count / clang's for every corpus program
 *    and example (clang's program extracted from its object file the way
 *    libbpf would), the median ratio (target ≤ 1.5) and the worst five;
 *  - speed: the median compile time of the largest corpus program over
 *    repeated runs (target < 20 ms), beside clang's wall time for the same
 *    file (process start included: that is what a user waits for).
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { compile } from '../../cc';
import { EXAMPLES } from '../../examples';
import type { CliIO } from '../io';
import type { BenchOpts } from './types';
import { CLANG, CLANG_FLAGS, clangAvailable, clangCompile } from '../clang';
import { extractProgram } from '../bpf_elf';
import { benchRealworld } from './cc_realworld';

const here = path.dirname(fileURLToPath(import.meta.url));
const CORPUS = path.resolve(here, '../../../tests/corpus');

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

export async function bench(io: CliIO, opts: BenchOpts): Promise<void> {
  const progs = [
    ...readdirSync(CORPUS).filter((f) => f.endsWith('.c')).sort().map((f) => ({ name: f, source: readFileSync(path.join(CORPUS, f), 'utf8') })),
    ...EXAMPLES.map((e) => ({ name: `examples/${e.id}.c`, source: e.source })),
  ];
  if (!clangAvailable()) {
    io.out(`  ${CLANG} not found: the cc section compares against clang and cannot run without it\n`);
    return;
  }
  const rows: { name: string; ours: number; clang: number; ratio: number }[] = [];
  for (const p of progs) {
    const r = compile(p.source, { file: p.name });
    if (!r.spec) {
      io.out(`  ${p.name}: does not compile with xdp-lab (skipped)\n`);
      continue;
    }
    const c = clangCompile(p.source, path.basename(p.name));
    if (!c.obj) {
      io.out(`  ${p.name}: clang failed (skipped)\n`);
      continue;
    }
    const ref = extractProgram(c.obj, (r.spec.maps ?? []).map((m) => m.name!));
    const ours = r.spec.insns.length / 16;
    const theirs = ref.insns.length / 8;
    rows.push({ name: p.name, ours, clang: theirs, ratio: ours / theirs });
  }
  const med = median(rows.map((r) => r.ratio));
  const worstRatio = Math.max(...rows.map((r) => r.ratio));
  const total = rows.reduce((a, r) => a + r.ours, 0) / rows.reduce((a, r) => a + r.clang, 0);
  opts.figure('code_size.median_ratio', med);
  opts.figure('code_size.worst_ratio', worstRatio);
  opts.figure('code_size.programs', rows.length);
  io.out(`  code size: median instructions ours/clang-19 -O2 = ${med.toFixed(2)}x over ${rows.length} programs (target <= 1.50x: ${med <= 1.5 ? 'met' : 'NOT met'}), worst ${worstRatio.toFixed(2)}x; total ${total.toFixed(2)}x\n`);
  io.out('  worst five:\n');
  for (const r of [...rows].sort((a, b) => b.ratio - a.ratio).slice(0, 5)) io.out(`    ${r.name.padEnd(32)} ${String(r.ours).padStart(4)} vs ${String(r.clang).padStart(4)}  ${r.ratio.toFixed(2)}x\n`);
  benchRealworld(io, median);

  // Compile time of the largest corpus program, median over repeated runs, beside clang's.
  const largest = progs.filter((p) => !p.name.startsWith('examples/')).sort((a, b) => b.source.length - a.source.length)[0]!;
  const runs = opts.quick ? 30 : 200;
  for (let i = 0; i < 5; i++) compile(largest.source); // warm the JIT, as the app does after its first compile
  const ours: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    compile(largest.source, { file: largest.name });
    ours.push(performance.now() - t0);
  }
  const clangRuns = opts.quick ? 3 : 7;
  const theirs: number[] = [];
  const file = path.join(CORPUS, largest.name);
  for (let i = 0; i < clangRuns; i++) {
    const t0 = performance.now();
    spawnSync(CLANG, [...CLANG_FLAGS, '-c', file, '-o', '/dev/null']);
    theirs.push(performance.now() - t0);
  }
  const mo = median(ours), mc = median(theirs);
  io.out(`  compile time, largest corpus program (${largest.name}, ${largest.source.length} bytes): median ${mo.toFixed(2)} ms over ${runs} runs, fastest ${Math.min(...ours).toFixed(2)} ms (target < 20 ms: ${mo < 20 ? 'met' : 'NOT met'}); clang-19 -O2 ${mc.toFixed(1)} ms (median of ${clangRuns}); ratio ours/clang ${(mo / mc).toFixed(3)}\n`);
}
