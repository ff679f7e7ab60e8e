/**
 * The engine's link from a verified program to the driver: the pipeline's
 * load step (./pipeline.ts → src/sim/vm_hook.ts: real bytecode on the
 * simulated page, in place), with the program's maps, its bpf_printk output and a ring of
 * recent runs (the frame before and after) kept where the engine can show
 * them.
 */
import type { ParsedSpec } from '../isa';
import type { BpfMap } from '../maps';
import type { XdpHook } from '../sim';
import { loadProgram as load } from './pipeline';

/** One program run as the packet inspector needs it: the frame before and after, and the verdict. */
export interface RunRecord {
  before: Uint8Array;
  after: Uint8Array;
  retval: number;
  insns: number;
  fault?: string;
}

export interface ProgramInstance {
  hook: XdpHook;
  maps: BpfMap[];
  /** bpf_printk lines not yet collected (drainPrintk empties it). */
  printk: string[];
  /** Runs so far, and the last RUNS_KEPT of them (run n is at n % RUNS_KEPT). */
  runs: { count: number; ring: (RunRecord | undefined)[] };
  parsed: ParsedSpec;
  /** Every run as it happens, when someone listens (xdpdump's capture). */
  tap: { onRun?: (rec: RunRecord) => void };
}

/** Recent runs kept for the packet inspector (a copy of each frame before and after). */
export const RUNS_KEPT = 256;

/** Lines kept when nobody collects them (a program printing on every packet at full speed). */
const PRINTK_KEEP = 1000;

export function loadProgram(parsed: ParsedSpec, nCpus = 1): ProgramInstance | { error: string } {
  const printk: string[] = [];
  const runs: ProgramInstance['runs'] = { count: 0, ring: new Array(RUNS_KEPT) };
  const tap: ProgramInstance['tap'] = {};
  const hook = load(parsed, {
    nCpus,
    printk: (text) => {
      printk.push(text);
      if (printk.length > PRINTK_KEEP * 2) printk.splice(0, printk.length - PRINTK_KEEP);
    },
    observe: (before, x, r) => {
      const rec = { before, after: x.mem.slice(x.data, x.dataEnd), retval: r.retval, insns: r.insns, fault: r.fault?.message };
      runs.ring[runs.count++ % RUNS_KEPT] = rec;
      tap.onRun?.(rec);
    },
    // Charged as the CLI's scenarios charge them, so the app shows the same numbers as `xdp-lab sim`.
    countMapLookups: true,
  });
  if ('error' in hook) return hook;
  return { hook, maps: hook.maps, printk, runs, parsed, tap };
}
