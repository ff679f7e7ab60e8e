/**
 * The VM behind the driver's XDP hook: real eBPF bytecode (a program spec,
 * as the compiler writes it and the kernel loads it) run by src/vm on the
 * simulated page, in place. The driver sees an XdpHook like any other; this
 * adapter hands the xdp_buff (offsets into the page pool or UMEM) to the VM
 * as a frame over that same buffer, reports the instruction count the
 * cost model charges, and counts map lookups through the maps' lookup
 * counter (the VM does not report helper calls). It is the one run path: the
 * engine's loadProgram (src/engine/vmHook.ts) adds a bpf_printk sink and a
 * per-run observer (the packet inspector's records) through the options.
 */
import type { ParsedSpec } from '../isa/spec';
import { createMap, type BpfMap } from '../maps';
import { createVm, type XdpFrame, type XdpResult, type XdpVm } from '../vm';
import { MAX_FRAME_BUFFER, type XdpBuff, type XdpHook } from './program';

export interface VmHook extends XdpHook {
  readonly vm: XdpVm;
  readonly maps: BpfMap[];
}

/**
 * Called after each run with a copy of the frame as it was before (data to
 * data_end), the xdp_buff as the program left it, and the VM's result
 * (reused for the next run: copy what you keep).
 */
export type XdpRunObserver = (before: Uint8Array, x: XdpBuff, result: Readonly<XdpResult>) => void;

export interface VmHookOptions {
  /** The hook's name (default: the program's first function). */
  name?: string;
  /** CPUs for per-CPU maps. */
  nCpus?: number;
  /** Where bpf_printk lines go (default: the VM's own `printed` list). */
  printk?: (text: string) => void;
  /** Every run, for a packet inspector; without one the run copies nothing. */
  observe?: XdpRunObserver;
  /** Report map lookups to the cost model (default true). */
  countMapLookups?: boolean;
}

/** Load a parsed spec into a VM hook; an error string when the maps cannot be created. */
export function vmHook(parsed: ParsedSpec, opts: VmHookOptions = {}): VmHook | { error: string } {
  const maps: BpfMap[] = [];
  for (const spec of parsed.spec.maps ?? []) {
    const m = createMap(spec, { nCpus: opts.nCpus ?? 1 });
    if ('error' in m) return { error: m.error };
    maps.push(m);
  }
  // One counter for all the program's maps: the helpers and the JIT's inlined
  // array lookups bump it (BpfMap.lookupCounter), so counting costs one
  // increment and the JIT keeps its inline path.
  const lookups = { n: 0 };
  if (opts.countMapLookups ?? true) for (const m of maps) m.lookupCounter = lookups;
  const vm = createVm(parsed, { maps, nCpus: opts.nCpus ?? 1, env: opts.printk ? { printk: opts.printk } : undefined });
  if ('error' in vm) return vm;
  // The frame is the whole buffer the driver's xdp_buff points into (the
  // page pool, a UMEM) with data_hard_start at its offset: the VM's packet
  // region stays bound to the same bytes from packet to packet, and no
  // per-page view is made or looked up. A driver that moves between a few
  // buffers (AF_XDP copy mode's per-slot ones) costs a DataView lookup when
  // the buffer changes.
  const dvs = new WeakMap<Uint8Array, DataView>();
  const empty = new Uint8Array(0);
  const frame: XdpFrame = { buf: empty, data: 0, dataEnd: 0, dataMeta: 0, ingressIfindex: 1, rxQueueIndex: 0, frameSize: 0, hardStart: 0, dv: new DataView(empty.buffer) };
  // One result object for every run (read before the next run).
  const r: XdpResult = { retval: 0, data: 0, dataEnd: 0, dataMeta: 0, insns: 0, fault: undefined, redirect: undefined };
  const name = opts.name ?? parsed.spec.funcs?.[0]?.name ?? 'xdp program';
  const observe = opts.observe;
  const bindBuffer = (mem: Uint8Array): void => {
    if (mem.length > MAX_FRAME_BUFFER) throw new Error(`xdp_buff memory of ${mem.length} bytes: the VM takes frames in buffers of at most ${MAX_FRAME_BUFFER} bytes`);
    let dv = dvs.get(mem);
    if (dv === undefined) {
      dv = new DataView(mem.buffer, mem.byteOffset, mem.byteLength);
      dvs.set(mem, dv);
    }
    frame.buf = mem;
    frame.dv = dv;
  };
  /** What a run leaves beyond the frame's bounds, rare on most paths: a fault's message, a redirect's target. */
  const finishRare = (x: XdpBuff): void => {
    if (r.fault) x.fault = r.fault.message;
    if (r.redirect) {
      if ('ifindex' in r.redirect) x.redirectIfindex = r.redirect.ifindex;
      else {
        x.redirectMap = r.redirect.map;
        x.redirectKey = r.redirect.key;
      }
    }
  };
  // The run every packet takes, kept small: V8 inlines it into the driver's rx step only while its bytecode
  // fits what is left of that step's inlining budget (an observer's copy and the rare results are calls).
  const run = (x: XdpBuff): number => {
    // The running CPU's slot of every per-CPU map (the env is read at each helper call).
    vm.env.cpu = x.cpu;
    if (frame.buf !== x.mem) bindBuffer(x.mem);
    frame.hardStart = x.hardStart;
    frame.data = x.data;
    frame.dataEnd = x.dataEnd;
    frame.dataMeta = x.dataMeta;
    frame.rxQueueIndex = x.rxQueueIndex;
    frame.ingressIfindex = x.ingressIfindex;
    frame.frameSize = x.frameSz;
    lookups.n = 0;
    vm.runXdpInto(frame, r);
    x.insns = r.insns;
    x.mapLookups = lookups.n;
    x.data = r.data;
    x.dataEnd = r.dataEnd;
    x.dataMeta = r.dataMeta;
    if (r.fault !== undefined || r.redirect !== undefined) finishRare(x);
    return r.retval;
  };
  return {
    name,
    engine: 'vm',
    vm,
    maps,
    // The verifier's proof says no store or helper can reach the packet.
    packetReadOnly: !vm.packetWrites,
    run: observe
      ? (x: XdpBuff): number => {
          const before = x.mem.slice(x.data, x.dataEnd);
          const retval = run(x);
          observe(before, x, r);
          return retval;
        }
      : run,
    mapsSummary: () => Object.fromEntries(maps.map((m) => [m.name, m.dump()])),
  };
}
