/**
 * check_reg_arg: a register operand must exist, a source must be
 * initialised, and r10 is never written.
 */
import type { Env } from './env';
import { markUnknown } from './reg';

export function checkRegArg(env: Env, regno: number, t: 'src' | 'dst' | 'dst_no_mark'): void {
  if (regno >= 11) env.reject(`R${regno} is invalid`);
  const reg = env.regs[regno]!;
  env.markRegScratched(regno);
  if (t === 'src') {
    if (reg.type === 'not_init') env.reject(`R${regno} !read_ok`);
    return;
  }
  if (regno === 10) env.reject('frame pointer is read only');
  if (t === 'dst') markUnknown(reg);
}
