/**
 * xdp-lab asm FILE|- [--spec]: assemble kernel, llvm or uBPF syntax; print
 * the bytecode as hex (8 bytes a slot, one slot a line) or, with --spec, a
 * program spec JSON. Assembly errors: one line each (file:line:col), exit 2.
 */
import { readFileSync } from 'node:fs';
import { assemble, bytesToHex, encodeProgram, validateProgram } from '../../isa';
import { parseArgs, readTextFile, UsageError, type CliIO } from '../io';

export async function run(args: string[], io: CliIO): Promise<number> {
  const { positional, flags } = parseArgs(args, { flags: ['spec'] });
  if (positional.length !== 1) throw new UsageError('usage: xdp-lab asm FILE|- [--spec]');
  const file = positional[0]!;
  const text = file === '-' ? readFileSync(0, 'utf8') : readTextFile(file);
  const r = assemble(text);
  if (r.errors.length) {
    for (const e of r.errors) io.err(`${file}:${e.line}:${e.col}: ${e.message}\n`);
    return 2;
  }
  if (r.insns.length === 0) throw new UsageError(`${file}: no instructions`);
  const bad = validateProgram(r.insns);
  if (bad.length) throw new UsageError(`${file}: insn ${bad[0]!.slot}: ${bad[0]!.reason}`);
  const hex = bytesToHex(encodeProgram(r.insns));
  if (flags.has('spec')) io.out(JSON.stringify({ prog_type: 'xdp', insns: hex, maps: [], map_relocs: [] }) + '\n');
  else for (let k = 0; k < hex.length; k += 16) io.out(hex.slice(k, k + 16) + '\n');
  return 0;
}
