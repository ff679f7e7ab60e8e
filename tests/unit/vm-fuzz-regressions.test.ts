/**
 * Replays every input the VM fuzz target ever kept (tests/fuzz/regressions/vm)
 * plus a short fuzz run: the JIT and the interpreter must agree, nothing may
 * escape the VM as an exception, no run may hang.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkVmInput, fuzzVm, REGRESSION_DIR, type VmFuzzInput } from '../fuzz/vm';

describe('VM fuzz target', () => {
  const files = readdirSync(REGRESSION_DIR).filter((f) => f.endsWith('.json'));
  it('has regression inputs to replay', () => expect(files.length).toBeGreaterThan(0));
  for (const f of files) {
    it(`replays ${f}`, () => {
      const input = JSON.parse(readFileSync(path.join(REGRESSION_DIR, f), 'utf8')) as VmFuzzInput;
      expect(checkVmInput(input).failure).toBeUndefined();
    });
  }

  it('a short run (5 s) finds nothing', { timeout: 60_000 }, () => {
    const rep = fuzzVm({ seconds: 5, seed: 424242, save: false });
    expect(rep.inputs).toBeGreaterThan(20);
    expect(rep.jitted).toBeGreaterThan(0);
    expect(rep.failures).toEqual([]);
  });
});
