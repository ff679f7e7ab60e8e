/**
 * xdp-lab bench: the performance figures, each measured side by side in one
 * run and printed as ratios (these machines are shared and noisy; absolute
 * times are printed for context only). Sections live in ../bench/.
 */
import { parseArgs, type CliIO } from '../io';

const SECTIONS: Record<string, () => Promise<{ bench(io: CliIO, opts: { quick: boolean }): Promise<void> }>> = {
  vm: () => import('../bench/vm'),
  cc: () => import('../bench/cc'),
  ccmem: () => import('../bench/ccmem'),
  verifier: () => import('../bench/verifier'),
  sim: () => import('../bench/sim'),
  seeds: () => import('../bench/seeds'),
  realworld: () => import('../bench/realworld'),
};

export async function run(args: string[], io: CliIO): Promise<number> {
  const { positional, flags } = parseArgs(args, { flags: ['quick'] });
  const names = positional.length ? positional : Object.keys(SECTIONS);
  for (const n of names) {
    const load = SECTIONS[n];
    if (!load) {
      io.err(`xdp-lab bench: unknown section '${n}' (sections: ${Object.keys(SECTIONS).join(', ')})\n`);
      return 2;
    }
    io.out(`== ${n} ==\n`);
    await (await load()).bench(io, { quick: flags.has('quick') });
  }
  return 0;
}
