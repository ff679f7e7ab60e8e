/**
 * The engine's link from a verified program to the driver: the VM (src/vm)
 * behind the simulator's XdpHook, running real bytecode on the simulated
 * page in place. It keeps the program's maps and bpf_printk output where the
 * engine can show them. (src/sim is growing its own vm_hook; when it lands
 * this adapter can defer to it.)
 */
import type { ParsedSpec } from '../isa';
import { createMap, type BpfMap } from '../maps';
import { createVm, type XdpFrame } from '../vm';
import type { XdpBuff, XdpHook } from '../sim';

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
}

/** Recent runs kept for the packet inspector (a copy of each frame before and after). */
export const RUNS_KEPT = 256;

/** Lines kept when nobody collects them (a program printing on every packet at full speed). */
const PRINTK_KEEP = 1000;

export function loadProgram(parsed: ParsedSpec, nCpus = 1): ProgramInstance | { error: string } {
  const maps: BpfMap[] = [];
  for (const spec of parsed.spec.maps ?? []) {
    const m = createMap(spec, { nCpus });
    if ('error' in m) return { error: m.error };
    maps.push(m);
  }
  const printk: string[] = [];
  const vm = createVm(parsed, {
    maps,
    nCpus,
    env: {
      printk: (text: string) => {
        printk.push(text);
        if (printk.length > PRINTK_KEEP * 2) printk.splice(0, printk.length - PRINTK_KEEP);
      },
    },
  });
  if ('error' in vm) return vm;
  const frame: XdpFrame = { buf: new Uint8Array(0), data: 0, dataEnd: 0, dataMeta: 0, ingressIfindex: 1, rxQueueIndex: 0, frameSize: 4096 };
  const name = parsed.spec.funcs?.[0]?.name ?? 'xdp program';
  const runs: ProgramInstance['runs'] = { count: 0, ring: new Array(RUNS_KEPT) };
  const hook: XdpHook = {
    name,
    engine: 'vm',
    run(x: XdpBuff): number {
      // The VM indexes the frame's own buffer from data_hard_start.
      const base = x.hardStart;
      frame.buf = x.mem.subarray(base, base + x.frameSz);
      frame.data = x.data - base;
      frame.dataEnd = x.dataEnd - base;
      frame.dataMeta = x.dataMeta - base;
      frame.rxQueueIndex = x.rxQueueIndex;
      frame.ingressIfindex = x.ingressIfindex;
      frame.frameSize = x.frameSz;
      const before = x.mem.slice(x.data, x.dataEnd);
      const r = vm.runXdp(frame);
      runs.ring[runs.count++ % RUNS_KEPT] = { before, after: x.mem.slice(base + r.data, base + r.dataEnd), retval: r.retval, insns: r.insns, fault: r.fault?.message };
      x.insns = r.insns;
      x.data = r.data + base;
      x.dataEnd = r.dataEnd + base;
      x.dataMeta = r.dataMeta + base;
      if (r.fault) x.fault = r.fault.message;
      if (r.redirect) {
        if ('ifindex' in r.redirect) x.redirectIfindex = r.redirect.ifindex;
        else {
          x.redirectMap = r.redirect.map;
          x.redirectKey = r.redirect.key;
        }
      }
      return r.retval;
    },
  };
  return { hook, maps, printk, runs, parsed };
}
