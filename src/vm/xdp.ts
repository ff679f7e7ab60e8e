/**
 * An XDP program instance: the program, its maps and the helpers, run on
 * frames in place as BPF_PROG_TEST_RUN and a driver's napi poll do. The
 * context is struct xdp_md with the kernel's ctx rewrite: a 32-bit load of
 * data, data_end or data_meta yields a full packet pointer; the context is
 * read-only. Packet bytes are the caller's buffer (zero copy).
 */
import { syncookieHelpers } from './helpers_syncookie';
import { dynptrHelpers, KFUNCS, xdpKfuncs } from './kfuncs';
import { relocatedInsns, type ParsedSpec } from '../isa/spec';
import { BPF_PSEUDO_MAP_FD, BPF_PSEUDO_MAP_VALUE } from '../isa/opcodes';
import { BPF_F_RDONLY_PROG, BPF_F_WRONLY_PROG, bindMapInMaps, checkMapInMaps, createMap, MapMemory, type BpfMap } from '../maps';
import { verify, type VerifierProof } from '../verifier';

/**
 * The verification work the VM spends on its own to prove a program for the
 * JIT (the kernel allows 1M; that can take many seconds here): a program
 * that needs more runs in the interpreter unless the caller passes a proof.
 */
export const JIT_VERIFY_LIMIT = 100_000;
import { BPF_MAX_LOOPS, Machine, type TraceHook } from './interp';
import { compileJit, JIT_MAX_SLOTS, mayWritePacket, type ArrayInline, type HashInline, type JitTarget } from './jit';

/** The hash maps whose lookups the JIT inlines (HashInline): the ones bpf_map_lookup_elem returns a value of. */
const HASH_TYPES: ReadonlySet<string> = new Set(['hash', 'percpu_hash', 'lru_hash', 'lru_percpu_hash']);
import { HI_BASE, LO_BASE, VmFault, type Region } from './memory';
import type { EventLog } from './helpers_objects';
import { FibTable } from './fib';
import { parseSpec } from '../isa/spec';
import { valueRegion, xdpHelpers, xdpRedirectMap, type HelperEnv, type RedirectInfo, type RedirectMapFn, type XdpBuffState } from './helpers';

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
  /**
   * Offset of data_hard_start in buf (default 0: buf begins with the frame).
   * A caller whose frames all live in one large buffer (the simulator's page
   * pool) passes that buffer and each frame's start here: the packet region
   * then stays bound to the same bytes from run to run.
   */
  hardStart?: number;
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
  /** Share an event log (perf_event_output and ringbuf records) with another VM. */
  events?: EventLog;
  /** bpf_fib_lookup's tables (default: defaultFibConfig()); the caller may keep and change it. */
  fib?: FibTable;
  /**
   * The verifier's proof for the JIT, from a verification the caller already
   * ran with `proof: true` (saves a second one). Without it the VM verifies
   * the program itself, up to JIT_VERIFY_LIMIT processed instructions.
   */
  proof?: VerifierProof;
  /** The memory budget the maps created here are charged to (default: 64 MiB a map, 256 MiB in all). */
  memory?: MapMemory;
  /**
   * VMs of one program created with the same key share the JIT's generated
   * closures, so V8's type feedback and optimized code (a warm-up on one
   * warms the other: `run --repeat`'s twin). Without one the VM's closures
   * are its own: feedback from the same program run elsewhere (another
   * simulation's buffers and maps) does not make this one's code
   * polymorphic.
   */
  jitShare?: string;
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
  readonly packet: Region;
  private state: XdpBuffState;
  /** The translation's XDP entry (undefined: runs use the interpreter). */
  private jitEnter: ((frame: XdpFrame) => VmFault | undefined) | undefined;
  private jitRunInto: ((frame: XdpFrame, out: XdpResult) => void) | undefined;
  private jitRepeat: ((frame: XdpFrame, out: XdpResult, n: number) => void) | undefined;
  /** testRunInto's xdp_buff between runs when it follows each run itself (tail calls, the interpreter). */
  private readonly repeatFrame: XdpFrame = { buf: new Uint8Array(0), data: 0, dataEnd: 0, dataMeta: 0, ingressIfindex: 0, rxQueueIndex: 0, frameSize: 0, hardStart: 0 };
  private readonly ctxFields: Int32Array;
  /** The packet region's pointer tag (high word). */
  private readonly packetHi: number;
  /** Why runs use the interpreter although the engine is 'jit' (undefined when the JIT runs). */
  readonly jitUnavailable: string | undefined;
  /** Whether a run may write packet memory: true unless the verifier's proof (made for the JIT) shows it cannot (mayWritePacket). */
  packetWrites = true;
  /** What the JIT was bound to (for tests and experiments that translate again). */
  lastTarget: JitTarget | undefined;
  /** bpf_redirect_map's body, for the JIT's calls that name their map (./helpers.ts xdpRedirectMap). */
  private readonly redirectMap: RedirectMapFn;

  /** perf_event_output and ringbuf records, newest last (EVENTS_KEPT at most; `dropped` counts the rest). */
  readonly log: EventLog;
  /** bpf_fib_lookup's tables when the VM made its own (opts.fib absent). */
  fib: FibTable | undefined;
  /** The program's name (tail-call targets carry theirs into faults). */
  readonly name: string;
  private readonly root: XdpVm;
  private readonly tailVms: (XdpVm | null)[] = [];
  private readonly tailFrame: XdpFrame = { buf: new Uint8Array(0), data: 0, dataEnd: 0, dataMeta: 0, ingressIfindex: 0, rxQueueIndex: 0, frameSize: 0, hardStart: 0 };

  constructor(
    private readonly parsed: ParsedSpec,
    maps: BpfMap[],
    private readonly opts: VmOptions,
    name = 'prog',
    root?: XdpVm,
  ) {
    this.name = name;
    this.root = root ?? this;
    this.log = opts.events ?? { events: [], dropped: 0 };
    this.maps = maps;
    // One literal with a fixed field order (not a spread): every instance's env has one shape, so the JIT's read of env.cpu stays monomorphic.
    const d = defaultEnv(1, this.printed);
    const e = opts.env ?? {};
    this.env = { ktimeNs: e.ktimeNs ?? d.ktimeNs, prandomU32: e.prandomU32 ?? d.prandomU32, cpu: e.cpu ?? d.cpu, printk: e.printk ?? d.printk, virtAddrBits: e.virtAddrBits ?? 48 };
    const mapRegions: Region[] = [];
    // Helpers read `this` lazily, so the machine can be built first.
    const lazy = new Map<number, (m: Machine, pc: number) => void>();
    // As the kernel receives them: a relocated lddw's src_reg says what it loads, whatever the spec's bytes held
    // (the verifier reads the same; verifier-373992382-86265.json had src_reg 7 under a map reloc).
    this.machine = new Machine(relocatedInsns(parsed), lazy);
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
    this.state = { buf: new Uint8Array(0), data: 0, dataEnd: 0, dataMeta: 0, frameSize: 0, hardStart: 0, ingressIfindex: 0, rxQueueIndex: 0, packet: this.packet, redirect: undefined, tailCall: -1, tailCalls: 0 };
    const helpersCtx: Parameters<typeof xdpHelpers>[0] = {
      env: this.env,
      maps,
      mapRegions,
      xdp: () => this.state,
      packetMoved: () => this.bindPacketBounds(),
      log: this.log,
      fib: opts.fib ?? (this.fib = new FibTable()),
    };
    this.redirectMap = xdpRedirectMap(helpersCtx);
    for (const [id, fn] of xdpHelpers(helpersCtx, this.redirectMap)) lazy.set(id, fn);
    for (const [id, fn] of syncookieHelpers()) if (!lazy.has(id)) lazy.set(id, fn);
    for (const [id, fn] of dynptrHelpers({ xdp: () => this.state })) lazy.set(id, fn);
    // lddw of a map: relocations first, else src_reg says imm is a map (index) or a map value.
    const relocated = new Set<number>();
    // Global data (BPF_PSEUDO_MAP_VALUE): a pointer to byte `offset` of the map's value 0, as libbpf relocates .data/.bss/.rodata.
    const bindValue = (slot: number, mapIndex: number, offset: number): void => {
      const map = maps[mapIndex];
      const v = map?.lookup(new Uint8Array(4), this.env.cpu);
      if (map && v) this.machine.bindLdImm64(slot, valueRegion(this.machine, map, v), offset);
    };
    for (const r of parsed.spec.map_relocs ?? []) {
      if (r.kind === 'value') bindValue(r.insn, r.map, r.offset ?? 0);
      else this.machine.bindLdImm64(r.insn, mapRegions[r.map]!);
      relocated.add(r.insn);
    }
    parsed.insns.forEach((insn, k) => {
      if (insn.code !== 0x18 || relocated.has(k)) return;
      if (insn.src === BPF_PSEUDO_MAP_FD && mapRegions[insn.imm]) this.machine.bindLdImm64(k, mapRegions[insn.imm]!);
      if (insn.src === BPF_PSEUDO_MAP_VALUE && maps[insn.imm]) bindValue(k, insn.imm, insn.imm2 ?? 0);
    });
    const own = xdpKfuncs({ xdp: () => this.state });
    for (const r of parsed.spec.kfunc_relocs ?? []) this.machine.kfuncAt[r.insn] = Object.hasOwn(own, r.name) ? own[r.name] : Object.hasOwn(KFUNCS, r.name) ? KFUNCS[r.name] : undefined;
    this.machine.ctxLoad = (pc, reg, dstReg, at, size) => this.ctxLoad(pc, reg, dstReg, at, size);
    this.machine.ctxRegion = this.ctxRegion;
    // data, data_end, data_meta, ingress_ifindex, rx_queue_index; not egress_ifindex (it faults, in ctxLoad).
    this.machine.ctxReadable = [true, true, true, true, true, false];
    // A verified program runs as the kernel loads it: what the verifier never reached is a trap (both engines).
    if (opts.proof) this.sanitize(opts.proof);
    this.jitUnavailable = (opts.engine ?? 'jit') === 'jit' ? this.buildJit(parsed) : 'engine is interp';
  }

  /** Dead code to traps, from a proof: r10 is a frame pointer on every explored path, so a slot with no kinds for it was never reached. */
  private sanitize(proof: VerifierProof): void {
    const kinds = proof.kinds;
    this.machine.sanitizeDeadCode((k) => kinds[k * 11 + 10] !== 0);
  }

  /** Verify (recording the proof the JIT needs) and translate; the reason when the JIT cannot be used. */
  private buildJit(parsed: ParsedSpec): string | undefined {
    if (parsed.insns.length > JIT_MAX_SLOTS) return `more than ${JIT_MAX_SLOTS} instructions`;
    let proof = this.opts.proof;
    if (!proof) {
      if (this.machine.checkProgram()) return 'the program is invalid';
      const v = verify(parsed, { logLevel: 0, states: false, proof: true, insnLimit: JIT_VERIFY_LIMIT });
      if (!v.accepted || !v.proof) return `the verifier rejects it: ${v.error ?? 'rejected'}`;
      proof = v.proof;
      this.sanitize(proof);
    }
    this.packetWrites = mayWritePacket(this.machine, proof);
    if (this.machine.checkProgram()) return 'the program is invalid';
    const m = this.machine;
    const arrays = this.maps.map((map): ArrayInline | undefined => {
      // devmap and xskmap lookups too (a program reads whether an entry is there), by their presence.
      const special = map.type === 'devmap' || map.type === 'xskmap';
      if ((map.type !== 'array' && map.type !== 'percpu_array' && !special) || map.maxEntries > 65536 || !map.lookupIndex || map.observed || (special && !map.presence)) return undefined;
      const planes = map.percpu ? map.nCpus : 1;
      const max = map.maxEntries;
      const tags = new Int32Array(max * planes);
      const lookupIndex = map.lookupIndex.bind(map);
      const fill = elementTagFill(m, map, max, planes, tags, (i, plane) => lookupIndex(i, plane)!);
      return {
        max,
        planes,
        tags,
        counter: map.lookupCounter,
        values: planes === 1 && !special ? contiguousValues(map, max) : undefined,
        present: special ? map.presence : undefined,
        fill,
      };
    });
    const hashes = this.maps.map((map): HashInline | undefined => {
      if (!HASH_TYPES.has(map.type) || !map.lookupSlot || !map.slotValue || map.observed || map.maxEntries > 65536) return undefined;
      const planes = map.percpu ? map.nCpus : 1;
      const max = map.maxEntries;
      const tags = new Int32Array(max * planes);
      const slotValue = map.slotValue.bind(map);
      const fill = elementTagFill(m, map, max, planes, tags, (slot, plane) => slotValue(slot, plane));
      return {
        max,
        planes,
        keySize: map.keySize,
        tags,
        counter: map.lookupCounter,
        map: map as { lookupSlot(bytes: Uint8Array, at: number): number },
        fill,
      };
    });
    const finish = (f: VmFault | undefined, out: object): void => this.finishRun(f, out as XdpResult);
    const target = { packet: this.packet, ctx: this.ctxRegion, arrays, hashes, env: this.env, state: this.state, maxLoops: BPF_MAX_LOOPS, finish, redirectMap: this.redirectMap };
    this.lastTarget = target;
    const entry = compileJit(m, proof, target, this.opts.jitShare);
    if (typeof entry === 'string') return entry;
    m.jit = entry.run;
    this.jitEnter = entry.enter;
    this.jitRunInto = entry.runInto;
    this.jitRepeat = entry.repeat;
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
    const s = this.state;
    switch (at) {
      case 0: return m.setPtr(d, this.packet, s.data);
      case 4: return m.setPtr(d, this.packet, s.dataEnd);
      case 8: return m.setPtr(d, this.packet, s.dataMeta);
      case 12: return m.setReg(d, s.ingressIfindex >>> 0);
      case 16: return m.setReg(d, s.rxQueueIndex >>> 0);
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
    const out: XdpResult = { retval: 0, data: 0, dataEnd: 0, dataMeta: 0, insns: 0, fault: undefined, redirect: undefined };
    this.runXdpInto(frame, out);
    // A copy: the helpers reuse their redirect record from run to run.
    if (out.redirect) out.redirect = { ...out.redirect };
    return out;
  }

  /**
   * runXdp for a hot loop (the simulator's driver): the same run, its result
   * written into the caller's object, which is reused from run to run, so
   * nothing is allocated per packet. fault and redirect are set to undefined
   * when absent; redirect is the helpers' own record, valid until the next run.
   */
  runXdpInto(frame: XdpFrame, out: XdpResult): XdpResult {
    const m = this.machine;
    // The translation's own entry does the whole run (one call, nothing shared between programs to go polymorphic).
    if (this.jitRunInto !== undefined && m.engine === 'jit' && m.trace === undefined) this.jitRunInto(frame, out);
    else this.finishRun(this.runOnce(frame, 0), out);
    return out;
  }

  /**
   * BPF_PROG_TEST_RUN with a repeat: the program runs `n` times back to back
   * on one xdp_buff, set up once from `frame`; as in the kernel's
   * bpf_test_run, nothing is reset between runs, so each starts where the
   * last left data, data_end and data_meta (a program that pushes a header
   * pushes it n times) and the maps see every run. `out` is the last run's
   * result. With the JIT the loop is the translation's own, so a run costs
   * what the kernel's loop iteration does: the program, no call from here.
   */
  testRunInto(frame: XdpFrame, out: XdpResult, n: number): XdpResult {
    const m = this.machine;
    if (this.jitRepeat !== undefined && m.engine === 'jit' && m.trace === undefined) {
      this.jitRepeat(frame, out, n);
      return out;
    }
    this.runXdpInto(frame, out);
    // The frame's buffer and fields; data, data_end and data_meta then follow each run.
    const f = Object.assign(this.repeatFrame, frame);
    for (let k = 1; k < n; k++) {
      f.data = out.data;
      f.dataEnd = out.dataEnd;
      f.dataMeta = out.dataMeta;
      this.runXdpInto(f, out);
    }
    return out;
  }

  /** The result of a run whose first program has run (and returned `fault`): tail calls followed, `out` filled in. */
  private finishRun(fault: VmFault | undefined, out: XdpResult): void {
    let f = fault;
    // The program that ran last: this one (undefined) or a tail-call target.
    let target: XdpVm | undefined;
    let insns = this.machine.executed;
    // Tail calls: the target program runs on the same xdp_buff and its result is the run's.
    while (f === undefined && (target ?? this).state.tailCall >= 0) {
      const cur = target ?? this;
      const st = cur.state;
      const next = this.tailTarget(st.tailCall);
      if (!next) {
        f = new VmFault(-1, 'helper', `bpf_tail_call: prog_array holds program ${st.tailCall}, which this object does not have`);
        break;
      }
      const tf = this.tailFrame;
      tf.buf = st.buf;
      tf.dv = cur.packet.dv;
      tf.data = st.data;
      tf.dataEnd = st.dataEnd;
      tf.dataMeta = st.dataMeta;
      tf.frameSize = st.frameSize;
      tf.hardStart = st.hardStart;
      tf.ingressIfindex = st.ingressIfindex;
      tf.rxQueueIndex = st.rxQueueIndex;
      f = next.runOnce(tf, st.tailCalls);
      insns += next.machine.executed;
      target = next;
    }
    const s = (target ?? this).state;
    const m = (target ?? this).machine;
    out.retval = f ? 0 : m.lo[0]! >>> 0;
    out.data = s.data;
    out.dataEnd = s.dataEnd;
    out.dataMeta = s.dataMeta;
    out.insns = insns;
    out.fault = f ? { pc: f.pc, kind: f.kind, message: target ? `${target.name}: ${f.message}` : f.message, reg: f.reg, region: f.region } : undefined;
    out.redirect = s.redirect;
  }

  /** One program's run (no tail calls followed), starting with `tailCalls` already taken. */
  private runOnce(frame: XdpFrame, tailCalls: number): VmFault | undefined {
    const st = this.state;
    st.tailCall = -1;
    st.tailCalls = tailCalls;
    const m = this.machine;
    // The JIT's entry sets up only what its code reads (the packet region and the xdp_buff state; r1 and r10 are constants in the translation).
    return this.jitEnter !== undefined && m.engine === 'jit' && m.trace === undefined ? this.jitEnter(frame) : this.exec(frame);
  }

  /** The object's other programs, made on their first tail call (sharing maps, environment and event log). */
  private tailTarget(index: number): XdpVm | undefined {
    const root = this.root;
    let vm = root.tailVms[index];
    if (vm === undefined) {
      const p = root.parsed.spec.programs?.[index];
      const parsed = p ? parseSpec({ ...root.parsed.spec, insns: p.insns, map_relocs: p.map_relocs ?? [], line_info: p.line_info, funcs: p.funcs, programs: undefined }) : undefined;
      vm = parsed && !('error' in parsed) ? new XdpVm(parsed, root.maps, { ...root.opts, env: root.env, events: root.log, fib: root.fib ?? root.opts.fib }, p!.name, root) : null;
      root.tailVms[index] = vm;
    }
    if (vm) vm.machine.trace = root.machine.trace;
    return vm ?? undefined;
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
    st.hardStart = frame.hardStart ?? 0;
    st.ingressIfindex = frame.ingressIfindex;
    st.rxQueueIndex = frame.rxQueueIndex;
    st.redirect = undefined;
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

/**
 * One plane's values as the JIT may index them directly: views over them
 * all when they lie evenly spaced in one buffer (array maps allocate one
 * backing store), else undefined. Elements are never replaced (updates copy
 * into them), so views made once stay right.
 */
/**
 * An inlined lookup's `fill`: the pointer tag of element i (an array index
 * or a hash slot) on a cpu's plane, made from the element's value region as
 * the lookup helper names it (one region per value buffer), kept in `tags`.
 */
function elementTagFill(m: Machine, map: BpfMap, max: number, planes: number, tags: Int32Array, valueOf: (i: number, plane: number) => Uint8Array): (i: number, cpu: number) => number {
  return (i, cpu) => {
    const plane = planes > 1 ? cpu % planes : 0;
    const r = valueRegion(m, map, valueOf(i, plane));
    return (tags[plane * max + i] = (HI_BASE + r.id * 8) | 0);
  };
}

function contiguousValues(map: BpfMap, max: number): ArrayInline['values'] {
  // Array maps allocate their values in chunks of up to 1024 elements and about 64 KiB, on first use. Only a
  // map that is one chunk can be contiguous, and asking for its elements then allocates nothing that a map
  // listing could tell from the interpreter's (a map of at most 4096 entries lists every index anyway).
  let perChunk = 1024;
  while (perChunk > 1 && perChunk * map.valueSize > 65536) perChunk >>= 1;
  if (max > perChunk) return undefined;
  const first = map.lookupIndex!(0, 0);
  const second = max > 1 ? map.lookupIndex!(1, 0) : undefined;
  const last = map.lookupIndex!(max - 1, 0);
  if (!first || !last || (max > 1 && !second)) return undefined;
  const stride = second ? second.byteOffset - first.byteOffset : map.valueSize;
  const vs = map.valueSize;
  if (first.length !== vs || stride < vs || last.buffer !== first.buffer || last.byteOffset !== first.byteOffset + (max - 1) * stride) return undefined;
  const len = (max - 1) * stride + vs;
  return {
    dv: new DataView(first.buffer, first.byteOffset, len),
    bytes: new Uint8Array(first.buffer, first.byteOffset, len),
    stride,
    valueSize: vs,
    readable: (map.flags & BPF_F_WRONLY_PROG) === 0,
    writable: (map.flags & BPF_F_RDONLY_PROG) === 0,
  };
}

/** Load a parsed spec with its maps (created from the spec unless given). */
export function createVm(parsed: ParsedSpec, opts: VmOptions = {}): XdpVm | { error: string } {
  const mim = checkMapInMaps(parsed.spec.maps ?? []);
  if (mim) return { error: mim };
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
  bindMapInMaps(maps, parsed.spec.maps ?? []);
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
    hardStart: 0,
  };
}
