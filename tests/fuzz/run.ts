/**
 * The fuzz runner:
 *
 *   npm run fuzz -- --seconds N [--target cc|verifier|vm|pcap|sharelink] [--seed S] [--no-save]
 *
 * Runs each target (or the one named) for N seconds in a worker thread and
 * prints, per target: inputs, ok, expected errors, failures, hangs, seconds,
 * then each distinct failure and the regression file that keeps it. A
 * watchdog stops an input that never returns (4× its target's hang budget
 * and at least 20 s), keeps it as a hang, and resumes with the next input
 * (inputs are numbered, each made from (seed, index) alone). Exit 1 when
 * anything failed or hung, 2 on bad arguments.
 */
import { Worker } from 'node:worker_threads';
import { emptyReport, formatReport, inputAt, mergeReports, saveRegression, type TargetReport } from './runner';
import { TARGETS, findTarget } from './targets';
import type { AnyTarget } from './types';
import type { WorkerJob } from './worker';

const WORKER_URL = new URL('./worker.ts', import.meta.url).href;

function usage(msg: string): never {
  process.stderr.write(`${msg}\nusage: npm run fuzz -- --seconds N [--target ${TARGETS.map((t) => t.name).join('|')}] [--seed S] [--no-save]\n`);
  process.exit(2);
}

/** One stretch of fuzzing in a worker: its report, or where it got stuck. */
function stretch(target: AnyTarget, seconds: number, seed: number, startIndex: number, save: boolean): Promise<{ report?: TargetReport; stuckAt?: number; error?: string }> {
  const progress = new SharedArrayBuffer(4);
  const cur = new Int32Array(progress);
  cur[0] = -1;
  const job: WorkerJob = { target: target.name, seconds, seed, startIndex, save, progress };
  // tsx's loader, registered inside the worker (a worker does not inherit it).
  const w = new Worker(`import('tsx/esm/api').then(({ register }) => { register(); return import(${JSON.stringify(WORKER_URL)}); })`, { eval: true, workerData: job });
  const limit = Math.max(20_000, 4 * target.hangMs);
  return new Promise((resolve) => {
    let last = -1;
    let since = Date.now();
    const timer = setInterval(() => {
      const i = Atomics.load(cur, 0);
      if (i !== last) [last, since] = [i, Date.now()];
      else if (i >= 0 && Date.now() - since > limit) {
        clearInterval(timer);
        void w.terminate().then(() => resolve({ stuckAt: i }));
      }
    }, 250);
    w.on('message', (report: TargetReport) => {
      clearInterval(timer);
      void w.terminate();
      resolve({ report });
    });
    w.on('error', (e) => {
      clearInterval(timer);
      resolve({ error: `${e.name}: ${e.message}` });
    });
  });
}

async function fuzzOne(target: AnyTarget, seconds: number, seed: number, save: boolean): Promise<TargetReport> {
  let total = emptyReport(target.name, seed);
  const t0 = Date.now();
  let start = 0;
  for (;;) {
    const left = seconds - (Date.now() - t0) / 1000;
    if (left <= 0) break;
    const s = await stretch(target, left, seed, start, save);
    if (s.report) {
      total = mergeReports(total, s.report);
      break;
    }
    if (s.error) throw new Error(`the ${target.name} worker died: ${s.error}`);
    // Stuck: the inputs before it ran (their counts are lost with the worker, so count them as run), this one hung.
    const i = s.stuckAt!;
    const why = `hang: input ${i} did not return within ${Math.max(20_000, 4 * target.hangMs)} ms`;
    const file = save ? saveRegression(target, inputAt(target, seed, i), why, seed, i) : undefined;
    total = mergeReports(total, { ...emptyReport(target.name, seed), inputs: i - start + 1, hangs: 1, found: [{ index: i, kind: 'hang', why, file }] });
    start = i + 1;
  }
  total.seconds = (Date.now() - t0) / 1000;
  return total;
}

const args = process.argv.slice(2);
const opt = (name: string): string | undefined => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};
for (const a of args) if (a.startsWith('--') && !['--seconds', '--target', '--seed', '--no-save'].includes(a)) usage(`unknown option ${a}`);
const seconds = Number(opt('--seconds') ?? 60);
if (!Number.isFinite(seconds) || seconds <= 0) usage('--seconds takes a positive number');
const seedText = opt('--seed');
const seed = seedText === undefined ? Date.now() % 1_000_000_007 : Number(seedText);
if (!Number.isInteger(seed)) usage('--seed takes an integer');
const name = opt('--target');
const targets = name === undefined ? TARGETS : [findTarget(name) ?? usage(`unknown target '${name}'`)];
const save = !args.includes('--no-save');

let bad = 0;
process.stdout.write(`fuzz: ${targets.map((t) => t.name).join(', ')} for ${seconds} s each, seed ${seed}\n`);
for (const t of targets) {
  const rep = await fuzzOne(t, seconds, seed, save);
  bad += rep.failures + rep.hangs;
  process.stdout.write(formatReport(rep) + '\n');
}
process.exit(bad ? 1 : 0);
