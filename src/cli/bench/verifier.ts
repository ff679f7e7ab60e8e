/**
 * Benchmark section 'verifier': our verifier's CPU time next to the running
 * kernel's on the same bytecode — xdp1 (as our compiler builds it), a
 * bounded loop of 1,500 iterations and the unbounded loop rejected at
 * 1,000,000 processed instructions. Ours is this process's CPU time around
 * verify(); the kernel's is its own "verification time" (BPF_LOG_STATS)
 * through bpf-oracle. Then processed instructions per second over a mixed
 * workload of small programs.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { assemble } from '../../isa/asm';
import { bytesToHex, encodeProgram } from '../../isa/insn';
import { parseSpec, type ParsedSpec, type ProgramSpec } from '../../isa/spec';
import { compile } from '../../cc/index';
import { EXAMPLES } from '../../examples/index';
import { verify } from '../../verifier';
import type { CliIO } from '../io';
import type { BenchOpts } from './types';

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

/** A bounded loop of 1,500 iterations (r1 counts to 1500; every iteration is a new state). */
export const BOUNDED_LOOP_1500 = `r1 = 0
r2 = 0
r2 += r1
r1 += 1
if r1 < 0x5dc goto pc-3
r0 = 0
exit`;

/**
 * The kernel verifier's own CPU time for a program: the "verification time
 * N usec" line the kernel prints with BPF_LOG_STATS (log_level 4), read
 * through bpf-oracle. Null when the oracle cannot run here.
 */
function kernelVerifyMs(spec: ProgramSpec): { ms: number; processed: number; accepted: boolean } | null {
  const r = spawnSync(ORACLE, ['-'], { input: JSON.stringify({ ...spec, log_level: 4 }), encoding: 'utf8', maxBuffer: 64 << 20 });
  if (r.status !== 0) return null;
  const out = JSON.parse(r.stdout) as { accepted: boolean; verifier_log: string; insns_processed: number | null };
  const m = /verification time (\d+) usec/.exec(out.verifier_log);
  if (!m) return null;
  return { ms: Number(m[1]) / 1000, processed: out.insns_processed ?? 0, accepted: out.accepted };
}

/** Our verifier's CPU time (user + system of this process), best of `reps`. */
function oursVerifyMs(p: ParsedSpec, reps: number, warmMs: number): { ms: number; coldMs: number; processed: number; accepted: boolean } {
  let best = Infinity;
  // Warm V8's JIT first (a second of verifying, as the app's long-lived
  // build worker is warm after a few edits); the cold first run is printed
  // beside it. process.cpuUsage() counts every thread of the process, V8's
  // background compiler and GC threads too, so a short warm-up leaves their
  // tier-up work inside the measured runs (100 ms gave 1.6 ms for xdp1, a
  // fully warm run is under 0.5 ms).
  const c0 = process.cpuUsage();
  let r = verify(p, { states: false, logLevel: 0 });
  const cold = process.cpuUsage(c0);
  const warmEnd = performance.now() + warmMs;
  while (performance.now() < warmEnd) verify(p, { states: false, logLevel: 0 });
  for (let i = 0; i < reps; i++) {
    const c0 = process.cpuUsage();
    r = verify(p, { states: false, logLevel: 0 });
    const c = process.cpuUsage(c0);
    best = Math.min(best, (c.user + c.system) / 1000);
  }
  return { ms: best, coldMs: (cold.user + cold.system) / 1000, processed: r.insnsProcessed, accepted: r.accepted };
}

function xdp1Spec(): ProgramSpec {
  const ex = EXAMPLES.find((e) => e.id === 'xdp1');
  if (!ex) throw new Error('no xdp1 example');
  const c = compile(ex.source, { file: 'xdp1.c' });
  if (!c.spec) throw new Error(`xdp1 does not compile: ${c.diagnostics[0]?.message ?? ''}`);
  return { prog_type: 'xdp', insns: c.spec.insns, maps: c.spec.maps, map_relocs: c.spec.map_relocs };
}

export async function bench(io: CliIO, opts: BenchOpts): Promise<void> {
  const reps = opts.quick ? 3 : 10;
  const programs: [string, ProgramSpec][] = [
    ['xdp1 (our build)', xdp1Spec()],
    ['bounded loop, 1,500 iterations', specOf(BOUNDED_LOOP_1500)],
    ['1M-insn rejection (unbounded loop)', specOf(UNBOUNDED_LOOP)],
  ];
  io.out(`  verifier CPU time on the same bytecode, ours vs the kernel's (its "verification time", log_level 4), minimum of ${reps * 5} runs (3 for the 1M rejection) after a warm-up; the kernel best of ${reps}:\n`);
  const haveOracle = existsSync(ORACLE);
  for (const [name, spec] of programs) {
    const big = name.startsWith('1M');
    // Small programs take well under a millisecond: more runs for the minimum to be a true one.
    const ours = oursVerifyMs(parsed(spec), big ? Math.min(reps, 3) : reps * 5, big ? 100 : opts.quick ? 300 : 1000);
    let k: { ms: number; processed: number; accepted: boolean } | null = null;
    if (haveOracle) {
      for (let i = 0; i < (name.startsWith('1M') ? Math.min(reps, 3) : reps); i++) {
        const one = kernelVerifyMs(spec);
        if (!one) break;
        if (!k || one.ms < k.ms) k = one;
      }
    }
    const verdict = (v: { accepted: boolean; processed: number }): string => `${v.accepted ? 'accepted' : 'rejected'}, ${v.processed.toLocaleString('en-US')} insns`;
    const kText = k ? `kernel ${k.ms.toFixed(2)} ms (${verdict(k)})` : 'kernel: not measured (bpf-oracle unavailable: needs root)';
    const ratio = k ? `  ${(ours.ms / Math.max(k.ms, 0.001)).toFixed(2)}x (target <= 2x)` : '';
    opts.figure(`${name}.ours_ms`, ours.ms);
    opts.figure(`${name}.kernel_ms`, k ? k.ms : null);
    opts.figure(`${name}.ours_per_kernel`, k ? ours.ms / Math.max(k.ms, 0.001) : null);
    io.out(`  ${name}: ours ${ours.ms.toFixed(2)} ms (${verdict(ours)}; first run ${ours.coldMs.toFixed(2)} ms), ${kText}${ratio}\n`);
  }
  throughput(io, opts);
}

/** Processed instructions per second over the small-program workload. */
function throughput(io: CliIO, opts: BenchOpts): void {
  const programs = WORKLOAD.map((t) => parsed(specOf(t)));
  const reps = opts.quick ? 200 : 2000;
  let insns = 0;
  const t0 = performance.now();
  for (let i = 0; i < reps; i++) for (const p of programs) insns += verify(p, { states: false }).insnsProcessed;
  const secs = (performance.now() - t0) / 1000;
  opts.figure('throughput_insns_per_s', insns / secs);
  io.out(`  throughput: ${insns} insns processed in ${secs.toFixed(2)} s = ${Math.round(insns / secs).toLocaleString('en-US')} insns/s\n`);
}
