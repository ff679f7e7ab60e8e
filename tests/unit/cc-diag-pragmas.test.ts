/**
 * Warnings the source or the command line silences (src/cc/diag_pragmas.ts):
 * `#pragma GCC|clang diagnostic push/ignored/pop`, `_Pragma(...)` from a
 * macro, a header included inside an ignored region, -Wno-NAME, -w, and a
 * pragma that makes a warning an error. Each case also goes through
 * clang-19 with the same flags: the lines it warns about must be ours.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { compileWorkspace } from '../../src/cc';
import { CLANG, CLANG_FLAGS, clangAvailable } from '../../src/cli/clang';

const HEADER = 'static inline int noisy(void)\n{\n\tint in_header = 1;\n\treturn 0;\n}\n';
const fn = (name: string): string => `SEC("xdp") int ${name}(struct xdp_md *ctx)\n{\n\tint unused_${name} = 3;\n\treturn XDP_PASS;\n}\n`;
const PRE = '#include <linux/bpf.h>\n#include <bpf/bpf_helpers.h>\n';

const CASES: { name: string; src: string; flags: string[]; want: string[] }[] = [
  {
    name: 'push / ignored / pop covers only what is between',
    src: `${PRE}#pragma GCC diagnostic push\n#pragma GCC diagnostic ignored "-Wunused-variable"\n${fn('a')}#pragma GCC diagnostic pop\n${fn('b')}`,
    flags: ['-Wall'],
    want: ["t.c:13: warning: unused variable 'unused_b'"],
  },
  {
    name: '_Pragma from a macro, and the clang spelling',
    src: `${PRE}#define QUIET _Pragma("clang diagnostic ignored \\"-Wunused-variable\\"")\nQUIET\n${fn('a')}`,
    flags: ['-Wall'],
    want: [],
  },
  {
    name: 'an ignored region around an #include covers the header',
    src: `${PRE}#pragma GCC diagnostic push\n#pragma GCC diagnostic ignored "-Wunused"\n#include "noisy.h"\n#pragma GCC diagnostic pop\n${fn('a')}`,
    flags: ['-Wall'],
    want: ["t.c:9: warning: unused variable 'unused_a'"],
  },
  {
    name: '-Wno-unused-variable and -w',
    src: `${PRE}#include "noisy.h"\n${fn('a')}`,
    flags: ['-Wall', '-Wno-unused-variable'],
    want: [],
  },
  {
    name: '-w silences everything',
    src: `${PRE}#include "noisy.h"\n${fn('a')}`,
    flags: ['-Wall', '-w'],
    want: [],
  },
  {
    name: 'a pragma can make the warning an error',
    src: `${PRE}#pragma GCC diagnostic error "-Wunused-variable"\n${fn('a')}`,
    flags: ['-Wall'],
    want: ["t.c:6: error: unused variable 'unused_a'"],
  },
];

describe('warnings silenced by pragmas and flags, as clang does', () => {
  for (const c of CASES) {
    it(c.name, () => {
      const r = compileWorkspace({ files: [{ path: 't.c', text: c.src }, { path: 'noisy.h', text: HEADER }], main: 't.c', flags: c.flags });
      const got = r.diagnostics.filter((d) => d.code === 'sema-unused-variable').map((d) => `${d.span.file}:${d.span.line}: ${d.severity}: ${d.message}`);
      expect(got).toEqual(c.want);
      if (c.want.some((w) => w.includes(': error: '))) expect(r.spec).toBeUndefined();
      else expect(r.spec).toBeDefined();
    });
  }

  it.runIf(clangAvailable())('clang-19 warns about the same lines', () => {
    for (const c of CASES) {
      const dir = mkdtempSync(path.join(tmpdir(), 'xdp-lab-pragma-'));
      try {
        writeFileSync(path.join(dir, 't.c'), c.src);
        writeFileSync(path.join(dir, 'noisy.h'), HEADER);
        const p = spawnSync(CLANG, [...CLANG_FLAGS, ...c.flags, '-c', 't.c', '-o', 't.o'], { cwd: dir, encoding: 'utf8' });
        const lines = p.stderr
          .split('\n')
          .map((l) => /^([\w.]+):(\d+):\d+: (warning|error): (unused variable '\w+')/.exec(l))
          .filter((m): m is RegExpExecArray => m !== null)
          .map((m) => `${m[1]}:${m[2]}: ${m[3]}: ${m[4]}`);
        expect(lines, c.name).toEqual(c.want);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    }
  });
});
