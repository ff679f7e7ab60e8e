/**
 * Fuzz target "vm": random programs of the differential generator
 * (tests/differential/vm-random-gen.ts) and mutated copies of them (wild
 * registers, offsets, immediates, loops, calls, tiny budgets), each run on
 * three packets by the JIT and by the reference interpreter. Any exception
 * escaping the VM is a crash, any difference in retval, packet bytes,
 * executed count, fault or maps a mismatch, runs slower than HANG_MS a
 * hang. Failing inputs are written to tests/fuzz/regressions/vm/ as JSON
 * ({seed, mutate, budget, insns}), which tests/fuzz/fuzz.test.ts
 * replays on every test run.
 *
 * The runner's target is tests/fuzz/targets/vm.ts:
 *   npm run fuzz -- --seconds 600 --target vm
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { bytesToHex, encodeProgram, parseSpec, type Insn, type ProgramSpec } from '../../src/isa';
import { createVm, testRunFrame, type XdpResult, type XdpVm } from '../../src/vm';
import { generate, packet, rng } from '../differential/vm-random-gen';

/** Both engines, three packets, each run bounded by its budget: this long means something loops outside the budget. */
const HANG_MS = 10_000;
export const REGRESSION_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), 'regressions/vm');

export interface VmFuzzInput {
  seed: number;
  mutate: boolean;
  budget: number;
  insns: string;
  /** A whole program spec (maps included) instead of bare insns: a corpus program, maybe mutated. */
  spec?: ProgramSpec;
  /** The frames to run (hex); absent: three random 192-byte frames from the seed. */
  packets?: string[];
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
    const parsed = parseSpec(input.spec ? { ...input.spec, insns: input.insns } : { insns: input.insns });
    if ('error' in parsed) return { jitted }; // not a program (the spec parser refused it): nothing to run
    const mk = (engine: 'jit' | 'interp'): XdpVm => {
      const vm = createVm(parsed, { engine, budget: input.budget });
      if ('error' in vm) throw new Error(vm.error);
      return vm;
    };
    const vms = [mk('jit'), mk('interp')] as const;
    jitted = vms[0].jitUnavailable === undefined;
    const pr = rng(input.seed * 7 + 1);
    const packets = input.packets ?? [packet(pr), packet(pr), packet(pr)];
    const t0 = Date.now();
    for (let p = 0; p < packets.length; p++) {
      const pkt = Buffer.from(packets[p]!, 'hex');
      const [a, b] = vms.map((vm) => {
        const frame = testRunFrame(pkt);
        const r = vm.runXdp(frame);
        return JSON.stringify({ r, buf: bytesToHex(frame.buf), r0: [vm.machine.lo[0], vm.machine.hi[0]], maps: vm.maps.map((m) => m.dump()) });
      });
      if (a !== b) return { jitted, failure: { kind: 'mismatch', detail: `packet ${p}: jit ${a!.slice(0, 300)} vs interp ${b!.slice(0, 300)}` } };
    }
    // test_run's repeat: the JIT's own loop (its lean middle runs) against the interpreter run after run on one xdp_buff.
    const [a, b] = vms.map((vm) => {
      const frame = testRunFrame(Buffer.from(packets[0]!, 'hex'));
      const r: XdpResult = { retval: 0, data: 0, dataEnd: 0, dataMeta: 0, insns: 0 };
      vm.testRunInto(frame, r, 5);
      return JSON.stringify({ r, buf: bytesToHex(frame.buf), r0: [vm.machine.lo[0], vm.machine.hi[0]], maps: vm.maps.map((m) => m.dump()) });
    });
    if (a !== b) return { jitted, failure: { kind: 'mismatch', detail: `repeat 5: jit ${a!.slice(0, 300)} vs interp ${b!.slice(0, 300)}` } };
    runMs = Date.now() - t0;
  } catch (e) {
    return { jitted, failure: { kind: 'crash', detail: e instanceof Error ? `${e.message}\n${e.stack ?? ''}`.slice(0, 2000) : String(e) } };
  }
  // A hang is in the runs (both engines, 3 packets; the budget bounds them), not in the verification before.
  if (runMs > HANG_MS) return { jitted, failure: { kind: 'hang', detail: `${runMs} ms of runs` } };
  return { jitted };
}
