/**
 * The JIT against the interpreter (the reference), without the kernel: every
 * random program of the differential generator, plus mutated copies that
 * fault (bad pointers, out-of-bounds, invalid opcodes, jumps outside the
 * program, runaway loops under small budgets, deep calls), plus programs
 * with helpers and maps, run in both engines on the same packets. Retval,
 * packet bytes, the result (executed count, fault with pc, register and
 * region), every register and the maps must be identical.
 * Knobs: VM_JIT_COUNT (programs, default 1000), VM_JIT_SEED.
 */
import { describe, expect, it } from 'vitest';
import { assemble, bytesToHex, encodeProgram, parseSpec, type Insn } from '../../src/isa';
import { createVm, testRunFrame, type XdpVm } from '../../src/vm';
import { compileJit, JIT_MAX_SLOTS, translate } from '../../src/vm/jit';
import { xdp1Spec } from '../../src/cli/bench/vm';
import { generate, packet, rng } from '../differential/vm-random-gen';

const COUNT = Number(process.env.VM_JIT_COUNT ?? 1000);
const BASE_SEED = Number(process.env.VM_JIT_SEED ?? 7100);

type Spec = Parameters<typeof parseSpec>[0];

function pair(spec: Spec, budget?: number): [XdpVm, XdpVm] {
  const parsed = parseSpec(spec);
  if ('error' in parsed) throw new Error(parsed.error);
  const mk = (engine: 'jit' | 'interp'): XdpVm => {
    const vm = createVm(parsed, { engine, budget });
    if ('error' in vm) throw new Error(vm.error);
    return vm;
  };
  return [mk('jit'), mk('interp')];
}

/** Run both engines on copies of one packet and compare everything observable. */
function compare(vms: [XdpVm, XdpVm], pkt: Uint8Array, where: () => string): { faulted: boolean; insns: number } {
  const outs = vms.map((vm) => {
    const frame = testRunFrame(pkt);
    const r = vm.runXdp(frame);
    return { r, buf: bytesToHex(frame.buf), lo: [...vm.machine.lo], hi: [...vm.machine.hi], maps: vm.maps.map((m) => [...m.keys()].map((k) => bytesToHex(m.lookup(k, 0) ?? new Uint8Array(0)))) };
  });
  const [jit, interp] = outs;
  if (JSON.stringify(jit) !== JSON.stringify(interp)) expect(jit, where()).toEqual(interp);
  return { faulted: interp!.r.fault !== undefined, insns: interp!.r.insns };
}

/** A random change that makes most programs fault somewhere: a scalar as a pointer, a wild offset, an invalid opcode, a wild jump. */
function mutate(insns: Insn[], r: () => number): Insn[] {
  const out = insns.map((x) => ({ ...x }));
  const nMut = 1 + (r() % 3);
  for (let i = 0; i < nMut; i++) {
    const k = r() % out.length;
    const x = out[k]!;
    if (x.code === 0x18 || (k > 0 && out[k - 1]!.code === 0x18)) continue;
    switch (r() % 7) {
      case 0: x.src = r() % 11; break; // another register as base or operand
      case 1: x.dst = r() % 11; break;
      case 2: x.off = (r() % 1200) - 600; break; // wild offsets and jump distances
      case 3: x.code = [0x00, 0x0d, 0x86, 0x8f, 0xe7, 0x99, 0x95, 0x05, 0x85, 0xdb, 0x3f, 0x9f][r() % 12]!; x.src = r() % 2; x.imm = (r() % 40) - 20; break;
      case 4: x.imm = (r() | 0) % 64; break;
      case 5: out[k] = { code: 0x05, dst: 0, src: 0, off: -1 - (r() % Math.max(1, k)), imm: 0 }; break; // a backward jump: a loop for the budget
      default: out[k] = { code: 0x85, dst: 0, src: 1, off: 0, imm: -1 - (r() % Math.max(1, k)), }; break; // a call back into the program: recursion depth
    }
  }
  return out;
}

describe('JIT vs interpreter', () => {
  it(`agrees on ${COUNT} random verifier-clean programs`, { timeout: 600_000 }, () => {
    let insns = 0;
    for (let i = 0; i < COUNT; i++) {
      const seed = BASE_SEED + i;
      const prog = generate(seed);
      const vms = pair({ insns: bytesToHex(encodeProgram(prog.insns)) });
      const pr = rng(seed * 7 + 1);
      for (let p = 0; p < 3; p++) {
        const pkt = Buffer.from(packet(pr), 'hex');
        const res = compare(vms, pkt, () => `seed ${seed} packet ${p} (VM_JIT_SEED=${seed} VM_JIT_COUNT=1)\n${prog.text()}`);
        expect(res.faulted, `seed ${seed}`).toBe(false);
        insns += res.insns;
      }
    }
    expect(insns).toBeGreaterThan(COUNT * 3 * 40);
  });

  it(`agrees on ${COUNT} mutated programs, faults and budgets included`, { timeout: 600_000 }, () => {
    const kinds = new Map<string, number>();
    for (let i = 0; i < COUNT; i++) {
      const seed = BASE_SEED + 1_000_000 + i;
      const r = rng(seed);
      const prog = mutate(generate(seed).insns, r);
      // Budgets from tiny to generous, so the budget stops runs at every kind of instruction.
      const budget = r() % 3 === 0 ? 1 + (r() % 200) : 100_000;
      const vms = pair({ insns: bytesToHex(encodeProgram(prog)) }, budget);
      const pr = rng(seed * 7 + 1);
      for (let p = 0; p < 2; p++) {
        const pkt = Buffer.from(packet(pr), 'hex');
        compare(vms, pkt, () => `mutated seed ${seed} budget ${budget} packet ${p}\n${prog.map((x) => JSON.stringify(x)).join('\n')}`);
      }
      const f = vms[1].runXdp(testRunFrame(Buffer.from(packet(rng(seed)), 'hex'))).fault;
      kinds.set(f?.kind ?? 'none', (kinds.get(f?.kind ?? 'none') ?? 0) + 1);
    }
    // The mutations must actually reach the fault paths, or this test proves little.
    for (const k of ['none', 'oob', 'invalid_ptr', 'invalid_insn', 'budget', 'call_depth']) expect(kinds.get(k) ?? 0, `${k}: ${JSON.stringify([...kinds])}`).toBeGreaterThan(COUNT / 200);
  });

  it('agrees on helpers and maps (xdp1 counting, lookups, updates, adjust_head)', () => {
    const spec = xdp1Spec();
    const vms = pair(spec);
    const r = rng(5);
    for (let i = 0; i < 200; i++) {
      const pkt = new Uint8Array(14 + 20 + (r() % 40));
      for (let b = 0; b < pkt.length; b++) pkt[b] = r() & 0xff;
      if (r() % 4) { pkt[12] = 8; pkt[13] = 0; }
      compare(vms, pkt, () => `xdp1 packet ${i}`);
    }
    const prog = assemble(`
      r6 = r1
      r1 = 0x0 ll
      *(u32 *)(r10 -4) = 7
      r2 = r10
      r2 += -4
      r3 = r10
      r3 += -16
      *(u64 *)(r10 -16) = 42
      r4 = 0
      call bpf_map_update_elem#2
      r1 = r6
      r2 = -16
      call bpf_xdp_adjust_head#44
      r2 = *(u32 *)(r6 +0)
      r3 = *(u32 *)(r6 +4)
      r4 = r2
      r4 += 8
      if r4 > r3 goto out
      r0 = *(u64 *)(r2 +0)
      *(u64 *)(r2 +0) = r0
    out:
      r0 = 2
      exit`);
    expect(prog.errors).toEqual([]);
    const vms2 = pair({ prog_type: 'xdp', insns: bytesToHex(encodeProgram(prog.insns)), maps: [{ name: 'h', type: 'hash', key_size: 4, value_size: 8, max_entries: 4 }], map_relocs: [{ insn: 1, map: 0 }] } as Spec);
    for (let i = 0; i < 5; i++) compare(vms2, new Uint8Array(64).fill(i), () => `helpers packet ${i}`);
    expect(vms2[0].maps[0]!.lookup(new Uint8Array([7, 0, 0, 0]), 0)).toEqual(new Uint8Array([42, 0, 0, 0, 0, 0, 0, 0]));
  });

  it('runs programs too large to translate in the interpreter, with the same results', () => {
    // JIT_MAX_SLOTS + some: a long straight line of ALU work, then a packet store of the result.
    const body: Insn[] = [];
    for (let i = 0; i < JIT_MAX_SLOTS + 10; i++) body.push({ code: i % 3 ? 0x07 : 0x27, dst: 0, src: 0, off: 0, imm: (i * 2654435761) | 0 });
    const insns: Insn[] = [{ code: 0xb7, dst: 0, src: 0, off: 0, imm: 1 }, ...body, { code: 0x95, dst: 0, src: 0, off: 0, imm: 0 }];
    const vms = pair({ insns: bytesToHex(encodeProgram(insns)) });
    expect(compileJit(vms[0].machine)).toBeNull();
    compare(vms, new Uint8Array(64), () => 'large program');
    expect(vms[0].runXdp(testRunFrame(new Uint8Array(64))).insns).toBe(insns.length);
  });

  it('really runs translated code (the JIT is the default, the interpreter only on request or with a trace hook)', () => {
    const prog = generate(BASE_SEED);
    const src = translate(createVmOf(prog.insns).machine);
    expect(src).toMatch(/switch \(pc\)/);
    const vm = createVmOf(prog.insns);
    expect(vm.machine.engine).toBe('jit');
    // A machine whose interpreter loop is broken still runs under the JIT, and fails with a trace hook.
    (vm.machine as unknown as { loop: () => void }).loop = () => {
      throw new Error('interpreter used');
    };
    const pkt = Buffer.from(packet(rng(1)), 'hex');
    expect(vm.runXdp(testRunFrame(pkt)).fault).toBeUndefined();
    vm.setTrace(() => undefined);
    expect(() => vm.runXdp(testRunFrame(pkt))).toThrow('interpreter used');
  });
});

function createVmOf(insns: Insn[]): XdpVm {
  const parsed = parseSpec({ insns: bytesToHex(encodeProgram(insns)) });
  if ('error' in parsed) throw new Error(parsed.error);
  const vm = createVm(parsed);
  if ('error' in vm) throw new Error(vm.error);
  return vm;
}
