/**
 * C integer semantics, differentially: seeded random programs compute
 * random expressions (every integer type, promotions, the usual arithmetic
 * conversions, casts, shifts, comparisons, ternaries, compound assignment)
 * over values read from the packet, and store the results in an array map.
 * clang-19 and our compiler build the same source; the kernel runs both on
 * the same packets; every stored value must match. Expressions avoid C's
 * undefined behaviour (signed overflow, oversized shifts, division by
 * zero), so the two compilers have no licence to differ.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { compile, formatDiagnostic } from '../../src/cc';
import { bytesToHex } from '../../src/isa/insn';
import { Oracle, oracleAvailable } from './oracle';
import { clangAvailable, clangCompile } from '../../src/cli/clang';
import { extractProgram } from '../../src/cli/bpf_elf';
import { genProgram } from './cc-exprgen';

const PACKETS = [
  '00000000000000000000000000000000000000000000000000000000',
  'ffffffffffffffffffffffffffffffffffffffffffffffffffffffff',
  '0123456789abcdef00112233445566778899aabbccddeeff80007fff',
  '807f01fe7f80ff0080000000ffffff7f0000008000000000ffff8001',
  '1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6',
];

const oracle = oracleAvailable();
const COUNT = Number(process.env.CC_EXPR_FUZZ ?? 40);

describe.skipIf(!oracle.ok)('integer semantics: ours vs clang-19 in the kernel', () => {
  const o = oracle.ok ? new Oracle() : undefined;
  afterAll(() => o?.close());
  it('has clang-19', () => expect(clangAvailable()).toBe(true));
  for (let seed = 1; seed <= COUNT; seed++) {
    it(`random program #${seed}`, async () => {
      const src = genProgram(seed);
      const ours = compile(src, { file: `expr${seed}.c` });
      expect(ours.diagnostics.filter((d) => d.severity === 'error').map((d) => formatDiagnostic(d, src))).toEqual([]);
      const clang = clangCompile(src, `expr${seed}.c`);
      expect(clang.obj ? '' : clang.stderr).toBe('');
      const ref = extractProgram(clang.obj!, ['out']);
      const spec = ours.spec!;
      const dumps = [];
      for (const pkt of PACKETS) {
        const a = await o!.ask({ insns: spec.insns, maps: spec.maps as never, map_relocs: spec.map_relocs, runs: [{ data: pkt }], dump_maps: true });
        const b = await o!.ask({ insns: bytesToHex(ref.insns), maps: ref.maps as never, map_relocs: ref.map_relocs, runs: [{ data: pkt }], dump_maps: true });
        expect(a.accepted ? '' : a.verifier_log.split('\n').slice(-3).join('\n')).toBe('');
        expect(b.accepted).toBe(true);
        dumps.push({ pkt, ours: a.maps, clang: b.maps });
      }
      for (const d of dumps) expect({ pkt: d.pkt, maps: d.ours }).toEqual({ pkt: d.pkt, maps: d.clang });
    });
  }
});
