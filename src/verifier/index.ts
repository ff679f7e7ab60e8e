/**
 * The verifier: the kernel's judgement of an XDP program loaded by root
 * (CAP_BPF + CAP_PERFMON) — accepted or not, the first error line in the
 * kernel's words, the log in the kernel's format (levels 1 and 2), and for
 * the UI the register and stack state before and after each instruction.
 *
 *   const v = verify(parseSpec(json), { logLevel: 1 });
 *   v.accepted, v.error, v.log, v.insnsProcessed, v.states, v.errorPc
 */
import { relocatedInsns, type ParsedSpec } from '../isa/spec';
import { Env, Reject, type LineInfoEntry, type VerifyOptions } from './env';
import { checkProgramShape, liveRegsText } from './cfg';
import { doCheck } from './check';
import { curFrame, SLOT_CHAR, STACK_SPILL, type Frame } from './state';
import { formatReg, type Reg } from './reg';
import { s64, tnumIsConst } from './tnum';

export type { VerifyOptions } from './env';

/** Register types as bits (VerifyResult.proof.kinds). */
export const REG_KIND_BIT: Readonly<Record<Reg['type'], number>> = {
  not_init: 1, scalar: 2, ctx: 4, map_ptr: 8, map_value: 16, map_value_or_null: 32, fp: 64, pkt: 128, pkt_meta: 256, pkt_end: 512, xdp_sock: 1024, xdp_sock_or_null: 2048,
  sock: 4096, sock_or_null: 8192, sock_common: 16384, sock_common_or_null: 32768, ringbuf_mem: 65536, ringbuf_mem_or_null: 131072,
  func: 262144, nf_conn: 524288, nf_conn_or_null: 1048576, nf_conn___init: 2097152, nf_conn___init_or_null: 4194304,
  mem: 8388608, mem_or_null: 16777216, rdonly_mem: 33554432, rdonly_mem_or_null: 67108864,
};

/**
 * What the verifier proved, for the JIT (opts.proof): kinds[insn * 11 + r]
 * is the OR of REG_KIND_BIT over the types register r had before the
 * instruction on every explored path (0: never reached); callMap[insn] is
 * the map index R1 held at a helper call on every path (-1: none,
 * differing, or an inner map of a map-in-map, known only at run time as
 * the kernel's BPF_MAP_PTR_POISON); stackDepth per subprogram start, as check_max_stack_depth uses it.
 */
export interface VerifierProof {
  kinds: Uint32Array;
  callMap: Int32Array;
  stackDepth: Map<number, number>;
}

/** One register as the UI shows it. */
export interface RegView {
  regno: number;
  type: string;
  /** The kernel's text for it, e.g. "pkt(off=14,r=14)" or "scalar(umax=255,...)". */
  text: string;
  /** Known value when the register is a constant scalar (decimal, signed). */
  value?: string;
  varOff: { value: string; mask: string };
  smin: string;
  smax: string;
  umin: string;
  umax: string;
  s32min: string;
  s32max: string;
  u32min: string;
  u32max: string;
  off: number;
  id: number;
  range?: number;
  map?: number;
  frameno?: number;
  precise: boolean;
}

export interface SlotView {
  /** Offset from the frame pointer, e.g. -8. */
  off: number;
  /** Byte types as the kernel prints them ('?', 'r', 'm', '0'), lowest address first. */
  types: string;
  spilled?: RegView;
}

export interface StateView {
  frame: number;
  regs: RegView[];
  stack: SlotView[];
  /** References acquired and not yet released on this path (the kernel's acquired_refs): their id and the instruction that took each. */
  refs?: { id: number; insn: number }[];
}

/** The state before an instruction's first visit, as the kernel would print it (states: 'first'). */
export interface FirstStateText {
  idx: number;
  frame: number;
  regs: { regno: number; text: string }[];
  /** Stack slots in use: byte types, and the spilled register's text when the slot holds one. */
  stack: { off: number; types: string; spilled?: string }[];
}

export interface InsnStates {
  idx: number;
  /** One entry per time the instruction was explored (capped). */
  visits: { before: StateView; after?: StateView }[];
}

export interface VerifyResult {
  accepted: boolean;
  /** The first error line, as the kernel prints it. */
  error?: string;
  /** The log in the kernel's format for the requested level ('' at level 0): its last logSize bytes. */
  log: string;
  /** The log outgrew its buffer and holds only its end (the kernel would fail the load with ENOSPC). */
  logTruncated?: boolean;
  insnsProcessed: number;
  states: InsnStates[];
  /** With states: 'first' (and then `states` is empty). */
  firstStates?: FirstStateText[];
  errorPc?: number;
  /** The pcs of the path that led to the error, first to last. */
  errorPath?: number[];
  /** The registers and stack of the current frame when the error was found (src/explain reads it). */
  errorState?: StateView;
  /** Branches still waiting to be explored when the error was found (the kernel's env->stack_size; 8192 is its limit). */
  pendingBranches?: number;
  stats: { maxStatesPerInsn: number; totalStates: number; peakStates: number };
  /** With opts.proof. */
  proof?: VerifierProof;
}

const MAX_VISITS_PER_INSN = 4;

function regView(regno: number, r: Reg, env: Env): RegView {
  const v: RegView = {
    regno,
    type: r.type,
    text: formatReg(r, env.maps),
    varOff: { value: '0x' + r.varOff.value.toString(16), mask: '0x' + r.varOff.mask.toString(16) },
    smin: r.smin.toString(),
    smax: r.smax.toString(),
    umin: r.umin.toString(),
    umax: r.umax.toString(),
    s32min: r.s32min.toString(),
    s32max: r.s32max.toString(),
    u32min: r.u32min.toString(),
    u32max: r.u32max.toString(),
    off: r.off,
    id: r.id,
    precise: r.precise,
  };
  if (r.type === 'scalar' && tnumIsConst(r.varOff)) v.value = s64(r.varOff.value).toString();
  // pkt: the proven range; memory from bpf_ringbuf_reserve or a dynptr slice: its mem_size.
  if (r.type === 'pkt' || r.type === 'pkt_meta' || r.type === 'ringbuf_mem' || r.type === 'mem' || r.type === 'rdonly_mem') v.range = r.range;
  if (r.map >= 0) v.map = r.map;
  if (r.type === 'fp') v.frameno = r.frameno;
  return v;
}

function stateView(env: Env, f: Frame, frame: number, refs?: readonly { id: number; insn: number }[]): StateView {
  const regs: RegView[] = [];
  f.regs.forEach((r, i) => {
    if (r.type !== 'not_init') regs.push(regView(i, r, env));
  });
  const stack: SlotView[] = [];
  f.stack.forEach((sl, spi) => {
    if (sl.types.every((t) => t === 0)) return;
    const sv: SlotView = { off: -(spi + 1) * 8, types: sl.types.map((t) => SLOT_CHAR[t]).join('') };
    if (sl.types[7] === STACK_SPILL) sv.spilled = regView(-1, sl.spilled, env);
    stack.push(sv);
  });
  return { frame, regs, stack, ...(refs?.length ? { refs: refs.map((x) => ({ id: x.id, insn: x.insn })) } : {}) };
}

function firstStateText(env: Env, f: Frame, idx: number, frame: number): FirstStateText {
  const regs: FirstStateText['regs'] = [];
  for (let i = 0; i < f.regs.length; i++) {
    const r = f.regs[i]!;
    if (r.type !== 'not_init') regs.push({ regno: i, text: formatReg(r, env.maps) });
  }
  const stack: FirstStateText['stack'] = [];
  for (let spi = 0; spi < f.stack.length; spi++) {
    const sl = f.stack[spi]!;
    if (sl.types.every((t) => t === 0)) continue;
    const sv: FirstStateText['stack'][number] = { off: -(spi + 1) * 8, types: sl.types.map((t) => SLOT_CHAR[t]).join('') };
    if (sl.types[7] === STACK_SPILL) sv.spilled = formatReg(sl.spilled, env.maps);
    stack.push(sv);
  }
  return { idx, frame, regs, stack };
}

/** Source text for each line_info entry: "<code> @ file:line". */
function lineInfoTexts(parsed: ParsedSpec): LineInfoEntry[] {
  const li = parsed.spec.line_info;
  if (!li || li.length === 0) return [];
  const lines = (parsed.spec.source ?? '').split('\n');
  const out: LineInfoEntry[] = [];
  for (const l of [...li].sort((a, b) => a.insn - b.insn)) {
    const code = (lines[l.line - 1] ?? '').trim();
    const file = (l.file ?? 'prog.c').split('/').pop();
    out.push({ insn: l.insn, text: `${code} @ ${file}:${l.line}` });
  }
  return out;
}

export function verify(parsed: ParsedSpec, opts: VerifyOptions = {}): VerifyResult {
  const maps = parsed.spec.maps ?? [];
  const mapOfInsn = new Map<number, number>();
  for (const r of parsed.spec.map_relocs ?? []) mapOfInsn.set(r.insn, r.map);
  // The loader's relocation (libbpf, bpf-oracle) writes the pseudo kind into
  // src_reg and a value reloc's offset into the second slot's imm.
  const insns = relocatedInsns(parsed);
  const env = new Env(insns, maps, mapOfInsn, lineInfoTexts(parsed), opts);
  for (const r of parsed.spec.kfunc_relocs ?? []) env.kfuncNames.set(r.insn, r.name);
  env.hasFuncInfo = (parsed.spec.funcs?.length ?? 0) > 0;
  const states: (InsnStates | undefined)[] = new Array(parsed.insns.length);
  const full: Uint8Array = new Uint8Array(parsed.insns.length);
  const first: (FirstStateText | undefined)[] = [];
  // The structured views (bigint bounds as strings, before and after every
  // visit) cost more than the verification itself; the app only shows the
  // first visit's state before each instruction, so it asks for just that.
  if (opts.states === 'first') env.onInsn = (e, idx, phase) => {
    if (phase === 'before' && !first[idx]) first[idx] = firstStateText(e, curFrame(e.cur), idx, e.cur.frames.length - 1);
  };
  else if (opts.states !== false) env.onInsn = (e, idx, phase) => {
    if (full[idx]) return;
    let s = states[idx];
    if (!s) states[idx] = s = { idx, visits: [] };
    if (phase === 'after' && s.visits.length >= MAX_VISITS_PER_INSN && s.visits[s.visits.length - 1]!.after) full[idx] = 1;
    const f = curFrame(e.cur);
    if (phase === 'before') {
      if (s.visits.length < MAX_VISITS_PER_INSN) s.visits.push({ before: stateView(e, f, e.cur.frames.length - 1) });
    } else {
      const last = s.visits[s.visits.length - 1];
      if (last && !last.after && s.visits.length <= MAX_VISITS_PER_INSN) last.after = stateView(e, f, e.cur.frames.length - 1);
    }
  };
  let proof: VerifierProof | undefined;
  if (opts.proof) {
    const n = parsed.insns.length;
    const p: VerifierProof = (proof = { kinds: new Uint32Array(n * 11), callMap: new Int32Array(n).fill(-2), stackDepth: env.stackDepth });
    // An inner-map template stands for whichever map the outer lookup finds at run time: no static map
    // (the kernel's map_gen_lookup reads R1 at run time; the JIT's inline lookups bind one map, so: none).
    const templates = new Set(env.maps.flatMap((m) => (m.inner_map !== undefined ? [m.inner_map] : [])));
    const inner = env.onInsn;
    env.onInsn = (e, idx, phase) => {
      inner?.(e, idx, phase);
      if (phase !== 'before') return;
      const regs = curFrame(e.cur).regs;
      for (let r = 0; r < 11; r++) p.kinds[idx * 11 + r]! |= REG_KIND_BIT[regs[r]!.type];
      const insn = e.insns[idx]!;
      if (insn.code === 0x85 && insn.src === 0) {
        const m = regs[1]!.type === 'map_ptr' && !templates.has(regs[1]!.map) ? regs[1]!.map : -1;
        p.callMap[idx] = p.callMap[idx] === -2 || p.callMap[idx] === m ? m : -1;
      }
    };
  }
  let accepted = false;
  try {
    checkProgramShape(env);
    if (env.log.level >= 2) {
      env.subprogs.forEach((start, i) => env.verbose(`func#${i} @${start}\n`));
      env.verbose(liveRegsText(env, (i) => env.insnText(i)));
    }
    doCheck(env);
    checkMaxStackDepth(env);
    accepted = true;
  } catch (e) {
    if (!(e instanceof Reject)) throw e;
  }
  if (accepted && env.log.level === 1) env.log.reset(0);
  env.log.write(
    `processed ${env.insnProcessed} insns (limit 1000000) max_states_per_insn ${env.maxStatesPerInsn} ` +
      `total_states ${env.totalStates} peak_states ${env.peakStates} mark_read 0\n`,
  );
  const result: VerifyResult = {
    accepted,
    log: env.log.level ? env.log.text : '',
    ...(env.log.truncated ? { logTruncated: true } : {}),
    insnsProcessed: env.insnProcessed,
    states: states.filter((s): s is InsnStates => s !== undefined),
    ...(opts.states === 'first' ? { firstStates: first.filter((s): s is FirstStateText => s !== undefined) } : {}),
    stats: { maxStatesPerInsn: env.maxStatesPerInsn, totalStates: env.totalStates, peakStates: env.peakStates },
    ...(proof ? { proof } : {}),
  };
  if (!accepted) {
    result.error = env.errorLine ?? 'rejected';
    if (env.cur) result.errorState = stateView(env, curFrame(env.cur), env.cur.frames.length - 1, env.cur.refs);
    result.pendingBranches = env.pending.length;
    const path = env.path.slice();
    if (path.length) {
      result.errorPc = path[path.length - 1];
      result.errorPath = path;
    }
  }
  return result;
}

/** check_max_stack_depth: the stack of a call chain is at most 512 bytes. */
function checkMaxStackDepth(env: Env): void {
  if (env.subprogs.length <= 1) return;
  // round_up_stack_depth with the JIT on (x86-64): to 16 bytes, an empty frame stays 0.
  const round = (d: number): number => Math.ceil(d / 16) * 16;
  const insns = env.insns;
  const subprogOf = (i: number): number => {
    let s = 0;
    for (const st of env.subprogs) if (st <= i) s = st;
    return s;
  };
  const calls = new Map<number, number[]>();
  insns.forEach((insn, i) => {
    if (insn.code === 0x85 && insn.src === 1) {
      const from = subprogOf(i);
      const list = calls.get(from) ?? [];
      list.push(i + insn.imm + 1);
      calls.set(from, list);
    }
  });
  const walk = (sp: number, depth: number, frames: number): void => {
    const d = depth + round(env.stackDepth.get(sp) ?? 0);
    if (d > 512) env.reject(`combined stack size of ${frames} calls is ${d}. Too large`);
    for (const callee of calls.get(sp) ?? []) {
      // MAX_CALL_FRAMES: the static walk covers calls on dead paths too.
      if (frames >= 8) env.reject(`the call stack of ${frames} frames is too deep !`);
      walk(callee, d, frames + 1);
    }
  };
  walk(0, 0, 1);
}

export { Reject };
