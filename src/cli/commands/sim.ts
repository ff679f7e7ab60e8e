/** xdp-lab sim — not built yet. */
import { UsageError, type CliIO } from '../io';

export async function run(_args: string[], _io: CliIO): Promise<number> {
  throw new UsageError('the sim command is not available yet');
}
