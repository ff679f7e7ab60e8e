/**
 * The kernel verifier selftests the oracle cannot load (they use
 * map-in-maps, which bpf-oracle cannot create), checked against the
 * verdicts their sources state instead: test_loader's reading of
 * bpf_misc.h's tags in the object's BTF (__success / __failure; every
 * __msg must appear in the verifier log, in order). Loaded as XDP and
 * privileged, as verifier-selftests.test.ts loads the rest.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { parseSpec } from '../../src/isa/spec';
import { verify } from '../../src/verifier';
import { ensureSelftests, loadSelftests, type AnnotatedCase } from './verifier-selftests';

/** Where XDP Lab refuses what the kernel accepts, each for a reason the suite documents. */
const OVER_STRICT: Record<string, string> = {
  'verifier_map_in_map/map_ptr_is_never_null_rb': 'bpf_ringbuf_reserve_dynptr: dynptrs are not modelled',
};

/** test_loader's validate_msgs: each expected message found after the previous one. */
function missingMsgs(log: string, msgs: string[]): string[] {
  let from = 0;
  const missing: string[] = [];
  for (const m of msgs) {
    const at = log.indexOf(m, from);
    if (at < 0) missing.push(m);
    else from = at + m.length;
  }
  return missing;
}

describe('the kernel selftests with map-in-maps, against the verdicts their sources state', () => {
  let cases: AnnotatedCase[] = [];
  beforeAll(() => {
    const why = ensureSelftests();
    if (why) throw new Error(why);
    cases = loadSelftests().annotated;
  }, 20 * 60_000);

  it('loads verifier_map_in_map.c\'s programs (and the map-in-map ones of other files)', () => {
    expect(cases.filter((c) => c.name.startsWith('verifier_map_in_map/')).length).toBeGreaterThanOrEqual(9);
  });

  it('gives each the stated verdict, and the stated messages in the log', () => {
    const diffs: string[] = [];
    for (const c of cases) {
      const p = parseSpec(c.spec);
      if ('error' in p) {
        diffs.push(`${c.name}: spec: ${p.error}`);
        continue;
      }
      const v = verify(p, { logLevel: c.expect.logLevel >= 2 ? 2 : 1, states: false });
      if (v.accepted !== c.expect.accepted) {
        if (c.expect.accepted && OVER_STRICT[c.name]) continue;
        diffs.push(`${c.name}: the selftest ${c.expect.accepted ? 'accepts' : 'rejects'}, ours ${v.accepted ? 'accepts' : `rejects "${v.error}"`}`);
        continue;
      }
      const missing = missingMsgs(v.log, c.expect.msgs);
      if (missing.length) diffs.push(`${c.name}: not in our log: ${missing.map((m) => `"${m}"`).join(', ')}`);
    }
    expect(diffs, diffs.join('\n')).toEqual([]);
  });

  it('its over-strict list holds only cases that still are', () => {
    for (const name of Object.keys(OVER_STRICT)) {
      const c = cases.find((x) => x.name === name);
      expect(c, name).toBeDefined();
      const p = parseSpec(c!.spec);
      if ('error' in p) throw new Error(p.error);
      expect(verify(p, { logLevel: 0, states: false }).accepted, name).toBe(false);
    }
  });
});
