/**
 * Benchmark section 'realworld': code size on real programs, unchanged —
 * ../shared/realworld-dev (and tests/realworld-extra, programs written here
 * in the style of xdp-tools and katran, to check the figures are not the
 * folder's alone): our instruction count over clang-19 -O2's for every
 * program both compilers build, the median and the worst ratio (issue 13's
 * target: at most 1.2x), and the programs we do not compile yet. Also the
 * preprocessing + compile time of the largest program, where the system
 * headers dominate.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { CliIO } from '../io';
import type { BenchOpts } from './types';
import { clangAvailable, CLANG } from '../clang';
import { buildClang, buildOurs, readManifest, REALWORLD_DIR, REALWORLD_EXTRA_DIR, slots } from '../realworld';

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

export async function bench(io: CliIO, opts: BenchOpts): Promise<void> {
  if (!clangAvailable()) {
    io.out(`  ${CLANG} not found: the realworld section compares against clang and cannot run without it\n`);
    return;
  }
  let largest: { dir: string; file: string; flags: string[]; ms?: number; size: number } | undefined;
  for (const dir of [REALWORLD_DIR, REALWORLD_EXTRA_DIR]) {
    if (!existsSync(path.join(dir, 'manifest.json'))) {
      io.out(`  ${dir}: no manifest.json (skipped)\n`);
      continue;
    }
    const progs = readManifest(dir);
    const rows: { file: string; ratio: number; ours: number; clang: number }[] = [];
    const missing: string[] = [];
    for (const p of progs) {
      const ours = buildOurs(p, dir);
      const clang = buildClang(p, dir);
      if (!clang.spec) { missing.push(`${p.file} (clang: ${clang.error?.slice(0, 60)})`); continue; }
      if (!ours.spec) { missing.push(p.file); continue; }
      rows.push({ file: p.file, ours: slots(ours.spec), clang: slots(clang.spec), ratio: slots(ours.spec) / slots(clang.spec) });
      if (!largest || slots(clang.spec) > largest.size) largest = { dir, file: p.file, flags: p.flags, size: slots(clang.spec) };
    }
    const name = path.basename(dir);
    if (rows.length === 0) { io.out(`  ${name}: no program built by both compilers\n`); continue; }
    const worst = [...rows].sort((a, b) => b.ratio - a.ratio)[0]!;
    const med = median(rows.map((r) => r.ratio));
    opts.figure(`${name}.median_ratio`, med);
    opts.figure(`${name}.worst_ratio`, worst.ratio);
    opts.figure(`${name}.built`, rows.length);
    opts.figure(`${name}.programs`, progs.length);
    io.out(`  code size, ${name}: median ours/clang-19 -O2 ${med.toFixed(2)}x, worst ${worst.ratio.toFixed(2)}x (${worst.file}: ${worst.ours} vs ${worst.clang}) over ${rows.length} of ${progs.length} programs (target <= 1.20x: ${med <= 1.2 && worst.ratio <= 1.2 ? 'met' : 'NOT met'})\n`);
    if (missing.length) io.out(`    not built yet (${missing.length}): ${missing.join(', ')}\n`);
  }
  if (largest) {
    const p = readManifest(largest.dir).find((x) => x.file === largest!.file)!;
    const runs = opts.quick ? 10 : 40;
    for (let i = 0; i < 3; i++) buildOurs(p, largest.dir);
    const ts: number[] = [];
    for (let i = 0; i < runs; i++) {
      const t0 = performance.now();
      buildOurs(p, largest.dir);
      ts.push(performance.now() - t0);
    }
    opts.figure('compile_ms.median', median(ts));
    io.out(`  compile time with the system headers, largest program (${largest.file}): median ${median(ts).toFixed(2)} ms over ${runs} runs, fastest ${Math.min(...ts).toFixed(2)} ms (includes reading its own headers from disk)\n`);
  }
}
