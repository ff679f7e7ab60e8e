/**
 * The worker boundary without a Worker: requests routed by dispatch() reach
 * the same engine the UI uses, and failures come back as one-line errors.
 */
import { describe, expect, it } from 'vitest';
import { createEngine, landedToolchain, type Toolchain } from '../../src/engine';
import { dispatch } from '../../src/worker/dispatch';
import type { Request } from '../../src/worker/protocol';

describe('worker dispatch', () => {
  it('answers hello with the examples, matching the id', () => {
    const engine = createEngine(landedToolchain);
    const res = dispatch(engine, { kind: 'request', id: 7, method: 'hello', args: [] });
    expect(res.id).toBe(7);
    expect(res.ok).toBe(true);
    if (!res.ok) return;
    const r = res.result as ReturnType<typeof engine.hello>;
    expect(r.examples.length).toBeGreaterThan(0);
    expect(r.examples[0]!.source).toContain('SEC("xdp")');
  });

  it('turns an engine exception into an error response, not a dead worker', () => {
    const tc: Toolchain = { ...landedToolchain, compile: () => { throw new Error('boom'); } };
    const engine = createEngine(tc);
    engine.build = () => { throw new Error('kaput'); };
    const res = dispatch(engine, { kind: 'request', id: 1, method: 'build', args: ['int x;'] });
    expect(res).toEqual({ kind: 'response', id: 1, ok: false, error: 'kaput' });
  });

  it('rejects an unknown method by name', () => {
    const engine = createEngine(landedToolchain);
    const res = dispatch(engine, { kind: 'request', id: 2, method: 'nope', args: [] } as unknown as Request);
    expect(res).toEqual({ kind: 'response', id: 2, ok: false, error: "unknown method 'nope'" });
  });
});
