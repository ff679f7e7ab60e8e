/**
 * The running program's hot path: how often each instruction ran over the
 * packets the program saw last (the RUNS_KEPT frames vmHook keeps for the
 * inspector), for the CFG view to shade beside the verifier's visits.
 *
 * The live machine runs the JIT and counts nothing; this re-runs each kept
 * frame in the interpreter with a trace hook that only counts, on copies of
 * the maps as they are now (as the inspector's re-run does), so asking
 * never changes the running machine. A lookup sees today's values, which
 * the live run may not have seen: the counts are the path those frames
 * take through the program as it stands.
 */
import { createVm } from '../vm';
import type { BpfMap } from '../maps';
import type { ParsedSpec } from '../isa';
import { copyMaps, replayFrame } from './inspect';
import type { RunRecord } from './vmHook';

export interface HotPath {
  /** Times each pc ran, over `runs` frames. */
  counts: Uint32Array;
  runs: number;
  /** Runs the live program made in all (the kept frames are its last ones). */
  total: number;
}

/** Count instructions over the kept runs (oldest first), the maps copied once. */
export function hotPath(parsed: ParsedSpec, runs: { count: number; ring: readonly (RunRecord | undefined)[] }, liveMaps: readonly BpfMap[]): HotPath {
  const counts = new Uint32Array(parsed.insns.length);
  const maps = copyMaps(parsed, liveMaps);
  const vm = createVm(parsed, { maps, nCpus: maps?.[0]?.nCpus ?? 1, env: { printk: () => {} } });
  let done = 0;
  if (!('error' in vm)) {
    vm.setTrace((ev) => {
      if (ev.pc < counts.length) counts[ev.pc]!++;
    });
    const n = runs.ring.length;
    const page = new Uint8Array(4096);
    for (let i = Math.max(0, runs.count - n); i < runs.count; i++) {
      const rec = runs.ring[i % n];
      if (!rec) continue;
      vm.runXdp(replayFrame(rec.before, page));
      done++;
    }
  }
  return { counts, runs: done, total: runs.count };
}
