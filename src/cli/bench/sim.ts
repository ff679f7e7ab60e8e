/** Benchmark section 'sim' — not built yet. */
import type { CliIO } from '../io';

export async function bench(io: CliIO, _opts: { quick: boolean }): Promise<void> {
  io.out('  (not measured yet)\n');
}
