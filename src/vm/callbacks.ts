/**
 * Helpers that call back into the program: bpf_loop(nr_loops, callback_fn,
 * callback_ctx, flags), as the kernel runs it — the callback (a function
 * the program names with a BPF_PSEUDO_FUNC lddw) is called with r1 = the
 * iteration index and r2 = callback_ctx (r3-r5 zero) in a frame of its own,
 * up to nr_loops times or until it returns non-zero; bpf_loop returns the
 * number of calls made. flags other than 0 give -EINVAL and more than 2^23
 * loops -E2BIG, before any call.
 *
 * The interpreter (./interp.ts) drives the calls from its own dispatch loop
 * (a callback is a bpf-to-bpf call whose return comes back here, not to an
 * instruction), so a callback may itself call functions or bpf_loop; this
 * module keeps the iterations in progress. The JIT hands such programs to
 * the interpreter (./jit.ts declines them).
 */
import { E2BIG, EINVAL } from '../isa/errno';

/** BPF_FUNC_loop. */
export const BPF_FUNC_LOOP = 181;
/** The kernel's cap on nr_loops (BPF_MAX_LOOPS, 8M). */
export const BPF_LOOP_MAX = 1 << 23;

/** What retPc holds for a callback's return: not a pc (pcs are >= 0). */
export const CALLBACK_RETURN = -1;

/** One bpf_loop call in progress. */
export interface LoopCall {
  /** Calls made so far (the next index). */
  i: number;
  nr: number;
  /** The callback's first instruction. */
  fn: number;
  /** callback_ctx as the program passed it (lo, hi, provenance). */
  ctx: [number, number, number];
  /** Where the program continues once bpf_loop returns. */
  ret: number;
}

/**
 * Begin a bpf_loop call from its arguments (r1-r4 as lo/hi pairs): the call
 * to run, or the value bpf_loop returns at once (no callback call).
 */
export function loopBegin(r1lo: number, r2lo: number, r3: [number, number, number], r4lo: number, r4hi: number, ret: number): LoopCall | number {
  if (r4lo !== 0 || r4hi !== 0) return -EINVAL;
  const nr = r1lo >>> 0;
  if (nr > BPF_LOOP_MAX) return -E2BIG;
  if (nr === 0) return 0;
  return { i: 0, nr, fn: r2lo, ctx: r3, ret };
}

/** After a callback returned r0: whether bpf_loop is done (its result is then l.i). */
export function loopStep(l: LoopCall, r0lo: number, r0hi: number): boolean {
  l.i++;
  return r0lo !== 0 || r0hi !== 0 || l.i >= l.nr;
}
