/**
 * The one opcode table. Every valid eBPF instruction form of RFC 9669, as
 * Linux 6.x implements it, is one row here; the encoder, decoder, assembler,
 * disassembler, interpreter and the verifier's opcode check all read it.
 * (Compare the kernel's BPF_INSN_MAP in kernel/bpf/core.c and rbpf's ebpf.rs.)
 *
 * A row is identified by its opcode byte plus, where the RFC overloads one
 * opcode, a required `off` (sdiv/smod: 1, movsx: 8/16/32, ldx/ja32 none) or
 * `imm` (byte swaps: 16/32/64; atomics: the atomic op). `mnemonic` is the
 * uBPF / bpf_conformance name, unique per row.
 */
import * as O from './opcodes';
import type { Insn } from './insn';

export type OpKind =
  | 'alu' // binary ALU op: dst = dst OP src/imm
  | 'neg' // dst = -dst
  | 'mov' // dst = src/imm
  | 'movsx' // dst = (sN)src
  | 'end' // byte swap: le/be (BPF_ALU | BPF_END) or bswap (BPF_ALU64 | BPF_END)
  | 'jmp' // conditional jump
  | 'ja' // unconditional jump (off, or imm for ja32 / gotol)
  | 'may_goto' // BPF_JMP | BPF_JCOND: jump once the per-run loop budget is spent
  | 'call' // helper or bpf-to-bpf call
  | 'exit'
  | 'lddw' // 64-bit immediate load, two slots
  | 'ldx' // dst = *(size *)(src + off)
  | 'st' // *(size *)(dst + off) = imm
  | 'stx' // *(size *)(dst + off) = src
  | 'atomic' // atomic read-modify-write on *(size *)(dst + off)
  | 'ld_legacy'; // BPF_LD | BPF_ABS/BPF_IND (socket filters only; not for XDP)

export interface OpInfo {
  /** uBPF / bpf_conformance mnemonic, unique per row (e.g. 'add32', 'ldxh', 'lock fetch add'). */
  readonly mnemonic: string;
  readonly code: number;
  readonly kind: OpKind;
  /** BPF_CLASS of code. */
  readonly cls: number;
  /** BPF_OP of code for ALU/JMP classes; for atomics the atomic op (imm without BPF_FETCH). */
  readonly op: number;
  /** ALU64/JMP (64-bit) vs ALU/JMP32 (32-bit); for memory ops: size == 8. */
  readonly is64: boolean;
  /** Second operand: register (BPF_X), immediate (BPF_K) or none. */
  readonly source: 'reg' | 'imm' | 'none';
  /** Access size in bytes (memory ops, atomics), or swap width in bytes (end). */
  readonly size?: 1 | 2 | 4 | 8;
  /** sdiv/smod, sign-extending loads, movsx. */
  readonly signed?: boolean;
  /** Required value of the off field, when the row needs one. */
  readonly requireOff?: number;
  /** Required value of the imm field (end width in bits; atomic op with fetch bit). */
  readonly requireImm?: number;
  /** For 'end' rows: byte order converted to. bswap is unconditional. */
  readonly endian?: 'le' | 'be' | 'swap';
  /** Atomic rows: whether the old value is fetched into src (or r0 for cmpxchg). */
  readonly fetch?: boolean;
}

const rows: OpInfo[] = [];

function add(r: Omit<OpInfo, 'cls' | 'is64'> & { is64?: boolean }): void {
  const cls = O.BPF_CLASS(r.code);
  const is64 =
    r.is64 ?? (cls === O.BPF_ALU64 || cls === O.BPF_JMP || (r.size !== undefined && r.size === 8));
  rows.push({ ...r, cls, is64 });
}

// ---- ALU and ALU64 -------------------------------------------------------
const aluOps: [string, number][] = [
  ['add', O.BPF_ADD],
  ['sub', O.BPF_SUB],
  ['mul', O.BPF_MUL],
  ['div', O.BPF_DIV],
  ['or', O.BPF_OR],
  ['and', O.BPF_AND],
  ['lsh', O.BPF_LSH],
  ['rsh', O.BPF_RSH],
  ['mod', O.BPF_MOD],
  ['xor', O.BPF_XOR],
  ['arsh', O.BPF_ARSH],
];
for (const [cls, suffix] of [
  [O.BPF_ALU64, ''],
  [O.BPF_ALU, '32'],
] as const) {
  for (const [name, op] of aluOps) {
    for (const source of ['imm', 'reg'] as const) {
      const code = cls | op | (source === 'reg' ? O.BPF_X : O.BPF_K);
      add({ mnemonic: name + suffix, code, kind: 'alu', op, source, requireOff: 0 });
      if (op === O.BPF_DIV || op === O.BPF_MOD) {
        add({
          mnemonic: (op === O.BPF_DIV ? 'sdiv' : 'smod') + suffix,
          code,
          kind: 'alu',
          op,
          source,
          signed: true,
          requireOff: 1,
        });
      }
    }
  }
  add({ mnemonic: 'neg' + suffix, code: cls | O.BPF_NEG | O.BPF_K, kind: 'neg', op: O.BPF_NEG, source: 'none', requireOff: 0, requireImm: 0 });
  for (const source of ['imm', 'reg'] as const) {
    const code = cls | O.BPF_MOV | (source === 'reg' ? O.BPF_X : O.BPF_K);
    add({ mnemonic: 'mov' + suffix, code, kind: 'mov', op: O.BPF_MOV, source, requireOff: 0 });
  }
  // movsx: BPF_MOV | BPF_X with off = 8/16/32 (32 only for ALU64).
  for (const bits of cls === O.BPF_ALU64 ? [8, 16, 32] : [8, 16]) {
    add({
      mnemonic: `movsx${bits}${cls === O.BPF_ALU64 ? '64' : '32'}`,
      code: cls | O.BPF_MOV | O.BPF_X,
      kind: 'movsx',
      op: O.BPF_MOV,
      source: 'reg',
      signed: true,
      size: (bits / 8) as 1 | 2 | 4,
      requireOff: bits,
    });
  }
}
// Byte swaps: le/be conversions (class ALU) and unconditional bswap (class ALU64, RFC 9669).
for (const bits of [16, 32, 64] as const) {
  const size = (bits / 8) as 2 | 4 | 8;
  add({ mnemonic: `le${bits}`, code: O.BPF_ALU | O.BPF_END | O.BPF_TO_LE, kind: 'end', op: O.BPF_END, source: 'none', size, requireImm: bits, endian: 'le', is64: bits === 64, requireOff: 0 });
  add({ mnemonic: `be${bits}`, code: O.BPF_ALU | O.BPF_END | O.BPF_TO_BE, kind: 'end', op: O.BPF_END, source: 'none', size, requireImm: bits, endian: 'be', is64: bits === 64, requireOff: 0 });
  add({ mnemonic: `bswap${bits}`, code: O.BPF_ALU64 | O.BPF_END | O.BPF_TO_LE, kind: 'end', op: O.BPF_END, source: 'none', size, requireImm: bits, endian: 'swap', is64: true, requireOff: 0 });
}

// ---- JMP and JMP32 -------------------------------------------------------
const jmpOps: [string, number][] = [
  ['jeq', O.BPF_JEQ],
  ['jgt', O.BPF_JGT],
  ['jge', O.BPF_JGE],
  ['jset', O.BPF_JSET],
  ['jne', O.BPF_JNE],
  ['jsgt', O.BPF_JSGT],
  ['jsge', O.BPF_JSGE],
  ['jlt', O.BPF_JLT],
  ['jle', O.BPF_JLE],
  ['jslt', O.BPF_JSLT],
  ['jsle', O.BPF_JSLE],
];
for (const [cls, suffix] of [
  [O.BPF_JMP, ''],
  [O.BPF_JMP32, '32'],
] as const) {
  for (const [name, op] of jmpOps) {
    for (const source of ['imm', 'reg'] as const) {
      add({ mnemonic: name + suffix, code: cls | op | (source === 'reg' ? O.BPF_X : O.BPF_K), kind: 'jmp', op, source });
    }
  }
}
add({ mnemonic: 'ja', code: O.BPF_JMP | O.BPF_JA, kind: 'ja', op: O.BPF_JA, source: 'none', requireImm: 0 });
add({ mnemonic: 'ja32', code: O.BPF_JMP32 | O.BPF_JA, kind: 'ja', op: O.BPF_JA, source: 'none', requireOff: 0 });
// may_goto (BPF_JCOND with src 0 = BPF_MAY_GOTO): falls through while the run's
// loop budget lasts, takes the jump once it is spent (src/vm: BPF_MAX_LOOPS).
add({ mnemonic: 'may_goto', code: O.BPF_JMP | 0xe0 | O.BPF_K, kind: 'may_goto', op: 0xe0, source: 'none', requireImm: 0 });
add({ mnemonic: 'call', code: O.BPF_JMP | O.BPF_CALL, kind: 'call', op: O.BPF_CALL, source: 'imm', requireOff: 0 });
add({ mnemonic: 'callx', code: O.BPF_JMP | O.BPF_CALL | O.BPF_X, kind: 'call', op: O.BPF_CALL, source: 'reg', requireOff: 0 });
add({ mnemonic: 'exit', code: O.BPF_JMP | O.BPF_EXIT, kind: 'exit', op: O.BPF_EXIT, source: 'none', requireOff: 0, requireImm: 0 });

// ---- Loads and stores ----------------------------------------------------
add({ mnemonic: 'lddw', code: O.BPF_LD | O.BPF_IMM | O.BPF_DW, kind: 'lddw', op: 0, source: 'imm', size: 8, requireOff: 0 });
const sizes: [string, number, 1 | 2 | 4 | 8][] = [
  ['b', O.BPF_B, 1],
  ['h', O.BPF_H, 2],
  ['w', O.BPF_W, 4],
  ['dw', O.BPF_DW, 8],
];
for (const [sfx, sz, size] of sizes) {
  add({ mnemonic: `ldx${sfx}`, code: O.BPF_LDX | O.BPF_MEM | sz, kind: 'ldx', op: 0, source: 'reg', size });
  if (size !== 8) {
    add({ mnemonic: `ldxs${sfx}`, code: O.BPF_LDX | O.BPF_MEMSX | sz, kind: 'ldx', op: 0, source: 'reg', size, signed: true });
  }
  add({ mnemonic: `st${sfx}`, code: O.BPF_ST | O.BPF_MEM | sz, kind: 'st', op: 0, source: 'imm', size });
  add({ mnemonic: `stx${sfx}`, code: O.BPF_STX | O.BPF_MEM | sz, kind: 'stx', op: 0, source: 'reg', size });
  if (size !== 8) {
    add({ mnemonic: `ldabs${sfx}`, code: O.BPF_LD | O.BPF_ABS | sz, kind: 'ld_legacy', op: 0, source: 'imm', size });
    add({ mnemonic: `ldind${sfx}`, code: O.BPF_LD | O.BPF_IND | sz, kind: 'ld_legacy', op: 0, source: 'reg', size });
  }
}
// Atomics: 32- and 64-bit only.
const atomicOps: [string, number][] = [
  ['add', O.BPF_ADD],
  ['or', O.BPF_OR],
  ['and', O.BPF_AND],
  ['xor', O.BPF_XOR],
];
for (const [sfx, sz, size] of sizes.filter(([, , s]) => s >= 4)) {
  const w = size === 4 ? '32' : '';
  const code = O.BPF_STX | O.BPF_ATOMIC | sz;
  for (const [name, op] of atomicOps) {
    add({ mnemonic: `lock ${name}${w}`, code, kind: 'atomic', op, source: 'reg', size, requireImm: op, fetch: false });
    add({ mnemonic: `lock fetch ${name}${w}`, code, kind: 'atomic', op, source: 'reg', size, requireImm: op | O.BPF_FETCH, fetch: true });
  }
  add({ mnemonic: `lock xchg${w}`, code, kind: 'atomic', op: O.BPF_XCHG & ~O.BPF_FETCH, source: 'reg', size, requireImm: O.BPF_XCHG, fetch: true });
  add({ mnemonic: `lock cmpxchg${w}`, code, kind: 'atomic', op: O.BPF_CMPXCHG & ~O.BPF_FETCH, source: 'reg', size, requireImm: O.BPF_CMPXCHG, fetch: true });
  void sfx;
}

// Load-acquire and store-release (BPF_ATOMIC with imm BPF_LOAD_ACQ / BPF_STORE_REL, kernel 6.15+): every size.
for (const [, sz, size] of sizes) {
  const code = O.BPF_STX | O.BPF_ATOMIC | sz;
  add({ mnemonic: `load_acquire${size * 8}`, code, kind: 'atomic', op: O.BPF_LOAD_ACQ, source: 'reg', size, requireImm: O.BPF_LOAD_ACQ, fetch: false });
  add({ mnemonic: `store_release${size * 8}`, code, kind: 'atomic', op: O.BPF_STORE_REL, source: 'reg', size, requireImm: O.BPF_STORE_REL, fetch: false });
}

/** Every row of the table, in a stable order. */
export const OPCODE_TABLE: readonly OpInfo[] = rows;

const byCode: OpInfo[][] = Array.from({ length: 256 }, () => []);
for (const r of rows) byCode[r.code]!.push(r);
const byMnemonic = new Map<string, OpInfo>();
for (const r of rows) {
  // le/be/bswap, sdiv/div etc. have distinct mnemonics; rows sharing a
  // mnemonic differ only in source (imm/reg), keyed separately.
  byMnemonic.set(`${r.mnemonic}/${r.source}`, r);
}

/** Rows that share this opcode byte (one unless off/imm disambiguate). */
export function rowsForCode(code: number): readonly OpInfo[] {
  return byCode[code & 0xff]!;
}

/** Look up a row by mnemonic and operand source. */
export function lookupMnemonic(mnemonic: string, source: 'reg' | 'imm' | 'none'): OpInfo | undefined {
  return byMnemonic.get(`${mnemonic}/${source}`);
}

/**
 * The table row an instruction slot matches, or undefined if its opcode
 * (with off/imm where they select the form) is not a valid instruction.
 * Register numbers and reserved fields are checked by validateInsn.
 */
export function lookupInsn(i: Insn): OpInfo | undefined {
  for (const r of byCode[i.code & 0xff]!) {
    // off selects the form only for ALU rows (div/sdiv, mov/movsx); imm
    // selects it for byte swaps (width) and atomics (operation). Elsewhere
    // requireOff/requireImm are reserved fields, checked by validation.
    const offSelects = r.kind === 'alu' || r.kind === 'mov' || r.kind === 'movsx';
    const immSelects = r.kind === 'end' || r.kind === 'atomic';
    if (offSelects && r.requireOff !== undefined && i.off !== r.requireOff) continue;
    if (immSelects && r.requireImm !== undefined && i.imm !== r.requireImm) continue;
    return r;
  }
  return undefined;
}
