/**
 * The verifier on real programs: every program of the compiler corpus
 * (tests/corpus/*.c) and the shipped examples, built by our compiler and by
 * clang-19, goes through our verifier and the kernel's. Verdicts must agree
 * on every program; processed-instruction counts are printed beside the
 * kernel's (ours may be higher: we prune less, never more).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { compile } from '../../src/cc';
import { EXAMPLES } from '../../src/examples';
import { bytesToHex } from '../../src/isa/insn';
import { parseSpec, type ProgramSpec } from '../../src/isa/spec';
import { verify } from '../../src/verifier';
import { kernelFirstErrorLine } from '../cases/verifier/load';
import { Oracle, oracleAvailable } from './oracle';
import { clangAvailable, clangCompile } from '../../src/cli/clang';
import { extractProgram } from '../../src/cli/bpf_elf';

const here = path.dirname(fileURLToPath(import.meta.url));
const corpusDir = path.resolve(here, '../corpus');
const programs = [
  ...readdirSync(corpusDir)
    .filter((f) => f.endsWith('.c'))
    .sort()
    .map((f) => ({ name: f, source: readFileSync(path.join(corpusDir, f), 'utf8') })),
  ...EXAMPLES.map((e) => ({ name: `examples/${e.id}.c`, source: e.source })),
];

const avail = oracleAvailable();
const rows: string[] = [];

describe.skipIf(!avail.ok)('verifier on the compiler corpus, ours and clang-built, vs the kernel', () => {
  const oracle = new Oracle();
  afterAll(() => {
    oracle.close();
    if (rows.length) console.log(`\nprogram / compiler / verdict / insns processed ours vs kernel\n${rows.join('\n')}\n`);
  });

  it('has clang-19 and a corpus', () => {
    expect(clangAvailable()).toBe(true);
    expect(programs.length).toBeGreaterThan(10);
  });

  async function check(name: string, who: string, spec: ProgramSpec): Promise<void> {
    const p = parseSpec(spec);
    if ('error' in p) throw new Error(`${name} (${who}): ${p.error}`);
    const ours = verify(p, { logLevel: 1, states: false });
    const k = await oracle.ask({ ...spec, log_level: 1 } as never);
    rows.push(
      `${name.padEnd(34)} ${who.padEnd(5)} ${k.accepted ? 'accept' : 'reject'}${k.accepted === ours.accepted ? '' : ' MISMATCH'} ` +
        `${ours.insnsProcessed} vs ${k.insns_processed ?? '?'}`,
    );
    expect(
      ours.accepted,
      `${name} (${who}): kernel ${k.accepted ? 'accepts' : `rejects: ${kernelFirstErrorLine(k.verifier_log)}`}, ours ${ours.accepted ? 'accepts' : `rejects: ${ours.error}`}`,
    ).toBe(k.accepted);
  }

  for (const prog of programs) {
    it(prog.name, async () => {
      const built = compile(prog.source, { file: prog.name });
      if (built.spec) await check(prog.name, 'ours', built.spec);
      const clang = clangCompile(prog.source, path.basename(prog.name));
      if (clang.obj) {
        const ref = extractProgram(clang.obj, (built.spec?.maps ?? []).map((m) => m.name!));
        const spec: ProgramSpec = { prog_type: 'xdp', insns: bytesToHex(ref.insns), maps: ref.maps, map_relocs: ref.map_relocs };
        await check(prog.name, 'clang', spec);
      }
      expect(built.spec || clang.obj, `${prog.name}: neither compiler built it`).toBeTruthy();
    }, 60_000);
  }
});
