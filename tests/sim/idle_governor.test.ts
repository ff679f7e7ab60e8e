/**
 * The idle governor (Machine.chargeIdle): it cannot know how long the CPU
 * will idle, so like the menu governor it predicts from the recent
 * stretches, and a mispredicted stretch is spent whole in the state it
 * picked. The tolerance arithmetic of the published-figures check.
 */
import { describe, expect, it } from 'vitest';
import { Machine, IDLE_HISTORY } from '../../src/sim/machine';
import { resolveConfig, SEED2016_E5 } from '../../src/sim';
import { compareToPublished } from '../../src/sim/published';

describe('idle governor', () => {
  const m = new Machine(resolveConfig({ hw: SEED2016_E5.name, traffic: { linkGbps: 40, sources: [{ ratePps: 1e6, frameLen: 60 }] } }));
  const cut = SEED2016_E5.pollIdleNs * m.cyclesPerNs;
  const idle = (cpu = m.cpus[0]!) => ({ poll: cpu.sym[m.pollIdleSym]!, intel: cpu.sym[m.idleSym]! });

  it('with no history predicts a long stretch (intel_idle), then follows the recent mean', () => {
    const cpu = m.cpus[0]!;
    let t = 0;
    m.chargeIdle(cpu, t, (t += cut / 4));
    expect(idle(cpu)).toEqual({ poll: 0, intel: cut / 4 });
    for (let i = 0; i < IDLE_HISTORY; i++) m.chargeIdle(cpu, t, (t += cut / 4));
    const before = idle(cpu);
    // Eight short stretches in the history: a long one is mispredicted and spent whole in poll_idle.
    m.chargeIdle(cpu, t, (t += 10 * cut));
    expect(idle(cpu).poll - before.poll).toBe(10 * cut);
    expect(idle(cpu).intel).toBe(before.intel);
    // Now the mean is long: the next (short) stretch goes to intel_idle.
    m.chargeIdle(cpu, t, (t += cut / 4));
    expect(idle(cpu).intel - before.intel).toBe(cut / 4);
  });
});

describe('compareToPublished', () => {
  const s = { name: 'x', published: { rate_pps: 1e6, profiles: [{ source: 'p', symbols: { big: 40, small: 1 } }] } };
  it('rates within ±10%, symbols within ±max(2 points, 25%); a missing symbol counts as 0%', () => {
    const f = compareToPublished(s, { rate_pps: 1.09e6, profile: [{ symbol: 'big', percent: 50.5 }] });
    expect(f.map((x) => [x.figure, x.ok, x.tolerance])).toEqual([
      ['rate', true, 1e5],
      ['big', false, 10],
      ['small', true, 2],
    ]);
    expect(compareToPublished(s, { rate_pps: 0.89e6, profile: [{ symbol: 'big', percent: 30 }, { symbol: 'small', percent: 3.5 }] }).map((x) => x.ok)).toEqual([false, true, false]);
  });
});
