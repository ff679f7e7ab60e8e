/**
 * Fuzz target "cc": the corpus programs and examples, mutated at the token
 * and byte level (tests/fuzz/cc.ts). Property: compile() returns — no
 * exception, no internal compiler error — and every error is a diagnostic
 * at a span in the input; a program that compiles yields a spec the loader
 * accepts. Errors are the expected outcome of most mutations. Failing
 * inputs go to tests/cases/cc-crashes/ (also replayed by
 * tests/unit/cc-crashes.test.ts).
 */
import { compile } from '../../../src/cc';
import { parseSpec } from '../../../src/isa';
import { CRASH_DIR, ccFuzzTarget } from '../cc';
import { errorText, pick, type FuzzTarget } from '../types';

let seeds: string[] | undefined;

export const ccTarget: FuzzTarget<string> = {
  name: 'cc',
  hangMs: 5000,
  regressionDir: CRASH_DIR,
  ext: 'c',
  generate: (r) => pick(r, (seeds ??= ccFuzzTarget.seeds())),
  mutate: (input, r) => ccFuzzTarget.mutate(input, r),
  run(input) {
    let res;
    try {
      res = compile(input, { file: 'fuzz.c' });
    } catch (e) {
      return { kind: 'failure', why: `uncaught exception: ${errorText(e)}` };
    }
    const lines = input.split('\n').length;
    for (const d of res.diagnostics) {
      if (d.code === 'cc-internal' || /^internal/.test(d.message)) return { kind: 'failure', why: `internal error: ${d.message}` };
      const s = d.span;
      if (!Number.isInteger(s.line) || s.line < 0 || !Number.isInteger(s.col) || s.col < 0) return { kind: 'failure', why: `bad span on '${d.message}'` };
      // An error in the input points into the input (headers have their own files).
      if (d.severity === 'error' && s.file === 'fuzz.c' && (s.line < 1 || s.line > lines + 1)) return { kind: 'failure', why: `error outside the input (line ${s.line} of ${lines}): ${d.message}` };
    }
    const errors = res.diagnostics.filter((d) => d.severity === 'error');
    if (errors.length) return { kind: 'expected', why: errors[0]!.message };
    if (!res.spec) return { kind: 'failure', why: 'no errors but no program either' };
    const parsed = parseSpec(res.spec);
    if ('error' in parsed) return { kind: 'failure', why: `compiled output is not a valid program spec: ${parsed.error}` };
    return { kind: 'ok' };
  },
  encode: (input, why) => `/* fuzz cc: ${why.replace(/\*\//g, '* /').replace(/\n/g, ' ')} */\n${input}`,
  decode: (file) => file,
};
