/**
 * xdp-lab bench: the performance figures, each measured side by side in one
 * run and printed as ratios (these machines are shared and noisy; absolute
 * times are printed for context only). Sections live in ../bench/.
 * --json: the figures as one JSON object on stdout ({"sections": {name:
 * {key: value}}}), the text on stderr as progress.
 */
import { parseArgs, type CliIO } from '../io';
import type { BenchOpts, Figure } from '../bench/types';

const SECTIONS: Record<string, () => Promise<{ bench(io: CliIO, opts: BenchOpts): Promise<void> }>> = {
  vm: () => import('../bench/vm'),
  cc: () => import('../bench/cc'),
  ccmem: () => import('../bench/ccmem'),
  verifier: () => import('../bench/verifier'),
  sim: () => import('../bench/sim'),
  seeds: () => import('../bench/seeds'),
  realworld: () => import('../bench/realworld'),
  browser: () => import('../bench/browser'),
};

export async function run(args: string[], io: CliIO): Promise<number> {
  const { positional, flags } = parseArgs(args, { flags: ['quick', 'json'] });
  const names = positional.length ? positional : Object.keys(SECTIONS);
  const unknown = names.find((n) => !SECTIONS[n]);
  if (unknown) {
    io.err(`xdp-lab bench: unknown section '${unknown}' (sections: ${Object.keys(SECTIONS).join(', ')})\n`);
    return 2;
  }
  const json = flags.has('json');
  // With --json the text is progress on stderr and stdout holds only the JSON.
  const text: CliIO = json ? { out: (t) => io.err(t), err: (t) => io.err(t) } : io;
  const sections: Record<string, Record<string, Figure>> = {};
  for (const n of names) {
    const figures: Record<string, Figure> = (sections[n] = {});
    const figure = (key: string, value: Figure): void => {
      figures[key] = typeof value === 'number' && !Number.isFinite(value) ? null : value;
    };
    text.out(`== ${n} ==\n`);
    await (await SECTIONS[n]!()).bench(text, { quick: flags.has('quick'), figure });
  }
  if (json) io.out(JSON.stringify({ quick: flags.has('quick'), sections }, null, 1) + '\n');
  return 0;
}
