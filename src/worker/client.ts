/**
 * EngineClient: the UI's typed proxy for the engine worker. Calls return
 * promises of the engine's own result types. A worker that crashes or stops
 * answering is replaced by a fresh one (the caller is told through
 * onRestart, so it can re-send the program; nothing typed lives in the
 * worker, so nothing typed is lost).
 */
import type { EngineEvent } from '../engine/api';
import { CALL_TIMEOUT_MS, type Args, type FromWorker, type Method, type Request, type Result } from './protocol';

export type WorkerFactory = () => Worker;

interface Pending {
  resolve: (v: unknown) => void;
  reject: (e: Error) => void;
  timer: ReturnType<typeof setTimeout>;
}

export class EngineClient {
  private worker!: Worker;
  private nextId = 1;
  private pending = new Map<number, Pending>();
  private readyWaiters: (() => void)[] = [];
  private isReady = false;
  onEvent: (e: EngineEvent) => void = () => {};
  onRestart: (reason: string) => void = () => {};

  constructor(private readonly factory: WorkerFactory, private readonly timeoutMs = CALL_TIMEOUT_MS) {
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
    return new Promise<Result<M>>((resolve, reject) => {
      const timer = setTimeout(() => this.restart(`the engine did not answer '${method}' within ${this.timeoutMs / 1000} s`), this.timeoutMs);
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject, timer });
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
