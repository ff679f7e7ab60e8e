/**
 * clang-19 as the reference compiler for the same C source: our built-in
 * headers are written to a temporary include directory and clang compiles
 * with -nostdinc against them, so both compilers see identical
 * declarations. Shared by the differential tests and `xdp-lab bench cc`.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { HEADERS } from '../cc/headers';

export const CLANG = process.env.CLANG ?? 'clang-19';

let includeDir: string | undefined;

export function headerDir(): string {
  if (includeDir) return includeDir;
  const dir = mkdtempSync(path.join(tmpdir(), 'xdp-lab-headers-'));
  for (const [name, text] of Object.entries(HEADERS)) {
    mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    writeFileSync(path.join(dir, name), text);
  }
  includeDir = dir;
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

export function clangAvailable(): boolean {
  return spawnSync(CLANG, ['--version']).status === 0;
}

/** Compile a C file with clang -O2; returns the object bytes or clang's stderr. */
export function clangCompile(source: string, name: string): { obj?: Uint8Array; stderr: string } {
  const dir = mkdtempSync(path.join(tmpdir(), 'xdp-lab-cc-'));
  const src = path.join(dir, name);
  writeFileSync(src, source);
  const obj = path.join(dir, name.replace(/\.c$/, '.o'));
  try {
    const r = spawnSync(CLANG, ['-O2', '-g', '-target', 'bpf', '-nostdinc', '-I', headerDir(), '-Wno-unused-value', '-c', src, '-o', obj], { encoding: 'utf8' });
    if (r.status !== 0) return { stderr: r.stderr };
    return { obj: new Uint8Array(readFileSync(obj)), stderr: r.stderr };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
