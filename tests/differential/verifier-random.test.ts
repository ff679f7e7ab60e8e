/**
 * Random programs against the kernel: a seeded generator (tests/cases/
 * verifier/random.ts) biased toward packet access, pointer arithmetic, map
 * lookups, stack spills and branches. Verdicts must agree on at least 99.5%
 * of the programs, and never may we accept a program the kernel rejects.
 * A failure prints the seed and the program (hex and disassembly).
 *
 * XDP_LAB_VERIFIER_RANDOM=N changes the count (default 20,000).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { disasmProgram } from '../../src/isa/disasm';
import { parseSpec } from '../../src/isa/spec';
import { verify } from '../../src/verifier';
import { generateProgram } from '../cases/verifier/random';
import { kernelFirstErrorLine, normalizeErrorLine } from '../cases/verifier/load';
import { helperNotOffered, Oracle, oracleAvailable, warnHelperNotOffered } from './oracle';

const COUNT = Number(process.env.XDP_LAB_VERIFIER_RANDOM ?? 20_000);
const FIRST_SEED = 1;
const avail = oracleAvailable();

function show(seed: number, spec: ReturnType<typeof generateProgram>): string {
  const p = parseSpec(spec);
  const text = 'error' in p ? p.error : disasmProgram(p.insns, { style: 'kernel' }).map((l, i) => `  ${i}: ${l}`).join('\n');
  return `seed ${seed}\n${JSON.stringify(spec)}\n${text}`;
}

describe.skipIf(!avail.ok)(`verifier vs the kernel on ${COUNT} random programs`, () => {
  // Two kernel connections: the machine has two cores.
  const oracles = [new Oracle(), new Oracle()];
  const oracle = oracles[0]!;
  afterAll(() => oracles.forEach((o) => o.close()));

  it('agrees on >= 99.5% of verdicts and never accepts what the kernel rejects', async () => {
    const looser: string[] = [];
    const stricter: string[] = [];
    let kernelAccepts = 0;
    const unjudged = new Map<string, number>();
    let rejectedBoth = 0;
    let sameLine = 0;
    // Keep a few requests in flight: the oracle answers in order.
    const WINDOW = 32;
    const inflight: { seed: number; spec: ReturnType<typeof generateProgram>; answer: ReturnType<Oracle['ask']> }[] = [];
    const settle = async (): Promise<void> => {
      const { seed, spec, answer } = inflight.shift()!;
      const k = await answer;
      const p = parseSpec(spec);
      if ('error' in p) throw new Error(`generator wrote a bad spec (seed ${seed}): ${p.error}`);
      const ours = verify(p, { logLevel: 0, states: false });
      if (k.accepted) kernelAccepts++;
      if (ours.accepted && !k.accepted) {
        // A helper this kernel build leaves out of XDP (helperNotOffered): the kernel cannot judge it here.
        const k1 = await oracle.ask({ ...spec, log_level: 1 } as never);
        const absent = helperNotOffered(k1.verifier_log);
        if (absent) unjudged.set(absent, (unjudged.get(absent) ?? 0) + 1);
        else looser.push(`${show(seed, spec)}\nkernel: ${kernelFirstErrorLine(k1.verifier_log)}`);
      } else if (!ours.accepted && k.accepted) {
        stricter.push(`${show(seed, spec)}\nours: ${ours.error}`);
      } else if (!k.accepted) {
        rejectedBoth++;
        // Only rejected programs need the kernel's words: ask again at log level 1.
        if (rejectedBoth <= 500) {
          const k1 = await oracle.ask({ ...spec, log_level: 1 } as never);
          if (normalizeErrorLine(kernelFirstErrorLine(k1.verifier_log)) === normalizeErrorLine(verify(p, { logLevel: 1 }).error)) sameLine++;
        }
      }
    };
    for (let seed = FIRST_SEED; seed < FIRST_SEED + COUNT; seed++) {
      const spec = generateProgram(seed);
      inflight.push({ seed, spec, answer: oracles[seed % 2]!.ask({ ...spec, log_level: 0 } as never) });
      if (inflight.length >= WINDOW) await settle();
    }
    while (inflight.length) await settle();
    const judged = COUNT - [...unjudged.values()].reduce((a, b) => a + b, 0);
    for (const [helper, n] of unjudged) warnHelperNotOffered(`verifier random: ${n} programs`, helper, 'left out of the comparison (we accept them; the kernel refuses the helper itself)');
    const agree = judged - looser.length - stricter.length;
    const checkedLines = Math.min(rejectedBoth, 500);
    console.log(
      `verifier random: ${COUNT} programs (kernel accepts ${kernelAccepts}), verdicts agree ${agree} of ${judged} judged (${((agree / judged) * 100).toFixed(2)}%), ` +
        `we accept/kernel rejects ${looser.length}, we reject/kernel accepts ${stricter.length}; ` +
        `first error line matches ${sameLine}/${checkedLines} rejected programs`,
    );
    if (stricter.length) console.log(`stricter than the kernel:\n${stricter.slice(0, 5).join('\n\n')}`);
    expect(looser, `accepted what the kernel rejects:\n${looser.slice(0, 5).join('\n\n')}`).toEqual([]);
    expect(agree / judged).toBeGreaterThanOrEqual(0.995);
  }, 900_000);
});
