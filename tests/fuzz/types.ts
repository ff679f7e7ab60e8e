/**
 * The one interface every fuzz target implements, and the seeded PRNG they
 * draw from. A target makes an input from a PRNG (`generate`, usually a
 * corpus seed or something built from scratch), changes one (`mutate`),
 * and runs one (`run`), classifying the result:
 *   ok        the input was accepted and every property held;
 *   expected  the input was refused the way it should be (a diagnostic, a
 *             verdict, a PcapError, a "this link is damaged" message);
 *   failure   a property broke: an exception escaped, an internal error,
 *             JIT ≠ interpreter, an accepted program faulted.
 * A run slower than `hangMs` is a hang (the runner measures it; the CLI's
 * watchdog also stops one that never returns). Failing inputs are kept as
 * files under `regressionDir` and replayed by tests/fuzz/fuzz.test.ts.
 */

/** Uniform in [0, 1). */
export type Rng = () => number;

export type Outcome =
  | { kind: 'ok' }
  | { kind: 'expected'; why: string }
  | { kind: 'failure'; why: string };

export interface FuzzTarget<I> {
  name: string;
  /** One input taking longer than this is a hang. */
  hangMs: number;
  /** Where failing inputs are saved and replayed from; their file extension (no dot). */
  regressionDir: string;
  ext: string;
  generate(r: Rng): I;
  mutate(input: I, r: Rng): I;
  run(input: I): Outcome | Promise<Outcome>;
  /** The regression file's contents for an input (`why` may go into a comment), and back. */
  encode(input: I, why: string): string;
  decode(file: string): I;
}

/** Any target (the runner never looks inside inputs). */
export type AnyTarget = FuzzTarget<unknown>;

/** mulberry32: small, seeded, so every input reproduces from (seed, index). */
export function mulberry32(seed: number): Rng {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** An integer in [0, n). */
export const below = (r: Rng, n: number): number => Math.floor(r() * n);
export const pick = <T>(r: Rng, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;

export function errorText(e: unknown): string {
  return e instanceof Error ? `${e.name}: ${e.message}` : String(e);
}
