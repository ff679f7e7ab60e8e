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
  // The model simulates the receiving CPU only; perf record -a also samples the other CPUs' idle entries.
  'seed000-xdp1-drop-nocache seed 000 patch 07 "Before" perf report (ksoftirqd/0 + swapper rows summed) intel_idle': 'every idle gap of the saturated rx CPU is predicted short (poll_idle)',
  'seed004-512-drop-skb rate rate': 'vmxnet3 skb mode at 512 B: the model is 12% slow (the 64 B rows and the other 512 B rows fit)',
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
