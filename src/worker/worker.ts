/**
 * The engine worker's entry: one Session behind the protocol, and the run
 * loop that drives the simulation against the wall clock. Everything heavy
 * (compile, verify, simulate) happens here so the UI thread only draws.
 */
/// <reference lib="webworker" />
import { createEngine, landedToolchain } from '../engine';
import { dispatch } from './dispatch';
import { RunLoop } from './runLoop';
import { prepareSystemHeaders } from './systemHeaders';
import type { FromWorker, ToWorker, WorkerApi } from './protocol';

const scope = self as unknown as DedicatedWorkerGlobalScope;

function post(msg: FromWorker): void {
  scope.postMessage(msg);
}

const engine = createEngine(landedToolchain);
const loop = new RunLoop(engine, {
  now: () => performance.now(),
  schedule: (fn, ms) => void setTimeout(fn, ms),
  post: (event) => post({ kind: 'event', event }),
});

// Calls that change the machine also push a fresh snapshot, so every view
// (not only the caller) follows a step, reset or rebuild.
const CHANGES_MACHINE = new Set(['build', 'attach', 'simStep', 'simStepBack', 'simReset', 'simConfigure', 'simLoadPcap']);

const api: WorkerApi = {
  ...engine,
  setRun: (running, speed) => loop.set(running, speed),
  setRunShare: (share, forMs) => loop.setShare(share, forMs),
};

function handle(msg: ToWorker): void {
  post(dispatch(api, msg));
  if (CHANGES_MACHINE.has(msg.method)) loop.maybePost(true);
}

// Messages are handled in order, each once the system headers its #includes need are loaded
// (src/worker/systemHeaders.ts); a failed load still handles it, and the compiler names the missing header.
let queue: Promise<void> = Promise.resolve();
scope.onmessage = (e: MessageEvent<ToWorker>) => {
  const msg = e.data;
  queue = queue.then(() => prepareSystemHeaders(msg)).then(() => handle(msg), () => handle(msg));
};

post({ kind: 'ready' });
