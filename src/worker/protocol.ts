/**
 * The one typed protocol between the UI thread and the engine worker.
 * Requests are calls of WorkerApi methods: the engine's own API plus the
 * few things only the worker host can do (run the simulation against the
 * wall clock). Responses answer them by id; events are pushed unasked
 * (snapshots ≤ 60 Hz, run state, printk lines).
 */
import type { EngineApi, EngineEvent, Speed } from '../engine/api';

/** What the worker host adds to the engine. */
export interface HostApi {
  /** Start or pause the free-running simulation, at `speed`. */
  setRun(running: boolean, speed: Speed): { running: boolean; speed: Speed };
  /** Let a full-speed run take at most `share` of the wall clock for at most `forMs` (share 1: all of it again). */
  setRunShare(share: number, forMs: number): void;
}

export type WorkerApi = EngineApi & HostApi;
export type Method = keyof WorkerApi;
export type Args<M extends Method> = Parameters<WorkerApi[M]>;
export type Result<M extends Method> = ReturnType<WorkerApi[M]>;

/** UI → worker. */
export type Request = { [M in Method]: { kind: 'request'; id: number; method: M; args: Args<M> } }[Method];

/** Worker → UI: the answer to one request. */
export type Response =
  | { kind: 'response'; id: number; ok: true; result: unknown }
  | { kind: 'response'; id: number; ok: false; error: string };

/** Worker → UI, unasked. */
export type EventMessage = { kind: 'event'; event: EngineEvent };

/** Worker → UI: the worker's script has loaded and is listening. */
export type ReadyMessage = { kind: 'ready' };

export type FromWorker = Response | EventMessage | ReadyMessage;
export type ToWorker = Request;

/** Calls slower than this are treated as a runaway worker and it is restarted. */
export const CALL_TIMEOUT_MS = 10_000;

/**
 * Building runs the verifier, which may legitimately walk its whole budget of
 * 1M instructions (a `while (1)` loop: 5–15 s on a slow machine) before it
 * rejects; such a call gets this long, and calls queued behind it wait with it.
 */
export const BUILD_TIMEOUT_MS = 120_000;
export const SLOW_METHODS: ReadonlySet<string> = new Set(['build', 'check']);
