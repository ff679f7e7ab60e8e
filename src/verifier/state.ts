/**
 * The verifier state of one path (the kernel's bpf_verifier_state): a stack
 * of function frames, each with eleven registers and its own stack slots.
 * A stack slot is 8 bytes, each byte typed (invalid, part of a spilled
 * register, misc data, zero, half of a dynptr); a spilled register keeps its full state.
 */
import { MAX_BPF_REG } from '../isa/opcodes';
import { copyReg, notInit, pointer, type Reg } from './reg';

export const STACK_INVALID = 0;
export const STACK_SPILL = 1;
export const STACK_MISC = 2;
export const STACK_ZERO = 3;
/** Half of a struct bpf_dynptr (16 bytes, two slots) that a kfunc initialised: neither data nor a spill (./dynptr.ts). */
export const STACK_DYNPTR = 4;
export const SLOT_CHAR = ['?', 'r', 'm', '0', 'd'];

/**
 * A STACK_DYNPTR slot's spilled_ptr.dynptr: its kind (only XDP programs' packet dynptrs here), whether it is
 * the dynptr's first slot (the lower address, the higher spi) and the id its slices carry as dynptr_id.
 */
export interface DynptrSlot {
  type: 'xdp';
  first: boolean;
  id: number;
}

export interface StackSlot {
  /** Byte types; index j covers the byte at fp-(8*spi)-1-j... as the kernel's slot_type[]. */
  types: number[];
  spilled: Reg;
  /** Set while the slot's bytes are STACK_DYNPTR. */
  dynptr?: DynptrSlot;
}

export interface Frame {
  regs: Reg[];
  stack: StackSlot[];
  frameno: number;
  /** Instruction index of the call that created this frame (-1 for main). */
  callsite: number;
  /** First instruction of the subprogram this frame runs. */
  subprogStart: number;
  /** A bpf_loop callback's frame: which run this is, the caller frames as they were when it began, its target and ctx. */
  callback?: { run: number; key: string; target: number; ctx: Reg };
}

/**
 * One entry of a path's jump history (the kernel's bpf_jmp_history_entry):
 * an instruction reached other than by falling through from the one before
 * (prevIdx says from where), or one that spilled/filled a stack slot (flags,
 * frame and spi say which), or a branch that linked scalars share. Precision
 * backtracking (./precision.ts) walks it backwards.
 */
export interface HistEntry {
  readonly idx: number;
  readonly prevIdx: number;
  readonly flags: number;
  readonly spi: number;
  readonly frame: number;
  /** Scalars sharing an id at a branch (linked_regs): frame, register or stack slot. */
  readonly linked: readonly LinkedReg[] | null;
}

export interface LinkedReg {
  frameno: number;
  isReg: boolean;
  /** Register number, or stack slot index (spi) when !isReg. */
  regno: number;
}

export interface Checkpoint {
  /**
   * The state when the checkpoint was taken. Evicted checkpoints keep it while paths below are
   * still explored (precision backtracking marks and reads it); it is dropped after.
   */
  state: VState | null;
  insnIdx: number;
  /** Paths still being explored below this checkpoint; 0 = complete and safe. */
  branches: number;
  parent: Checkpoint | null;
  hit: number;
  miss: number;
  removed: boolean;
  /** Its dead stack slots were invalidated (clean_live_states), once its exploration was complete. */
  cleaned: boolean;
}

export interface VState {
  frames: Frame[];
  /** The checkpoint this path descends from. */
  parent: Checkpoint | null;
  /** may_goto fall-throughs taken on this path (may_goto_depth). */
  mayGotoDepth?: number;
  /** Acquired references not yet released (acquired_refs): id and the insn that acquired it. */
  refs?: { id: number; insn: number }[];
  /** Jump history since the parent checkpoint (jmp_history), entries shared between copies, never changed in place. */
  hist: HistEntry[];
  /** First instruction of this state's stretch of path (first_insn_idx: the parent checkpoint's insn). */
  firstInsnIdx: number;
  /** The instruction before insnIdx on this path (last_insn_idx), -1 at the start. */
  lastInsnIdx: number;
  /** The instruction this state is at (insn_idx). */
  insnIdx: number;
}

export const curFrame = (s: VState): Frame => s.frames[s.frames.length - 1]!;

export function newSlot(): StackSlot {
  return { types: [0, 0, 0, 0, 0, 0, 0, 0], spilled: notInit() };
}

export function cloneFrame(f: Frame): Frame {
  return {
    regs: f.regs.map(copyReg),
    stack: f.stack.map((s) => (s.dynptr ? { types: s.types.slice(), spilled: copyReg(s.spilled), dynptr: { ...s.dynptr } } : { types: s.types.slice(), spilled: copyReg(s.spilled) })),
    frameno: f.frameno,
    callsite: f.callsite,
    subprogStart: f.subprogStart,
    ...(f.callback ? { callback: { ...f.callback, ctx: copyReg(f.callback.ctx) } } : {}),
  };
}

export function cloneState(s: VState): VState {
  const c: VState = {
    frames: s.frames.map(cloneFrame),
    parent: s.parent,
    hist: s.hist.slice(),
    firstInsnIdx: s.firstInsnIdx,
    lastInsnIdx: s.lastInsnIdx,
    insnIdx: s.insnIdx,
  };
  if (s.mayGotoDepth) c.mayGotoDepth = s.mayGotoDepth;
  if (s.refs?.length) c.refs = s.refs.map((r) => ({ ...r }));
  return c;
}

export function initialState(): VState {
  const regs: Reg[] = [];
  for (let i = 0; i < MAX_BPF_REG; i++) regs.push(notInit());
  regs[1] = pointer('ctx');
  regs[10] = pointer('fp', { frameno: 0 });
  return { frames: [{ regs, stack: [], frameno: 0, callsite: -1, subprogStart: 0 }], parent: null, hist: [], firstInsnIdx: 0, lastInsnIdx: -1, insnIdx: 0 };
}

/** Make sure stack slots down to fp-size exist (grow_stack_state). */
export function growStack(f: Frame, size: number): void {
  const slots = Math.ceil(size / 8);
  while (f.stack.length < slots) f.stack.push(newSlot());
}

/** Every register of every frame and every spilled register. */
export function forEachReg(s: VState, fn: (r: Reg) => void): void {
  for (const f of s.frames) {
    for (const r of f.regs) fn(r);
    for (const sl of f.stack) if (sl.types[7] === STACK_SPILL) fn(sl.spilled);
  }
}
