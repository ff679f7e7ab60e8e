/**
 * The verifier case suite against the running kernel: every case in
 * tests/cases/verifier/*.cases through our verifier and through the kernel
 * (bpf-oracle). Verdicts must agree on every case; the first error line
 * (register ids ignored) should match on at least 90% of the rejected ones.
 * Each case's recorded expectation is also checked against the kernel, so
 * a case that stops testing what it says fails here.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { assemble } from '../../src/isa/asm';
import { parseSpec } from '../../src/isa/spec';
import { verify } from '../../src/verifier';
import { kernelFirstErrorLine, loadCases, normalizeErrorLine } from '../cases/verifier/load';
import { Oracle, oracleAvailable } from './oracle';

const cases = loadCases(assemble);
const avail = oracleAvailable();

describe.skipIf(!avail.ok)('verifier cases vs the kernel', () => {
  const oracle = new Oracle();
  afterAll(() => oracle.close());

  it(`has at least 150 cases (${cases.length})`, () => {
    expect(cases.length).toBeGreaterThanOrEqual(150);
  });

  it('agrees with the kernel on every verdict; first error lines mostly match', async () => {
    const verdictMismatch: string[] = [];
    const expectationMismatch: string[] = [];
    const lineMismatch: string[] = [];
    let rejected = 0;
    for (const c of cases) {
      const k = await oracle.ask({ ...c.spec, log_level: 1 } as never);
      const p = parseSpec(c.spec);
      if ('error' in p) throw new Error(`${c.name}: ${p.error}`);
      const ours = verify(p, { logLevel: 1 });
      const kLine = normalizeErrorLine(kernelFirstErrorLine(k.verifier_log));
      const oLine = normalizeErrorLine(ours.error);
      if (k.accepted !== ours.accepted) {
        verdictMismatch.push(`[${c.file}] ${c.name}: kernel ${k.accepted ? 'accepts' : `rejects "${kLine}"`}, ours ${ours.accepted ? 'accepts' : `rejects "${oLine}"`}`);
      }
      const expOk = c.expectAccept === k.accepted && (k.accepted || !c.expectError || normalizeErrorLine(c.expectError) === kLine);
      if (!expOk) expectationMismatch.push(`[${c.file}] ${c.name}: kernel ${k.accepted} "${kLine}"`);
      if (!k.accepted) {
        rejected++;
        if (kLine !== oLine) lineMismatch.push(`[${c.file}] ${c.name}: kernel "${kLine}" ours "${oLine}"`);
      }
    }
    const rate = rejected ? (rejected - lineMismatch.length) / rejected : 1;
    console.log(
      `verifier cases: ${cases.length} cases, verdicts agree ${cases.length - verdictMismatch.length}/${cases.length}, ` +
        `first error line matches ${rejected - lineMismatch.length}/${rejected} (${(rate * 100).toFixed(1)}%)`,
    );
    if (lineMismatch.length) console.log(lineMismatch.join('\n'));
    expect(verdictMismatch, verdictMismatch.join('\n')).toEqual([]);
    expect(expectationMismatch, expectationMismatch.join('\n')).toEqual([]);
    expect(rate).toBeGreaterThanOrEqual(0.9);
  }, 120_000);
});

describe('verifier cases (every case has an expectation)', () => {
  it('parses and records an expected verdict for every case', () => {
    for (const c of cases) {
      expect(typeof c.expectAccept).toBe('boolean');
      const p = parseSpec(c.spec);
      expect('error' in p, c.name).toBe(false);
    }
  });
});
