/**
 * xdp-lab grade ID FILE.c [--json]: grade a solution to exercise ID (for a
 * predict exercise FILE holds the prediction). Prints each test's verdict;
 * exit 0 when all pass, 1 when any fails (or the program is refused), 2 on
 * bad input.
 */
import { exerciseById, exerciseList, grade } from '../../lessons/exercises';
import { parseArgs, readTextFile, UsageError, type CliIO } from '../io';

export async function run(args: string[], io: CliIO): Promise<number> {
  const { positional, flags } = parseArgs(args, { flags: ['json'], options: [] });
  if (positional.length !== 2) throw new UsageError('usage: xdp-lab grade ID FILE.c [--json]  (ids: xdp-lab exercises)');
  const [id, file] = positional as [string, string];
  const ex = exerciseById(id);
  if (!ex) throw new UsageError(`no exercise '${id}' (one of: ${exerciseList().map((e) => e.id).join(', ')})`);
  const submission = readTextFile(file);
  const r = grade(ex, submission);
  if (r.stage === 'answer') throw new UsageError(`${file}: ${r.error}`);
  if (flags.has('json')) {
    io.out(JSON.stringify(r) + '\n');
    return r.pass ? 0 : 1;
  }
  io.out(`${ex.id}: ${ex.title}\n`);
  if (r.error) {
    io.out(`  ${r.stage}: ${r.error}\n`);
    const e = r.explanation;
    if (e) io.out(`  line ${e.line}: ${e.summary}\n  ${e.detail}\n${e.fix ? `  fix (before line ${e.fix.line}):\n${e.fix.insert.split('\n').map((l) => `    + ${l}\n`).join('')}` : ''}`);
  }
  for (const t of r.tests) {
    io.out(`  ${t.pass ? 'PASS' : 'FAIL'}  ${t.message}\n`);
    if (!t.pass && t.diff?.length) {
      io.out(`        expected ${t.expected?.decoded ?? ''}\n        actual   ${t.actual?.decoded ?? ''}\n`);
      for (const d of t.diff.slice(0, 8)) io.out(`        offset ${String(d.offset).padStart(4)} ${d.field.padEnd(16)} expected ${d.expected === null ? '--' : d.expected.toString(16).padStart(2, '0')}  actual ${d.actual === null ? '--' : d.actual.toString(16).padStart(2, '0')}\n`);
    }
  }
  const passed = r.tests.filter((t) => t.pass).length;
  io.out(`${r.pass ? 'all passed' : 'failed'}: ${passed}/${r.tests.length} tests\n`);
  return r.pass ? 0 : 1;
}
