/**
 * xdp-lab disasm HEX|SPEC.json [--style llvm|kernel]: disassemble bytecode
 * given as hex (an argument or a file of hex) or a program spec.
 */
import { existsSync } from 'node:fs';
import { decodeProgram, disasmProgram, hexToBytes, parseSpec, validateProgram, type Insn } from '../../isa';
import { parseArgs, parseJson, readTextFile, UsageError, type CliIO } from '../io';

export async function run(args: string[], io: CliIO): Promise<number> {
  const { positional, options } = parseArgs(args, { options: ['style'] });
  if (positional.length !== 1) throw new UsageError('usage: xdp-lab disasm HEX|SPEC.json [--style llvm|kernel]');
  const style = options.get('style') ?? 'kernel';
  if (style !== 'llvm' && style !== 'kernel') throw new UsageError(`unknown style '${style}' (llvm or kernel)`);
  const arg = positional[0]!;
  let insns: Insn[];
  const text = existsSync(arg) ? readTextFile(arg) : arg;
  if (text.trim().startsWith('{')) {
    const p = parseSpec(parseJson(text, arg));
    if ('error' in p) throw new UsageError(p.error);
    insns = p.insns;
  } else {
    const bytes = hexToBytes(text);
    if (typeof bytes === 'string') throw new UsageError(`bytecode: ${bytes}`);
    const d = decodeProgram(bytes);
    if (d.error) throw new UsageError(`bytecode: ${d.error}`);
    if (d.insns.length === 0) throw new UsageError('bytecode is empty');
    insns = d.insns;
  }
  for (const p of validateProgram(insns)) io.err(`warning: insn ${p.slot}: ${p.reason}\n`);
  io.out(disasmProgram(insns, { style }).join('\n') + '\n');
  return 0;
}
