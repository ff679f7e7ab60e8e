/**
 * The seeded random number generator of the deterministic core
 * (mulberry32): the same seed gives the same sequence on every engine.
 */
export class Rng {
  private s: number;
  constructor(seed: number) {
    this.s = seed >>> 0;
  }
  /** Uniform 32-bit unsigned integer. */
  u32(): number {
    let t = (this.s = (this.s + 0x6d2b79f5) >>> 0);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  }
  /** Uniform in [0, 1). */
  float(): number {
    return this.u32() / 4294967296;
  }
  /** Uniform integer in [0, n). */
  below(n: number): number {
    return Math.floor(this.float() * n);
  }
  get state(): number {
    return this.s;
  }
}
