/**
 * EngineClient: the UI's typed proxy for the engine worker. Calls return
 * promises of the engine's own result types. A worker that crashes or stops
 * answering is replaced by a fresh one (the caller is told through
 * onRestart, so it can re-send the program; nothing typed lives in the
 * worker, so nothing typed is lost).
 */
import type { EngineEvent } from '../engine/api';
import { BUILD_TIMEOUT_MS, CALL_TIMEOUT_MS, SLOW_METHODS, type Args, type FromWorker, type Method, type Request, type Result } from './protocol';

export type WorkerFactory = () => Worker;

interface Pending {
  resolve: (v: unknown) => void;
  reject: (e: Error) => void;
  timer: ReturnType<typeof setTimeout>;
  /** A build or check (see SLOW_METHODS): the worker may be busy verifying for a long time. */
  slow: boolean;
  /** When it was sent, and its place in the worker's queue. */
  sent: number;
  id: number;
}

export class EngineClient {
  private worker!: Worker;
  private nextId = 1;
  private pending = new Map<number, Pending>();
  private readyWaiters: (() => void)[] = [];
  private isReady = false;
  onEvent: (e: EngineEvent) => void = () => {};
  onRestart: (reason: string) => void = () => {};

  constructor(private readonly factory: WorkerFactory, private readonly timeoutMs = CALL_TIMEOUT_MS, private readonly slowTimeoutMs = BUILD_TIMEOUT_MS) {
    this.spawn();
  }

  private spawn(): void {
    this.isReady = false;
    this.worker = this.factory();
    this.worker.onmessage = (e: MessageEvent<FromWorker>) => this.receive(e.data);
    this.worker.onerror = (e: ErrorEvent) => {
      e.preventDefault();
      this.restart(`the engine crashed (${e.message || 'worker error'})`);
    };
  }

  private receive(msg: FromWorker): void {
    if (msg.kind === 'ready') {
      this.isReady = true;
      for (const w of this.readyWaiters.splice(0)) w();
    } else if (msg.kind === 'event') {
      this.onEvent(msg.event);
    } else {
      const p = this.pending.get(msg.id);
      if (!p) return;
      this.pending.delete(msg.id);
      clearTimeout(p.timer);
      if (msg.ok) p.resolve(msg.result);
      else p.reject(new Error(msg.error));
    }
  }

  /** Resolves once the worker has loaded. */
  ready(): Promise<void> {
    return this.isReady ? Promise.resolve() : new Promise((r) => this.readyWaiters.push(r));
  }

  call<M extends Method>(method: M, ...args: Args<M>): Promise<Result<M>> {
    const id = this.nextId++;
    const slow = SLOW_METHODS.has(method);
    return new Promise<Result<M>>((resolve, reject) => {
      const p: Pending = { resolve: resolve as (v: unknown) => void, reject, timer: setTimeout(() => {}, 0), slow, sent: Date.now(), id };
      const arm = (ms: number) => {
        clearTimeout(p.timer);
        p.timer = setTimeout(() => {
          // Calls are answered in order: one queued behind a build still verifying waits while that build is within its budget.
          const busy = [...this.pending.values()].find((q) => q.slow && q.id < p.id && Date.now() - q.sent < this.slowTimeoutMs);
          if (busy) arm(this.slowTimeoutMs - (Date.now() - busy.sent) + 5); // just after the build's own deadline
          else this.restart(`the engine did not answer '${method}' within ${(slow ? this.slowTimeoutMs : this.timeoutMs) / 1000} s`);
        }, ms);
      };
      arm(slow ? this.slowTimeoutMs : this.timeoutMs);
      this.pending.set(id, p);
      this.worker.postMessage({ kind: 'request', id, method, args } as Request);
    });
  }

  /** Replace the worker; every outstanding call fails with `reason`. */
  restart(reason: string): void {
    this.worker.terminate();
    for (const [, p] of this.pending) {
      clearTimeout(p.timer);
      p.reject(new Error(reason));
    }
    this.pending.clear();
    this.spawn();
    this.onRestart(reason);
  }

  dispose(): void {
    this.worker.terminate();
    for (const [, p] of this.pending) clearTimeout(p.timer);
    this.pending.clear();
  }
}
