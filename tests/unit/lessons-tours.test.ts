/**
 * The tours' checks run on engine state without the UI: a step is not done
 * before the learner acts (issue 18: lesson 1 step 1 was ticked at once),
 * and is done once what it names really happened in the simulator.
 */
import { describe, expect, it } from 'vitest';
import { createEngine, landedToolchain, type SimSnapshot } from '../../src/engine';
import { exampleById } from '../../src/examples';
import { LESSONS, stepDone, type TourState } from '../../src/lessons/tours';

function state(e: ReturnType<typeof createEngine>, sim: SimSnapshot | null, over: Partial<TourState> = {}): TourState {
  return { build: e.session.currentBuild(), sim, exampleName: 'xdp1', running: false, tab: 'disasm', ...over };
}

describe('tours on engine state', () => {
  const lesson = LESSONS.find((l) => l.id === 'first-program')!;

  it('lesson 1 step 1 is not ticked while nobody did anything, even with xdp1 already dropping', () => {
    const e = createEngine(landedToolchain);
    e.build(exampleById('xdp1')!.source);
    const r = e.simStep('packet', 20_000);
    if (!r.ok) throw new Error(r.reason);
    const s = state(e, r.snapshot);
    expect(stepDone(lesson.steps[0]!, s, s, false)).toBe(false);
    const later = e.simStep('packet', 20_000);
    if (!later.ok) throw new Error(later.reason);
    // Time passing is not the learner acting.
    expect(stepDone(lesson.steps[0]!, state(e, later.snapshot), s, false)).toBe(false);
    // After its set-up ran: 10,000 more drops tick it.
    expect(stepDone(lesson.steps[0]!, state(e, later.snapshot), s, true)).toBe(true);
  });

  it('lesson 1 step 3 holds of the simulator: pages reused, no cache misses, as its text says', () => {
    const e = createEngine(landedToolchain);
    e.build(exampleById('xdp1')!.source);
    const a = e.simStep('packet', 2_000);
    const b = e.simStep('packet', 20_000);
    if (!a.ok || !b.ok) throw new Error('sim');
    expect(stepDone(lesson.steps[2]!, state(e, b.snapshot), state(e, a.snapshot), false)).toBe(true);
    expect(lesson.steps[2]!.look).not.toMatch(/stays high/);
    // With the page cache off the same check fails: the cache no longer serves the refill.
    const off = createEngine(landedToolchain);
    off.simConfigure({ driver: { pageCache: false } });
    off.build(exampleById('xdp1')!.source);
    const c = off.simStep('packet', 2_000);
    const d = off.simStep('packet', 20_000);
    if (!c.ok || !d.ok) throw new Error('sim');
    expect(stepDone(lesson.steps[2]!, state(off, d.snapshot), state(off, c.snapshot), false)).toBe(false);
  });

  it('lesson 1 names the map key the way the Maps pane shows it, not as "0x11"', () => {
    expect(lesson.steps[1]!.look).not.toContain('0x11');
    expect(lesson.steps[1]!.look).toContain('11 00 00 00');
  });
});
