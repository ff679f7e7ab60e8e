/**
 * Control flow of label-addressed code (one function's EmittedInsn list
 * before jump offsets exist): each slot's successors, the second slot of an
 * lddw, conditional jumps, their inverses, and a conditional jump's outcome
 * for a known operand. Shared by the peephole pass (./peephole.ts) and jump
 * threading (./thread.ts); nothing here rewrites code.
 */
import * as O from '../isa/opcodes';
import type { EmittedInsn } from './codegen/frame';

type Code = EmittedInsn[];

export function isSecondSlot(code: Code, i: number): boolean {
  return i > 0 && code[i - 1]!.insn.code === (O.BPF_LD | O.BPF_IMM | O.BPF_DW);
}

export function successors(code: Code, labelPos: number[], i: number): number[] {
  const c = code[i]!.insn.code;
  const cls = O.BPF_CLASS(c);
  if (cls === O.BPF_JMP || cls === O.BPF_JMP32) {
    const op = O.BPF_OP(c);
    if (op === O.BPF_EXIT) return [];
    const l = code[i]!.label;
    const t = l !== undefined ? labelPos[l]! : undefined;
    if (op === O.BPF_JA) return t !== undefined ? [t] : [];
    if (op !== O.BPF_CALL && t !== undefined) return i + 1 < code.length ? [i + 1, t] : [t];
  }
  if (c === (O.BPF_LD | O.BPF_IMM | O.BPF_DW)) return i + 2 < code.length ? [i + 2] : [];
  return i + 1 < code.length ? [i + 1] : [];
}

export const INVERSE: Record<number, number> = {
  [O.BPF_JEQ]: O.BPF_JNE, [O.BPF_JNE]: O.BPF_JEQ,
  [O.BPF_JGT]: O.BPF_JLE, [O.BPF_JLE]: O.BPF_JGT, [O.BPF_JGE]: O.BPF_JLT, [O.BPF_JLT]: O.BPF_JGE,
  [O.BPF_JSGT]: O.BPF_JSLE, [O.BPF_JSLE]: O.BPF_JSGT, [O.BPF_JSGE]: O.BPF_JSLT, [O.BPF_JSLT]: O.BPF_JSGE,
};

export function isCondJump(e: EmittedInsn): boolean {
  const cls = O.BPF_CLASS(e.insn.code);
  const op = O.BPF_OP(e.insn.code);
  return (cls === O.BPF_JMP || cls === O.BPF_JMP32) && e.label !== undefined && op !== O.BPF_JA && op !== O.BPF_CALL && op !== O.BPF_EXIT;
}

/** The outcome of `if (a op imm)` for a known a (JMP: 64-bit compare; JMP32: the low halves). */
export function decide(code: number, a: bigint, imm: number): boolean | undefined {
  return decideValues(code, a, BigInt(imm));
}

/** The outcome of `if (a op b)` for known a and b (b: the register's value, or the immediate sign-extended). */
export function decideValues(code: number, a: bigint, b: bigint): boolean | undefined {
  const is32 = O.BPF_CLASS(code) === O.BPF_JMP32;
  const ua = is32 ? BigInt.asUintN(32, a) : BigInt.asUintN(64, a);
  const ub = is32 ? BigInt.asUintN(32, b) : BigInt.asUintN(64, b);
  const sa = is32 ? BigInt.asIntN(32, a) : BigInt.asIntN(64, a);
  const sb = is32 ? BigInt.asIntN(32, b) : BigInt.asIntN(64, b);
  switch (O.BPF_OP(code)) {
    case O.BPF_JEQ: return ua === ub;
    case O.BPF_JNE: return ua !== ub;
    case O.BPF_JGT: return ua > ub;
    case O.BPF_JGE: return ua >= ub;
    case O.BPF_JLT: return ua < ub;
    case O.BPF_JLE: return ua <= ub;
    case O.BPF_JSGT: return sa > sb;
    case O.BPF_JSGE: return sa >= sb;
    case O.BPF_JSLT: return sa < sb;
    case O.BPF_JSLE: return sa <= sb;
    case O.BPF_JSET: return (ua & ub) !== 0n;
  }
  return undefined;
}
