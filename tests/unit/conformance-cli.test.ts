/**
 * `xdp-lab conformance` over a whole folder: every file gets an outcome, and
 * a file the runner cannot handle is a reported failure, never a crash
 * (bpf_conformance's negative folder writes -- raw as space-separated bytes).
 */
import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { run } from '../../src/cli/commands/conformance';

async function cli(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await run(args, { out: (s: string) => void (out += s), err: (s: string) => void (err += s) } );
  return { code, out, err };
}

const NEGATIVE = path.resolve(__dirname, '../../../shared/conformance/bpf_conformance/negative');

describe('xdp-lab conformance', () => {
  it('reads -- raw written as 8 bytes a line', async () => {
    const d = mkdtempSync(path.join(tmpdir(), 'xdp-lab-conf-'));
    // r0 = 7 (b7 00 00 00 07 00 00 00); exit
    writeFileSync(path.join(d, 'bytes.data'), '-- raw\nb7 00 00 00 07 00 00 00\n95 00 00 00 00 00 00 00\n-- result\n0x7\n');
    // add64_imm with a non-zero offset: the unused field must be zero
    writeFileSync(path.join(d, 'unused.data'), '-- raw\n07 00 01 00 01 00 00 00\n95 00 00 00 00 00 00 00\n-- error\n');
    writeFileSync(path.join(d, 'garbage.data'), '-- raw\nzz 0f\n-- result\n0x1\n');
    const r = await cli(d, '--verbose');
    expect(r.out).toBe("ok   bytes.data\nok   unused.data: rejected as expected\nFAIL garbage.data: bad -- raw word 'zz'\n2 passed, 1 failed\n");
  });

  it("runs bpf_conformance's negative folder whole: every file has an outcome, none an internal error", async () => {
    const files = readdirSync(NEGATIVE).filter((f) => f.endsWith('.data'));
    const r = await cli(NEGATIVE, '--json');
    const j = JSON.parse(r.out) as { passed: number; failed: unknown[]; files: { file: string; pass: boolean; detail: string }[] };
    expect(j.files.map((f) => f.file).sort()).toEqual(files.sort());
    expect(j.passed + j.failed.length).toBe(files.length);
    expect(j.files.filter((f) => /internal error|BigInt/.test(f.detail))).toEqual([]);
    // The unused-field tests are rejections the validator must make, except where the kernel
    // (our reference) disagrees with bpf_conformance: Linux checks an exit's src, dst and imm but
    // not its off, and loads and runs such an exit (tests/differential/vm-objects.test.ts).
    const unused = j.files.filter((f) => f.file.startsWith('unused-'));
    expect(unused.length).toBeGreaterThan(10);
    expect(unused.filter((f) => !f.pass).map((f) => f.file)).toEqual(['unused-exit-offset.data']);
  });
});
