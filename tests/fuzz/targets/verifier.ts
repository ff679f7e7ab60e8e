/**
 * Fuzz target "verifier": random bytes, random streams of real opcodes,
 * the differential generator's programs and the corpus programs (with
 * their maps), mutated at the instruction level. Properties: verify()
 * never throws and always reaches a verdict (a rejection names its error);
 * a program it accepts runs in the VM — the reference interpreter, then the
 * JIT on the proof — on frames of every shape without a fault other than
 * the defined ones (the run's instruction budget; a tail call to a
 * program the object lacks), and both engines agree. A rejection is the
 * expected outcome. Failing inputs: tests/fuzz/regressions/verifier/.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { bytesToHex, hexToBytes, parseSpec, type ProgramSpec } from '../../../src/isa';
import { verify } from '../../../src/verifier';
import { createVm, testRunFrame, type XdpResult } from '../../../src/vm';
import { generate as generateProgram } from '../../differential/vm-random-gen';
import { below, errorText, pick, type FuzzTarget } from '../types';
import { corpusSpecs, encodeInsns, decodeInsns, mutateInsns, randomPacket } from './bytecode';

export interface VerifierInput {
  spec: ProgramSpec;
  /** Frames an accepted program runs on (hex). */
  packets: string[];
}

/** The runs a verified program may end with other than a verdict: out of budget, or a tail call into a program the object lacks. */
function definedFault(res: XdpResult): boolean {
  const f = res.fault;
  return f === undefined || f.kind === 'budget' || (f.kind === 'helper' && f.message.includes('bpf_tail_call: prog_array holds program'));
}

function describe(res: XdpResult, buf: Uint8Array): string {
  return JSON.stringify({ retval: res.retval, data: res.data, dataEnd: res.dataEnd, insns: res.insns, fault: res.fault?.message, buf: bytesToHex(buf.subarray(res.data, res.dataEnd)) });
}

const RUN_BUDGET = 1_000_000;
const VERIFY_LIMIT = 100_000;

export const verifierTarget: FuzzTarget<VerifierInput> = {
  name: 'verifier',
  hangMs: 10_000,
  regressionDir: path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../regressions/verifier'),
  ext: 'json',
  generate(r) {
    const packets = Array.from({ length: 3 }, () => bytesToHex(randomPacket(r)));
    const k = r();
    let spec: ProgramSpec;
    if (k < 0.1) {
      const b = new Uint8Array(8 * (1 + below(r, 24)));
      for (let i = 0; i < b.length; i++) b[i] = below(r, 256);
      spec = { prog_type: 'xdp', insns: bytesToHex(b) };
    } else if (k < 0.2) {
      // Real opcodes only, then exit: reaches deeper into the checks than raw bytes.
      let insns = [{ code: 0xb7, dst: 0, src: 0, off: 0, imm: 2 }, { code: 0x95, dst: 0, src: 0, off: 0, imm: 0 }];
      for (let n = 2 + below(r, 20); n > 0; n--) insns = mutateInsns(insns, r);
      spec = { prog_type: 'xdp', insns: encodeInsns(insns) };
    } else if (k < 0.5) spec = { prog_type: 'xdp', insns: encodeInsns(generateProgram(below(r, 2 ** 31)).insns) };
    else spec = pick(r, corpusSpecs());
    return { spec, packets };
  },
  mutate: (input, r) => ({ ...input, spec: { ...input.spec, insns: encodeInsns(mutateInsns(decodeInsns(input.spec.insns), r)) } }),
  run(input) {
    const parsed = parseSpec(input.spec);
    if ('error' in parsed) return { kind: 'expected', why: `not a program: ${parsed.error}` };
    let v;
    try {
      // 100k processed instructions (the kernel: 1M): the exploration, pruning and limit paths are the same, and a
      // program that branches into 8k pending states still answers within the hang budget on a loaded machine
      // (verifier-361409723-13731.json took 10.3 s at 200k with a level-2 log while other fuzzers ran).
      // A level-2 log formats the whole state at every instruction: half the budget there (3.8 s unloaded at 100k,
      // 13.9 s while three other jobs ran: verifier-364690094-129028.json).
      const logLevel = input.spec.insns.length % 3 === 0 ? 2 : 0;
      v = verify(parsed, { logLevel, states: false, proof: true, insnLimit: logLevel === 2 ? VERIFY_LIMIT / 2 : VERIFY_LIMIT });
    } catch (e) {
      return { kind: 'failure', why: `verifier threw: ${errorText(e)}` };
    }
    if (typeof v.accepted !== 'boolean') return { kind: 'failure', why: 'no verdict' };
    if (!v.accepted) return v.error ? { kind: 'expected', why: v.error } : { kind: 'failure', why: 'rejected without an error message' };
    if (!v.proof) return { kind: 'failure', why: 'accepted without a proof' };
    // Accepted: the kernel would run it on any frame; so must the VM, without an undefined fault.
    const interp = createVm(parsed, { engine: 'interp', budget: RUN_BUDGET, proof: v.proof });
    const jit = createVm(parsed, { engine: 'jit', budget: RUN_BUDGET, proof: v.proof });
    if ('error' in interp || 'error' in jit) return { kind: 'expected', why: `load: ${'error' in interp ? interp.error : 'error' in jit ? jit.error : ''}` };
    if (jit.jitUnavailable) return { kind: 'failure', why: `accepted but the JIT refuses it: ${jit.jitUnavailable}` };
    for (const hex of input.packets) {
      const bytes = hexToBytes(hex);
      if (typeof bytes === 'string') return { kind: 'failure', why: `bad packet in input: ${bytes}` };
      const fa = testRunFrame(bytes);
      const fb = testRunFrame(bytes);
      const a = interp.runXdp(fa);
      if (!definedFault(a)) return { kind: 'failure', why: `accepted program faulted: ${a.fault!.message}` };
      const b = jit.runXdp(fb);
      const da = describe(a, fa.buf);
      const db = describe(b, fb.buf);
      if (da !== db) return { kind: 'failure', why: `JIT ≠ interpreter: interp ${da.slice(0, 400)} jit ${db.slice(0, 400)}` };
    }
    return { kind: 'ok' };
  },
  encode: (input) => JSON.stringify(input, null, 1) + '\n',
  decode: (file) => JSON.parse(file) as VerifierInput,
};
