/**
 * The explanation's bridge to the editor loads Monaco only when it has
 * something to show: the bar mounts with the app and clears on every
 * accepted build, and loading the editor's 3 MB there would start its
 * compile during the simulation's first frames (App defers the editor).
 */
import { beforeEach, describe, expect, it, vi } from 'vitest';

const loaded = vi.hoisted(() => ({ count: 0, set: [] as unknown[] }));
vi.mock('../../src/ui/editor/monaco', () => {
  loaded.count++;
  const collection = { set: (d: unknown[]) => void loaded.set.push(d) };
  const editor = { createDecorationsCollection: () => collection, layout: () => {}, revealLineInCenterIfOutsideViewport: () => {} };
  class Range {
    constructor(readonly a: number, readonly b: number, readonly c: number, readonly d: number) {}
  }
  return { monaco: { editor: { getEditors: () => [editor] }, Range } };
});

describe('explain → editor bridge', () => {
  beforeEach(() => vi.stubGlobal('requestAnimationFrame', (f: () => void) => f()));

  it('clearing before anything was highlighted does not load Monaco; a highlight does, and a later clear reaches the editor', async () => {
    const { highlight } = await import('../../src/ui/explain/editorBridge');
    await highlight([], null);
    await highlight([], null);
    expect(loaded.count).toBe(0);
    await highlight([3, 4], 5);
    expect(loaded.count).toBe(1);
    expect(loaded.set).toHaveLength(1);
    await highlight([], null);
    expect(loaded.set).toHaveLength(2);
    expect(loaded.set.at(-1)).toEqual([]);
  });
});
