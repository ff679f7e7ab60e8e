/**
 * The VM against the kernel, in both engines (JIT and interpreter): random programs the kernel verifier accepts
 * (ALU/ALU64, JMP/JMP32 forward branches, if/else with goto and gotol, stack and packet loads/stores,
 * atomics, bpf-to-bpf calls, movsx/sdiv/bswap), run both in our VM and in
 * BPF_PROG_TEST_RUN on the same packets. Each program ends by storing r0-r8
 * and its stack into the packet, so data_out and the return value must agree
 * byte for byte. Seeded: a failure prints the seed that replays it
 * (VM_RANDOM_SEED=<seed> VM_RANDOM_COUNT=1).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { bytesToHex, encodeProgram, parseSpec } from '../../src/isa';
import { createVm, testRunFrame } from '../../src/vm';
import { Oracle, oracleAvailable } from './oracle';
import { generate, packet, rng } from './vm-random-gen';

const COUNT = Number(process.env.VM_RANDOM_COUNT ?? 10000);
const BASE_SEED = Number(process.env.VM_RANDOM_SEED ?? 20261202);
const PACKETS_PER_PROGRAM = 3;
const avail = oracleAvailable();

describe.skipIf(!avail.ok)('VM vs kernel on random programs', () => {
  const oracle = avail.ok ? new Oracle() : undefined;
  afterAll(() => oracle?.close());

  it(`agrees with BPF_PROG_TEST_RUN on ${COUNT} random programs`, { timeout: 900_000 }, async () => {
    let accepted = 0;
    let rejected = 0;
    const rejections: string[] = [];
    const BATCH = 64;
    for (let b = 0; b < COUNT; b += BATCH) {
      const jobs = [];
      for (let i = b; i < Math.min(COUNT, b + BATCH); i++) {
        const seed = BASE_SEED + i;
        const prog = generate(seed);
        const pr = rng(seed * 7 + 1);
        const pkts = Array.from({ length: PACKETS_PER_PROGRAM }, () => packet(pr));
        const hex = bytesToHex(encodeProgram(prog.insns));
        jobs.push({ seed, prog, pkts, hex, answer: oracle!.ask({ insns: hex, log_level: process.env.VM_RANDOM_LOG ? 1 : 0, runs: pkts.map((data) => ({ data })) }) });
      }
      for (const j of jobs) {
        const res = await j.answer;
        if (!res.accepted) {
          rejected++;
          if (rejections.length < 5) rejections.push(`seed ${j.seed}: ${res.error} ${res.verifier_log.split('\n').slice(-3).join(' | ')}`);
          continue;
        }
        accepted++;
        const parsed = parseSpec({ insns: j.hex });
        if ('error' in parsed) throw new Error(parsed.error);
        // Both engines against the kernel, and against each other (the executed count has no kernel counterpart).
        const vmJit = createVm(parsed, { engine: 'jit' });
        const vmInterp = createVm(parsed, { engine: 'interp' });
        if ('error' in vmJit) throw new Error(vmJit.error);
        if ('error' in vmInterp) throw new Error(vmInterp.error);
        j.pkts.forEach((p, k) => {
          const theirs = res.runs[k]!;
          const where = `seed ${j.seed} packet ${k} (replay: VM_RANDOM_SEED=${j.seed} VM_RANDOM_COUNT=1)\n${j.prog.text()}`;
          const runs = [vmJit, vmInterp].map((vm) => {
            const frame = testRunFrame(Buffer.from(p, 'hex'));
            const ours = vm.runXdp(frame);
            expect(ours.fault, where).toBeUndefined();
            expect(ours.retval, where).toBe(theirs.retval);
            expect(bytesToHex(frame.buf.subarray(ours.data, ours.dataEnd)), where).toBe(theirs.data_out);
            return ours;
          });
          expect(runs[0], `jit vs interpreter: ${where}`).toEqual(runs[1]);
        });
      }
    }
    console.log(`vm-random: ${accepted} programs accepted and compared (${accepted * PACKETS_PER_PROGRAM} runs), ${rejected} rejected by the kernel verifier`);
    if (rejections.length) console.log(rejections.join('\n'));
    // Generated programs are meant to verify: a high rejection rate means the generator (or the comparison) is broken.
    expect(rejected / COUNT).toBeLessThan(0.02);
    expect(accepted).toBeGreaterThanOrEqual(Math.min(COUNT, 10000) * 0.98);
  });
});
