/**
 * Every figure the seeds publish next to the model's (issue 16): each
 * scenario's rate within ±10%, each symbol of each published perf profile
 * within ±max(2 points, 25%), one parameter set per hardware profile. The
 * table is printed (also `npx xdp-lab bench seeds`). Figures the model does
 * not reach yet are named below with the reason, and asserted to be still
 * outside, so fixing one means taking it off the list.
 */
import { describe, expect, it } from 'vitest';
import { runScenario, SCENARIOS } from '../../src/sim';
import { compareToPublished, formatFigure, seedWindow, type PublishedFigure } from '../../src/sim/published';
import { examplePrograms } from '../../src/engine/programs';

const KNOWN_GAPS: Record<string, string> = {
  // The seed's two reports of this one setup disagree: patch 06 has poll_idle 4.90% and intel_idle 1.33%,
  // patch 07's "Before" intel_idle 3.21% and poll_idle under its 2.57% cut-off. The model's nearly saturated
  // CPU idles only in short gaps the governor predicts short (poll_idle 4.3%, intel_idle 0): patch 06's split.
  'seed000-xdp1-drop-nocache seed 000 patch 07 "Before" perf report (ksoftirqd/0 + swapper rows summed) intel_idle': 'the model has no intel_idle in the saturated before-cache run',
};
const key = (f: PublishedFigure) => `${f.scenario} ${f.source} ${f.figure}`;

describe('published figures vs the model', () => {
  it('every rate within ±10% and every profile symbol within ±max(2 points, 25%)', () => {
    const figures = SCENARIOS.flatMap((s) => compareToPublished(s, runScenario(s, { programs: examplePrograms, packets: seedWindow(s) })));
    console.log(figures.map(formatFigure).join('\n'));
    // Every seed with a table is covered: 37 rates and the five seed 000 profiles.
    expect(figures.filter((f) => f.figure === 'rate')).toHaveLength(SCENARIOS.length);
    expect(new Set(figures.filter((f) => f.figure !== 'rate').map((f) => f.source)).size).toBe(5);
    for (const f of figures) {
      const gap = KNOWN_GAPS[key(f)];
      expect(f.ok, `${formatFigure(f)}${gap ? ` (listed as a known gap: ${gap}; it now fits, take it off the list)` : ''}`).toBe(gap === undefined);
    }
    expect(Object.keys(KNOWN_GAPS).every((k) => figures.some((f) => key(f) === k))).toBe(true);
  });
});
