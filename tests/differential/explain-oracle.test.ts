/**
 * Explanations against the kernel: each family's program is rejected by the
 * kernel, and the fix our explainer proposes, applied, makes the kernel
 * accept it. Then generality: the corpus and the shipped examples with one
 * bounds check / NULL test removed (programs not written for the explainer)
 * must be explained at the line of the first access that lost its check,
 * and the proposed fix must make the kernel accept the program.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { applyFix } from '../../src/explain';
import { functionAround } from '../../src/explain/source';
import { checkSource, explainSource } from '../../src/explain/program';
import { compile } from '../../src/cc';
import { EXAMPLES } from '../../src/examples';
import { Oracle, oracleAvailable } from './oracle';
import { EXPLAIN_CASES, EXPLAIN_DIR } from '../unit/explain.test';

const here = path.dirname(fileURLToPath(import.meta.url));
const avail = oracleAvailable();

async function kernelAccepts(oracle: Oracle, source: string): Promise<{ accepted: boolean; log: string }> {
  const out = compile(source, { file: 'prog.c' });
  if (!out.spec) throw new Error(`does not compile: ${out.diagnostics.map((d) => d.message).join('; ')}`);
  const k = await oracle.ask({ ...(out.spec as object), log_level: 1 } as Parameters<Oracle["ask"]>[0]);
  return { accepted: k.accepted, log: k.verifier_log.split('\n').filter(Boolean).slice(-3).join(' | ') };
}

/** Every program with its bounds checks / NULL tests, one removed at a time. */
function mutants(): { name: string; source: string; removed: number }[] {
  const dir = path.resolve(here, '../corpus');
  const progs = [
    ...readdirSync(dir).filter((f) => f.endsWith('.c')).sort().map((f) => ({ name: f, source: readFileSync(path.join(dir, f), 'utf8') })),
    ...EXAMPLES.map((e) => ({ name: `examples/${e.id}`, source: e.source })),
  ];
  const out: { name: string; source: string; removed: number }[] = [];
  for (const p of progs) {
    const lines = p.source.split('\n');
    lines.forEach((l, i) => {
      // `if (<...> > data_end)` + `return X;` on the next line, or `if (!value)` + return.
      if (!/^\s*if\s*\(.*(>\s*data_end|!\s*\w+)\s*\)\s*$/.test(l) || !/^\s*return\b[^;]*;\s*$/.test(lines[i + 1] ?? '')) return;
      const m = [...lines];
      m.splice(i, 2, '', '');
      out.push({ name: `${p.name} without line ${i + 1}`, source: m.join('\n'), removed: i + 1 });
    });
  }
  return out;
}

describe.skipIf(!avail.ok)('explanations vs the kernel', () => {
  const oracle = new Oracle();
  const rows: string[] = [];
  afterAll(() => {
    oracle.close();
    if (rows.length) console.log(`\nexplain generality (program / kind / line / fix verdict in the kernel)\n${rows.join('\n')}\n`);
  });

  for (const c of EXPLAIN_CASES.filter((x) => x.fix && !x.unprivileged)) {
    it(`${c.file}: the kernel rejects it, and accepts it with the proposed fix`, async () => {
      const source = readFileSync(path.join(EXPLAIN_DIR, c.file), 'utf8');
      expect((await kernelAccepts(oracle, source)).accepted).toBe(false);
      const r = explainSource(source);
      if ('error' in r) throw new Error(r.error);
      expect(r.explanation?.fix).toBeDefined();
      const k = await kernelAccepts(oracle, applyFix(source, r.explanation!.fix!));
      expect(k.accepted, `kernel after the fix: ${k.log}`).toBe(true);
    });
  }

  it('programs it has not seen: the corpus and examples with a check removed', async () => {
    const ms = mutants();
    expect(ms.length).toBeGreaterThan(20);
    let explained = 0;
    let fixed = 0;
    const failures: string[] = [];
    for (const m of ms) {
      const ours = checkSource(m.source);
      if ('error' in ours || ours.result.accepted) continue; // the check was redundant
      const k0 = await kernelAccepts(oracle, m.source);
      if (k0.accepted) continue;
      const r = explainSource(m.source);
      if ('error' in r || !r.explanation) throw new Error(`${m.name}: no explanation`);
      explained++;
      const e = r.explanation;
      // The offending access comes after the removed check, never before it (unless it is in a helper function inlined after it).
      const lines = m.source.split('\n');
      const inHelper = functionAround(lines, e.line).start !== functionAround(lines, m.removed).start;
      if (e.line < m.removed && !inHelper) failures.push(`${m.name}: line ${e.line} is before the removed check`);
      let verdict = 'no fix';
      if (e.fix) {
        const k = await kernelAccepts(oracle, applyFix(m.source, e.fix));
        verdict = k.accepted ? 'kernel accepts' : `kernel rejects: ${k.log}`;
        if (k.accepted) fixed++;
        else failures.push(`${m.name}: fix at line ${e.fix.line} not accepted by the kernel: ${k.log}`);
      } else failures.push(`${m.name}: ${e.kind} at line ${e.line} without a fix`);
      rows.push(`${m.name.padEnd(44)} ${e.kind.padEnd(20)} ${String(e.line).padEnd(4)} ${verdict}`);
    }
    console.log(`explained ${explained}, fixed ${fixed}`);
    expect(explained).toBeGreaterThan(10);
    expect(failures).toEqual([]);
  }, 600_000);
});
