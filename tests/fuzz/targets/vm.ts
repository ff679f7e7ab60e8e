/**
 * Fuzz target "vm": the JIT against the reference interpreter on the same
 * program and frames — random programs of the differential generator
 * (tests/fuzz/vm.ts: registers r11–r15, wild offsets, loops, tiny budgets)
 * and the corpus programs with their maps, both mutated at the instruction
 * level. Property: both engines give the same verdict, r0, packet bytes,
 * executed count, fault and maps, and no exception escapes. Programs the
 * verifier rejects run in the interpreter twice (still no exception
 * allowed); they count as expected. Failing inputs: tests/fuzz/regressions/vm/.
 */
import { bytesToHex } from '../../../src/isa';
import { checkVmInput, REGRESSION_DIR, vmFuzzInput, type VmFuzzInput } from '../vm';
import { below, pick, type FuzzTarget } from '../types';
import { corpusSpecs, decodeInsns, encodeInsns, mutateInsns, randomPacket } from './bytecode';

export const vmTarget: FuzzTarget<VmFuzzInput> = {
  name: 'vm',
  hangMs: 10_000,
  regressionDir: REGRESSION_DIR,
  ext: 'json',
  generate(r) {
    const seed = below(r, 2 ** 31);
    if (r() < 0.6) return vmFuzzInput(seed);
    const spec = pick(r, corpusSpecs());
    const packets = Array.from({ length: 3 }, () => bytesToHex(randomPacket(r)));
    return { seed, mutate: false, budget: r() < 0.2 ? 1 + below(r, 300) : 100_000, insns: spec.insns, spec, packets };
  },
  mutate: (input, r) => ({ ...input, mutate: true, insns: encodeInsns(mutateInsns(decodeInsns(input.insns), r)) }),
  run(input) {
    const res = checkVmInput(input);
    if (res.failure) return { kind: 'failure', why: `${res.failure.kind}: ${res.failure.detail}` };
    return res.jitted ? { kind: 'ok' } : { kind: 'expected', why: 'not verified: interpreter only' };
  },
  encode: (input) => JSON.stringify(input, null, 1) + '\n',
  decode: (file) => JSON.parse(file) as VmFuzzInput,
};
