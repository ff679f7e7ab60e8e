/**
 * Encoding checks on a slot-indexed program: every slot must be a row of the
 * opcode table with valid registers and zero reserved fields, every lddw
 * must be followed by a zero-coded second slot, and every jump or local call
 * must land on an instruction inside the program (not in the middle of an
 * lddw). These are the checks the kernel makes before verification proper
 * (bpf_check's resolve_pseudo_ldimm64, check_subprogs, check_cfg); messages
 * use the kernel's words where it has them. Never throws.
 *
 * The VM runs this on every program before its first run (both engines go
 * through Machine), so nothing malformed reaches the interpreter or the JIT:
 * registers 0-10 only, r10 never written ("frame pointer is read only"),
 * known opcodes, jumps inside the program, whole lddw pairs and, when the
 * caller says which helpers exist, known helper ids ("invalid func").
 */
import * as O from './opcodes';
import type { Insn } from './insn';
import { lookupInsn } from './table';

export interface SlotProblem {
  slot: number;
  reason: string;
}

export interface ValidateOptions {
  /** Which helper ids a call may name (the runtime's bound helpers); unchecked when absent. */
  helperExists?: (id: number) => boolean;
  /**
   * Refuse writes to r10 (the VM's check before a run; for the encoding
   * alone a write to r10 is well formed, the kernel's verifier refuses it).
   */
  frameReadOnly?: boolean;
}

/** Instruction kinds that write their dst register (r10 may not be one). */
const WRITES_DST: ReadonlySet<string> = new Set(['alu', 'mov', 'movsx', 'neg', 'end', 'ldx', 'lddw']);

export function validateProgram(insns: readonly Insn[], opts: ValidateOptions = {}): SlotProblem[] {
  const out: SlotProblem[] = [];
  const n = insns.length;
  const isSecondHalf = new Uint8Array(n);
  for (let k = 0; k < n; k++) {
    if (insns[k]!.code === 0x18) {
      isSecondHalf[k + 1] = 1;
      k++;
    }
  }
  const jumpTo = (k: number, rel: number): void => {
    const t = k + 1 + rel;
    if (t < 0 || t >= n) out.push({ slot: k, reason: `jump out of range from insn ${k} to ${t}` });
    else if (isSecondHalf[t]) out.push({ slot: k, reason: `jump into the middle of ldimm64 insn ${t - 1}` });
  };
  for (let k = 0; k < n; k++) {
    const i = insns[k]!;
    if (isSecondHalf[k]) continue;
    const row = lookupInsn(i);
    if (!row) {
      out.push({ slot: k, reason: `unknown opcode ${i.code.toString(16).padStart(2, '0')}` });
      continue;
    }
    const bad = (why: string): void => {
      out.push({ slot: k, reason: why });
    };
    if (i.dst > 10) bad(`R${i.dst} is invalid`);
    const usesSrcReg = (row.source === 'reg' && row.kind !== 'call') || row.kind === 'stx' || row.kind === 'atomic' || row.kind === 'ldx';
    if (usesSrcReg && i.src > 10) bad(`R${i.src} is invalid`);
    if (opts.frameReadOnly && i.dst === 10 && WRITES_DST.has(row.kind)) bad('frame pointer is read only');
    // Atomics with BPF_FETCH (and xchg) load the old value into src: never r10. cmpxchg loads it into r0
    // (check_atomic's load_reg), so a cmpxchg may store r10 itself (kernel-accepted: the verifier fuzz, seed 397013870).
    if (opts.frameReadOnly && row.kind === 'atomic' && i.src === 10 && (i.imm & 1) !== 0 && i.imm !== O.BPF_STORE_REL && i.imm !== O.BPF_CMPXCHG) bad('frame pointer is read only');
    // A load-acquire writes its dst.
    if (opts.frameReadOnly && row.kind === 'atomic' && i.imm === O.BPF_LOAD_ACQ && i.dst === 10) bad('frame pointer is read only');
    const cls = O.BPF_CLASS(i.code);
    const clsName = ['BPF_LD', 'BPF_LDX', 'BPF_ST', 'BPF_STX', 'BPF_ALU', 'BPF_JMP', 'BPF_JMP32', 'BPF_ALU64'][cls]!;
    switch (row.kind) {
      case 'alu':
      case 'mov':
      case 'movsx':
        if (row.source === 'imm' ? i.src !== 0 : i.imm !== 0) bad(`${clsName} uses reserved fields`);
        if (row.source === 'imm' && row.kind === 'mov' && i.off !== 0) bad(`${clsName} uses reserved fields`);
        break;
      case 'neg':
        if (i.src !== 0 || i.off !== 0 || i.imm !== 0) bad(`BPF_NEG uses reserved fields`);
        break;
      case 'end':
        if (i.src !== 0 || i.off !== 0) bad(`BPF_END uses reserved fields`);
        break;
      case 'jmp':
        if (row.source === 'imm' && i.src !== 0) bad(`${clsName} uses reserved fields`);
        if (row.source === 'reg' && i.imm !== 0) bad(`${clsName} uses reserved fields`);
        jumpTo(k, i.off);
        break;
      case 'ja':
        if (i.src !== 0 || i.dst !== 0 || (row.is64 ? i.imm !== 0 : i.off !== 0)) bad(`BPF_JA uses reserved fields`);
        jumpTo(k, row.is64 ? i.off : i.imm);
        break;
      case 'may_goto':
        if (i.src !== 0 || i.dst !== 0 || i.imm !== 0) bad(`invalid may_goto imm ${i.imm}`);
        jumpTo(k, i.off);
        break;
      case 'call':
        if (i.off !== 0 || (row.source === 'imm' && i.dst !== 0)) bad(`BPF_CALL uses reserved fields`);
        if (row.source === 'imm' && i.src > O.BPF_PSEUDO_KFUNC_CALL) bad(`BPF_CALL uses reserved fields`);
        if (i.src === O.BPF_PSEUDO_CALL) jumpTo(k, i.imm);
        else if (row.source === 'imm' && i.src === 0 && opts.helperExists && !opts.helperExists(i.imm)) bad(`invalid func unknown#${i.imm}`);
        break;
      case 'exit':
        // The kernel checks src, dst and imm of an exit, not off (an exit with off != 0 loads and runs).
        if (i.src !== 0 || i.dst !== 0 || i.imm !== 0) bad(`BPF_EXIT uses reserved fields`);
        break;
      case 'lddw': {
        const hi = insns[k + 1];
        if (!hi) bad('invalid BPF_LD_IMM insn');
        else if (hi.code !== 0 || hi.dst !== 0 || hi.src !== 0 || hi.off !== 0) bad('invalid bpf_ld_imm64 insn');
        if (i.off !== 0 || i.src > 6) bad('invalid bpf_ld_imm64 insn');
        k++;
        break;
      }
      case 'ldx':
        if (i.imm !== 0) bad('BPF_LDX uses reserved fields');
        break;
      case 'st':
        if (i.src !== 0) bad('BPF_ST uses reserved fields');
        break;
      case 'stx':
        if (i.imm !== 0) bad('BPF_STX uses reserved fields');
        break;
      case 'atomic':
        break;
      case 'ld_legacy':
        if (i.off !== 0 || (row.source === 'imm' && i.src !== 0) || i.dst !== 0) bad('BPF_LD_[ABS|IND] uses reserved fields');
        break;
    }
  }
  // check_subprogs: every subprogram (the main one and each local call
  // target) must end with an exit or an unconditional jump.
  const starts = new Set<number>([0]);
  for (let k = 0; k < n; k++) {
    const i = insns[k]!;
    if (i.code === 0x85 && i.src === 1 && k + 1 + i.imm >= 0 && k + 1 + i.imm < n) starts.add(k + 1 + i.imm);
    if (i.code === 0x18) k++;
  }
  const sorted = [...starts].sort((a, b) => a - b);
  sorted.forEach((start, j) => {
    const end = (j + 1 < sorted.length ? sorted[j + 1]! : n) - 1;
    const last = insns[end];
    if (end < start || !last || isSecondHalf[end]) return;
    if (last.code !== 0x95 && last.code !== 0x05 && last.code !== 0x06) out.push({ slot: end, reason: 'last insn is not an exit or jmp' });
  });
  return out;
}
