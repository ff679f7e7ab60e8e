/**
 * The one typed protocol between the UI thread and the engine worker.
 * Requests are calls of EngineApi methods (so the protocol cannot drift from
 * the engine), responses answer them by id, and events are pushed by the
 * worker unasked (snapshots, printk lines).
 */
import type { EngineApi, EngineEvent } from '../engine/api';

export type Method = keyof EngineApi;
export type Args<M extends Method> = Parameters<EngineApi[M]>;
export type Result<M extends Method> = ReturnType<EngineApi[M]>;

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
