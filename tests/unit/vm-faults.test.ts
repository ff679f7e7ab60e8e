import { describe, expect, it } from 'vitest';
import { assemble, parseSpec, bytesToHex, encodeProgram } from '../../src/isa';
import { createVm, testRunFrame, type XdpResult } from '../../src/vm';

type Engine = 'jit' | 'interp';

function runAsm(engine: Engine, text: string, pkt = new Uint8Array(64), budget?: number): XdpResult {
  const a = assemble(text);
  expect(a.errors).toEqual([]);
  const parsed = parseSpec({ insns: bytesToHex(encodeProgram(a.insns)) });
  if ('error' in parsed) throw new Error(parsed.error);
  const vm = createVm(parsed, { budget, engine });
  if ('error' in vm) throw new Error(vm.error);
  return vm.runXdp(testRunFrame(pkt));
}

for (const engine of ['jit', 'interp'] as const)
describe(`VM faults name the pc, the register and the region (${engine})`, () => {
  const cases: { name: string; asm: string; pc: number; reg: number; region: string; kind: string; message: RegExp }[] = [
    {
      name: 'packet read past data_end',
      asm: 'ldxw %r2, [%r1+0]\nldxw %r0, [%r2+62]\nexit',
      pc: 1, reg: 2, region: 'packet', kind: 'oob',
      message: /pc 1: out-of-bounds read from packet through R2: offset 62 size 4, region has 64 bytes/,
    },
    {
      name: 'packet write before data',
      asm: 'ldxw %r3, [%r1+0]\nstb [%r3-1], 7\nmov %r0, 2\nexit',
      pc: 1, reg: 3, region: 'packet', kind: 'oob',
      message: /pc 1: out-of-bounds write to packet through R3: offset -1 size 1/,
    },
    {
      name: 'write to ctx',
      asm: 'mov %r0, 2\nstxw [%r1+0], %r0\nexit',
      pc: 1, reg: 1, region: 'ctx', kind: 'ctx',
      message: /pc 1: write to ctx through R1/,
    },
    {
      name: 'stack overflow below the frame',
      asm: 'stdw [%r10-520], 1\nmov %r0, 2\nexit',
      pc: 0, reg: 10, region: 'stack[frame 0]', kind: 'oob',
      message: /pc 0: out-of-bounds write to stack\[frame 0\] through R10: offset -8 size 8, region has 512 bytes/,
    },
    {
      name: 'a scalar used as a pointer',
      asm: 'mov %r2, 4096\nldxb %r0, [%r2+0]\nexit',
      pc: 1, reg: 2, region: 'none', kind: 'invalid_ptr',
      message: /pc 1: invalid read through R2: not a pointer \(0x1000\)/,
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const r = runAsm(engine, c.asm);
      expect(r.fault).toBeDefined();
      expect(r.fault).toMatchObject({ pc: c.pc, reg: c.reg, region: c.region, kind: c.kind });
      expect(r.fault!.message).toMatch(c.message);
    });
  }

  it('stops a runaway program at the instruction budget', () => {
    const r = runAsm(engine, 'mov %r0, 0\nloop:\nadd %r0, 1\nja loop', undefined, 10_000);
    expect(r.fault).toMatchObject({ kind: 'budget', pc: expect.any(Number) });
    expect(r.fault!.message).toMatch(/instruction budget of 10000 exhausted/);
    expect(r.insns).toBe(10_000);
  });

  it('stops recursion deeper than 8 frames', () => {
    const r = runAsm(engine, 'call local f\nexit\nf:\ncall local f\nexit');
    expect(r.fault).toMatchObject({ kind: 'call_depth', pc: 2 });
  });

  it('does not corrupt memory on a faulting store', () => {
    const pkt = new Uint8Array(64).fill(0xaa);
    const frame = testRunFrame(pkt);
    const a = assemble('ldxw %r2, [%r1+0]\nstdw [%r2+60], 0\nexit');
    const parsed = parseSpec({ insns: bytesToHex(encodeProgram(a.insns)) });
    const vm = createVm(parsed as Exclude<typeof parsed, { error: string }>, { engine });
    if ('error' in vm) throw new Error(vm.error);
    const r = vm.runXdp(frame);
    expect(r.fault?.kind).toBe('oob');
    expect([...frame.buf.subarray(256 + 56, 256 + 64)]).toEqual(Array(8).fill(0xaa));
  });
});

describe('trace hook', () => {
  it('reports each instruction with registers before and after and memory touched', () => {
    const a = assemble('ldxw %r2, [%r1+0]\nldxb %r0, [%r2+3]\nexit');
    const parsed = parseSpec({ insns: bytesToHex(encodeProgram(a.insns)) });
    const vm = createVm(parsed as Exclude<typeof parsed, { error: string }>);
    if ('error' in vm) throw new Error(vm.error);
    const events: { pc: number; r0: bigint; mem?: unknown }[] = [];
    vm.setTrace((e) => events.push({ pc: e.pc, r0: e.after[0]!, mem: e.mem }));
    const pkt = new Uint8Array(16);
    pkt[3] = 9;
    vm.runXdp(testRunFrame(pkt));
    expect(events.map((e) => e.pc)).toEqual([0, 1, 2]);
    expect(events[1]).toEqual({ pc: 1, r0: 9n, mem: { region: 'packet', kind: 'packet', offset: 3, size: 1, write: false, bytes: Uint8Array.of(9) } });
  });
});
