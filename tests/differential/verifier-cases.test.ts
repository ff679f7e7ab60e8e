/**
 * The verifier case suite (tests/cases/verifier/*.cases) in two halves:
 *
 * - offline: every case through our verifier, compared with the kernel's
 *   recorded answer (tests/cases/verifier/kernel-snapshot.json): verdict,
 *   first error line (register ids and addresses ignored) and processed
 *   instruction count must all be equal. Runs everywhere, no kernel needed.
 * - with the kernel (bpf-oracle): every recording is confirmed against the
 *   running kernel, and each case's own `expect:` line too, so a case that
 *   stops testing what it says fails. `XDP_LAB_UPDATE_SNAPSHOT=1` rewrites
 *   the recordings from the kernel instead of comparing.
 */
import { execSync } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { assemble } from '../../src/isa/asm';
import { parseSpec } from '../../src/isa/spec';
import { verify } from '../../src/verifier';
import { kernelFirstErrorLine, loadCases, normalizeErrorLine } from '../cases/verifier/load';
import { caseDigest, caseKey, readSnapshot, writeSnapshot, type KernelRecording } from '../cases/verifier/snapshot';
import { Oracle, oracleAvailable } from './oracle';

const cases = loadCases(assemble);
const snapshot = readSnapshot();
const updating = process.env.XDP_LAB_UPDATE_SNAPSHOT === '1';

describe('verifier cases against the recorded kernel answers (offline)', () => {
  it(`has at least 150 cases, each with a current recording (${cases.length})`, () => {
    expect(cases.length).toBeGreaterThanOrEqual(150);
    const stale = cases.filter((c) => snapshot.cases[caseKey(c)]?.digest !== caseDigest(c)).map(caseKey);
    if (!updating) expect(stale, 'no recording or a stale one (re-record with the oracle, XDP_LAB_UPDATE_SNAPSHOT=1)').toEqual([]);
    const names = new Set(cases.map(caseKey));
    expect(new Set(cases.map(caseKey)).size, 'case names are unique per file').toBe(cases.length);
    if (!updating) expect(Object.keys(snapshot.cases).filter((k) => !names.has(k)), 'recordings of removed cases').toEqual([]);
  });

  it('our verdict, first error line and processed-insn count equal the kernel recording on every case', () => {
    const diffs: string[] = [];
    let rejected = 0;
    for (const c of cases) {
      const rec = snapshot.cases[caseKey(c)];
      if (!rec || rec.digest !== caseDigest(c)) continue; // reported by the test above
      const p = parseSpec(c.spec);
      if ('error' in p) throw new Error(`${caseKey(c)}: ${p.error}`);
      const ours = verify(p, { logLevel: 1, states: false });
      if (!rec.accepted) rejected++;
      if (ours.accepted !== rec.accepted) {
        diffs.push(`${caseKey(c)}: kernel ${rec.accepted ? 'accepts' : `rejects "${rec.error}"`}, ours ${ours.accepted ? 'accepts' : `rejects "${ours.error}"`}`);
        continue;
      }
      if (!rec.accepted && normalizeErrorLine(ours.error) !== rec.error) diffs.push(`${caseKey(c)}: first line kernel "${rec.error}" ours "${normalizeErrorLine(ours.error)}"`);
      if (rec.insnsProcessed !== null && ours.insnsProcessed !== rec.insnsProcessed) diffs.push(`${caseKey(c)}: processed insns kernel ${rec.insnsProcessed} ours ${ours.insnsProcessed}`);
    }
    console.log(`verifier cases (offline, kernel ${snapshot.kernel}): ${cases.length} cases, ${rejected} rejections, ${diffs.length} differences`);
    expect(diffs, diffs.join('\n')).toEqual([]);
  });
});

const avail = oracleAvailable();

describe.skipIf(!avail.ok)('verifier cases: the kernel confirms the recordings', () => {
  const oracle = new Oracle();
  afterAll(() => oracle.close());

  it(updating ? 'records every case from the kernel' : 'the running kernel gives the recorded answer and each case\'s expect: line', async () => {
    const changed: string[] = [];
    const expectation: string[] = [];
    const fresh: Record<string, KernelRecording> = {};
    for (const c of cases) {
      const k = await oracle.ask({ ...c.spec, log_level: 1 } as never);
      const rec: KernelRecording = {
        digest: caseDigest(c),
        accepted: k.accepted,
        error: k.accepted ? '' : normalizeErrorLine(kernelFirstErrorLine(k.verifier_log)),
        insnsProcessed: k.insns_processed,
      };
      fresh[caseKey(c)] = rec;
      const old = snapshot.cases[caseKey(c)];
      if (JSON.stringify(old) !== JSON.stringify(rec)) changed.push(`${caseKey(c)}: recorded ${JSON.stringify(old)} kernel ${JSON.stringify(rec)}`);
      const expOk = c.expectAccept === k.accepted && (k.accepted || !c.expectError || normalizeErrorLine(c.expectError) === rec.error);
      if (!expOk) expectation.push(`${caseKey(c)}: expect ${c.expectAccept ? 'accept' : `reject ${c.expectError ?? ''}`}, kernel ${k.accepted ? 'accepts' : `rejects "${rec.error}"`}`);
    }
    if (updating) {
      writeSnapshot({ kernel: execSync('uname -r', { encoding: 'utf8' }).trim(), cases: fresh });
      console.log(`verifier cases: ${cases.length} recordings written`);
    } else {
      expect(changed, changed.join('\n')).toEqual([]);
    }
    expect(expectation, expectation.join('\n')).toEqual([]);
  }, 120_000);
});
