/**
 * An XDP program instance: the program, its maps and the helpers, run on
 * frames in place as BPF_PROG_TEST_RUN and a driver's napi poll do. The
 * context is struct xdp_md with the kernel's ctx rewrite: a 32-bit load of
 * data, data_end or data_meta yields a full packet pointer; the context is
 * read-only. Packet bytes are the caller's buffer (zero copy).
 */
import type { ParsedSpec } from '../isa/spec';
import { BPF_PSEUDO_MAP_FD, BPF_PSEUDO_MAP_VALUE } from '../isa/opcodes';
import { createMap, MapMemory, type BpfMap } from '../maps';
import { verify } from '../verifier';
import { Machine, type TraceHook } from './interp';
import { compileJit, JIT_MAX_SLOTS, type ArrayInline, type JitTarget } from './jit';
import { HI_BASE, LO_BASE, VmFault, type Region } from './memory';
import { xdpHelpers, type HelperEnv, type RedirectInfo, type XdpBuffState } from './helpers';

export interface XdpFrame {
  /** The page holding the frame (e.g. 4096 B); data offsets index into it. */
  buf: Uint8Array;
  data: number;
  dataEnd: number;
  /** Equal to data when there is no metadata. */
  dataMeta: number;
  ingressIfindex: number;
  rxQueueIndex: number;
  /** xdp_buff.frame_sz: bytes of buf usable by the frame, headroom to tailroom. */
  frameSize: number;
  /** Optional: a DataView over exactly buf (same buffer, offset and length; not checked), made once by a caller that reuses its buffers (saves one allocation a run). */
  dv?: DataView;
}

export interface VmFaultInfo {
  pc: number;
  kind: VmFault['kind'];
  message: string;
  reg?: number;
  region?: string;
}

export interface XdpResult {
  /** The XDP action (r0, as u32). */
  retval: number;
  data: number;
  dataEnd: number;
  dataMeta: number;
  /** Instructions executed. */
  insns: number;
  fault?: VmFaultInfo;
  redirect?: RedirectInfo;
}

export type VmEnv = HelperEnv;

export interface VmOptions {
  /** Map instances (the simulator's or the UI's); created from the spec when absent. */
  maps?: BpfMap[];
  env?: Partial<VmEnv>;
  /** Instructions per run before the run is stopped. */
  budget?: number;
  /**
   * 'jit' (default) or 'interp' (the reference interpreter). The JIT needs
   * the verifier's proof: a program the verifier rejects runs in the
   * interpreter (XdpVm.jitUnavailable says why); a trace hook always uses the interpreter.
   */
  engine?: 'jit' | 'interp';
  /** CPUs for per-cpu maps created here. */
  nCpus?: number;
  /** The memory budget the maps created here are charged to (default: 64 MiB a map, 256 MiB in all). */
  memory?: MapMemory;
}

/** A seeded, deterministic environment: virtual clock, xorshift32 random numbers, cpu 0. */
export function defaultEnv(seed = 1, printed: string[] = []): VmEnv {
  let t = 1_000_000_000;
  let s = seed >>> 0 || 1;
  return {
    ktimeNs: () => (t += 1000),
    prandomU32: () => {
      s ^= s << 13;
      s >>>= 0;
      s ^= s >>> 17;
      s ^= s << 5;
      return (s >>>= 0);
    },
    cpu: 0,
    printk: (text) => void printed.push(text),
  };
}

const XDP_MD_SIZE = 24;
// Local copy: under a CommonJS-style loader (tsx, the CLI) an imported binding is a getter call per use.
const LO0 = LO_BASE;

export class XdpVm {
  readonly machine: Machine;
  readonly maps: BpfMap[];
  /** trace_printk output when the default env is used. */
  readonly printed: string[] = [];
  readonly env: VmEnv;
  private readonly ctxRegion: Region;
  private readonly packet: Region;
  private state: XdpBuffState;
  private ctxFrame: XdpFrame | undefined;
  private readonly ctxFields: Int32Array;
  /** The packet region's pointer tag (high word). */
  private readonly packetHi: number;
  /** Why runs use the interpreter although the engine is 'jit' (undefined when the JIT runs). */
  readonly jitUnavailable: string | undefined;
  /** What the JIT was bound to (for tests and experiments that translate again). */
  lastTarget: JitTarget | undefined;

  constructor(parsed: ParsedSpec, maps: BpfMap[], opts: VmOptions) {
    this.maps = maps;
    this.env = { ...defaultEnv(1, this.printed), ...opts.env };
    const mapRegions: Region[] = [];
    // Helpers read `this` lazily, so the machine can be built first.
    const lazy = new Map<number, (m: Machine, pc: number) => void>();
    this.machine = new Machine(parsed.insns, lazy);
    if (opts.budget) this.machine.budget = opts.budget;
    if (opts.engine) this.machine.engine = opts.engine;
    const regions = this.machine.regions;
    maps.forEach((m, i) => {
      const r = regions.add('map', `map(${m.name})`, new Uint8Array(0), false);
      r.mapIndex = i;
      mapRegions.push(r);
    });
    this.ctxRegion = regions.add('ctx', 'ctx', new Uint8Array(XDP_MD_SIZE), false);
    this.packet = regions.add('packet', 'packet', new Uint8Array(0), true);
    this.ctxFields = this.machine.ctxFields;
    this.packetHi = (HI_BASE + this.packet.id * 8) | 0;
    this.state = { buf: new Uint8Array(0), data: 0, dataEnd: 0, dataMeta: 0, frameSize: 0, ingressIfindex: 0, rxQueueIndex: 0, packet: this.packet, redirect: undefined };
    const helpersCtx: Parameters<typeof xdpHelpers>[0] = {
      env: this.env,
      maps,
      mapRegions,
      xdp: () => this.state,
      packetMoved: () => this.bindPacketBounds(),
    };
    for (const [id, fn] of xdpHelpers(helpersCtx)) lazy.set(id, fn);
    // lddw of a map: relocations first, else src_reg says imm is a map (index) or a map value.
    const relocated = new Set<number>();
    for (const r of parsed.spec.map_relocs ?? []) {
      this.machine.bindLdImm64(r.insn, mapRegions[r.map]!);
      relocated.add(r.insn);
    }
    parsed.insns.forEach((insn, k) => {
      if (insn.code !== 0x18 || relocated.has(k)) return;
      if (insn.src === BPF_PSEUDO_MAP_FD && mapRegions[insn.imm]) this.machine.bindLdImm64(k, mapRegions[insn.imm]!);
      if (insn.src === BPF_PSEUDO_MAP_VALUE && maps[insn.imm]) {
        const v = maps[insn.imm]!.lookup(new Uint8Array(4), this.env.cpu);
        if (v) this.machine.bindLdImm64(k, regions.forBuffer('map_value', `map_value(${maps[insn.imm]!.name})`, v, true));
      }
    });
    this.machine.ctxLoad = (pc, reg, dstReg, at, size) => this.ctxLoad(pc, reg, dstReg, at, size);
    this.machine.ctxRegion = this.ctxRegion;
    // data, data_end, data_meta, ingress_ifindex, rx_queue_index; not egress_ifindex (it faults, in ctxLoad).
    this.machine.ctxReadable = [true, true, true, true, true, false];
    this.jitUnavailable = (opts.engine ?? 'jit') === 'jit' ? this.buildJit(parsed) : 'engine is interp';
  }

  /** Verify (recording the proof the JIT needs) and translate; the reason when the JIT cannot be used. */
  private buildJit(parsed: ParsedSpec): string | undefined {
    if (this.machine.checkProgram()) return 'the program is invalid';
    if (parsed.insns.length > JIT_MAX_SLOTS) return `more than ${JIT_MAX_SLOTS} instructions`;
    const v = verify(parsed, { logLevel: 0, states: false, proof: true });
    if (!v.accepted || !v.proof) return `the verifier rejects it: ${v.error ?? 'rejected'}`;
    const m = this.machine;
    const arrays = this.maps.map((map): ArrayInline | undefined => {
      if ((map.type !== 'array' && map.type !== 'percpu_array') || map.maxEntries > 65536 || !map.lookupIndex) return undefined;
      const planes = map.percpu ? map.nCpus : 1;
      const max = map.maxEntries;
      const tags = new Int32Array(max * planes);
      const lookupIndex = map.lookupIndex.bind(map);
      return {
        max,
        planes,
        tags,
        // The element's value region, as the lookup helper names it (one region per value buffer, shared).
        fill: (i, cpu) => {
          const plane = planes > 1 ? cpu % planes : 0;
          const v = lookupIndex(i, plane)!;
          const r = m.regions.forBuffer('map_value', `map_value(${map.name})`, v, true);
          return (tags[plane * max + i] = (HI_BASE + r.id * 8) | 0);
        },
      };
    });
    const target = { packet: this.packet, ctx: this.ctxRegion, arrays, env: this.env, state: this.state };
    this.lastTarget = target;
    const run = compileJit(m, v.proof, target);
    if (!run) return 'this host forbids generated code (no unsafe-eval)';
    m.jit = run;
    return undefined;
  }

  private bindPacketBounds(): void {
    const s = this.state;
    this.packet.start = s.dataMeta < s.data ? s.dataMeta : s.data;
    this.packet.end = s.dataEnd;
    // What ctxLoad would give for data, data_end and data_meta now (the JIT reads these directly).
    const cf = this.ctxFields;
    const ph = this.packetHi;
    cf[0] = (LO0 + s.data) | 0;
    cf[1] = ph;
    cf[2] = (LO0 + s.dataEnd) | 0;
    cf[3] = ph;
    cf[4] = (LO0 + s.dataMeta) | 0;
    cf[5] = ph;
  }

  private ctxLoad(pc: number, reg: number, d: number, at: number, size: number): void {
    if (size !== 4 || at < 0 || at >= XDP_MD_SIZE || at % 4 !== 0) {
      throw new VmFault(pc, 'ctx', `pc ${pc}: invalid bpf_context access off=${at} size=${size} through R${reg}`, reg, 'ctx');
    }
    const m = this.machine;
    const f = this.ctxFrame!;
    const s = this.state;
    switch (at) {
      case 0: return m.setPtr(d, this.packet, s.data);
      case 4: return m.setPtr(d, this.packet, s.dataEnd);
      case 8: return m.setPtr(d, this.packet, s.dataMeta);
      case 12: return m.setReg(d, f.ingressIfindex >>> 0);
      case 16: return m.setReg(d, f.rxQueueIndex >>> 0);
      // egress_ifindex: only programs attached to a devmap entry may read it.
      default: throw new VmFault(pc, 'ctx', `pc ${pc}: invalid bpf_context access off=${at} size=${size} through R${reg} (egress_ifindex is for devmap programs)`, reg, 'ctx');
    }
  }

  /** Per-instruction trace for step-through; off (and free) by default. */
  setTrace(hook: TraceHook | undefined): void {
    this.machine.trace = hook;
  }

  /** Run the program on one frame, in place. */
  runXdp(frame: XdpFrame): XdpResult {
    const f = this.exec(frame);
    const s = this.state;
    const m = this.machine;
    // A faulting program is XDP_ABORTED (what the simulator counts too); the fault says why.
    const out: XdpResult = { retval: f ? 0 : m.lo[0]! >>> 0, data: s.data, dataEnd: s.dataEnd, dataMeta: s.dataMeta, insns: m.executed };
    if (f) {
      out.fault = { pc: f.pc, kind: f.kind, message: f.message, reg: f.reg, region: f.region };
    }
    // A copy: the helpers reuse their redirect record from run to run.
    if (s.redirect) out.redirect = { ...s.redirect };
    return out;
  }

  /**
   * runXdp for a hot loop (the simulator's driver): the same run, its result
   * written into the caller's object, which is reused from run to run, so
   * nothing is allocated per packet. fault and redirect are set to undefined
   * when absent; redirect is the helpers' own record, valid until the next run.
   */
  runXdpInto(frame: XdpFrame, out: XdpResult): XdpResult {
    const m0 = this.machine;
    const f = m0.jit !== undefined && m0.engine === 'jit' && m0.trace === undefined ? this.execJit(frame) : this.exec(frame);
    const s = this.state;
    const m = this.machine;
    out.retval = f ? 0 : m.lo[0]! >>> 0;
    out.data = s.data;
    out.dataEnd = s.dataEnd;
    out.dataMeta = s.dataMeta;
    out.insns = m.executed;
    out.fault = f ? { pc: f.pc, kind: f.kind, message: f.message, reg: f.reg, region: f.region } : undefined;
    out.redirect = s.redirect;
    return out;
  }

  /**
   * The JIT's run: only what its code reads is set (the packet region and
   * the xdp_buff state; r1 and r10 are constants in the translation).
   */
  private execJit(frame: XdpFrame): VmFault | undefined {
    const pk = this.packet;
    if (pk.bytes !== frame.buf) this.machine.regions.rebind(pk, frame.buf, frame.dv);
    const st = this.state;
    const data = frame.data;
    const meta = frame.dataMeta;
    st.buf = frame.buf;
    st.data = data;
    st.dataEnd = frame.dataEnd;
    st.dataMeta = meta;
    st.frameSize = frame.frameSize;
    st.ingressIfindex = frame.ingressIfindex;
    st.rxQueueIndex = frame.rxQueueIndex;
    st.redirect = undefined;
    this.ctxFrame = frame;
    pk.start = meta < data ? meta : data;
    pk.end = frame.dataEnd;
    try {
      this.machine.jit!();
      return undefined;
    } catch (e) {
      if (e instanceof VmFault) return e;
      throw e;
    }
  }

  private exec(frame: XdpFrame): VmFault | undefined {
    const regions = this.machine.regions;
    regions.rebind(this.packet, frame.buf, frame.dv);
    const st = this.state;
    st.buf = frame.buf;
    st.data = frame.data;
    st.dataEnd = frame.dataEnd;
    st.dataMeta = frame.dataMeta;
    st.frameSize = frame.frameSize;
    st.ingressIfindex = frame.ingressIfindex;
    st.rxQueueIndex = frame.rxQueueIndex;
    st.redirect = undefined;
    this.ctxFrame = frame;
    this.bindPacketBounds();
    const cf = this.ctxFields;
    cf[6] = frame.ingressIfindex | 0;
    cf[7] = 0;
    cf[8] = frame.rxQueueIndex | 0;
    cf[9] = 0;
    const m = this.machine;
    // The JIT starts from its own constants (r1 = ctx, the rest 0); the interpreter from the machine's registers.
    if (m.jit === undefined || m.engine !== 'jit' || m.trace !== undefined) {
      // Loops, not fill(): for 11 entries a runtime call costs more than the stores.
      const lo = m.lo;
      const hi = m.hi;
      const pv = m.pv;
      for (let r = 0; r < 11; r++) {
        lo[r] = 0;
        hi[r] = 0;
        pv[r] = 0;
      }
      m.setPtr(1, this.ctxRegion, 0);
    }
    return m.run();
  }
}

/** Load a parsed spec with its maps (created from the spec unless given). */
export function createVm(parsed: ParsedSpec, opts: VmOptions = {}): XdpVm | { error: string } {
  let maps = opts.maps;
  if (!maps) {
    maps = [];
    const memory = opts.memory ?? new MapMemory();
    for (const spec of parsed.spec.maps ?? []) {
      const m = createMap(spec, { nCpus: opts.nCpus ?? 1, memory });
      if ('error' in m) return { error: m.error };
      maps.push(m);
    }
  }
  return new XdpVm(parsed, maps, opts);
}

/** BPF_PROG_TEST_RUN's frame for a packet: a zeroed 4096 B page, 256 B headroom, data_meta = data. */
export const XDP_PACKET_HEADROOM = 256;
export const TEST_RUN_FRAME_SIZE = 4096;
export const TEST_RUN_MAX_DATA = TEST_RUN_FRAME_SIZE - XDP_PACKET_HEADROOM - 320;

export function testRunFrame(packet: Uint8Array): XdpFrame {
  const buf = new Uint8Array(TEST_RUN_FRAME_SIZE);
  buf.set(packet, XDP_PACKET_HEADROOM);
  return {
    buf,
    data: XDP_PACKET_HEADROOM,
    dataEnd: XDP_PACKET_HEADROOM + packet.length,
    dataMeta: XDP_PACKET_HEADROOM,
    ingressIfindex: 1,
    rxQueueIndex: 0,
    frameSize: TEST_RUN_FRAME_SIZE,
  };
}
