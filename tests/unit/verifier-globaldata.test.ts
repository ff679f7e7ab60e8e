/**
 * Global data as the verifier sees it (issue 13): an lddw with a value
 * relocation is a map_value pointer at the reloc's offset; .rodata (libbpf
 * creates it BPF_F_RDONLY_PROG and freezes it) cannot be written, and a load
 * at a known offset from it is the constant user space wrote, so a branch on
 * a `const volatile` knob is decided while verifying, as the kernel does.
 */
import { describe, expect, it } from 'vitest';
import { assemble } from '../../src/isa/asm';
import { bytesToHex, encodeProgram } from '../../src/isa/insn';
import { parseSpec, type MapSpec } from '../../src/isa/spec';
import { verify } from '../../src/verifier';

function run(text: string, map: MapSpec, offset: number) {
  const a = assemble(text);
  expect(a.errors).toEqual([]);
  const p = parseSpec({ prog_type: 'xdp', insns: bytesToHex(encodeProgram(a.insns)), maps: [map], map_relocs: [{ insn: 0, map: 0, kind: 'value', offset }] });
  if ('error' in p) throw new Error(p.error);
  return verify(p, { logLevel: 1, states: false });
}

const rodata = (bytes: string, freeze = true): MapSpec => ({ type: 'array', key_size: 4, value_size: bytes.length / 2, max_entries: 1, internal: '.rodata', freeze, flags: 0x80, init: [{ key: '00000000', value: bytes }] });

// r1 = &rodata[4]; r2 = *(u32 *)(r1 +0); if r2 == 7 the bad read of r10 - 600 is dead code.
const KNOB = `r1 = 0 ll
r2 = *(u32 *)(r1 +0)
if r2 == 0x7 goto pc+2
r0 = *(u64 *)(r10 -600)
exit
r0 = 2
exit`;

describe('global data in the verifier', () => {
  it('reads a frozen .rodata knob as a constant and prunes the dead branch', () => {
    const r = run(KNOB, rodata('0000000007000000'), 4);
    expect(r.error).toBeUndefined();
    expect(r.accepted).toBe(true);
    // lddw, load, branch, r0 = 2, exit: the fall-through is never walked.
    expect(r.insnsProcessed).toBe(5);
  });

  it('explores both sides when the knob says otherwise, or the map is not frozen', () => {
    expect(run(KNOB, rodata('0000000005000000'), 4).error).toBe('invalid read from stack R10 off=-600 size=8');
    expect(run(KNOB, rodata('0000000007000000', false), 4).error).toBe('invalid read from stack R10 off=-600 size=8');
  });

  it('refuses writes into .rodata and accepts them into .data', () => {
    const w = 'r1 = 0 ll\nr2 = 1\n*(u32 *)(r1 +0) = r2\nr0 = 2\nexit';
    expect(run(w, rodata('0000000000000000'), 4).error).toBe('write into map forbidden, value_size=8 off=4 size=4');
    const data: MapSpec = { type: 'array', key_size: 4, value_size: 8, max_entries: 1, internal: '.data' };
    expect(run(w, data, 4).accepted).toBe(true);
  });
});
