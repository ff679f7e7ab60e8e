/**
 * xdp-lab conformance DIR [--json] [--verbose]: run every .data file of a
 * bpf_conformance or uBPF test folder in the VM; print "N passed, M failed"
 * and each failure (--verbose: each passing file too; --json: every file's
 * outcome). A file that cannot be parsed or run is a failure with
 * its reason, never the end of the run. Exit 0 when nothing failed.
 */
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { parseConformance, runConformance } from '../../vm/conformance';
import { parseArgs, readTextFile, UsageError, type CliIO } from '../io';

export async function run(args: string[], io: CliIO): Promise<number> {
  const { positional, flags } = parseArgs(args, { flags: ['json', 'verbose'] });
  if (positional.length !== 1) throw new UsageError('usage: xdp-lab conformance DIR [--json] [--verbose]');
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
    let o: { pass: boolean; detail: string };
    try {
      o = 'parseError' in c ? { pass: false, detail: c.parseError } : runConformance(c);
    } catch (e) {
      // One broken file is one failure in the report, never the end of the run.
      o = { pass: false, detail: `internal error: ${e instanceof Error ? e.message : String(e)}` };
    }
    return { file: f, ...o };
  });
  const failed = results.filter((r) => !r.pass);
  if (flags.has('json')) io.out(JSON.stringify({ passed: results.length - failed.length, failed: failed.map((f) => ({ file: f.file, detail: f.detail })), files: results }, null, 1) + '\n');
  else {
    if (flags.has('verbose')) for (const r of results) if (r.pass) io.out(`ok   ${r.file}${r.detail ? `: ${r.detail}` : ''}\n`);
    for (const f of failed) io.out(`FAIL ${f.file}: ${f.detail}\n`);
    io.out(`${results.length - failed.length} passed, ${failed.length} failed\n`);
  }
  return failed.length ? 1 : 0;
}
