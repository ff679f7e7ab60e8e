/**
 * The VM behind the driver's XDP hook: real eBPF bytecode (a program spec,
 * as the compiler writes it and the kernel loads it) run by src/vm on the
 * simulated page, in place. The driver sees an XdpHook like any other; this
 * adapter translates the xdp_buff (offsets into the page pool) into the
 * VM's frame (offsets into one page), reports the instruction count the
 * cost model charges, and counts map lookups through the maps' lookup
 * counter (the VM does not report helper calls). It is the one run path: the
 * engine's loadProgram (src/engine/vmHook.ts) adds a bpf_printk sink and a
 * per-run observer (the packet inspector's records) through the options.
 */
import type { ParsedSpec } from '../isa/spec';
import { createMap, type BpfMap } from '../maps';
import { createVm, type XdpFrame, type XdpResult, type XdpVm } from '../vm';
import { PAGE_SIZE as PAGE_SIZE_ } from './page_alloc';
import type { XdpBuff, XdpHook } from './program';

// A module-local copy: an imported binding is a getter call per packet when modules are transpiled one by one (tsx, vitest).
const PAGE_SIZE = PAGE_SIZE_;
/**
 * Views are found by their start in units of 2 KiB, a half page: an order-0
 * page or an AF_XDP chunk of 2048 or 4096 bytes has a slot of its own, so
 * the chain (buffers sharing a slot: unaligned chunks, order-3 fragments)
 * is walked only for those.
 */
const VIEW_GRAIN = 2048;

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
  // One view per buffer (a page, or an order-3 fragment), made on first use:
  // the VM indexes the frame's own buffer from data_hard_start. Each view
  // keeps its DataView, so a packet on a known page allocates nothing. Views
  // are found by their start (VIEW_GRAIN) in a dense array (a chain for the
  // rare slot holding several buffers), not a Map: this runs for every packet.
  interface View { base: number; size: number; buf: Uint8Array; dv: DataView; next: View | undefined }
  let views: (View | undefined)[] = [];
  let viewsOf: Uint8Array | null = null;
  const empty = new Uint8Array(0);
  const frame: XdpFrame = { buf: empty, data: 0, dataEnd: 0, dataMeta: 0, ingressIfindex: 1, rxQueueIndex: 0, frameSize: PAGE_SIZE, dv: new DataView(empty.buffer) };
  // One result object for every run (read before the next run).
  const r: XdpResult = { retval: 0, data: 0, dataEnd: 0, dataMeta: 0, insns: 0, fault: undefined, redirect: undefined };
  const name = opts.name ?? parsed.spec.funcs?.[0]?.name ?? 'xdp program';
  const observe = opts.observe;
  return {
    name,
    engine: 'vm',
    vm,
    maps,
    // The verifier's proof says no store or helper can reach the packet.
    packetReadOnly: !vm.packetWrites,
    run(x: XdpBuff): number {
      const base = x.hardStart;
      // The running CPU's slot of every per-CPU map (the env is read at each helper call).
      vm.env.cpu = x.cpu;
      // Identity of the pool's array, not .buffer (a getter): a new array means new views.
      if (viewsOf !== x.mem) {
        views = [];
        viewsOf = x.mem;
      }
      const slot = (base / VIEW_GRAIN) | 0;
      let view = views[slot];
      while (view !== undefined && (view.base !== base || view.size !== x.frameSz)) view = view.next;
      if (view === undefined) {
        const buf = x.mem.subarray(base, base + x.frameSz);
        while (views.length < slot) views.push(undefined);
        view = { base, size: x.frameSz, buf, dv: new DataView(buf.buffer, buf.byteOffset, buf.byteLength), next: views[slot] };
        views[slot] = view;
      }
      frame.buf = view.buf;
      frame.dv = view.dv;
      frame.data = x.data - base;
      frame.dataEnd = x.dataEnd - base;
      frame.dataMeta = x.dataMeta - base;
      frame.rxQueueIndex = x.rxQueueIndex;
      frame.ingressIfindex = x.ingressIfindex;
      frame.frameSize = x.frameSz;
      lookups.n = 0;
      const before = observe ? x.mem.slice(x.data, x.dataEnd) : empty;
      vm.runXdpInto(frame, r);
      x.insns = r.insns;
      x.mapLookups = lookups.n;
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
      if (observe) observe(before, x, r);
      return r.retval;
    },
    mapsSummary: () => Object.fromEntries(maps.map((m) => [m.name, m.dump()])),
  };
}
