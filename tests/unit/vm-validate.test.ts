/**
 * Issue 17, items 1 and 6 (VM side): every program is validated once before
 * it runs, in Machine (both engines go through it), so malformed bytecode
 * never reaches the interpreter or the JIT; a faulting program is
 * XDP_ABORTED with the fault kept; pointers carry provenance, so arithmetic
 * cannot move one from its region into another and constants cannot forge one.
 */
import { describe, expect, it } from 'vitest';
import { assemble, bytesToHex, encodeProgram, parseSpec, type Insn } from '../../src/isa';
import { createVm, runRaw, testRunFrame, type XdpResult } from '../../src/vm';

const I = (code: number, dst = 0, src = 0, off = 0, imm = 0): Insn => ({ code, dst, src, off, imm });
const EXIT = I(0x95);

function runInsns(engine: 'jit' | 'interp', insns: Insn[], pkt = new Uint8Array(64)): XdpResult {
  const parsed = parseSpec({ insns: bytesToHex(encodeProgram(insns)) });
  if ('error' in parsed) throw new Error(parsed.error);
  const vm = createVm(parsed, { engine });
  if ('error' in vm) throw new Error(vm.error);
  return vm.runXdp(testRunFrame(pkt));
}

function runAsm(engine: 'jit' | 'interp', text: string): XdpResult {
  const a = assemble(text);
  expect(a.errors).toEqual([]);
  return runInsns(engine, a.insns);
}

for (const engine of ['jit', 'interp'] as const) {
  describe(`validation before the first run (${engine})`, () => {
    const cases: [string, Insn[], RegExp][] = [
      // The JIT used to crash here ("l13 is not defined") while the interpreter ran r13 = 5.
      ['a register above r10', [I(0xb7, 13, 0, 0, 5), I(0xb7, 0, 0, 0, 2), EXIT], /^invalid program: insn 0: R13 is invalid$/],
      ['a source register above r10', [I(0xbf, 0, 12), EXIT], /^invalid program: insn 0: R12 is invalid$/],
      ['a write to r10', [I(0xb7, 10, 0, 0, 0), I(0xb7, 0, 0, 0, 2), EXIT], /^invalid program: insn 0: frame pointer is read only$/],
      ['a load into r10', [I(0x79, 10, 1, 0, 0), EXIT], /^invalid program: insn 0: frame pointer is read only$/],
      ['an unknown opcode', [I(0x8f, 0, 0, 0, 0), EXIT], /^invalid program: insn 0: unknown opcode 8f$/],
      ['a jump outside the program', [I(0x05, 0, 0, 5, 0), EXIT], /^invalid program: insn 0: jump out of range from insn 0 to 6$/],
      ['a jump into an lddw', [I(0x05, 0, 0, 1, 0), { ...I(0x18, 0, 0, 0, 1), imm2: 0 }, I(0, 0, 0, 0, 0), EXIT], /jump into the middle of ldimm64 insn 1/],
      ['an lddw cut in half', [{ ...I(0x18, 0, 0, 0, 1) }, I(0xb7, 0, 0, 0, 0), EXIT], /invalid bpf_ld_imm64 insn/],
      ['an unknown helper', [I(0x85, 0, 0, 0, 9999), EXIT], /^invalid program: insn 0: invalid func unknown#9999$/],
    ];
    for (const [name, insns, message] of cases) {
      it(`refuses ${name}, runs nothing and reports XDP_ABORTED`, () => {
        const r = runInsns(engine, insns);
        expect(r.fault?.kind).toBe('invalid_insn');
        expect(r.fault?.message).toMatch(message);
        expect(r.retval).toBe(0);
        expect(r.insns).toBe(0);
      });
    }
  });

  describe(`a faulting program is XDP_ABORTED (${engine})`, () => {
    it('returns 0, not what r0 held when it faulted', () => {
      const r = runAsm(engine, 'mov %r0, 2\nldxw %r2, [%r1+0]\nldxw %r3, [%r2+4000]\nexit');
      expect(r.fault?.kind).toBe('oob');
      expect(r.retval).toBe(0);
    });
  });

  describe(`pointer provenance (${engine})`, () => {
    it('arithmetic cannot carry a stack pointer into the next frame', () => {
      // r10 + (8 << 32) has the tag of stack[frame 1]: before, the store landed there silently.
      const a = assemble('mov %r2, %r10\nlddw %r3, 0x800000000\nadd %r2, %r3\nstdw [%r2-8], 7\nmov %r0, 2\nexit');
      expect(a.errors).toEqual([]);
      const r = runInsns(engine, a.insns);
      expect(r.fault).toMatchObject({ kind: 'oob', pc: 4, reg: 2, region: 'stack[frame 0]' });
      expect(r.retval).toBe(0);
    });

    it('a constant equal to a pointer is still a scalar', () => {
      // Read the ctx pointer's bits through the stack, rebuild them as a constant, and dereference that.
      const a = assemble('stxdw [%r10-8], %r1\nldxw %r2, [%r10-8]\nldxw %r3, [%r10-4]\nlsh %r3, 32\nor %r2, %r3\nldxw %r0, [%r2+0]\nexit');
      expect(a.errors).toEqual([]);
      const r = runInsns(engine, a.insns);
      expect(r.fault).toMatchObject({ kind: 'invalid_ptr', pc: 5, reg: 2 });
      expect(r.fault!.message).toMatch(/not a pointer/);
    });

    it('a pointer spilled to the stack and filled back keeps its provenance', () => {
      const r = runAsm(engine, 'stxdw [%r10-8], %r1\nldxdw %r2, [%r10-8]\nldxw %r3, [%r2+0]\nldxb %r0, [%r3+0]\nexit');
      expect(r.fault).toBeUndefined();
    });

    it('a spill overwritten in part is no longer a pointer', () => {
      const r = runAsm(engine, 'stxdw [%r10-8], %r1\nstb [%r10-8], 0\nldxdw %r2, [%r10-8]\nldxw %r0, [%r2+0]\nexit');
      expect(r.fault).toMatchObject({ kind: 'invalid_ptr', pc: 3, reg: 2 });
    });
  });
}

describe('raw runs validate too', () => {
  it('faults before running a program with r11', () => {
    const r = runRaw([I(0xb7, 11, 0, 0, 1), EXIT], new Uint8Array(8));
    expect(r.fault?.message).toBe('invalid program: insn 0: R11 is invalid');
    expect(r.insns).toBe(0);
  });
});
