/**
 * clang-19 as the reference compiler for the same C source, with the same
 * system headers XDP Lab's compiler reads (libbpf-dev, linux-libc-dev under
 * /usr/include, asm/ through -I/usr/include/x86_64-linux-gnu), so both
 * compilers see identical declarations. Shared by the differential tests
 * and `xdp-lab bench cc`.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

export const CLANG = process.env.CLANG ?? 'clang-19';

/** What a BPF project's Makefile gives clang, plus the multiarch folder where asm/ lives on Debian. */
export const CLANG_FLAGS = ['-O2', '-g', '-target', 'bpf', '-I/usr/include/x86_64-linux-gnu'];

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
    const r = spawnSync(CLANG, [...CLANG_FLAGS, '-Wno-unused-value', '-c', src, '-o', obj], { encoding: 'utf8' });
    if (r.status !== 0) return { stderr: r.stderr };
    return { obj: new Uint8Array(readFileSync(obj)), stderr: r.stderr };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
