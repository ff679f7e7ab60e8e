/**
 * `xdp-lab verify FILE.c --explain`: the rejection in a learner's terms
 * (src/explain), printed after the kernel-format log, or as JSON's
 * "explanation". Fixes are tried with the same verifier options.
 */
import type { ParsedSpec } from '../../isa/spec';
import type { VerifyOptions, VerifyResult } from '../../verifier';
import { editHeading, explain, type Explanation } from '../../explain';
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
    // The fix's edits, each in the original's line numbers (a release moved: inserted after the use, deleted where it was).
    [e.fix, ...(e.fix.also ?? [])].forEach((x, i) => {
      const h = editHeading(x);
      out.push('', `${i === 0 ? 'fix' : 'and'}: ${h}`);
      if (!h.startsWith('delete')) for (const l of x.insert.split('\n')) out.push(`  + ${l}`);
    });
  } else out.push('', 'fix: none that can be written mechanically; see above.');
  return out.join('\n') + '\n';
}
