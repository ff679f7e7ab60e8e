/**
 * The running program's hot path (src/engine/hotPath.ts): instruction counts
 * over the frames the attached program ran last, re-run on map copies, so
 * asking changes nothing in the running machine.
 */
import { describe, expect, it } from 'vitest';
import { createEngine, landedToolchain } from '../../src/engine';

describe('hot path', () => {
  it('counts, per instruction, the last frames xdp1 ran: the entry once per frame, only the paths taken', () => {
    const e = createEngine(landedToolchain);
    e.build(e.hello().examples[0]!.source);
    expect(e.hotPath()).toEqual({ error: 'the program has not run yet: run or step the simulation first' });
    const r = e.simStep('event', 20_000);
    if (!r.ok) throw new Error('the simulation did not run');
    const mapsBefore = JSON.stringify(e.mapsRead());
    const h = e.hotPath();
    if ('error' in h) throw new Error(h.error);
    expect(h.runs).toBe(256); // the inspector's kept frames
    expect(h.total).toBeGreaterThan(256);
    expect(h.counts[0]).toBe(256);
    // The default traffic is one UDP/IPv4 flow: some instructions never run (IPv6 and VLAN parsing).
    expect([...h.counts].filter((c) => c === 0).length).toBeGreaterThan(0);
    expect(Math.max(...h.counts)).toBeGreaterThanOrEqual(256);
    // Asking changed nothing: the live maps are as they were.
    expect(JSON.stringify(e.mapsRead())).toBe(mapsBefore);
  });

  it('says why there is none without a program', () => {
    const e = createEngine(landedToolchain);
    e.build('int x;');
    const h = e.hotPath();
    expect('error' in h && h.error).toMatch(/^no program is attached/);
  });
});
