/**
 * The system headers as clang finds them on this machine with
 * `-I/usr/include/x86_64-linux-gnu`: libbpf-dev's bpf/*.h and
 * linux-libc-dev's linux/*.h, asm-generic/*.h (/usr/include) and asm/*.h
 * (/usr/include/x86_64-linux-gnu), plus the vmlinux.h that scripts/setup.sh
 * generates from the running kernel's BTF (generated/vmlinux.h), read only
 * when a program includes it. The compiler never reads a disk itself: the CLI
 * and the test setup hand it this reader (see src/cc/system_headers.ts).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { HeaderReader } from '../cc';

const here = path.dirname(fileURLToPath(import.meta.url));
export const REPO_ROOT = path.resolve(here, '../..');
export const VMLINUX_H = path.join(REPO_ROOT, 'generated', 'vmlinux.h');
export const SYSTEM_INCLUDE_DIRS = ['/usr/include/x86_64-linux-gnu', '/usr/include'];

function readOrUndefined(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}

/** Read once per process: the same string each time, so the compiler's token cache hits. */
const cache = new Map<string, string | undefined>();

export const diskSystemHeaders: HeaderReader = (name) => {
  if (cache.has(name)) return cache.get(name);
  let text: string | undefined;
  if (name === 'vmlinux.h') text = readOrUndefined(VMLINUX_H);
  else if (!name.startsWith('/') && !name.split('/').includes('..')) {
    for (const dir of SYSTEM_INCLUDE_DIRS) {
      text = readOrUndefined(path.join(dir, name));
      if (text !== undefined) break;
    }
  }
  cache.set(name, text);
  return text;
};

/** Files by path (relative to the working directory, or absolute), for includes outside a workspace. */
export const diskFiles: HeaderReader = (p) => readOrUndefined(p);
