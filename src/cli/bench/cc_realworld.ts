/**
 * Benchmark: code size against clang-19 -O2 over ../shared/realworld-dev
 * (the real programs of issue 13, read in place, never copied). Each
 * program is preprocessed by clang with its manifest flags (`-E -P`, so the
 * comparison measures code generation, not header handling), compiled by
 * us, and compared with clang -O2's object: the entry program's function
 * plus the .text subprograms it calls, counted in instruction slots.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { compile } from '../../cc';
import { readElf } from '../bpf_elf';
import { CLANG } from '../clang';
import type { CliIO } from '../io';

const here = path.dirname(fileURLToPath(import.meta.url));
export const REALWORLD_DIR = process.env.XDP_LAB_REALWORLD ?? path.resolve(here, '../../../../shared/realworld-dev');

interface ManifestEntry { file: string; flags: string[] }

/** Instruction slots of program `name` in clang's object (its function, plus .text when it calls into it). */
function clangSlots(obj: Uint8Array, name: string): number | undefined {
  const { sections, syms } = readElf(obj);
  const sym = syms.find((s) => s.name === name && s.type === 2 && (sections[s.shndx]?.name ?? '') !== '.text');
  if (!sym) return undefined;
  const sec = sections[sym.shndx]!;
  const text = sections.find((s) => s.name === '.text');
  const callsText = sections.some((s) => s.type === 9 && s.info === sym.shndx && text !== undefined) && (text?.size ?? 0) > 0;
  return (sym.size || sec.size) / 8 + (callsText ? text!.size / 8 : 0);
}

export function realworldRows(): { name: string; ours: number; clang: number }[] | { skipped: string } {
  const manifest = path.join(REALWORLD_DIR, 'manifest.json');
  if (!existsSync(manifest)) return { skipped: `${REALWORLD_DIR} not found` };
  const progs = (JSON.parse(readFileSync(manifest, 'utf8')) as { programs: ManifestEntry[] }).programs;
  const tmp = mkdtempSync(path.join(tmpdir(), 'xdp-lab-rw-'));
  const rows: { name: string; ours: number; clang: number }[] = [];
  try {
    for (const p of progs) {
      const flags = p.flags.flatMap((f) => f.split(/\s+/));
      const base = ['-target', 'bpf', '-I/usr/include/x86_64-linux-gnu', ...flags];
      const pre = spawnSync(CLANG, ['-E', '-P', ...base, p.file], { cwd: REALWORLD_DIR, encoding: 'utf8', maxBuffer: 64 << 20 });
      const obj = path.join(tmp, 'p.o');
      const cc = spawnSync(CLANG, ['-O2', '-g', ...base, '-c', p.file, '-o', obj], { cwd: REALWORLD_DIR, encoding: 'utf8' });
      if (pre.status !== 0 || cc.status !== 0) continue;
      const r = compile(pre.stdout, { file: path.basename(p.file) });
      const entry = r.spec?.funcs?.[0]?.name;
      if (!r.spec || !entry) continue;
      const theirs = clangSlots(new Uint8Array(readFileSync(obj)), entry);
      if (!theirs) continue;
      rows.push({ name: p.file, ours: r.spec.insns.length / 16, clang: theirs });
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  return rows;
}

export function benchRealworld(io: CliIO, median: (xs: number[]) => number): void {
  const rows = realworldRows();
  if ('skipped' in rows) {
    io.out(`  realworld code size: skipped (${rows.skipped})\n`);
    return;
  }
  if (rows.length === 0) {
    io.out('  realworld code size: no program compiled\n');
    return;
  }
  const ratios = rows.map((r) => r.ours / r.clang);
  const worst = [...rows].sort((a, b) => b.ours / b.clang - a.ours / a.clang);
  io.out(`  realworld code size (${REALWORLD_DIR}): median ours/clang-19 -O2 = ${median(ratios).toFixed(2)}x, worst ${(worst[0]!.ours / worst[0]!.clang).toFixed(2)}x over ${rows.length} programs (target <= 1.20x)\n`);
  for (const r of worst.slice(0, 5)) io.out(`    ${r.name.slice(-60).padEnd(60)} ${String(r.ours).padStart(5)} vs ${String(r.clang).padStart(5)}  ${(r.ours / r.clang).toFixed(2)}x\n`);
}
