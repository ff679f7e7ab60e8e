/**
 * Fuzz target "vm": random programs of the differential generator
 * (tests/differential/vm-random-gen.ts) and mutated copies of them (wild
 * registers, offsets, immediates, loops, calls, tiny budgets), each run on
 * three packets by the JIT and by the reference interpreter. Any exception
 * escaping the VM is a crash, any difference in retval, packet bytes,
 * executed count, fault or maps a mismatch, runs slower than HANG_MS a
 * hang. Failing inputs are written to tests/fuzz/regressions/vm/ as JSON
 * ({seed, mutate, budget, insns}), which tests/unit/vm-fuzz-regressions.test.ts
 * replays on every test run.
 *
 *   npx tsx tests/fuzz/vm.ts --seconds 600 [--seed N]   (exit 1 on any failure)
 *   import { fuzzVm } from './vm'                        (a runner with a time budget)
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { bytesToHex, encodeProgram, parseSpec, type Insn } from '../../src/isa';
import { createVm, testRunFrame, type XdpVm } from '../../src/vm';
import { generate, packet, rng } from '../differential/vm-random-gen';

/** Both engines, three packets, each run bounded by its budget: this long means something loops outside the budget. */
const HANG_MS = 10_000;
export const REGRESSION_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), 'regressions/vm');

export interface VmFuzzInput {
  seed: number;
  mutate: boolean;
  budget: number;
  insns: string;
}

export interface VmFuzzReport {
  target: 'vm';
  seconds: number;
  inputs: number;
  /** Inputs the JIT translated (the verifier accepted them). */
  jitted: number;
  runs: number;
  crashes: number;
  mismatches: number;
  hangs: number;
  failures: { input: VmFuzzInput; kind: 'crash' | 'mismatch' | 'hang'; detail: string }[];
}

function mutate(insns: Insn[], r: () => number): Insn[] {
  const out = insns.map((x) => ({ ...x }));
  const nMut = 1 + (r() % 3);
  for (let i = 0; i < nMut; i++) {
    const k = r() % out.length;
    const x = out[k]!;
    if (x.code === 0x18 || (k > 0 && out[k - 1]!.code === 0x18)) continue;
    switch (r() % 8) {
      case 0: x.src = r() % 16; break;
      case 1: x.dst = r() % 16; break;
      case 2: x.off = (r() % 1200) - 600; break;
      case 3: x.imm = r() | 0; break;
      case 4: x.code = r() & 0xff; break;
      case 5: out[k] = { code: 0x05, dst: 0, src: 0, off: -1 - (r() % Math.max(1, k)), imm: 0 }; break;
      case 6: out[k] = { code: 0x85, dst: 0, src: 1, off: 0, imm: -1 - (r() % Math.max(1, k)) }; break;
      default: out[k] = { code: 0x85, dst: 0, src: 0, off: 0, imm: r() % 220 }; break;
    }
  }
  return out;
}

/** The input for a seed: deterministic, so a report's seed replays it. */
export function vmFuzzInput(seed: number): VmFuzzInput {
  const r = rng(seed ^ 0x5bd1e995);
  const mut = r() % 2 === 0;
  const base = generate(seed).insns;
  const insns = mut ? mutate(base, r) : base;
  // Tiny budgets stop runs at every kind of instruction; 100k bounds the loops mutations create.
  const budget = r() % 4 === 0 ? 1 + (r() % 300) : 100_000;
  return { seed, mutate: mut, budget, insns: bytesToHex(encodeProgram(insns)) };
}

/** Run one input in both engines: whether the JIT translated it, and what went wrong (undefined when they agree). */
export function checkVmInput(input: VmFuzzInput): { jitted: boolean; failure?: { kind: 'crash' | 'mismatch' | 'hang'; detail: string } } {
  let jitted = false;
  let runMs = 0;
  try {
    const parsed = parseSpec({ insns: input.insns });
    if ('error' in parsed) return { jitted }; // not a program (the spec parser refused it): nothing to run
    const mk = (engine: 'jit' | 'interp'): XdpVm => {
      const vm = createVm(parsed, { engine, budget: input.budget });
      if ('error' in vm) throw new Error(vm.error);
      return vm;
    };
    const vms = [mk('jit'), mk('interp')] as const;
    jitted = vms[0].jitUnavailable === undefined;
    const pr = rng(input.seed * 7 + 1);
    const t0 = Date.now();
    for (let p = 0; p < 3; p++) {
      const pkt = Buffer.from(packet(pr), 'hex');
      const [a, b] = vms.map((vm) => {
        const frame = testRunFrame(pkt);
        const r = vm.runXdp(frame);
        return JSON.stringify({ r, buf: bytesToHex(frame.buf), r0: [vm.machine.lo[0], vm.machine.hi[0]], maps: vm.maps.map((m) => m.dump()) });
      });
      if (a !== b) return { jitted, failure: { kind: 'mismatch', detail: `packet ${p}: jit ${a!.slice(0, 300)} vs interp ${b!.slice(0, 300)}` } };
    }
    runMs = Date.now() - t0;
  } catch (e) {
    return { jitted, failure: { kind: 'crash', detail: e instanceof Error ? `${e.message}\n${e.stack ?? ''}`.slice(0, 2000) : String(e) } };
  }
  // A hang is in the runs (both engines, 3 packets; the budget bounds them), not in the verification before.
  if (runMs > HANG_MS) return { jitted, failure: { kind: 'hang', detail: `${runMs} ms of runs` } };
  return { jitted };
}

/** Fuzz for `seconds` (wall clock), keeping every failing input under REGRESSION_DIR. */
export function fuzzVm(opts: { seconds: number; seed?: number; save?: boolean }): VmFuzzReport {
  const start = Date.now();
  const rep: VmFuzzReport = { target: 'vm', seconds: 0, inputs: 0, jitted: 0, runs: 0, crashes: 0, mismatches: 0, hangs: 0, failures: [] };
  let seed = opts.seed ?? (start % 1_000_000_000);
  while (Date.now() - start < opts.seconds * 1000) {
    const input = vmFuzzInput(seed++);
    const res = checkVmInput(input);
    const bad = res.failure;
    rep.inputs++;
    rep.runs += 3;
    if (res.jitted) rep.jitted++;
    if (bad) {
      if (bad.kind === 'crash') rep.crashes++;
      else if (bad.kind === 'mismatch') rep.mismatches++;
      else rep.hangs++;
      rep.failures.push({ input, kind: bad.kind, detail: bad.detail });
      if (opts.save !== false) {
        mkdirSync(REGRESSION_DIR, { recursive: true });
        writeFileSync(path.join(REGRESSION_DIR, `seed-${input.seed}.json`), JSON.stringify(input, null, 1) + '\n');
      }
    }
  }
  rep.seconds = (Date.now() - start) / 1000;
  return rep;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const args = process.argv.slice(2);
  const opt = (name: string): string | undefined => {
    const i = args.indexOf(name);
    return i >= 0 ? args[i + 1] : undefined;
  };
  const seconds = Number(opt('--seconds') ?? 60);
  const seedArg = opt('--seed');
  if (!Number.isFinite(seconds) || seconds <= 0 || (seedArg !== undefined && !Number.isInteger(Number(seedArg)))) {
    process.stderr.write('usage: tsx tests/fuzz/vm.ts [--seconds N] [--seed N]\n');
    process.exit(2);
  }
  const rep = fuzzVm({ seconds, seed: seedArg === undefined ? undefined : Number(seedArg) });
  process.stdout.write(`vm fuzz: ${rep.inputs} inputs (${rep.jitted} translated by the JIT), ${rep.runs} runs in ${rep.seconds.toFixed(0)} s: ${rep.crashes} uncaught exceptions, ${rep.mismatches} JIT/interpreter mismatches, ${rep.hangs} hangs\n`);
  for (const f of rep.failures.slice(0, 5)) process.stdout.write(`  ${f.kind} seed ${f.input.seed}: ${f.detail.split('\n')[0]}\n`);
  process.exit(rep.failures.length ? 1 : 0);
}
