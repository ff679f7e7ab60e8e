/**
 * C source → explanation: compile, verify (with the failing state), explain,
 * and try fixes by compiling and verifying each candidate. Used by the CLI
 * (`verify --explain`) and the app's teaching worker.
 */
import { compile } from '../cc';
import { parseSpec, type ParsedSpec } from '../isa/spec';
import { verify, type VerifyOptions, type VerifyResult } from '../verifier';
import { classify } from './classify';
import { explain, type Explanation, type Recheck } from './index';
import { posOfPc } from './source';

export interface Checked {
  parsed: ParsedSpec;
  result: VerifyResult;
}

/** Compile and verify; a one-line reason when the source does not compile. */
export function checkSource(source: string, opts: VerifyOptions = {}): Checked | { error: string; line?: number } {
  const out = compile(source, { file: 'prog.c' });
  if (!out.spec) {
    const e = out.diagnostics.find((d) => d.severity === 'error');
    return { error: e ? `${e.span.file}:${e.span.line}:${e.span.col}: ${e.message}` : 'compilation failed', ...(e ? { line: e.span.line } : {}) };
  }
  const parsed = parseSpec(out.spec);
  if ('error' in parsed) return { error: `compiler produced a bad spec: ${parsed.error}` };
  const result = verify(parsed, { logLevel: 1, states: false, ...opts });
  return { parsed, result };
}

const RECHECK_INSN_LIMIT = 200_000;

/** A recheck that compiles and verifies a candidate with the same options. */
export function recheckWith(opts: VerifyOptions = {}): Recheck {
  return (source) => {
    // A candidate that still runs away is not a fix; stop it early instead of walking a million instructions per try.
    const c = checkSource(source, { insnLimit: RECHECK_INSN_LIMIT, ...opts });
    if ('error' in c) return null;
    if (c.result.accepted) return { accepted: true };
    const funcStarts = [0, ...(c.parsed.spec.funcs ?? []).map((f) => f.insn).filter((i) => i > 0)];
    const kind = classify(c.parsed.insns, c.parsed.spec.maps ?? [], c.result, funcStarts).kind;
    const line = posOfPc(c.parsed.spec.line_info ?? [], c.result.errorPc ?? 0)?.line;
    return { accepted: false, kind, ...(line !== undefined ? { line } : {}) };
  };
}

/** The explanation of a C program's rejection (null when accepted); a reason when it does not compile. */
export function explainSource(source: string, opts: VerifyOptions = {}): { checked: Checked; explanation: Explanation | null } | { error: string } {
  const c = checkSource(source, opts);
  if ('error' in c) return c;
  return { checked: c, explanation: explain(c, { recheck: recheckWith(opts) }) };
}
