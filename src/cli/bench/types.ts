/**
 * What a benchmark section is given: --quick, and `figure`, which records
 * one measured figure under the section's name for `xdp-lab bench --json`
 * (the printed text says the same, for people).
 */
export type Figure = number | string | boolean | null;

export interface BenchOpts {
  quick: boolean;
  /** Record a figure: a dotted key within the section (e.g. "xdp1.jit_ns"), its value. Non-finite numbers become null. */
  figure(key: string, value: Figure): void;
}
