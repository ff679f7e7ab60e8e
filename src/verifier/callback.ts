/**
 * bpf_loop (helper 181) and its callback (check_helper_call's callback
 * path, set_loop_callback_state, prepare_func_exit for callbacks). The
 * callback is verified in a new frame: R1 the loop index (unknown scalar),
 * R2 what the caller passed as callback_ctx, R3-R5 uninitialised, and at
 * its exit R0 must be a scalar known to lie in [0, 1].
 *
 * The kernel cannot know how often the callback runs, so it explores the
 * caller continuing after zero, one, two... runs until the states repeat.
 * XDP Lab does the same with a bound: after each run the caller may
 * continue (a pending path), and the callback runs again while the caller's
 * frames changed since the previous run — at most MAX_CALLBACK_RUNS times;
 * past the bound the remaining runs are assumed to change nothing more
 * (a known gap: a callback whose k-th run, k > the bound, first breaks
 * something is accepted).
 */
import type { Env } from './env';
import { isNullScalar, knownScalar, markUnknown, notInit, pointer, unknownScalar, formatReg } from './reg';
import { checkRegArg } from './regarg';
import { cloneState, curFrame, type Frame, type VState } from './state';
import { tnumIsConst } from './tnum';

export const BPF_FUNC_loop = 181;
const MAX_CALLBACK_RUNS = 4;
const MAX_CALL_FRAMES = 8;
/** push_stack's limit on pending paths. */
const BPF_COMPLEXITY_LIMIT_JMP_SEQ = 8192;

/** The caller frames' registers and stacks, as text, to tell whether a callback run changed them. */
function framesKey(s: VState, below: number): string {
  const parts: string[] = [];
  for (let i = 0; i < below; i++) {
    const f = s.frames[i]!;
    parts.push(f.regs.map((r) => formatReg(r, [])).join('|'));
    for (const sl of f.stack) parts.push(sl.types.join('') + (sl.types[7] === 1 ? formatReg(sl.spilled, []) : ''));
  }
  return parts.join(';');
}

function pushPath(env: Env, st: VState, insnIdx: number, prev: number): void {
  if (env.pending.length >= BPF_COMPLEXITY_LIMIT_JMP_SEQ) env.reject(`The sequence of ${env.pending.length + 1} jumps is too complex.`);
  if (st.parent) st.parent.branches++;
  env.pending.push({ state: st, insnIdx, prevInsnIdx: prev, logPos: env.log.pos, pathLen: env.path.length });
}

/** The caller's state after the loop: R1-R5 clobbered, R0 the number of runs (a scalar). */
function afterLoop(caller: Frame): void {
  for (let r = 1; r <= 5; r++) caller.regs[r] = notInit();
  const r0 = knownScalar(0n);
  markUnknown(r0);
  caller.regs[0] = r0;
}

/** Enter the callback: a new frame with the loop's callback state (set_loop_callback_state). */
function enterCallback(env: Env, callsite: number, target: number, ctx: ReturnType<typeof notInit>, run: number): number {
  const s = env.cur;
  if (s.frames.length >= MAX_CALL_FRAMES) env.reject(`the call stack of ${s.frames.length + 1} frames is too deep`);
  const frameno = s.frames.length;
  const regs = [];
  for (let i = 0; i < 11; i++) regs.push(notInit());
  regs[1] = unknownScalar();
  regs[2] = { ...ctx };
  regs[10] = pointer('fp', { frameno });
  s.frames.push({ regs, stack: [], frameno, callsite, subprogStart: target, callback: { run, key: framesKey(s, frameno), target, ctx: { ...ctx } } });
  env.live.resetCallchain();
  return target;
}

/** check_helper_call for bpf_loop: the arguments, then the callback's first run. Returns the next insn. */
export function checkLoopCall(env: Env, idx: number): number {
  for (let r = 1; r <= 4; r++) checkRegArg(env, r, 'src');
  const regs = env.regs;
  if (regs[1]!.type !== 'scalar') env.reject(`R1 type=${regs[1]!.type} expected=scalar`);
  if (regs[2]!.type !== 'func') env.reject(`R2 type=${regs[2]!.type} expected=func`);
  const ctx = regs[3]!;
  // ARG_PTR_TO_STACK_OR_NULL: a stack pointer (the callback sees it as R2) or NULL.
  if (!isNullScalar(ctx) && ctx.type !== 'fp') env.reject(`R3 type=${ctx.type} expected=fp`);
  if (regs[4]!.type !== 'scalar') env.reject(`R4 type=${regs[4]!.type} expected=scalar`);
  const target = regs[2]!.range;
  const ctxReg = { ...ctx };
  // Zero runs: the caller continues straight away.
  const skip = cloneState(env.cur);
  afterLoop(curFrame(skip));
  pushPath(env, skip, idx + 1, idx);
  for (let r = 0; r <= 5; r++) if (r !== 3) regs[r] = notInit();
  return enterCallback(env, idx, target, ctxReg, 1);
}

/** prepare_func_exit for a callback frame: R0's range, then the caller continues or the callback runs again. */
export function callbackExit(env: Env): number {
  const s = env.cur;
  const callee = curFrame(s);
  const cb = callee.callback!;
  checkRegArg(env, 0, 'src');
  const r0 = callee.regs[0]!;
  if (r0.type !== 'scalar') env.reject(`R0 is not a scalar value`);
  if (!(r0.smin >= 0n && r0.smax <= 1n) || r0.umax > 1n) {
    const val = tnumIsConst(r0.varOff) ? `${r0.smin}` : `smin=${r0.smin} smax=${r0.smax}`;
    env.reject(`At callback return the register R0 has ${val} should have been in [0, 1]`);
  }
  env.live.update(s);
  s.frames.pop();
  const caller = curFrame(s);
  const key = framesKey(s, s.frames.length);
  if (key === cb.key || cb.run >= MAX_CALLBACK_RUNS) {
    afterLoop(caller);
    return callee.callsite + 1;
  }
  // The run changed the caller: it may stop here, or run the callback again from the new state.
  const stop = cloneState(s);
  afterLoop(curFrame(stop));
  pushPath(env, stop, callee.callsite + 1, callee.callsite);
  return enterCallback(env, callee.callsite, cb.target, cb.ctx, cb.run + 1);
}
