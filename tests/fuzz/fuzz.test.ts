/**
 * The fuzz suite's CI run: every target for a few seconds with a fixed
 * seed (nothing saved), and every kept regression input replayed; any
 * failure or hang fails the test.
 */
import { describe, expect, it } from 'vitest';
import { fuzzTarget, regressionFiles, replay } from './runner';
import { TARGETS } from './targets';

describe('fuzz suite', () => {
  for (const t of TARGETS) {
    it(`${t.name}: a short seeded run finds nothing`, { timeout: 120_000 }, async () => {
      const rep = await fuzzTarget(t, { seconds: 4, seed: 20261203, save: false });
      expect(rep.inputs).toBeGreaterThan(10);
      expect(rep.ok + rep.expected).toBe(rep.inputs);
      expect(rep.found).toEqual([]);
    });
    for (const f of regressionFiles(t)) {
      it(`${t.name}: replays ${f.split('/').pop()}`, async () => {
        const r = await replay(t, f);
        expect(r.outcome.kind === 'failure' ? r.outcome.why : 'ok').toBe('ok');
        expect(r.hang).toBe(false);
      });
    }
  }
});
