/**
 * The verifier state of one path (the kernel's bpf_verifier_state): a stack
 * of function frames, each with eleven registers and its own stack slots.
 * A stack slot is 8 bytes, each byte typed (invalid, part of a spilled
 * register, misc data, zero); a spilled register keeps its full state.
 */
import { MAX_BPF_REG } from '../isa/opcodes';
import { copyReg, notInit, pointer, type Reg } from './reg';

export const STACK_INVALID = 0;
export const STACK_SPILL = 1;
export const STACK_MISC = 2;
export const STACK_ZERO = 3;
export const SLOT_CHAR = ['?', 'r', 'm', '0'];

export interface StackSlot {
  /** Byte types; index j covers the byte at fp-(8*spi)-1-j... as the kernel's slot_type[]. */
  types: number[];
  spilled: Reg;
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

export interface Checkpoint {
  /** The state when the checkpoint was taken; dropped once evicted (only the branch count is still needed). */
  state: VState | null;
  insnIdx: number;
  /** Paths still being explored below this checkpoint; 0 = complete and safe. */
  branches: number;
  parent: Checkpoint | null;
  hit: number;
  miss: number;
  removed: boolean;
}

export interface VState {
  frames: Frame[];
  /** The checkpoint this path descends from. */
  parent: Checkpoint | null;
  /** may_goto fall-throughs taken on this path (may_goto_depth). */
  mayGotoDepth?: number;
  /** Acquired references not yet released (acquired_refs): id and the insn that acquired it. */
  refs?: { id: number; insn: number }[];
}

export const curFrame = (s: VState): Frame => s.frames[s.frames.length - 1]!;

export function newSlot(): StackSlot {
  return { types: [0, 0, 0, 0, 0, 0, 0, 0], spilled: notInit() };
}

export function cloneFrame(f: Frame): Frame {
  return {
    regs: f.regs.map(copyReg),
    stack: f.stack.map((s) => ({ types: s.types.slice(), spilled: copyReg(s.spilled) })),
    frameno: f.frameno,
    callsite: f.callsite,
    subprogStart: f.subprogStart,
    ...(f.callback ? { callback: { ...f.callback, ctx: copyReg(f.callback.ctx) } } : {}),
  };
}

export function cloneState(s: VState): VState {
  const c: VState = { frames: s.frames.map(cloneFrame), parent: s.parent };
  if (s.mayGotoDepth) c.mayGotoDepth = s.mayGotoDepth;
  if (s.refs?.length) c.refs = s.refs.map((r) => ({ ...r }));
  return c;
}

export function initialState(): VState {
  const regs: Reg[] = [];
  for (let i = 0; i < MAX_BPF_REG; i++) regs.push(notInit());
  regs[1] = pointer('ctx');
  regs[10] = pointer('fp', { frameno: 0 });
  return { frames: [{ regs, stack: [], frameno: 0, callsite: -1, subprogStart: 0 }], parent: null };
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
