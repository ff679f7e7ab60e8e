/**
 * clang's flags on xdp-lab's command line: `compile`, `verify`, `run` and
 * `sim --prog` take them beside their own `--options`, so a Makefile's
 * CFLAGS paste unchanged (`xdp-lab compile -I../common -D__TARGET_ARCH_x86
 * -O2 -g -target bpf xdp_prog_kern.c`). Includes are read from disk
 * relative to the including file, then -I…, then the system headers
 * (/usr/include, see ./system_headers.ts), as clang reads them.
 */
import { compileWorkspace, parseCcFlags, type CompileResult, type Workspace } from '../cc';
import { diskFiles, diskSystemHeaders } from './system_headers';
import { readTextFile, UsageError } from './io';

/** clang flags that take the next word as their value when not glued to it. */
const TAKES_VALUE = new Set(['-I', '-iquote', '-isystem', '-idirafter', '-D', '-U', '-include', '-imacros', '-o', '-MF', '-MT', '-MQ', '-target', '-x', '-Xclang', '-mllvm']);

/** What looks like a clang flag (a negative number stays with the command's own option). */
const CLANG_FLAG = /^-(?:[IDU]|O|g|W|w$|f|m|std=|target$|iquote|isystem|idirafter|include|imacros|nostd|nobuiltininc|c$|S$|E$|o$|x$|M|v$|pedantic|emit-llvm|Xclang|mllvm|ansi|Q|pipe|save-temps)/;

/** Split a command's arguments into clang flags (single dash) and its own (`--name`, positionals). */
export function splitCcFlags(args: readonly string[]): { ccFlags: string[]; rest: string[] } {
  const ccFlags: string[] = [];
  const rest: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (CLANG_FLAG.test(a)) {
      ccFlags.push(a);
      if (TAKES_VALUE.has(a) && i + 1 < args.length) ccFlags.push(args[++i]!);
    } else if (a.startsWith('--target=') || a.startsWith('--sysroot=')) ccFlags.push(a);
    else rest.push(a);
  }
  const bad = parseCcFlags(ccFlags).errors[0];
  if (bad) throw new UsageError(bad);
  return { ccFlags, rest };
}

/** Compile a C file from disk with clang's flags, reading its includes from disk. */
export function compileFile(file: string, ccFlags: readonly string[]): CompileResult & { source: string; workspace: Workspace } {
  const source = readTextFile(file);
  const workspace: Workspace = { files: [{ path: file, text: source }], main: file, flags: [...ccFlags] };
  const r = compileWorkspace(workspace, { readFile: diskFiles, systemHeaders: diskSystemHeaders });
  return { ...r, source, workspace };
}
