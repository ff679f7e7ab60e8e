/**
 * The fuzz suite's CI run: every target on the same 60 inputs of a fixed
 * seed (nothing saved; a count, not a time, so a loaded machine runs the
 * same inputs), and every kept regression input replayed; any failure or
 * hang fails the test. Vitest runs this beside other test files on 2 cores,
 * so a hang here is 3× the target's own budget (`npm run fuzz` uses 1×):
 * verifier-361409723-13731.json took 7.4 s of its 10 s beside other files.
 */
import { describe, expect, it } from 'vitest';
import { fuzzTarget, regressionFiles, replay } from './runner';
import { TARGETS } from './targets';

const SLACK = 3;

describe('fuzz suite', () => {
  for (const t of TARGETS) {
    it(`${t.name}: a short seeded run finds nothing`, { timeout: 180_000 }, async () => {
      const rep = await fuzzTarget(t, { seconds: 90, maxInputs: 60, seed: 20261203, save: false, slack: SLACK });
      expect(rep.inputs).toBe(60);
      expect(rep.ok + rep.expected).toBe(rep.inputs);
      expect(rep.found).toEqual([]);
    });
    for (const f of regressionFiles(t)) {
      it(`${t.name}: replays ${f.split('/').pop()}`, { timeout: 120_000 }, async () => {
        const r = await replay(t, f, SLACK);
        expect(r.outcome.kind === 'failure' ? r.outcome.why : 'ok').toBe('ok');
        expect(r.hang).toBe(false);
      });
    }
  }
});
