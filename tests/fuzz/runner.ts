/**
 * Runs a fuzz target in-process: input i of a run with seed s is made from
 * its own PRNG (seeded from s and i), so any input reproduces from those two
 * numbers alone (the CLI's watchdog relies on it). Counts ok / expected /
 * failure / hang, keeps one regression file per distinct failure, and
 * replays the kept files.
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { below, errorText, mulberry32, type AnyTarget, type Outcome } from './types';

export interface Found {
  index: number;
  kind: 'failure' | 'hang';
  why: string;
  file?: string;
}

export interface TargetReport {
  target: string;
  seed: number;
  inputs: number;
  ok: number;
  expected: number;
  failures: number;
  hangs: number;
  seconds: number;
  found: Found[];
}

export function emptyReport(target: string, seed: number): TargetReport {
  return { target, seed, inputs: 0, ok: 0, expected: 0, failures: 0, hangs: 0, seconds: 0, found: [] };
}

/** Input `index` of the run seeded `seed`: a generated input, mutated 0–4 times. */
export function inputAt(target: AnyTarget, seed: number, index: number): unknown {
  const r = mulberry32((Math.imul(seed | 0, 0x9e3779b1) ^ Math.imul(index + 1, 0x85ebca6b)) >>> 0);
  let x = target.generate(r);
  const n = below(r, 5);
  for (let k = 0; k < n; k++) x = target.mutate(x, r);
  return x;
}

/** Run one input: its outcome (an escaping exception is a failure) and how long it took. */
/** `slack` scales the target's hang budget (the CI suite shares 2 cores with other test files: see fuzz.test.ts). */
export async function runOne(target: AnyTarget, input: unknown, slack = 1): Promise<{ outcome: Outcome; ms: number; hang: boolean }> {
  const t0 = performance.now();
  let outcome: Outcome;
  try {
    outcome = await target.run(input);
  } catch (e) {
    outcome = { kind: 'failure', why: `uncaught exception: ${errorText(e)}` };
  }
  const ms = performance.now() - t0;
  return { outcome, ms, hang: ms > target.hangMs * slack };
}

/** Keep a failing input where the regression replay finds it. */
export function saveRegression(target: AnyTarget, input: unknown, why: string, seed: number, index: number): string {
  mkdirSync(target.regressionDir, { recursive: true });
  const file = path.join(target.regressionDir, `${target.name}-${seed}-${index}.${target.ext}`);
  writeFileSync(file, target.encode(input, why));
  return file;
}

/** Failures that differ only in numbers are one failure (one file kept). */
export const failureKey = (why: string): string => why.replace(/\d+/g, 'N').slice(0, 160);

export interface FuzzOptions {
  seconds: number;
  seed: number;
  /** Stop after this many inputs even if time remains (CI runs). */
  maxInputs?: number;
  /** Write regression files (default true). */
  save?: boolean;
  startIndex?: number;
  /** Called before each input runs (the CLI's watchdog watches it). */
  onStart?: (index: number) => void;
  /** Multiplier on the target's hang budget (default 1). */
  slack?: number;
}

/** Fuzz one target for `seconds` of wall time. */
export async function fuzzTarget(target: AnyTarget, opts: FuzzOptions): Promise<TargetReport> {
  const rep = emptyReport(target.name, opts.seed);
  const seen = new Set<string>();
  const t0 = performance.now();
  const end = t0 + opts.seconds * 1000;
  for (let index = opts.startIndex ?? 0; performance.now() < end && rep.inputs < (opts.maxInputs ?? Infinity); index++) {
    opts.onStart?.(index);
    const input = inputAt(target, opts.seed, index);
    const { outcome, ms, hang } = await runOne(target, input, opts.slack);
    rep.inputs++;
    let found: Found | undefined;
    if (outcome.kind === 'failure') {
      rep.failures++;
      found = { index, kind: 'failure', why: outcome.why };
    } else if (hang) {
      rep.hangs++;
      found = { index, kind: 'hang', why: `hang: ${ms.toFixed(0)} ms (budget ${target.hangMs} ms)` };
    } else if (outcome.kind === 'ok') rep.ok++;
    else rep.expected++;
    if (found) {
      const key = failureKey(found.why);
      if (!seen.has(key)) {
        seen.add(key);
        if (opts.save !== false) found.file = saveRegression(target, input, found.why, opts.seed, index);
        rep.found.push(found);
      }
    }
  }
  rep.seconds = (performance.now() - t0) / 1000;
  return rep;
}

export function mergeReports(a: TargetReport, b: TargetReport): TargetReport {
  return {
    target: a.target,
    seed: a.seed,
    inputs: a.inputs + b.inputs,
    ok: a.ok + b.ok,
    expected: a.expected + b.expected,
    failures: a.failures + b.failures,
    hangs: a.hangs + b.hangs,
    seconds: a.seconds + b.seconds,
    found: [...a.found, ...b.found],
  };
}

export function formatReport(r: TargetReport): string {
  const head = `${r.target.padEnd(9)} ${String(r.inputs).padStart(8)} inputs  ${String(r.ok).padStart(8)} ok  ${String(r.expected).padStart(8)} expected errors  ${String(r.failures).padStart(5)} failures  ${String(r.hangs).padStart(4)} hangs  ${r.seconds.toFixed(1).padStart(6)} s  (seed ${r.seed})`;
  return [head, ...r.found.map((f) => `    ${f.kind} at input ${f.index}: ${f.why.split('\n')[0]!.slice(0, 300)}${f.file ? `\n      kept: ${path.relative(process.cwd(), f.file)}` : ''}`)].join('\n');
}

/** The kept regression files of a target (sorted). */
export function regressionFiles(target: AnyTarget): string[] {
  if (!existsSync(target.regressionDir)) return [];
  return readdirSync(target.regressionDir).filter((f) => f.endsWith(`.${target.ext}`)).sort().map((f) => path.join(target.regressionDir, f));
}

/** Replay one kept file: its outcome as the fuzzer would count it. */
export async function replay(target: AnyTarget, file: string, slack = 1): Promise<{ outcome: Outcome; ms: number; hang: boolean }> {
  let input: unknown;
  try {
    input = target.decode(readFileSync(file, 'utf8'));
  } catch (e) {
    return { outcome: { kind: 'failure', why: `unreadable regression file: ${errorText(e)}` }, ms: 0, hang: false };
  }
  return runOne(target, input, slack);
}
