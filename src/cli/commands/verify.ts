/**
 * xdp-lab verify FILE.c|SPEC.json [--log-level N] [--json] [--unprivileged]
 * [--strict-alignment]: the kernel verifier's judgement. Exit 0 accepted,
 * 1 rejected, 2 bad input. --json prints {accepted, error, log, insns_processed}.
 * --explain adds the rejection in a learner's terms (src/explain; JSON: "explanation").
 */
import { parseSpec, type ParsedSpec } from '../../isa/spec';
import { verify } from '../../verifier';
import { parseArgs, parseJson, readTextFile, UsageError, type CliIO } from '../io';

async function loadProgram(file: string): Promise<ParsedSpec> {
  const text = readTextFile(file);
  if (file.endsWith('.c')) {
    // The compiler lands later; load it lazily so verify works without it.
    let cc: { compile?: (src: string, opts?: { file?: string }) => { spec?: unknown; diagnostics?: { message: string; severity?: string }[] } };
    try {
      cc = (await import(/* @vite-ignore */ '../../cc/index' + '')) as typeof cc;
    } catch {
      throw new UsageError('cannot verify C source: the compiler (src/cc) is not available in this build');
    }
    if (!cc.compile) throw new UsageError('cannot verify C source: src/cc has no compile()');
    const out = cc.compile(text, { file });
    const err = out.diagnostics?.find((d) => d.severity === undefined || d.severity === 'error');
    if (!out.spec || err) throw new UsageError(`${file}: ${err?.message ?? 'compilation failed'}`);
    const p = parseSpec(out.spec);
    if ('error' in p) throw new UsageError(`${file}: compiler produced a bad spec: ${p.error}`);
    return p;
  }
  const p = parseSpec(parseJson(text, file));
  if ('error' in p) throw new UsageError(`${file}: ${p.error}`);
  return p;
}

export async function run(args: string[], io: CliIO): Promise<number> {
  const { positional, flags, options } = parseArgs(args, {
    flags: ['json', 'unprivileged', 'strict-alignment', 'explain'],
    options: ['log-level'],
  });
  if (positional.length !== 1) throw new UsageError('usage: xdp-lab verify FILE.c|SPEC.json [--log-level 0|1|2] [--json]');
  const lvText = options.get('log-level') ?? '1';
  if (!/^[012]$/.test(lvText)) throw new UsageError(`--log-level must be 0, 1 or 2 (got ${JSON.stringify(lvText)})`);
  const logLevel = Number(lvText) as 0 | 1 | 2;
  const prog = await loadProgram(positional[0]!);
  const vopts = { unprivileged: flags.has('unprivileged'), strictAlignment: flags.has('strict-alignment') };
  const r = verify(prog, { logLevel, ...vopts, states: false });
  const explanation = flags.has('explain') ? (await import('./verify_explain')).explainFor(prog, r, vopts) : undefined;
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
