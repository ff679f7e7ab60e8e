import { describe, expect, it } from 'vitest';
import { OPCODE_TABLE, lookupInsn, decodeProgram, encodeProgram, hexToBytes, bytesToHex, insn } from '../../src/isa';

describe('opcode table', () => {
  it('has unique (mnemonic, source) pairs', () => {
    const keys = OPCODE_TABLE.map((r) => `${r.mnemonic}/${r.source}`);
    expect(new Set(keys).size).toBe(keys.length);
  });

  it('selects sdiv/div by off, movsx by off, bswap width by imm, atomics by imm', () => {
    expect(lookupInsn(insn(0x3f, 1, 2, 0, 0))?.mnemonic).toBe('div');
    expect(lookupInsn(insn(0x3f, 1, 2, 1, 0))?.mnemonic).toBe('sdiv');
    expect(lookupInsn(insn(0x3f, 1, 2, 2, 0))).toBeUndefined();
    expect(lookupInsn(insn(0xbf, 1, 2, 16, 0))?.mnemonic).toBe('movsx1664');
    expect(lookupInsn(insn(0xd7, 1, 0, 0, 32))?.mnemonic).toBe('bswap32');
    expect(lookupInsn(insn(0xdc, 1, 0, 0, 16))?.mnemonic).toBe('be16');
    expect(lookupInsn(insn(0xdb, 1, 2, 0, 0x01))?.mnemonic).toBe('lock fetch add');
    expect(lookupInsn(insn(0xc3, 1, 2, 0, 0xf1))?.mnemonic).toBe('lock cmpxchg32');
    expect(lookupInsn(insn(0xff))).toBeUndefined();
  });

  it('decodes and re-encodes slots, lddw keeping both', () => {
    const hex = '18010000785634120000000000000000' + 'b700000001000000' + '9500000000000000';
    const bytes = hexToBytes(hex) as Uint8Array;
    const { insns, error } = decodeProgram(bytes);
    expect(error).toBeUndefined();
    expect(insns).toHaveLength(4);
    expect(insns[0]!.imm).toBe(0x12345678);
    expect(insns[0]!.imm2).toBe(0);
    expect(bytesToHex(encodeProgram(insns))).toBe(hex);
  });

  it('reports a truncated program and a cut-off lddw instead of throwing', () => {
    expect(decodeProgram(new Uint8Array(7)).error).toMatch(/multiple of 8/);
    expect(decodeProgram(hexToBytes('1801000078563412') as Uint8Array).error).toMatch(/slot 0/);
    expect(hexToBytes('zz')).toMatch(/invalid hex/);
  });
});
