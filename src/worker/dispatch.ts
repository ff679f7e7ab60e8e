/**
 * Routes one Request to an EngineApi and wraps the outcome as a Response.
 * Separate from worker.ts so tests run it without a Worker. An exception in
 * the engine becomes an error response with one line, never a dead worker.
 */
import type { EngineApi } from '../engine/api';
import type { HostApi, Request, Response } from './protocol';

/** `api` is the worker's full surface; tests may pass the bare engine. */
export function dispatch(api: EngineApi & Partial<HostApi>, req: Request): Response {
  const fn = api[req.method] as ((...a: unknown[]) => unknown) | undefined;
  if (typeof fn !== 'function') return { kind: 'response', id: req.id, ok: false, error: `unknown method '${String(req.method)}'` };
  try {
    return { kind: 'response', id: req.id, ok: true, result: fn.apply(api, req.args as unknown[]) };
  } catch (e) {
    return { kind: 'response', id: req.id, ok: false, error: (e as Error)?.message ?? String(e) };
  }
}
