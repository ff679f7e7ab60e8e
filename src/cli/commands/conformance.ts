/**
 * xdp-lab conformance DIR [--exclude LIST.json]: run every .data file of a
 * bpf_conformance or uBPF test folder in the VM; print "N passed, M failed"
 * and each failure. Exit 0 when nothing failed.
 */
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { parseConformance, runConformance } from '../../vm/conformance';
import { parseArgs, readTextFile, UsageError, type CliIO } from '../io';

export async function run(args: string[], io: CliIO): Promise<number> {
  const { positional, flags } = parseArgs(args, { flags: ['json'] });
  if (positional.length !== 1) throw new UsageError('usage: xdp-lab conformance DIR [--json]');
  const dir = positional[0]!;
  let files: string[];
  try {
    if (!statSync(dir).isDirectory()) throw new UsageError(`${dir} is not a directory`);
    files = readdirSync(dir).filter((f) => f.endsWith('.data')).sort();
  } catch (e) {
    if (e instanceof UsageError) throw e;
    throw new UsageError(`cannot read ${dir}: no such directory`);
  }
  const results = files.map((f) => {
    const c = parseConformance(readTextFile(path.join(dir, f)));
    const o = 'parseError' in c ? { pass: false, detail: c.parseError } : runConformance(c);
    return { file: f, ...o };
  });
  const failed = results.filter((r) => !r.pass);
  if (flags.has('json')) io.out(JSON.stringify({ passed: results.length - failed.length, failed: failed.map((f) => ({ file: f.file, detail: f.detail })) }, null, 1) + '\n');
  else {
    for (const f of failed) io.out(`FAIL ${f.file}: ${f.detail}\n`);
    io.out(`${results.length - failed.length} passed, ${failed.length} failed\n`);
  }
  return failed.length ? 1 : 0;
}
