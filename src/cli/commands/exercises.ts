/**
 * xdp-lab exercises [--json]: the graded course, in order
 * ([{id, title, topic, kind}] with --json).
 */
import { exerciseList } from '../../lessons/exercises';
import { parseArgs, UsageError, type CliIO } from '../io';

export async function run(args: string[], io: CliIO): Promise<number> {
  const { positional, flags } = parseArgs(args, { flags: ['json'], options: [] });
  if (positional.length) throw new UsageError(`unexpected argument '${positional[0]}' (usage: xdp-lab exercises [--json])`);
  const list = exerciseList();
  if (flags.has('json')) io.out(JSON.stringify(list) + '\n');
  else list.forEach((e, i) => io.out(`${String(i + 1).padStart(2)}. ${e.id.padEnd(26)} ${e.topic.padEnd(11)} ${e.kind.padEnd(8)} ${e.title}\n`));
  return 0;
}
