/**
 * The per-packet columns' element kinds (src/sim/column.ts): a cost-step
 * counter array holds doubles from the start and keeps them through the
 * increments (an add there then needs no small-integer overflow check).
 * Asked of V8 itself through its natives syntax, enabled for the functions
 * made below only.
 */
import { setFlagsFromString } from 'node:v8';
import { describe, expect, it } from 'vitest';
import { column, doubleColumn } from '../../src/sim/column';
import { Machine } from '../../src/sim/machine';
import { resolveConfig } from '../../src/sim/config';
import { findScenario } from '../../src/sim';

setFlagsFromString('--allow-natives-syntax');
const hasDoubleElements = new Function('a', 'return %HasDoubleElements(a)') as (a: unknown) => boolean;
const hasSmiElements = new Function('a', 'return %HasSmiElements(a)') as (a: unknown) => boolean;

describe('sim columns', () => {
  it('doubleColumn: zeros with double elements, kept through increments', () => {
    const c = doubleColumn(80);
    expect(c).toHaveLength(80);
    expect(c.every((v) => v === 0)).toBe(true);
    expect(hasDoubleElements(c)).toBe(true);
    for (let i = 0; i < 1000; i++) c[i % 80]! += 1;
    expect(hasDoubleElements(c)).toBe(true);
    expect(c.reduce((a, v) => a + v, 0)).toBe(1000);
    // The contrast: a column of integers is an array of small integers.
    expect(hasSmiElements(column(80, 0))).toBe(true);
    expect(hasDoubleElements(column(80, 0))).toBe(false);
  });

  it("each CPU's cost-step counts are a double column, exact after charges", () => {
    const m = new Machine(resolveConfig({ ...findScenario('seed000-xdp1-drop')!.config(), trace: false, keepTrace: false }));
    const cpu = m.cpus[0]!;
    expect(hasDoubleElements(cpu.stepTimes)).toBe(true);
    for (let i = 0; i < 500; i++) m.charge(cpu, 4);
    m.charge3(cpu, 6, 7, 26, 8, 1);
    expect(hasDoubleElements(cpu.stepTimes)).toBe(true);
    expect(cpu.stepTimes[4]).toBe(500);
    expect([cpu.stepTimes[6], cpu.stepTimes[7], cpu.stepTimes[8]]).toEqual([1, 26, 1]);
  });
});
