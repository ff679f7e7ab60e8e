/**
 * bpf_loop in the VM (src/vm/callbacks.ts and the interpreter): the callback
 * named by a BPF_PSEUDO_FUNC lddw runs with r1 = the index and r2 =
 * callback_ctx in a frame of its own, until nr_loops or a non-zero return;
 * bpf_loop returns the calls made; flags and nr_loops are checked first, as
 * the kernel's bpf_loop does. The JIT hands such programs to the interpreter.
 */
import { describe, expect, it } from 'vitest';
import { bytesToHex, encodeProgram, insn, type Insn } from '../../src/isa/insn';
import * as O from '../../src/isa/opcodes';
import { parseSpec } from '../../src/isa/spec';
import { createVm, testRunFrame } from '../../src/vm';

const ALU64 = (op: number, d: number, imm: number): Insn => insn(O.BPF_ALU64 | op | O.BPF_K, d, 0, 0, imm);
const MOVX = (d: number, s: number): Insn => insn(O.BPF_ALU64 | O.BPF_MOV | O.BPF_X, d, s);
const ADDX = (d: number, s: number): Insn => insn(O.BPF_ALU64 | O.BPF_ADD | O.BPF_X, d, s);
const LDX = (d: number, s: number, off: number): Insn => insn(O.BPF_LDX | O.BPF_MEM | O.BPF_DW, d, s, off);
const STX = (d: number, s: number, off: number): Insn => insn(O.BPF_STX | O.BPF_MEM | O.BPF_DW, d, s, off);
const ST = (d: number, off: number, imm: number): Insn => insn(O.BPF_ST | O.BPF_MEM | O.BPF_DW, d, 0, off, imm);
const EXIT = insn(O.BPF_JMP | O.BPF_EXIT);

/**
 * sum = 0; n = bpf_loop(nr, cb, &sum, flags); return n * 1000 + sum, where
 * cb(i, ctx) adds i to *ctx, scribbles on its own stack, and returns 1 at i == stopAt.
 */
function program(nr: number, flags: number, stopAt: number): Insn[] {
  const main: Insn[] = [
    ST(10, -8, 0),
    ST(10, -16, 77), // the callback's frame writes -16 of its own stack: this one must survive
    ALU64(O.BPF_MOV, 1, nr),
    insn(0x18, 2, O.BPF_PSEUDO_FUNC, 0, 0), insn(0, 0, 0, 0, 0), // imm patched below
    MOVX(3, 10), ALU64(O.BPF_ADD, 3, -8),
    ALU64(O.BPF_MOV, 4, flags),
    insn(O.BPF_JMP | O.BPF_CALL, 0, 0, 0, 181),
    LDX(1, 10, -8),
    ALU64(O.BPF_MUL, 0, 1000),
    ADDX(0, 1),
    LDX(1, 10, -16),
    insn(O.BPF_JMP | O.BPF_JEQ | O.BPF_K, 1, 0, 1, 77),
    ALU64(O.BPF_MOV, 0, -1),
    EXIT,
  ];
  const cb: Insn[] = [
    LDX(3, 2, 0), ADDX(3, 1), STX(2, 3, 0),
    ST(10, -16, 5),
    ALU64(O.BPF_MOV, 0, 0),
    insn(O.BPF_JMP | O.BPF_JNE | O.BPF_K, 1, 0, 1, stopAt),
    ALU64(O.BPF_MOV, 0, 1),
    EXIT,
  ];
  main[3] = insn(0x18, 2, O.BPF_PSEUDO_FUNC, 0, main.length - 4);
  return [...main, ...cb];
}

function run(insns: Insn[], engine: 'jit' | 'interp'): { retval: number; fault?: string; jitUnavailable?: string } {
  const parsed = parseSpec({ prog_type: 'xdp', insns: bytesToHex(encodeProgram(insns)) });
  if ('error' in parsed) throw new Error(parsed.error);
  const vm = createVm(parsed, { engine });
  if ('error' in vm) throw new Error(vm.error);
  const r = vm.runXdp(testRunFrame(new Uint8Array(64)));
  return { retval: r.retval, fault: r.fault?.message, jitUnavailable: vm.jitUnavailable };
}

describe('bpf_loop', () => {
  for (const engine of ['interp', 'jit'] as const) {
    it(`calls the callback until it returns 1 and returns the calls made (${engine})`, () => {
      // i = 0, 1, 2, 3: sum 6, four calls.
      expect(run(program(10, 0, 3), engine)).toMatchObject({ retval: 4006, fault: undefined });
    });
    it(`runs nr_loops calls when the callback never stops it (${engine})`, () => {
      expect(run(program(5, 0, 99), engine).retval).toBe(5010);
    });
    it(`makes no call for nr_loops 0, and refuses flags and nr_loops above 2^23 before any call (${engine})`, () => {
      expect(run(program(0, 0, 99), engine).retval).toBe(0);
      expect(run(program(3, 1, 99), engine).retval).toBe((-22 * 1000) >>> 0); // the u32 XDP return value
      expect(run(program((1 << 23) + 1, 0, 99), engine).retval).toBe((-7 * 1000) >>> 0);
      expect(run(program(1 << 23, 0, 0), engine).retval).toBe(1000);
    });
  }
  it('is run by the interpreter when the JIT is asked for', () => {
    expect(run(program(2, 0, 99), 'jit').jitUnavailable).toBeTruthy();
  });
});
