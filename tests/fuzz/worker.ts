/**
 * One target's fuzz loop inside a worker thread (started by tests/fuzz/run.ts):
 * publishes the index of the input it is running in shared memory, so the
 * main thread can stop it when one input never returns, and posts its
 * report at the end.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { installSystemHeaders } from '../../src/cc';
import { diskSystemHeaders } from '../../src/cli/system_headers';
import { fuzzTarget } from './runner';
import { findTarget } from './targets';

export interface WorkerJob {
  target: string;
  seconds: number;
  seed: number;
  startIndex: number;
  save: boolean;
  /** [0]: index of the input running now. */
  progress: SharedArrayBuffer;
}

// The compiler reads the real system headers, as the CLI and the vitest setup install them.
installSystemHeaders(diskSystemHeaders);
const job = workerData as WorkerJob;
const progress = new Int32Array(job.progress);
const target = findTarget(job.target)!;
const report = await fuzzTarget(target, { seconds: job.seconds, seed: job.seed, startIndex: job.startIndex, save: job.save, onStart: (i) => Atomics.store(progress, 0, i) });
parentPort!.postMessage(report);
