/**
 * Real XDP programs built both ways: the folder ../shared/realworld-dev (32
 * programs from xdp-tutorial, bpf-examples and the kernel selftests, with
 * manifest.json giving each one's Makefile flags and what the kernel did with
 * clang's build) — or any folder laid out the same way — compiled unchanged
 * by XDP Lab (includes from disk, the flags as given plus
 * -I/usr/include/x86_64-linux-gnu) and by clang-19 -O2 -g -target bpf, whose
 * object is read as libbpf would (./bpf_elf.ts extractObject). Shared by the
 * differential test (tests/differential/realworld.test.ts) and the bench's
 * code-size section. The folder is read in place, never copied.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { compileWorkspace, shellSplit, type CompileOptions, type CompileResult } from '../cc';
import type { ProgramSpec } from '../isa/spec';
import { extractObject } from './bpf_elf';
import { CLANG } from './clang';
import { diskSystemHeaders, REPO_ROOT, VMLINUX_H } from './system_headers';

export const REALWORLD_DIR = process.env.XDP_LAB_REALWORLD_DIR ?? path.resolve(REPO_ROOT, '../shared/realworld-dev');

/** Programs written here in the style of other projects (xdp-tools, katran, samples/bpf): what holds for REALWORLD_DIR must hold beyond it. */
export const REALWORLD_EXTRA_DIR = path.resolve(REPO_ROOT, 'tests/realworld-extra');

export interface RealworldProgram {
  /** Path relative to the folder. */
  file: string;
  flags: string[];
  vmlinux_h: boolean;
  kernel_with_clang: 'accepted' | 'rejected' | 'oracle-cannot-load';
  /** Where the oracle cannot load the object but the kernel (through libbpf, with BTF) refuses it: its message. */
  kernel_error?: string;
}

/** Where asm/ lives on Debian: every BPF Makefile here adds it, as DEVELOPERS.md's clang line does. */
export const EXTRA_FLAGS = ['-I/usr/include/x86_64-linux-gnu'];

/** The programs of a folder's manifest.json (or of a manifest kept elsewhere, its paths still relative to the folder). */
export function readManifest(dir = REALWORLD_DIR, manifest = path.join(dir, 'manifest.json')): RealworldProgram[] {
  const m = JSON.parse(readFileSync(manifest, 'utf8')) as { programs: RealworldProgram[] };
  return m.programs;
}

/** The manifest's flags as words (an entry may hold "-idirafter dir"); a vmlinux.h program also gets the folder scripts/setup.sh writes it to. */
export function flagWords(p: RealworldProgram): string[] {
  return [...p.flags.flatMap((f) => shellSplit(f)), ...(p.vmlinux_h ? ['-I', path.dirname(VMLINUX_H)] : []), ...EXTRA_FLAGS];
}

/** XDP Lab's build: the folder is the workspace root, includes read from it. */
export function buildOurs(p: RealworldProgram, dir = REALWORLD_DIR, opts: Pick<CompileOptions, 'btfTypeIdBase'> = {}): CompileResult {
  const read = (rel: string): string | undefined => {
    try {
      return readFileSync(path.resolve(dir, rel), 'utf8');
    } catch {
      return undefined;
    }
  };
  const text = read(p.file) ?? '';
  return compileWorkspace({ files: [{ path: p.file, text }], main: p.file, flags: flagWords(p) }, { readFile: read, systemHeaders: diskSystemHeaders, ...opts });
}

export interface ClangBuild {
  spec?: ProgramSpec;
  /** Object features the kernel oracle cannot load (map-in-map, kfuncs). */
  unsupported: string[];
  error?: string;
}

/** clang-19 -O2 -g -target bpf with the same flags, run in the folder; the object read as libbpf loads it. */
export function buildClang(p: RealworldProgram, dir = REALWORLD_DIR): ClangBuild {
  const tmp = mkdtempSync(path.join(tmpdir(), 'xdp-lab-rw-'));
  const obj = path.join(tmp, 'prog.o');
  try {
    const r = spawnSync(CLANG, ['-O2', '-g', '-target', 'bpf', ...flagWords(p), '-c', p.file, '-o', obj], { cwd: dir, encoding: 'utf8' });
    if (r.status !== 0) {
      const first = (r.stderr || r.error?.message || 'clang failed').split('\n').find((l) => l.includes('error')) ?? r.stderr;
      // A folder the flags name but the test data lacks explains a missing header better than clang can.
      const words = flagWords(p);
      const absent = words.flatMap((w, i) => (/^-(I|iquote|isystem|idirafter)$/.test(w) ? [words[i + 1]!] : /^-I./.test(w) ? [w.slice(2)] : [])).filter((d) => !existsSync(path.resolve(dir, d)));
      return { unsupported: [], error: absent.length ? `${first} (the folder has no ${absent.join(', ')}, which the flags name)` : first };
    }
    const o = extractObject(new Uint8Array(readFileSync(obj)));
    // libbpf sizes a PERF_EVENT_ARRAY without max_entries to the possible CPUs, with 4-byte keys and values.
    for (const m of o.spec.maps ?? []) {
      if (m.type !== 'perf_event_array') continue;
      if (!m.max_entries) m.max_entries = possibleCpus();
      m.key_size ||= 4;
      m.value_size ||= 4;
    }
    return { spec: o.spec, unsupported: o.unsupported };
  } catch (e) {
    return { unsupported: [], error: `reading clang's object: ${(e as Error).message}` };
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

/** The machine's possible CPUs (/sys/devices/system/cpu/possible), as libbpf counts them. */
export function possibleCpus(): number {
  try {
    const text = readFileSync('/sys/devices/system/cpu/possible', 'utf8').trim();
    return text.split(',').reduce((n, part) => {
      const [a, b] = part.split('-').map(Number);
      return n + (b === undefined ? 1 : b - a! + 1);
    }, 0);
  } catch {
    return 1;
  }
}

/** Instruction slots of a spec's entry program. */
export function slots(spec: ProgramSpec): number {
  return spec.insns.length / 16;
}
