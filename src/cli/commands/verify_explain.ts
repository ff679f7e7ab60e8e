/**
 * `xdp-lab verify FILE.c --explain`: the rejection in a learner's terms
 * (src/explain), printed after the kernel-format log, or as JSON's
 * "explanation". Fixes are tried with the same verifier options.
 */
import type { ParsedSpec } from '../../isa/spec';
import type { VerifyOptions, VerifyResult } from '../../verifier';
import { explain, type Explanation } from '../../explain';
import { recheckWith, type Recompile } from '../../explain/program';

/** The explanation, or null when the program was accepted; candidate fixes are rebuilt with `recompile` (the file's own includes and flags). */
export function explainFor(prog: ParsedSpec, r: VerifyResult, opts: VerifyOptions, recompile?: Recompile): Explanation | null {
  if (r.accepted) return null;
  return explain({ parsed: prog, result: r }, prog.spec.source ? { recheck: recheckWith(opts, recompile) } : {});
}

export function formatExplanation(e: Explanation, source: string | undefined): string {
  const lines = (source ?? '').split('\n');
  const out = [`rejected: ${e.message}`, '', `line ${e.line}:${e.column}: ${e.kind}: ${e.summary}`, `  ${(lines[e.line - 1] ?? '').trim()}`, '', e.detail];
  if (e.path.length) out.push('', `path: lines ${e.path.join(' → ')}`);
  if (e.fix) {
    out.push('', e.fix.replace ? `fix: replace line ${e.fix.line} with` : `fix: insert before line ${e.fix.line}`);
    for (const l of e.fix.insert.split('\n')) out.push(`  + ${l}`);
  } else out.push('', 'fix: none that can be written mechanically; see above.');
  return out.join('\n') + '\n';
}
