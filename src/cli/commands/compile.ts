/**
 * xdp-lab compile FILE.c [clang flags: -I -D -U -include -std= … -o OUT] [--asm] [--no-warnings]
 *
 * -o OUT writes what would be printed (the spec JSON, the listing, the
 * preprocessed source) to OUT instead, as clang writes its object there;
 * -o - is standard output. The other build-only flags stay ignored.
 * With -E, prints the preprocessed source instead (as clang -E).
 * Prints the program spec JSON (exit 0), or clang-style diagnostics on
 * stderr (exit 1). Warnings go to stderr either way. --asm prints the
 * disassembly instead, with the C source lines in between, the way
 * `llvm-objdump -S` shows an object compiled with -g.
 */
import { formatDiagnostic, preprocessWorkspace } from '../../cc';
import { compileFile, splitCcFlags } from '../ccflags';
import { disasmInsn } from '../../isa/disasm';
import { bytesToHex, decodeProgram, hexToBytes } from '../../isa/insn';
import type { ProgramSpec } from '../../isa/spec';
import { writeFileSync } from 'node:fs';
import { parseArgs, readTextFile, UsageError, type CliIO } from '../io';
import { diskFiles, diskSystemHeaders } from '../system_headers';

/** A header's text for a diagnostic's source line (system headers by include name). */
function readSourceQuietly(file: string): string {
  return diskFiles(file) ?? (file.startsWith('/usr/include/') ? diskSystemHeaders(file.slice('/usr/include/'.length)) : undefined) ?? '';
}

export async function run(args: string[], io: CliIO): Promise<number> {
  const { ccFlags, rest } = splitCcFlags(args);
  const { positional, flags } = parseArgs(rest, { flags: ['asm', 'no-warnings'] });
  if (positional.length !== 1) throw new UsageError('usage: xdp-lab compile FILE.c [clang flags: -I DIR -D NAME=V -U NAME -include F -std=… -o OUT] [--asm] [--no-warnings]');
  const file = positional[0]!;
  const dest = outputOf(ccFlags, io);
  if (ccFlags.includes('-E')) return preprocessOnly(file, ccFlags, dest, io);
  const r = compileFile(file, ccFlags);
  const source = r.source;
  const sources: Record<string, string> = { [file]: source };
  for (const d of r.diagnostics) {
    if (d.severity === 'warning' && flags.has('no-warnings')) continue;
    if (!(d.span.file in sources)) sources[d.span.file] = readSourceQuietly(d.span.file);
    io.err(formatDiagnostic(d, sources));
  }
  const errors = r.diagnostics.filter((d) => d.severity === 'error').length;
  if (!r.spec) {
    io.err(`${errors} error${errors === 1 ? '' : 's'} generated.\n`);
    return 1;
  }
  dest(flags.has('asm') ? listing(r.spec, source) : JSON.stringify(r.spec, null, 1) + '\n');
  return 0;
}

/** Where the result goes: the file after the last -o (clang's rule), or standard output. */
function outputOf(ccFlags: string[], io: CliIO): (text: string) => void {
  const at = ccFlags.lastIndexOf('-o');
  const out = at >= 0 ? ccFlags[at + 1] : undefined;
  if (out === undefined || out === '-') return (text) => io.out(text);
  return (text) => {
    try {
      writeFileSync(out, text);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      throw new UsageError(`cannot write ${out}: ${code === 'ENOENT' ? 'no such directory' : code ?? String(e)}`);
    }
  };
}

/** -E: the preprocessed tokens, a line per source line (as clang -E -P prints, roughly). */
function preprocessOnly(file: string, ccFlags: string[], dest: (text: string) => void, io: CliIO): number {
  const source = readTextFile(file);
  const r = preprocessWorkspace({ files: [{ path: file, text: source }], main: file, flags: ccFlags }, { readFile: diskFiles, systemHeaders: diskSystemHeaders });
  for (const d of r.diagnostics) io.err(formatDiagnostic(d, { [file]: source }));
  let out = '';
  for (const t of r.tokens) {
    if (t.kind === 'eof') continue;
    out += (t.bol && out ? '\n' : t.space ? ' ' : '') + (t.kind === 'pragma' ? `#pragma ${t.text}${t.value !== undefined ? ` ${t.value}` : ''}\n` : t.text);
  }
  dest(out + '\n');
  return r.diagnostics.some((d) => d.severity === 'error') ? 1 : 0;
}

/** llvm-objdump -S style: function labels, source lines, offset, bytes, instruction. */
export function listing(spec: ProgramSpec, source: string): string {
  const bytes = hexToBytes(spec.insns) as Uint8Array;
  const { insns } = decodeProgram(bytes);
  const lines = source.split('\n');
  const starts = new Map((spec.funcs ?? []).map((f) => [f.insn, f.name]));
  const mapOf = new Map((spec.map_relocs ?? []).map((r) => [r.insn, spec.maps?.[r.map]?.name ?? `map${r.map}`]));
  let out = '';
  let lastLine = -1;
  for (let k = 0; k < insns.length; k++) {
    const name = starts.get(k);
    if (name !== undefined) {
      out += `${k ? '\n' : ''}${(k * 8).toString(16).padStart(16, '0')} <${name}>:\n`;
      lastLine = -1;
    }
    const li = spec.line_info?.[k];
    if (li && li.line !== lastLine) {
      out += `; ${lines[li.line - 1] ?? ''}\n`;
      lastLine = li.line;
    }
    const i = insns[k]!;
    const wide = i.code === 0x18;
    const hex = bytesToHex(bytes.subarray(k * 8, k * 8 + 8)).replace(/(..)(?!$)/g, '$1 ');
    let text = disasmInsn(wide ? { ...i, imm2: insns[k + 1]?.imm } : i, { style: 'llvm' }, k);
    if (mapOf.has(k)) text += ` <${mapOf.get(k)}>`;
    out += `${String(k).padStart(8)}:\t${hex}\t${text}\n`;
    if (wide) {
      out += `${String(k + 1).padStart(8)}:\t${bytesToHex(bytes.subarray((k + 1) * 8, (k + 2) * 8)).replace(/(..)(?!$)/g, '$1 ')}\n`;
      k++;
    }
  }
  return out;
}
