/**
 * Temporary kernel-syntax instruction printer for the verifier log, used
 * until src/isa/disasm.ts (style 'kernel') lands on main. Prints exactly as
 * kernel/bpf/disasm.c does: "(61) r2 = *(u32 *)(r1 +0)".
 */
import * as O from '../isa/opcodes';
import type { Insn } from '../isa/insn';
import { lookupInsn } from '../isa/table';

const ALU = ['+=', '-=', '*=', '/=', '|=', '&=', '<<=', '>>=', 'neg', '%=', '^=', '=', 's>>=', 'endian'];
const JMP = ['jmp', '==', '>', '>=', '&', '!=', 's>', 's>=', 'call', 'exit', '<', '<=', 's<', 's<='];
const SZ: Record<number, string> = { [O.BPF_B]: 'u8', [O.BPF_H]: 'u16', [O.BPF_W]: 'u32', [O.BPF_DW]: 'u64' };
const SSZ: Record<number, string> = { [O.BPF_B]: 's8', [O.BPF_H]: 's16', [O.BPF_W]: 's32' };
const hx = (v: number): string => (v === 0 ? '0x0' : '0x' + (v >>> 0).toString(16));
const off = (o: number): string => (o >= 0 ? `+${o}` : `${o}`);

export function printInsn(i: Insn, helperName: (id: number) => string): string {
  const code = `(${i.code.toString(16).padStart(2, '0')})`;
  const cls = O.BPF_CLASS(i.code);
  const row = lookupInsn(i);
  if (cls === O.BPF_ALU || cls === O.BPF_ALU64) {
    const r = cls === O.BPF_ALU64 ? 'r' : 'w';
    const op = O.BPF_OP(i.code);
    if (op === O.BPF_END) {
      if (cls === O.BPF_ALU64) return `${code} r${i.dst} = bswap${i.imm} r${i.dst}`;
      return `${code} r${i.dst} = ${O.BPF_SRC(i.code) === O.BPF_TO_BE ? 'be' : 'le'}${i.imm} r${i.dst}`;
    }
    if (op === O.BPF_NEG) return `${code} ${r}${i.dst} = -${r}${i.dst}`;
    if (op === O.BPF_MOV && O.BPF_SRC(i.code) === O.BPF_X && i.off !== 0)
      return `${code} ${r}${i.dst} = (s${i.off})${r}${i.src}`;
    const s = (i.off === 1 && (op === O.BPF_DIV || op === O.BPF_MOD) ? 's' : '') + (ALU[op >> 4] ?? '?');
    if (O.BPF_SRC(i.code) === O.BPF_X) return `${code} ${r}${i.dst} ${s} ${r}${i.src}`;
    return `${code} ${r}${i.dst} ${s} ${i.imm}`;
  }
  if (cls === O.BPF_STX) {
    const sz = SZ[O.BPF_SIZE(i.code)]!;
    if (O.BPF_MODE(i.code) === O.BPF_ATOMIC) {
      const w = O.BPF_SIZE(i.code) === O.BPF_DW ? 'r' : 'w';
      const a64 = O.BPF_SIZE(i.code) === O.BPF_DW ? '64' : '';
      const base = i.imm & ~O.BPF_FETCH;
      const name: Record<number, string> = { [O.BPF_ADD]: 'add', [O.BPF_AND]: 'and', [O.BPF_OR]: 'or', [O.BPF_XOR]: 'xor' };
      if (i.imm === O.BPF_XCHG) return `${code} ${w}${i.src} = atomic${a64}_xchg((${sz} *)(r${i.dst} ${off(i.off)}), ${w}${i.src})`;
      if (i.imm === O.BPF_CMPXCHG) return `${code} ${w}0 = atomic${a64}_cmpxchg((${sz} *)(r${i.dst} ${off(i.off)}), ${w}0, ${w}${i.src})`;
      if (i.imm & O.BPF_FETCH) return `${code} ${w}${i.src} = atomic${a64}_fetch_${name[base]}((${sz} *)(r${i.dst} ${off(i.off)}), ${w}${i.src})`;
      return `${code} lock *(${sz} *)(r${i.dst} ${off(i.off)}) ${ALU[base >> 4]} ${w}${i.src}`;
    }
    return `${code} *(${sz} *)(r${i.dst} ${off(i.off)}) = r${i.src}`;
  }
  if (cls === O.BPF_ST) return `${code} *(${SZ[O.BPF_SIZE(i.code)]} *)(r${i.dst} ${off(i.off)}) = ${i.imm}`;
  if (cls === O.BPF_LDX) {
    const sx = O.BPF_MODE(i.code) === O.BPF_MEMSX;
    return `${code} r${i.dst} = *(${(sx ? SSZ : SZ)[O.BPF_SIZE(i.code)]} *)(r${i.src} ${off(i.off)})`;
  }
  if (cls === O.BPF_LD) {
    if (i.code === 0x18) {
      const v = (BigInt((i.imm2 ?? 0) >>> 0) << 32n) | BigInt(i.imm >>> 0);
      if (i.src === O.BPF_PSEUDO_MAP_FD) return `${code} r${i.dst} = map[id:${i.imm}]`;
      return `${code} r${i.dst} = 0x${v.toString(16)}`;
    }
    return `${code} ld_legacy`;
  }
  if (cls === O.BPF_JMP || cls === O.BPF_JMP32) {
    const op = O.BPF_OP(i.code);
    if (op === O.BPF_CALL) {
      if (i.src === O.BPF_PSEUDO_CALL) return `${code} call pc${off(i.imm)}`;
      return `${code} call ${helperName(i.imm)}#${i.imm}`;
    }
    if (op === O.BPF_EXIT) return `${code} exit`;
    if (op === O.BPF_JA) return cls === O.BPF_JMP ? `${code} goto pc${off(i.off)}` : `${code} gotol pc${off(i.imm)}`;
    const r = cls === O.BPF_JMP ? 'r' : 'w';
    const src = O.BPF_SRC(i.code) === O.BPF_X ? `${r}${i.src}` : hx(i.imm);
    return `${code} if ${r}${i.dst} ${JMP[op >> 4]} ${src} goto pc${off(i.off)}`;
  }
  void row;
  return `${code} unknown`;
}
