/**
 * The disassembler, in two dialects:
 *
 *  - 'kernel': exactly the text the kernel verifier log prints for one
 *    instruction (print_bpf_insn in kernel/bpf/disasm.c, Linux 6.18),
 *    e.g. "(61) r2 = *(u32 *)(r1 +0)", "(2d) if r3 > r2 goto pc+4".
 *  - 'llvm': what `llvm-objdump-19 -d` prints (hex immediates, "ll" on
 *    lddw), e.g. "r0 = *(u8 *)(r1 + 0xc)", "if r1 > r2 goto +0x3".
 *
 * Both read the one opcode table (table.ts); an encoding the table does not
 * know prints as the kernel's BUG_* line or llvm's "<unknown>". Never throws.
 */
import * as O from './opcodes';
import type { Insn } from './insn';
import { lookupInsn, type OpInfo } from './table';
import { kernelHelperName } from './helper_names';

export type DisasmStyle = 'llvm' | 'kernel';

export interface DisasmOptions {
  style?: DisasmStyle;
  /**
   * Text for the 64-bit immediate of an lddw (kernel style). The kernel log
   * prints the value after map relocation (a kernel address); a caller that
   * models map addresses passes them here. Default: the raw imm as 0x%llx.
   */
  ldImm64?: (insn: Insn, slot: number) => string | undefined;
  /** Name for a helper id (kernel style); default: the kernel's own names. */
  helperName?: (id: number) => string | undefined;
}

const ALU_OP: Record<number, string> = {
  [O.BPF_ADD]: '+=',
  [O.BPF_SUB]: '-=',
  [O.BPF_MUL]: '*=',
  [O.BPF_DIV]: '/=',
  [O.BPF_OR]: '|=',
  [O.BPF_AND]: '&=',
  [O.BPF_LSH]: '<<=',
  [O.BPF_RSH]: '>>=',
  [O.BPF_MOD]: '%=',
  [O.BPF_XOR]: '^=',
  [O.BPF_MOV]: '=',
  [O.BPF_ARSH]: 's>>=',
};

const JMP_OP: Record<number, string> = {
  [O.BPF_JEQ]: '==',
  [O.BPF_JGT]: '>',
  [O.BPF_JGE]: '>=',
  [O.BPF_JSET]: '&',
  [O.BPF_JNE]: '!=',
  [O.BPF_JSGT]: 's>',
  [O.BPF_JSGE]: 's>=',
  [O.BPF_JLT]: '<',
  [O.BPF_JLE]: '<=',
  [O.BPF_JSLT]: 's<',
  [O.BPF_JSLE]: 's<=',
};

const ATOMIC_NAME: Record<number, string> = {
  [O.BPF_ADD]: 'add',
  [O.BPF_AND]: 'and',
  [O.BPF_OR]: 'or',
  [O.BPF_XOR]: 'xor',
};

/** Exported so the assembler parses exactly what is printed. */
export const DISASM_ALU_OPS = ALU_OP;
export const DISASM_JMP_OPS = JMP_OP;

const hex2 = (n: number): string => (n & 0xff).toString(16).padStart(2, '0');
const signedDec = (n: number): string => (n >= 0 ? `+${n}` : `${n}`);
/** llvm-objdump's immediates: signed, in hex ("-0x8", "0x0"). */
const shex = (n: number | bigint): string => (n < 0 ? `-0x${(-BigInt(n)).toString(16)}` : `0x${BigInt(n).toString(16)}`);
const uhex32 = (n: number): string => `0x${(n >>> 0).toString(16)}`;

function sizeName(size: number, signed: boolean): string {
  return `${signed ? 's' : 'u'}${size * 8}`;
}

/** One instruction in the chosen style (kernel style includes the "(xx) " opcode prefix). */
export function disasmInsn(insn: Insn, opts: DisasmOptions = {}, slot = 0): string {
  const row = lookupInsn(insn);
  return opts.style === 'llvm' ? llvmText(insn, row, slot) : kernelText(insn, row, slot, opts);
}

/**
 * A whole slot-indexed program, one line per instruction: "slot: text".
 * The second slot of an lddw prints nothing, as in the kernel log and objdump.
 */
export function disasmProgram(insns: readonly Insn[], opts: DisasmOptions = {}): string[] {
  const out: string[] = [];
  for (let k = 0; k < insns.length; k++) {
    const i = insns[k]!;
    const withImm2 = i.code === 0x18 && i.imm2 === undefined && insns[k + 1] ? { ...i, imm2: insns[k + 1]!.imm } : i;
    out.push(`${k}: ${disasmInsn(withImm2, opts, k)}`);
    if (i.code === 0x18) k++;
  }
  return out;
}

function imm64(i: Insn): bigint {
  return (BigInt((i.imm2 ?? 0) >>> 0) << 32n) | BigInt(i.imm >>> 0);
}

// ---- kernel ---------------------------------------------------------------

function kernelText(i: Insn, row: OpInfo | undefined, slot: number, opts: DisasmOptions): string {
  const p = `(${hex2(i.code)}) `;
  const cls = O.BPF_CLASS(i.code);
  const mem = (size: number, signed = false, reg = i.dst): string => `*(${sizeName(size, signed)} *)(r${reg} ${signedDec(i.off)})`;
  const size = O.sizeBytes(O.BPF_SIZE(i.code));
  switch (cls) {
    case O.BPF_ALU:
    case O.BPF_ALU64: {
      const r = cls === O.BPF_ALU ? 'w' : 'r';
      const op = O.BPF_OP(i.code);
      if (op === O.BPF_END) {
        if (cls === O.BPF_ALU64) return `${p}r${i.dst} = bswap${i.imm} r${i.dst}`;
        return `${p}r${i.dst} = ${O.BPF_SRC(i.code) === O.BPF_TO_BE ? 'be' : 'le'}${i.imm} r${i.dst}`;
      }
      if (op === O.BPF_NEG) return `${p}${r}${i.dst} = -${r}${i.dst}`;
      if (O.BPF_SRC(i.code) === O.BPF_X) {
        if (op === O.BPF_MOV && i.off !== 0) return `${p}${r}${i.dst} = (s${i.off})${r}${i.src}`;
        return `${p}${r}${i.dst} ${kernelAluOp(op, i.off)} ${r}${i.src}`;
      }
      return `${p}${r}${i.dst} ${kernelAluOp(op, i.off)} ${i.imm}`;
    }
    case O.BPF_STX: {
      const mode = O.BPF_MODE(i.code);
      if (mode === O.BPF_MEM) return `${p}${mem(size)} = r${i.src}`;
      if (mode === O.BPF_ATOMIC && i.imm === O.BPF_LOAD_ACQ) return `${p}r${i.dst} = load_acquire((${sizeName(size, false)} *)(r${i.src} ${signedDec(i.off)}))`;
      if (mode === O.BPF_ATOMIC && i.imm === O.BPF_STORE_REL) return `${p}store_release((${sizeName(size, false)} *)(r${i.dst} ${signedDec(i.off)}), r${i.src})`;
      if (mode === O.BPF_ATOMIC && (size === 4 || size === 8)) {
        const a = size === 8 ? 'atomic64' : 'atomic';
        const op = i.imm & ~O.BPF_FETCH;
        const target = `(${sizeName(size, false)} *)(r${i.dst} ${signedDec(i.off)})`;
        if (i.imm === O.BPF_XCHG) return `${p}r${i.src} = ${a}_xchg(${target}, r${i.src})`;
        if (i.imm === O.BPF_CMPXCHG) return `${p}r0 = ${a}_cmpxchg(${target}, r0, r${i.src})`;
        if (ATOMIC_NAME[op] !== undefined && (i.imm & O.BPF_FETCH)) return `${p}r${i.src} = ${a}_fetch_${ATOMIC_NAME[op]}(${target}, r${i.src})`;
        if (ATOMIC_NAME[op] !== undefined) return `${p}lock ${mem(size)} ${ALU_OP[op]} r${i.src}`;
      }
      return `BUG_${hex2(i.code)}`;
    }
    case O.BPF_ST:
      if (O.BPF_MODE(i.code) !== O.BPF_MEM) return `BUG_st_${hex2(i.code)}`;
      return `${p}${mem(size)} = ${i.imm}`;
    case O.BPF_LDX: {
      const mode = O.BPF_MODE(i.code);
      if (mode !== O.BPF_MEM && mode !== O.BPF_MEMSX) return `BUG_ldx_${hex2(i.code)}`;
      return `${p}r${i.dst} = ${mem(size, mode === O.BPF_MEMSX, i.src)}`;
    }
    case O.BPF_LD: {
      const mode = O.BPF_MODE(i.code);
      if (mode === O.BPF_ABS) return `${p}r0 = *(${sizeName(size, false)} *)skb[${i.imm}]`;
      if (mode === O.BPF_IND) return `${p}r0 = *(${sizeName(size, false)} *)skb[r${i.src} + ${i.imm}]`;
      if (mode === O.BPF_IMM && size === 8) {
        const text = opts.ldImm64?.(i, slot) ?? `0x${imm64(i).toString(16)}`;
        return `${p}r${i.dst} = ${text}`;
      }
      return `BUG_ld_${hex2(i.code)}`;
    }
    default: {
      // BPF_JMP and BPF_JMP32
      const op = O.BPF_OP(i.code);
      const w = cls === O.BPF_JMP32 ? 'w' : 'r';
      if (op === O.BPF_CALL) {
        if (i.src === O.BPF_PSEUDO_CALL) return `${p}call pc${signedDec(i.imm)}`;
        const name = (opts.helperName ?? kernelHelperName)(i.imm) ?? 'unknown';
        return `${p}call ${name}#${i.imm}`;
      }
      if (i.code === (O.BPF_JMP | O.BPF_JA)) return `${p}goto pc${signedDec(i.off)}`;
      if (i.code === (O.BPF_JMP32 | O.BPF_JA)) return `${p}gotol pc${signedDec(i.imm)}`;
      if (i.code === (O.BPF_JMP | O.BPF_EXIT)) return `${p}exit`;
      if (i.code === (O.BPF_JMP | 0xe0 | O.BPF_K)) return `${p}may_goto pc${signedDec(i.off)}`;
      const sym = JMP_OP[op] ?? (row ? '?' : 'BUG');
      if (O.BPF_SRC(i.code) === O.BPF_X) return `${p}if ${w}${i.dst} ${sym} ${w}${i.src} goto pc${signedDec(i.off)}`;
      return `${p}if ${w}${i.dst} ${sym} ${uhex32(i.imm)} goto pc${signedDec(i.off)}`;
    }
  }
}

function kernelAluOp(op: number, off: number): string {
  if (off === 1 && (op === O.BPF_DIV || op === O.BPF_MOD)) return op === O.BPF_DIV ? 's/=' : 's%=';
  return ALU_OP[op] ?? 'BUG';
}

// ---- llvm -------------------------------------------------------------------

function llvmText(i: Insn, row: OpInfo | undefined, _slot: number): string {
  if (!row) return '<unknown>';
  const memAt = (reg: number): string => `(r${reg} ${i.off < 0 ? '-' : '+'} 0x${Math.abs(i.off).toString(16)})`;
  const ty = (signed = false): string => `${sizeName(row.size ?? 8, signed)} *`;
  const w = row.is64 ? 'r' : 'w';
  const rhs = (): string => (row.source === 'reg' ? `${w}${i.src}` : shex(i.imm));
  switch (row.kind) {
    case 'alu':
      return `${w}${i.dst} ${row.signed ? (row.op === O.BPF_DIV ? 's/=' : 's%=') : ALU_OP[row.op]} ${rhs()}`;
    case 'mov':
      return `${w}${i.dst} = ${rhs()}`;
    case 'movsx':
      return `${w}${i.dst} = (s${i.off})${w}${i.src}`;
    case 'neg':
      return `${w}${i.dst} = -${w}${i.dst}`;
    case 'end':
      return `r${i.dst} = ${row.endian === 'swap' ? 'bswap' : row.endian}${i.imm} r${i.dst}`;
    case 'lddw': {
      const v = BigInt.asIntN(64, imm64(i));
      return `r${i.dst} = ${shex(v)} ll`;
    }
    case 'ldx':
      return `r${i.dst} = *(${ty(row.signed)})${memAt(i.src)}`;
    case 'st':
      return `*(${ty()})${memAt(i.dst)} = ${shex(i.imm)}`;
    case 'stx':
      return `*(${ty()})${memAt(i.dst)} = r${i.src}`;
    case 'atomic': {
      const r = row.size === 8 ? 'r' : 'w';
      const t = `(${ty()})${memAt(i.dst)}`;
      return atomicLlvm(i, row, r, t);
    }
    case 'ld_legacy':
      return row.source === 'imm' ? `r0 = *(${ty()})skb[${shex(i.imm)}]` : `r0 = *(${ty()})skb[r${i.src}]`;
    case 'jmp': {
      const sym = JMP_OP[row.op]!;
      return `if ${w}${i.dst} ${sym} ${rhs()} goto ${jmpOff(i.off)}`;
    }
    case 'ja':
      return row.is64 ? `goto ${jmpOff(i.off)}` : `gotol ${jmpOff(i.imm)}`;
    case 'may_goto':
      return `may_goto ${jmpOff(i.off)}`;
    case 'call':
      return row.source === 'reg' ? `callx r${i.dst}` : `call ${shex(i.imm)}`;
    case 'exit':
      return 'exit';
  }
}

function atomicLlvm(i: Insn, row: OpInfo, r: string, target: string): string {
  if (i.imm === O.BPF_LOAD_ACQ) return `${r}${i.dst} = load_acquire((u${(row.size ?? 8) * 8} *)(r${i.src} ${i.off < 0 ? '-' : '+'} 0x${Math.abs(i.off).toString(16)}))`;
  if (i.imm === O.BPF_STORE_REL) return `store_release(${target}, ${r}${i.src})`;
  const addr = `r${i.dst} ${i.off < 0 ? '-' : '+'} 0x${Math.abs(i.off).toString(16)}`;
  if (i.imm === O.BPF_XCHG) return row.size === 8 ? `r${i.src} = xchg_64(${addr}, r${i.src})` : `w${i.src} = xchg32_32(${addr}, w${i.src})`;
  if (i.imm === O.BPF_CMPXCHG) return row.size === 8 ? `r0 = cmpxchg_64(${addr}, r0, r${i.src})` : `w0 = cmpxchg32_32(${addr}, w0, w${i.src})`;
  const op = i.imm & ~O.BPF_FETCH;
  if (row.fetch) return `${r}${i.src} = atomic_fetch_${ATOMIC_NAME[op]}(${target}, ${r}${i.src})`;
  return `lock *${target} ${ALU_OP[op]} ${r}${i.src}`;
}

function jmpOff(off: number): string {
  return off < 0 ? `-0x${(-off).toString(16)}` : `+0x${off.toString(16)}`;
}
