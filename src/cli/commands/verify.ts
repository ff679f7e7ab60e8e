/**
 * xdp-lab verify FILE.c|SPEC.json [clang flags] [--log-level N] [--json] [--no-perfmon]
 * [--strict-alignment]: the kernel verifier's judgement. --no-perfmon (alias --unprivileged) loads as
 * CAP_BPF + CAP_NET_ADMIN without CAP_PERFMON: uninitialised stack reads and pointer leaks are refused. Exit 0 accepted,
 * 1 rejected, 2 bad input. --json prints {accepted, error, log, insns_processed}.
 * --explain adds the rejection in a learner's terms (src/explain; JSON: "explanation").
 */
import type { ParsedSpec } from '../../isa/spec';
import { specProgram, verifyProgram } from '../../engine/pipeline';
import { compileFile, splitCcFlags } from '../ccflags';
import { inWorkspace } from '../../explain/program';
import { diskFiles, diskSystemHeaders } from '../system_headers';
import { parseArgs, parseJson, readTextFile, UsageError, type CliIO } from '../io';

/** FILE.c is compiled first (includes from disk, clang's flags); a spec is decoded and checked. */
function loadProgram(file: string, ccFlags: string[]): ParsedSpec {
  let p: ParsedSpec | { error: string };
  if (file.endsWith('.c')) {
    const r = compileFile(file, ccFlags);
    const e = r.diagnostics.find((d) => d.severity === 'error');
    p = r.spec ? specProgram(JSON.parse(JSON.stringify(r.spec)), file) : { error: e ? `${e.span.file}:${e.span.line}:${e.span.col}: ${e.message}` : `${file}: does not compile` };
  } else p = specProgram(parseJson(readTextFile(file), file), file);
  if ('error' in p) throw new UsageError(p.error);
  return p;
}

export async function run(args: string[], io: CliIO): Promise<number> {
  const { ccFlags, rest } = splitCcFlags(args);
  const { positional, flags, options } = parseArgs(rest, {
    flags: ['json', 'unprivileged', 'no-perfmon', 'strict-alignment', 'explain'],
    options: ['log-level'],
  });
  if (positional.length !== 1) throw new UsageError('usage: xdp-lab verify FILE.c|SPEC.json [--log-level 0|1|2] [--json] [--no-perfmon] [--explain]');
  const lvText = options.get('log-level') ?? '1';
  if (!/^[012]$/.test(lvText)) throw new UsageError(`--log-level must be 0, 1 or 2 (got ${JSON.stringify(lvText)})`);
  const logLevel = Number(lvText) as 0 | 1 | 2;
  const prog = loadProgram(positional[0]!, ccFlags);
  const vopts = { unprivileged: flags.has('unprivileged') || flags.has('no-perfmon'), strictAlignment: flags.has('strict-alignment') };
  const r = verifyProgram(prog, { logLevel, ...vopts, states: false });
  // Fixes are tried where the file lives: its "../common/x.h" includes and its flags still apply.
  const file = positional[0]!;
  const recompile = file.endsWith('.c') ? inWorkspace({ files: [{ path: file, text: '' }], main: file, flags: [...ccFlags] }, { readFile: diskFiles, systemHeaders: diskSystemHeaders }) : undefined;
  const explanation = flags.has('explain') ? (await import('./verify_explain')).explainFor(prog, r, vopts, recompile) : undefined;
  if (flags.has('json')) {
    io.out(JSON.stringify({ accepted: r.accepted, error: r.error ?? null, log: r.log, insns_processed: r.insnsProcessed, ...(explanation !== undefined ? { explanation } : {}) }) + '\n');
  } else if (explanation) {
    io.out(r.log);
    if (!r.log.endsWith('\n') && r.log) io.out('\n');
    io.out((await import('./verify_explain')).formatExplanation(explanation, prog.spec.source));
  } else {
    io.out(r.log);
    if (!r.log.endsWith('\n') && r.log) io.out('\n');
    io.out(r.accepted ? 'accepted\n' : `rejected: ${r.error}\n`);
  }
  return r.accepted ? 0 : 1;
}
