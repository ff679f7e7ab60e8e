/**
 * The engine worker's entry: one Session behind the protocol. Everything
 * heavy (compile, verify, simulate) happens here so the UI thread only draws.
 */
/// <reference lib="webworker" />
import { createEngine, landedToolchain } from '../engine';
import { dispatch } from './dispatch';
import type { FromWorker, ToWorker } from './protocol';

const scope = self as unknown as DedicatedWorkerGlobalScope;
const engine = createEngine(landedToolchain);

function post(msg: FromWorker): void {
  scope.postMessage(msg);
}

scope.onmessage = (e: MessageEvent<ToWorker>) => {
  post(dispatch(engine, e.data));
};

post({ kind: 'ready' });
