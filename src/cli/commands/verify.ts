/**
 * xdp-lab verify FILE.c|SPEC.json [clang flags] [--log-level N] [--json] [--unprivileged]
 * [--strict-alignment]: the kernel verifier's judgement. Exit 0 accepted,
 * 1 rejected, 2 bad input. --json prints {accepted, error, log, insns_processed}.
 */
import { parseSpec, type ParsedSpec } from '../../isa/spec';
import { verify } from '../../verifier';
import { compileFile, splitCcFlags } from '../ccflags';
import { parseArgs, parseJson, readTextFile, UsageError, type CliIO } from '../io';

async function loadProgram(file: string, ccFlags: string[]): Promise<ParsedSpec> {
  if (file.endsWith('.c')) {
    const out = compileFile(file, ccFlags);
    const err = out.diagnostics.find((d) => d.severity === 'error');
    if (!out.spec || err) throw new UsageError(err ? `${err.span.file}:${err.span.line}:${err.span.col}: ${err.message}` : `${file}: compilation failed`);
    const p = parseSpec(out.spec);
    if ('error' in p) throw new UsageError(`${file}: compiler produced a bad spec: ${p.error}`);
    return p;
  }
  const p = parseSpec(parseJson(readTextFile(file), file));
  if ('error' in p) throw new UsageError(`${file}: ${p.error}`);
  return p;
}

export async function run(args: string[], io: CliIO): Promise<number> {
  const { ccFlags, rest } = splitCcFlags(args);
  const { positional, flags, options } = parseArgs(rest, {
    flags: ['json', 'unprivileged', 'strict-alignment'],
    options: ['log-level'],
  });
  if (positional.length !== 1) throw new UsageError('usage: xdp-lab verify FILE.c|SPEC.json [--log-level 0|1|2] [--json]');
  const lvText = options.get('log-level') ?? '1';
  if (!/^[012]$/.test(lvText)) throw new UsageError(`--log-level must be 0, 1 or 2 (got ${JSON.stringify(lvText)})`);
  const logLevel = Number(lvText) as 0 | 1 | 2;
  const prog = await loadProgram(positional[0]!, ccFlags);
  const r = verify(prog, { logLevel, unprivileged: flags.has('unprivileged'), strictAlignment: flags.has('strict-alignment'), states: false });
  if (flags.has('json')) {
    io.out(JSON.stringify({ accepted: r.accepted, error: r.error ?? null, log: r.log, insns_processed: r.insnsProcessed }) + '\n');
  } else {
    io.out(r.log);
    if (!r.log.endsWith('\n') && r.log) io.out('\n');
    io.out(r.accepted ? 'accepted\n' : `rejected: ${r.error}\n`);
  }
  return r.accepted ? 0 : 1;
}
