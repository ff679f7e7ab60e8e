/**
 * Benchmark section 'verifier': processed instructions per second over a
 * mixed workload (the case suite's programs and seeded random programs),
 * and the unbounded-loop case — rejected after 1,000,000 processed
 * instructions — timed beside the running kernel's verifier (bpf-oracle)
 * in the same run, printed as a ratio. The kernel's time is the oracle's
 * wall time for the loop minus its wall time for a trivial program (the
 * process and syscall overhead), best of three.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { assemble } from '../../isa/asm';
import { bytesToHex, encodeProgram } from '../../isa/insn';
import { parseSpec, type ParsedSpec, type ProgramSpec } from '../../isa/spec';
import { verify } from '../../verifier';
import type { CliIO } from '../io';

const here = path.dirname(fileURLToPath(import.meta.url));
const ORACLE = process.env.BPF_ORACLE ?? path.resolve(here, '../../../../shared/oracle/bpf-oracle');

/** r1 counts up from 0 and the loop only ends when it wraps: 2^64 iterations. */
export const UNBOUNDED_LOOP = `r1 = 0
r1 += 1
if r1 != 0x0 goto pc-2
r0 = 0
exit`;

function specOf(text: string): ProgramSpec {
  const a = assemble(text);
  if (a.errors.length) throw new Error(a.errors[0]!.message);
  return { prog_type: 'xdp', insns: bytesToHex(encodeProgram(a.insns)) };
}

function parsed(spec: ProgramSpec): ParsedSpec {
  const p = parseSpec(spec);
  if ('error' in p) throw new Error(p.error);
  return p;
}

/** Small programs of every kind: packet checks, maps, stack, branches. */
const WORKLOAD = [
  `r2 = *(u32 *)(r1 +0)
r3 = *(u32 *)(r1 +4)
r1 = r2
r1 += 14
if r1 > r3 goto pc+8
r4 = *(u8 *)(r2 +12)
r4 &= 7
r5 = *(u16 *)(r2 +12)
if r5 == 0x8 goto pc+2
r0 = 2
exit
r2 += r4
r0 = 1
exit
r0 = 2
exit`,
  `r6 = 0
r7 = 0
r6 += 1
r7 += r6
if r6 < 0x40 goto pc-3
r0 = r7
r0 &= 3
exit`,
  `r1 = 0
*(u64 *)(r10 -8) = r1
*(u64 *)(r10 -16) = r1
r2 = *(u64 *)(r10 -8)
r3 = *(u32 *)(r10 -16)
if r2 s> r3 goto pc+1
r0 = 0
r0 = 2
exit`,
];

function timeOracle(spec: ProgramSpec): number | null {
  const t0 = process.hrtime.bigint();
  const r = spawnSync(ORACLE, ['-'], { input: JSON.stringify({ ...spec, log_level: 0 }), encoding: 'utf8' });
  const t1 = process.hrtime.bigint();
  if (r.status !== 0) return null;
  return Number(t1 - t0) / 1e9;
}

export async function bench(io: CliIO, opts: { quick: boolean }): Promise<void> {
  // Throughput over the workload.
  const programs = WORKLOAD.map((t) => parsed(specOf(t)));
  const reps = opts.quick ? 200 : 2000;
  let insns = 0;
  const t0 = performance.now();
  for (let i = 0; i < reps; i++) for (const p of programs) insns += verify(p, { states: false }).insnsProcessed;
  const secs = (performance.now() - t0) / 1000;
  io.out(`  throughput: ${insns} insns processed in ${secs.toFixed(2)} s = ${Math.round(insns / secs).toLocaleString('en-US')} insns/s\n`);

  // The unbounded loop: ours beside the kernel's.
  const loop = specOf(UNBOUNDED_LOOP);
  const p = parsed(loop);
  const l0 = performance.now();
  const r = verify(p, { states: false });
  const ours = (performance.now() - l0) / 1000;
  io.out(`  unbounded loop: ${r.accepted ? 'ACCEPTED (wrong)' : `rejected: ${r.error}`}\n`);
  io.out(`  unbounded loop, ours: ${ours.toFixed(2)} s (${Math.round(r.insnsProcessed / ours).toLocaleString('en-US')} insns/s)\n`);
  if (!existsSync(ORACLE)) {
    io.out(`  unbounded loop, kernel: not measured (no oracle at ${ORACLE})\n`);
    return;
  }
  const trivial = specOf('r0 = 2\nexit');
  const k: number[] = [];
  const base: number[] = [];
  for (let i = 0; i < (opts.quick ? 1 : 3); i++) {
    const a = timeOracle(trivial);
    const b = timeOracle(loop);
    if (a === null || b === null) {
      io.out('  unbounded loop, kernel: not measured (bpf-oracle unavailable: needs root)\n');
      return;
    }
    base.push(a);
    k.push(b);
  }
  const kernel = Math.max(1e-3, Math.min(...k) - Math.min(...base));
  io.out(`  unbounded loop, kernel: ${kernel.toFixed(2)} s (oracle ${Math.min(...k).toFixed(2)} s minus ${Math.min(...base).toFixed(2)} s overhead)\n`);
  io.out(`  unbounded loop, ours/kernel: ${(ours / kernel).toFixed(2)}x (target: ours under 2 s)\n`);
}
