/**
 * One eBPF instruction slot, decoded into its fields, and the byte layout of
 * a program (8 bytes per slot, little endian, lddw taking two slots).
 *
 *   byte 0: opcode   byte 1: dst_reg (low nibble) | src_reg (high nibble)
 *   bytes 2-3: off (s16)   bytes 4-7: imm (s32)
 *
 * Programs are arrays indexed by slot, exactly as the kernel indexes them:
 * jump offsets, line info and verifier logs all count slots. The second slot
 * of an lddw is kept (as a raw Insn) so indices line up; its imm is also
 * copied into the first slot's `imm2` for convenience.
 */
import { INSN_SIZE } from './opcodes';

export interface Insn {
  /** Opcode byte. */
  code: number;
  /** Destination register 0..15 (only 0..10 are valid). */
  dst: number;
  /** Source register 0..15 (only 0..10 are valid). */
  src: number;
  /** Signed 16-bit offset. */
  off: number;
  /** Signed 32-bit immediate. */
  imm: number;
  /** For the first slot of lddw: the imm of the second slot (the high 32 bits). */
  imm2?: number;
}

export function insn(code: number, dst = 0, src = 0, off = 0, imm = 0): Insn {
  return { code, dst, src, off, imm };
}

/** Encode slots into bytes. An Insn with imm2 set (lddw) writes two slots. */
export function encodeInsns(insns: readonly Insn[]): Uint8Array {
  let slots = 0;
  for (const i of insns) slots += i.imm2 !== undefined && i.code === 0x18 ? 2 : 1;
  // Callers that already include the second lddw slot must not set imm2 on
  // the first; encodeProgram below handles the slot-indexed form.
  const out = new Uint8Array(slots * INSN_SIZE);
  const dv = new DataView(out.buffer);
  let p = 0;
  for (const i of insns) {
    writeSlot(dv, p, i);
    p += INSN_SIZE;
    if (i.imm2 !== undefined && i.code === 0x18) {
      writeSlot(dv, p, { code: 0, dst: 0, src: 0, off: 0, imm: i.imm2 });
      p += INSN_SIZE;
    }
  }
  return out;
}

/**
 * Encode a slot-indexed program (as returned by decodeProgram: the second
 * slot of each lddw present as its own entry). imm2 is ignored here.
 */
export function encodeProgram(slots: readonly Insn[]): Uint8Array {
  const out = new Uint8Array(slots.length * INSN_SIZE);
  const dv = new DataView(out.buffer);
  slots.forEach((i, k) => writeSlot(dv, k * INSN_SIZE, i));
  return out;
}

function writeSlot(dv: DataView, p: number, i: Insn): void {
  dv.setUint8(p, i.code & 0xff);
  dv.setUint8(p + 1, ((i.src & 0xf) << 4) | (i.dst & 0xf));
  dv.setInt16(p + 2, i.off << 16 >> 16, true);
  dv.setInt32(p + 4, i.imm | 0, true);
}

/**
 * Decode bytes into slots. Only the byte layout is checked here (length a
 * multiple of 8, lddw not cut off); opcode validity is the table's job
 * (see validate.ts).
 */
export function decodeProgram(bytes: Uint8Array): { insns: Insn[]; error?: string } {
  if (bytes.length % INSN_SIZE !== 0) {
    return {
      insns: [],
      error: `program length ${bytes.length} is not a multiple of ${INSN_SIZE} bytes`,
    };
  }
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const n = bytes.length / INSN_SIZE;
  const insns: Insn[] = new Array(n);
  for (let k = 0; k < n; k++) {
    const p = k * INSN_SIZE;
    const regs = dv.getUint8(p + 1);
    insns[k] = {
      code: dv.getUint8(p),
      dst: regs & 0xf,
      src: regs >> 4,
      off: dv.getInt16(p + 2, true),
      imm: dv.getInt32(p + 4, true),
    };
  }
  for (let k = 0; k < n; k++) {
    if (insns[k]!.code === 0x18) {
      if (k + 1 >= n) return { insns, error: `invalid BPF_LD_IMM insn at slot ${k}: missing second slot` };
      insns[k]!.imm2 = insns[k + 1]!.imm;
      k++;
    }
  }
  return { insns };
}

export function hexToBytes(hex: string): Uint8Array | string {
  const h = hex.replace(/\s+/g, '');
  if (h.length % 2 !== 0) return `odd number of hex digits (${h.length})`;
  if (!/^[0-9a-fA-F]*$/.test(h)) {
    const bad = h.search(/[^0-9a-fA-F]/);
    return `invalid hex character '${h[bad]}' at position ${bad}`;
  }
  const out = new Uint8Array(h.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(h.substr(i * 2, 2), 16);
  return out;
}

const HEX_DIGITS = new TextEncoder().encode('0123456789abcdef');

/**
 * Lower-case hex of b as one flat string. Built as ASCII bytes and decoded
 * once: `s += pair` per byte left a rope of two nodes a byte (a 175k-slot
 * program's hex cost ~80 MB until something flattened it).
 */
export function bytesToHex(b: Uint8Array): string {
  const ascii = new Uint8Array(b.length * 2);
  for (let i = 0; i < b.length; i++) {
    ascii[2 * i] = HEX_DIGITS[b[i]! >> 4]!;
    ascii[2 * i + 1] = HEX_DIGITS[b[i]! & 15]!;
  }
  return new TextDecoder().decode(ascii);
}

/** The 64-bit immediate of an lddw, as an unsigned bigint. */
export function lddwImm64(i: Insn): bigint {
  return (BigInt((i.imm2 ?? 0) >>> 0) << 32n) | BigInt(i.imm >>> 0);
}
