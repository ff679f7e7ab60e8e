/**
 * Bench sections that measure in a fresh node process: the child entry
 * bundled to plain JavaScript with esbuild when it is available (tsx's
 * on-the-fly module wrapper otherwise adds its own time and memory, and a
 * bundle is what the app ships: cross-module const enums inlined, no
 * per-module getters), run with `node`, answering one JSON line on stdout.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';

export interface BenchChild {
  file: string;
  /** True: a plain JavaScript bundle; false: the TypeScript entry run through tsx. */
  bundled: boolean;
}

/** Bundle `entry` (a .ts file) into `dir`; through tsx when esbuild is not installed. */
export async function bundleChild(entry: string, dir: string): Promise<BenchChild> {
  try {
    const esbuild = (await import('esbuild')) as { build(o: Record<string, unknown>): Promise<unknown> };
    const out = path.join(dir, path.basename(entry).replace(/\.ts$/, '.mjs'));
    await esbuild.build({ entryPoints: [entry], bundle: true, platform: 'node', format: 'esm', outfile: out, logLevel: 'silent' });
    return { file: out, bundled: true };
  } catch {
    return { file: entry, bundled: false };
  }
}

/** Run the child with `args` (and node flags before the file); its last stdout line parsed as JSON, or a one-line failure. */
export function runChild<T>(child: BenchChild, args: string[], nodeFlags: string[] = []): T | string {
  const argv = [...(child.bundled ? [] : ['--import', 'tsx']), ...nodeFlags, child.file, ...args];
  const r = spawnSync(process.execPath, argv, { encoding: 'utf8', maxBuffer: 1 << 20 });
  const line = r.stdout.trim().split('\n').pop() ?? '';
  try {
    return JSON.parse(line) as T;
  } catch {
    return `the child process failed (${r.status}): ${(r.stderr || line).slice(0, 200)}`;
  }
}
