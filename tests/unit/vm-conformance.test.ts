import { describe, expect, it } from 'vitest';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parseConformance, runConformance } from '../../src/vm/conformance';

const ROOT = path.resolve(__dirname, '../../../shared/conformance');

/**
 * Tests we do not run, and why. Only tests of a particular runtime's API
 * belong here, never an instruction the kernel executes.
 */
const EXCLUDED: Record<string, string> = {
  'ubpf/reload.data': "uBPF API: loading code twice into one ubpf_vm must fail (ubpf_load_code); not an ISA behaviour, and the kernel has no such call",
  'ubpf/errors/err-too-many-instructions.data': "uBPF's own limit of 65536 instructions; Linux accepts up to 1,000,000 (BPF_COMPLEXITY_LIMIT_INSNS), so the program is valid here",
  'ubpf/errors/err-unknown-opcode.data': 'opcode 0x06 is BPF_JMP32 | BPF_JA (gotol, RFC 9669), which uBPF predates; Linux 6.x executes it',
};

function suite(dir: string, engine: 'jit' | 'interp'): { file: string; pass: boolean; detail: string }[] {
  return readdirSync(path.join(ROOT, dir))
    .filter((f) => f.endsWith('.data'))
    .sort()
    .map((f) => {
      const c = parseConformance(readFileSync(path.join(ROOT, dir, f), 'utf8'));
      const o = 'parseError' in c ? { pass: false, detail: c.parseError } : runConformance(c, engine);
      return { file: `${dir}/${f}`, ...o };
    });
}

// Both engines: the interpreter is the reference, the JIT must match it (and the suites) exactly.
for (const engine of ['jit', 'interp'] as const)
describe(`conformance suites (${engine})`, () => {
  it('passes all 313 bpf_conformance tests', () => {
    const r = suite('bpf_conformance', engine);
    expect(r).toHaveLength(313);
    expect(r.filter((x) => !x.pass)).toEqual([]);
  });

  it("passes uBPF's .data tests except the documented exclusions", () => {
    const r = suite('ubpf', engine);
    expect(r.length).toBeGreaterThan(40);
    const failures = r.filter((x) => !x.pass && !(x.file in EXCLUDED));
    expect(failures).toEqual([]);
    // Every exclusion still exists and still fails: the list cannot go stale silently.
    for (const f of Object.keys(EXCLUDED).filter((f) => !f.startsWith('ubpf/errors/'))) expect(r.find((x) => x.file === f)?.pass, f).toBe(false);
  });

  it("passes uBPF's error tests (programs that must be refused or fault) except the documented exclusions", () => {
    const r = suite('ubpf/errors', engine);
    expect(r.length).toBeGreaterThan(20);
    expect(r.filter((x) => !x.pass && !(x.file in EXCLUDED))).toEqual([]);
    for (const f of Object.keys(EXCLUDED).filter((f) => f.startsWith('ubpf/errors/'))) expect(r.find((x) => x.file === f)?.pass, f).toBe(false);
  });

  it('a wrong expected result fails (the runner can fail)', () => {
    const c = parseConformance('-- asm\nmov %r0, 3\nexit\n-- result\n0x4\n');
    expect('parseError' in c).toBe(false);
    expect(runConformance(c as Exclude<typeof c, { parseError: string }>, engine)).toEqual({ pass: false, detail: 'expected 0x4, got 0x3' });
  });
});
