/**
 * EngineClient against a Worker stand-in that runs the real dispatch(): typed
 * calls resolve with the engine's answers, and a crashed or silent worker is
 * replaced, outstanding calls fail with the reason, and the caller is told.
 */
import { describe, expect, it } from 'vitest';
import { createEngine, landedToolchain } from '../../src/engine';
import { EngineClient } from '../../src/worker/client';
import { dispatch } from '../../src/worker/dispatch';
import type { FromWorker, Request } from '../../src/worker/protocol';

/** Enough of the Worker interface for EngineClient; answers via the real dispatch. */
class LoopbackWorker {
  onmessage: ((e: MessageEvent<FromWorker>) => void) | null = null;
  onerror: ((e: ErrorEvent) => void) | null = null;
  terminated = false;
  silent = false;
  private engine = createEngine(landedToolchain);
  constructor() {
    queueMicrotask(() => this.emit({ kind: 'ready' }));
  }
  postMessage(req: Request): void {
    if (this.silent || this.terminated) return;
    queueMicrotask(() => this.emit(dispatch(this.engine, structuredClone(req))));
  }
  terminate(): void {
    this.terminated = true;
  }
  crash(message: string): void {
    this.onerror?.({ message, preventDefault() {} } as ErrorEvent);
  }
  private emit(m: FromWorker): void {
    if (!this.terminated) this.onmessage?.({ data: structuredClone(m) } as MessageEvent<FromWorker>);
  }
}

function client(timeoutMs = 10_000, slowTimeoutMs = 120_000) {
  const workers: LoopbackWorker[] = [];
  const c = new EngineClient(() => {
    const w = new LoopbackWorker();
    workers.push(w);
    return w as unknown as Worker;
  }, timeoutMs, slowTimeoutMs);
  const restarts: string[] = [];
  c.onRestart = (r) => restarts.push(r);
  return { c, workers, restarts };
}

describe('EngineClient', () => {
  it('waits for ready and returns typed results', async () => {
    const { c } = client();
    await c.ready();
    const hello = await c.call('hello');
    expect(hello.examples[0]!.name).toBeTruthy();
    const b = await c.call('build', 'int x;');
    expect(b.seq).toBe(1);
  });

  it('replaces a crashed worker and fails its pending calls with the reason', async () => {
    const { c, workers, restarts } = client();
    await c.ready();
    workers[0]!.silent = true;
    const pending = c.call('build', 'x');
    workers[0]!.crash('out of memory');
    await expect(pending).rejects.toThrow('the engine crashed (out of memory)');
    expect(workers[0]!.terminated).toBe(true);
    expect(workers).toHaveLength(2);
    expect(restarts).toEqual(['the engine crashed (out of memory)']);
    await c.ready();
    expect((await c.call('build', 'y')).seq).toBe(1); // a fresh engine
  });

  it('restarts a worker that stops answering', async () => {
    const { c, workers, restarts } = client(30);
    await c.ready();
    workers[0]!.silent = true;
    await expect(c.call('hello')).rejects.toThrow("the engine did not answer 'hello' within 0.03 s");
    expect(restarts).toHaveLength(1);
    await c.ready();
    expect((await c.call('hello')).examples.length).toBeGreaterThan(0);
  });

  it('gives a build the verifier\'s long budget, and calls queued behind it wait with it', async () => {
    // Before: every call had 10 s, so a `while (1)` program still being verified restarted the engine.
    const { c, workers, restarts } = client(30, 400);
    await c.ready();
    workers[0]!.silent = true;
    const build = c.call('build', 'x');
    const maps = c.call('mapsRead');
    let settled = false;
    void Promise.allSettled([build, maps]).then(() => (settled = true));
    await new Promise((r) => setTimeout(r, 150));
    expect(settled).toBe(false); // 5× the ordinary budget, and neither has given up
    expect(restarts).toEqual([]);
    await expect(build).rejects.toThrow("the engine did not answer 'build' within 0.4 s");
    await expect(maps).rejects.toThrow("the engine did not answer 'build' within 0.4 s");
    expect(restarts).toHaveLength(1);
  });
});
