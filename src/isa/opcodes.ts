/**
 * The eBPF opcode byte, field by field, as RFC 9669 and the kernel's uapi
 * (include/uapi/linux/bpf.h, bpf_common.h) define it. Names follow the
 * kernel's so that code here reads like the kernel's.
 *
 *   msb            lsb
 *   +-----+---+------+
 *   | op  | s | cls  |   ALU/ALU64/JMP/JMP32: op (4 bits), source (1 bit), class (3 bits)
 *   +-----+---+------+
 *   | mode|size| cls |   LD/LDX/ST/STX: mode (3 bits), size (2 bits), class (3 bits)
 */

// Instruction classes (low 3 bits).
export const BPF_LD = 0x00;
export const BPF_LDX = 0x01;
export const BPF_ST = 0x02;
export const BPF_STX = 0x03;
export const BPF_ALU = 0x04;
export const BPF_JMP = 0x05;
export const BPF_JMP32 = 0x06;
export const BPF_ALU64 = 0x07;

// Source operand (bit 3) for ALU and JMP classes.
export const BPF_K = 0x00;
export const BPF_X = 0x08;
/** For BPF_END: BPF_TO_LE shares the encoding of BPF_K, BPF_TO_BE of BPF_X. */
export const BPF_TO_LE = 0x00;
export const BPF_TO_BE = 0x08;

// ALU operations (high 4 bits).
export const BPF_ADD = 0x00;
export const BPF_SUB = 0x10;
export const BPF_MUL = 0x20;
export const BPF_DIV = 0x30;
export const BPF_OR = 0x40;
export const BPF_AND = 0x50;
export const BPF_LSH = 0x60;
export const BPF_RSH = 0x70;
export const BPF_NEG = 0x80;
export const BPF_MOD = 0x90;
export const BPF_XOR = 0xa0;
export const BPF_MOV = 0xb0;
export const BPF_ARSH = 0xc0;
export const BPF_END = 0xd0;

// Jump operations (high 4 bits).
export const BPF_JA = 0x00;
export const BPF_JEQ = 0x10;
export const BPF_JGT = 0x20;
export const BPF_JGE = 0x30;
export const BPF_JSET = 0x40;
export const BPF_JNE = 0x50;
export const BPF_JSGT = 0x60;
export const BPF_JSGE = 0x70;
export const BPF_CALL = 0x80;
export const BPF_EXIT = 0x90;
export const BPF_JLT = 0xa0;
export const BPF_JLE = 0xb0;
export const BPF_JSLT = 0xc0;
export const BPF_JSLE = 0xd0;

// Load/store size (bits 3-4).
export const BPF_W = 0x00;
export const BPF_H = 0x08;
export const BPF_B = 0x10;
export const BPF_DW = 0x18;

// Load/store mode (high 3 bits).
export const BPF_IMM = 0x00;
export const BPF_ABS = 0x20;
export const BPF_IND = 0x40;
export const BPF_MEM = 0x60;
export const BPF_MEMSX = 0x80;
export const BPF_ATOMIC = 0xc0;

// Atomic operations, carried in imm of a BPF_STX | BPF_ATOMIC instruction.
export const BPF_FETCH = 0x01;
export const BPF_XCHG = 0xe0 | BPF_FETCH;
export const BPF_CMPXCHG = 0xf0 | BPF_FETCH;

// src_reg values with a special meaning.
/** ld_imm64: imm is a map fd (after relocation). */
export const BPF_PSEUDO_MAP_FD = 1;
/** ld_imm64: imm is a map fd, imm2 an offset into its value. */
export const BPF_PSEUDO_MAP_VALUE = 2;
/** call: imm is a pc-relative offset to a bpf-to-bpf callee. */
export const BPF_PSEUDO_CALL = 1;
/** call: imm is a kfunc BTF id. */
export const BPF_PSEUDO_KFUNC_CALL = 2;
/** lddw src: imm is a function's offset (from the next slot), for helpers taking a callback (bpf_loop). */
export const BPF_PSEUDO_FUNC = 4;

export const BPF_CLASS = (code: number): number => code & 0x07;
export const BPF_OP = (code: number): number => code & 0xf0;
export const BPF_SRC = (code: number): number => code & 0x08;
export const BPF_SIZE = (code: number): number => code & 0x18;
export const BPF_MODE = (code: number): number => code & 0xe0;

/** Bytes accessed by a load/store of the given BPF_SIZE field. */
export function sizeBytes(size: number): 1 | 2 | 4 | 8 {
  switch (size) {
    case BPF_B:
      return 1;
    case BPF_H:
      return 2;
    case BPF_W:
      return 4;
    default:
      return 8;
  }
}

/** Number of registers r0..r10; r10 is the read-only frame pointer. */
export const MAX_BPF_REG = 11;
export const BPF_REG_FP = 10;
/** Bytes of stack per frame. */
export const MAX_BPF_STACK = 512;
/** Bytes in one instruction slot. */
export const INSN_SIZE = 8;

/** Ordered load and store (BPF_ATOMIC imm): dst = *(size *)(src + off) with acquire, *(size *)(dst + off) = src with release. */
export const BPF_LOAD_ACQ = 0x100;
export const BPF_STORE_REL = 0x110;
