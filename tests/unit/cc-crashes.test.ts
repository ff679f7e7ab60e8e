/**
 * Regression cases for compiler crashes: every file in
 * tests/cases/cc-crashes/ (written by the fuzz target, tests/fuzz/cc.ts, or
 * by hand from a report) must compile to a result with diagnostics at
 * spans — no exception, no internal compiler error — and the fuzz
 * property holds for a short seeded run.
 */
import { describe, expect, it } from 'vitest';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { compile } from '../../src/cc';
import { CRASH_DIR, ccFuzzTarget, fuzz } from '../fuzz/cc';

const files = readdirSync(CRASH_DIR).filter((f) => f.endsWith('.c')).sort();

describe('compiler crash regressions', () => {
  it('has regression cases', () => {
    expect(files.length).toBeGreaterThan(0);
  });
  for (const f of files) {
    it(f, () => {
      const src = readFileSync(path.join(CRASH_DIR, f), 'utf8');
      expect(ccFuzzTarget.check(src)).toBeUndefined();
    });
  }
  it('goto to a label that does not exist is an error at the goto', () => {
    const src = '#include <linux/bpf.h>\n#include <bpf/bpf_helpers.h>\nSEC("xdp") int p(struct xdp_md *ctx)\n{\n\tif (ctx->data)\n\t\tgoto out;\n\treturn 1;\n}\n';
    const d = compile(src, { file: 't.c' }).diagnostics.filter((x) => x.severity === 'error');
    expect(d.map((x) => `${x.span.line}:${x.span.col}: ${x.message}`)).toEqual(["6:3: use of undeclared label 'out'"]);
  });
  it('an unterminated #include "x.h is refused at the name, not looked up as "x." (issue 17: it was an internal error, then a wrong lookup)', () => {
    for (const src of ['#include"x.h\nint x;\n', '#include "x.h']) {
      const d = compile(src, { file: 't.c' }).diagnostics.filter((x) => x.severity === 'error');
      expect(d.map((x) => `${x.span.line}:${x.span.col}: ${x.message}`)).toEqual([`1:${src.indexOf('"') + 1}: expected "FILENAME" or <FILENAME>: missing terminating '"' character`]);
    }
  });
  it('a label defined twice is an error', () => {
    const src = '#include <linux/bpf.h>\n#include <bpf/bpf_helpers.h>\nSEC("xdp") int p(struct xdp_md *ctx)\n{\nout:\n\tctx->data;\nout:\n\treturn 1;\n}\n';
    const d = compile(src, { file: 't.c' }).diagnostics.filter((x) => x.severity === 'error');
    expect(d.map((x) => x.message)).toEqual(["redefinition of label 'out'"]);
  });
  it('a short seeded fuzz run finds nothing', () => {
    const r = fuzz(ccFuzzTarget, 120, 7, false, 150);
    expect(r.runs).toBe(150);
    expect(r.failures).toEqual([]);
  });
});
