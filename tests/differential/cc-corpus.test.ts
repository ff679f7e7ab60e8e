/**
 * The compiler against clang-19 and the real kernel, over the corpus
 * (tests/corpus/*.c) and the shipped examples: each program is compiled by
 * both compilers from the same source (same headers), both results are
 * loaded into the kernel with the same maps, run on the same packet
 * sequence, and must agree on the verdict, every return value, every output
 * packet and the final map contents. A summary table is printed.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { compile, formatDiagnostic } from '../../src/cc';
import { EXAMPLES } from '../../src/examples';
import { bytesToHex } from '../../src/isa/insn';
import { Oracle, oracleAvailable, type OracleResult } from './oracle';
import { clangAvailable, clangCompile } from '../../src/cli/clang';
import { extractProgram } from '../../src/cli/bpf_elf';
import { packetSet, toHex } from './cc-packets';

const here = path.dirname(fileURLToPath(import.meta.url));
const corpusDir = path.resolve(here, '../corpus');

export interface CorpusProgram { name: string; source: string }

export function corpusPrograms(): CorpusProgram[] {
  const files = readdirSync(corpusDir).filter((f) => f.endsWith('.c')).sort();
  return [
    ...files.map((f) => ({ name: f, source: readFileSync(path.join(corpusDir, f), 'utf8') })),
    ...EXAMPLES.map((e) => ({ name: `examples/${e.id}.c`, source: e.source })),
  ];
}

function normaliseMaps(r: OracleResult): unknown {
  return (r.maps ?? []).map((m) => ({ type: m.type, entries: [...m.entries].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0)) }));
}

const oracle = oracleAvailable();
const rows: { name: string; ours: number; clang: number; verdict: string; runs: string }[] = [];

describe.skipIf(!oracle.ok)('compiler vs clang-19 in the kernel', () => {
  const o = oracle.ok ? new Oracle() : undefined;
  const packets = packetSet();
  afterAll(() => {
    o?.close();
    if (rows.length === 0) return;
    const w = Math.max(...rows.map((r) => r.name.length));
    const lines = rows.map((r) => `${r.name.padEnd(w)}  ${String(r.ours).padStart(5)}  ${String(r.clang).padStart(5)}  ${(r.ours / r.clang).toFixed(2).padStart(5)}  ${r.verdict.padEnd(17)} ${r.runs}`);
    const ratios = rows.map((r) => r.ours / r.clang).sort((a, b) => a - b);
    const median = ratios[Math.floor(ratios.length / 2)]!;
    console.log(`\n${'program'.padEnd(w)}   ours  clang  ratio  verdict           runs\n${lines.join('\n')}\nmedian instruction ratio ours/clang: ${median.toFixed(2)} over ${rows.length} programs\n`);
  });

  it('has clang-19', () => {
    expect(clangAvailable()).toBe(true);
  });

  for (const prog of corpusPrograms()) {
    it(prog.name, async () => {
      const ours = compile(prog.source, { file: prog.name });
      const errors = ours.diagnostics.filter((d) => d.severity === 'error');
      expect(errors.map((d) => formatDiagnostic(d, prog.source))).toEqual([]);
      const spec = ours.spec!;
      const clang = clangCompile(prog.source, path.basename(prog.name));
      expect(clang.stderr.includes('error:') ? clang.stderr : '').toBe('');
      const ref = extractProgram(clang.obj!, (spec.maps ?? []).map((m) => m.name!));
      expect(ref.maps.map((m) => ({ ...m, name: undefined }))).toEqual((spec.maps ?? []).map((m) => ({ ...m, name: undefined })));
      const runs = packets.map((p) => ({ data: toHex(p.bytes) }));
      const a = await o!.ask({ insns: spec.insns, maps: spec.maps as never, map_relocs: spec.map_relocs, runs, dump_maps: true, log_level: 1 });
      const b = await o!.ask({ insns: bytesToHex(ref.insns), maps: ref.maps as never, map_relocs: ref.map_relocs, runs, dump_maps: true, log_level: 1 });
      const ourCount = spec.insns.length / 16;
      const clangCount = ref.insns.length / 8;
      const verdict = `${a.accepted ? 'acc' : 'REJ'}/${b.accepted ? 'acc' : 'REJ'}`;
      let runSummary = '';
      if (a.accepted && b.accepted) {
        const rets = a.runs.map((r) => r.retval);
        runSummary = Object.entries(rets.reduce<Record<number, number>>((m, r) => ({ ...m, [r]: (m[r] ?? 0) + 1 }), {})).map(([k, v]) => `${['ABORTED', 'DROP', 'PASS', 'TX', 'REDIRECT'][+k] ?? k}:${v}`).join(' ');
      }
      rows.push({ name: prog.name, ours: ourCount, clang: clangCount, verdict, runs: runSummary });
      // The kernel must accept ours whenever it accepts clang's, and the reverse: we add no checks.
      expect({ accepted: a.accepted, log: a.accepted ? '' : a.verifier_log.split('\n').slice(-3).join('\n') }).toEqual({ accepted: b.accepted, log: b.accepted ? '' : expect.any(String) });
      if (!a.accepted) return;
      expect(a.runs.map((r, i) => ({ pkt: packets[i]!.name, retval: r.retval, data: r.data_out, error: r.error ?? '' }))).toEqual(
        b.runs.map((r, i) => ({ pkt: packets[i]!.name, retval: r.retval, data: r.data_out, error: r.error ?? '' })),
      );
      expect(normaliseMaps(a)).toEqual(normaliseMaps(b));
    });
  }
});
