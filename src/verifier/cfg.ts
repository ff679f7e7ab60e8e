/**
 * Checks before exploration, in the kernel's order: subprograms and jumps
 * staying inside them (check_subprogs), instruction encodings and ld_imm64
 * pairs (resolve_pseudo_ldimm64), the control-flow graph (check_cfg:
 * unreachable instructions, jumps into an lddw). Also marks prune points
 * and computes static register liveness (compute_live_registers) and stack
 * slot liveness (./stack_liveness.ts), which state pruning uses to ignore
 * dead registers and slots.
 */
import { kfuncAt } from './kfunc';
/** bpf_loop's helper id (./callback.ts, which imports this module's neighbours). */
const BPF_FUNC_loop = 181;
import * as O from '../isa/opcodes';
import type { Insn } from '../isa/insn';
import { rowsForCode } from '../isa/table';
import { helperById } from '../helpers/table';
import type { Env } from './env';
import { computeStackLiveness } from './stack_liveness';

/** BPF_JMP | BPF_JCOND | BPF_K: may_goto. */
export const BPF_JCOND_K = 0xe5;

/** ld_imm64 src_reg: the address of a subprogram (a callback). */
export const BPF_PSEUDO_FUNC = 4;

const isLdImm64 = (i: Insn): boolean => i.code === (O.BPF_LD | O.BPF_IMM | O.BPF_DW);
const isPseudoCall = (i: Insn): boolean => i.code === (O.BPF_JMP | O.BPF_CALL) && i.src === O.BPF_PSEUDO_CALL;

function checkSubprogs(env: Env): void {
  const insns = env.insns;
  const n = insns.length;
  const starts = new Set<number>([0]);
  for (let i = 0; i < n; i++) {
    const insn = insns[i]!;
    if (isPseudoCall(insn) || (isLdImm64(insn) && insn.src === BPF_PSEUDO_FUNC)) {
      // A bpf-to-bpf call or a callback's address (ld_imm64 BPF_PSEUDO_FUNC) starts a subprogram.
      const t = i + insn.imm + 1;
      if (t < 0 || t >= n) env.reject(isPseudoCall(insn) ? 'call to invalid destination' : 'function pointer to invalid destination');
      starts.add(t);
    } else if (insn.code === (O.BPF_JMP | O.BPF_CALL) && insn.src === O.BPF_PSEUDO_KFUNC_CALL) {
      // add_kfunc_call: the kfunc must exist and be in the program type's set (a refusal names the call as its pc).
      env.path.push(i);
      kfuncAt(env, i);
      env.path.pop();
    }
  }
  env.subprogs = [...starts].sort((a, b) => a - b);
  let cur = 0;
  let start = 0;
  let end = env.subprogs[1] ?? n;
  for (let i = 0; i < n; i++) {
    const code = insns[i]!.code;
    const cls = O.BPF_CLASS(code);
    if ((cls === O.BPF_JMP || cls === O.BPF_JMP32) && O.BPF_OP(code) !== O.BPF_EXIT && O.BPF_OP(code) !== O.BPF_CALL) {
      const off = code === (O.BPF_JMP32 | O.BPF_JA) ? i + insns[i]!.imm + 1 : i + insns[i]!.off + 1;
      if (off < start || off >= end) env.reject(`jump out of range from insn ${i} to ${off}`);
    }
    if (i === end - 1) {
      if (code !== (O.BPF_JMP | O.BPF_EXIT) && code !== (O.BPF_JMP32 | O.BPF_JA) && code !== (O.BPF_JMP | O.BPF_JA)) {
        env.reject('last insn is not an exit or jmp');
      }
      start = end;
      cur++;
      end = env.subprogs[cur + 1] ?? n;
    }
  }
}

function resolvePseudoLdimm64(env: Env): void {
  const insns = env.insns;
  const n = insns.length;
  for (let i = 0; i < n; i++) {
    const insn = insns[i]!;
    const cls = O.BPF_CLASS(insn.code);
    if (cls === O.BPF_LDX && ((O.BPF_MODE(insn.code) !== O.BPF_MEM && O.BPF_MODE(insn.code) !== O.BPF_MEMSX) || insn.imm !== 0)) {
      env.reject('BPF_LDX uses reserved fields');
    }
    if (isLdImm64(insn)) {
      const next = insns[i + 1];
      if (i === n - 1 || !next || next.code !== 0 || next.dst !== 0 || next.src !== 0 || next.off !== 0) {
        env.reject('invalid bpf_ld_imm64 insn');
      }
      if (insn.src !== 0) {
        if (insn.src === O.BPF_PSEUDO_MAP_FD) {
          if (next.imm !== 0) env.reject('unrecognized bpf_ld_imm64 insn');
          if (!env.mapOfInsn.has(i)) env.reject(`fd ${insn.imm} is not pointing to valid bpf_map`);
        } else if (insn.src === BPF_PSEUDO_FUNC) {
          // PTR_TO_FUNC: checked when reached (it needs BTF func_info).
        } else if (insn.src === O.BPF_PSEUDO_MAP_VALUE) {
          if (!env.mapOfInsn.has(i)) env.reject(`fd ${insn.imm} is not pointing to valid bpf_map`);
          const m = env.maps[env.mapOfInsn.get(i)!]!;
          const off = next.imm >>> 0;
          if (off >= 1 << 29) env.reject(`direct value offset of ${off} is not allowed`);
          if (m.type !== 'array') env.reject('no direct value access support for this map type');
          if (off >= m.value_size) env.reject(`invalid access to map value pointer, value_size=${m.value_size} off=${off}`);
        } else {
          env.reject('unrecognized bpf_ld_imm64 insn');
        }
      }
      i++;
      continue;
    }
    // may_goto (BPF_JMP | BPF_JCOND): checked by the verifier only; the opcode table does not hold it.
    // 8- and 16-bit atomics exist for load-acquire / store-release only (checked in do_check).
    const smallAtomic = insn.code === (O.BPF_STX | O.BPF_ATOMIC | O.BPF_B) || insn.code === (O.BPF_STX | O.BPF_ATOMIC | O.BPF_H);
    // callx (BPF_JMP | BPF_CALL | BPF_X) is in the ISA but not in the kernel's opcode table (bpf_opcode_in_insntable).
    if ((rowsForCode(insn.code).length === 0 && insn.code !== BPF_JCOND_K && !smallAtomic) || insn.code === (O.BPF_JMP | O.BPF_CALL | O.BPF_X)) {
      env.reject(`unknown opcode ${insn.code.toString(16).padStart(2, '0')}`);
    }
  }
}

/** Successor edges of an instruction: [fallthrough?, branch target?]. */
export function successors(insns: readonly Insn[], t: number): { fall: number | null; branch: number | null; call: number | null } {
  const insn = insns[t]!;
  const cls = O.BPF_CLASS(insn.code);
  const size = isLdImm64(insn) ? 2 : 1;
  if (size === 2 && insn.src === BPF_PSEUDO_FUNC) return { fall: t + 2, branch: null, call: t + insn.imm + 1 };
  if (cls !== O.BPF_JMP && cls !== O.BPF_JMP32) return { fall: t + size, branch: null, call: null };
  const op = O.BPF_OP(insn.code);
  if (op === O.BPF_EXIT) return { fall: null, branch: null, call: null };
  if (op === O.BPF_CALL) {
    return { fall: t + 1, branch: null, call: insn.src === O.BPF_PSEUDO_CALL ? t + insn.imm + 1 : null };
  }
  if (op === O.BPF_JA) {
    return { fall: null, branch: cls === O.BPF_JMP ? t + insn.off + 1 : t + insn.imm + 1, call: null };
  }
  return { fall: t + 1, branch: t + insn.off + 1, call: null };
}

function checkCfg(env: Env): void {
  const insns = env.insns;
  const n = insns.length;
  const seen = new Uint8Array(n);
  const stack: number[] = [0];
  seen[0] = 1;
  const visit = (w: number, from: number): void => {
    if (w < 0 || w >= n) env.reject(`jump out of range from insn ${from} to ${w}`);
    if (!seen[w]) {
      seen[w] = 1;
      stack.push(w);
    }
  };
  while (stack.length) {
    const t = stack.pop()!;
    const s = successors(insns, t);
    const insn = insns[t]!;
    const cls = O.BPF_CLASS(insn.code);
    const op = O.BPF_OP(insn.code);
    // A callback's address: its runs converge by state equality (see env.precisionTracking).
    if (isLdImm64(insn) && insn.src === BPF_PSEUDO_FUNC) env.precisionTracking = false;
    if (s.call !== null) {
      env.prunePoint[s.call] = 1;
      env.jmpPoint[s.call] = 1;
      visit(s.call, t);
    }
    if ((cls === O.BPF_JMP || cls === O.BPF_JMP32) && op === O.BPF_CALL) {
      env.prunePoint[t + 1] = 1;
      // A bpf-to-bpf call is a prune point itself, before the callee's frame is pushed (visit_func_call_insn).
      if (insn.src === O.BPF_PSEUDO_CALL) env.prunePoint[t] = 1;
      // A return from a subprogram (or a callback) lands here from its exit.
      env.jmpPoint[t + 1] = 1;
      if (insn.src === 0 && insn.imm === BPF_FUNC_loop) {
        env.jmpPoint[t] = 1;
        env.precisionTracking = false;
      }
    }
    if (s.fall !== null) visit(s.fall, t);
    if (s.branch !== null) {
      env.prunePoint[s.branch] = 1;
      env.jmpPoint[s.branch] = 1;
      visit(s.branch, t);
    }
    if ((cls === O.BPF_JMP || cls === O.BPF_JMP32) && op !== O.BPF_JA && op !== O.BPF_CALL && op !== O.BPF_EXIT) {
      env.prunePoint[t] = 1;
      if (insn.code === BPF_JCOND_K) {
        env.forceCheckpoint[t] = 1;
        env.precisionTracking = false;
      }
    }
  }
  for (let i = 0; i < n; i++) {
    if (!seen[i]) env.reject(`unreachable insn ${i}`);
    if (isLdImm64(insns[i]!)) {
      // The second slot is only "seen" if something jumped into it.
      if (i + 1 < n && seen[i + 1]) env.reject(`jump into the middle of ldimm64 insn ${i}`);
      i++;
    }
  }
}

/** Registers read (use) and written (def) by one instruction, as bitmasks. */
function useDef(insn: Insn): { use: number; def: number } {
  const cls = O.BPF_CLASS(insn.code);
  const d = 1 << insn.dst;
  const s = 1 << insn.src;
  const srcX = O.BPF_SRC(insn.code) === O.BPF_X;
  switch (cls) {
    case O.BPF_ALU:
    case O.BPF_ALU64: {
      const op = O.BPF_OP(insn.code);
      if (op === O.BPF_MOV) return { use: srcX ? s : 0, def: d };
      // BPF_END's source bit says which byte order, not a register (and src_reg is 0): only dst is read.
      if (op === O.BPF_END) return { use: d, def: d };
      return { use: d | (srcX ? s : 0), def: d };
    }
    case O.BPF_LDX:
      return { use: s, def: d };
    case O.BPF_ST:
      return { use: d, def: 0 };
    case O.BPF_STX:
      if (O.BPF_MODE(insn.code) === O.BPF_ATOMIC) {
        if (insn.imm === O.BPF_CMPXCHG) return { use: d | s | 1, def: 1 };
        return { use: d | s, def: insn.imm & O.BPF_FETCH ? s : 0 };
      }
      return { use: d | s, def: 0 };
    case O.BPF_LD:
      if (isLdImm64(insn)) return { use: 0, def: d };
      return { use: 0x3ff, def: 0x3f };
    case O.BPF_JMP:
    case O.BPF_JMP32: {
      const op = O.BPF_OP(insn.code);
      if (op === O.BPF_EXIT) return { use: 1, def: 0 };
      if (op === O.BPF_JA) return { use: 0, def: 0 };
      if (op === O.BPF_CALL) {
        if (insn.src === O.BPF_PSEUDO_CALL) return { use: 0x3e, def: 0x3f };
        const nargs = helperById(insn.imm)?.args.length ?? 5;
        return { use: ((1 << nargs) - 1) << 1, def: 0x3f };
      }
      return { use: d | (srcX ? s : 0), def: 0 };
    }
  }
  return { use: 0x3ff, def: 0 };
}

/** Backward fixpoint: the registers live before each instruction. */
function computeLiveRegisters(env: Env): void {
  const insns = env.insns;
  const n = insns.length;
  const live = env.liveRegs;
  const ud = insns.map(useDef);
  let changed = true;
  while (changed) {
    changed = false;
    for (let t = n - 1; t >= 0; t--) {
      if (t > 0 && isLdImm64(insns[t - 1]!) && !(t > 1 && isLdImm64(insns[t - 2]!))) continue;
      const s = successors(insns, t);
      let out = 0;
      if (s.fall !== null && s.fall < n) out |= live[s.fall]!;
      if (s.branch !== null && s.branch >= 0 && s.branch < n) out |= live[s.branch]!;
      const { use, def } = ud[t]!;
      const inn = (use | (out & ~def)) & 0x3ff;
      if (inn !== live[t]) {
        live[t] = inn;
        changed = true;
      }
    }
  }
}

/** Everything the kernel checks before do_check. */
/**
 * check_abnormal_return: without BTF func_info a subprogram cannot end the
 * program another way than returning (LD_ABS's implicit exit, a tail call).
 */
function checkAbnormalReturn(env: Env): void {
  const insns = env.insns;
  for (let s = 1; s < env.subprogs.length; s++) {
    let ldAbs = false;
    let tailCall = false;
    for (let i = env.subprogs[s]!; i < (env.subprogs[s + 1] ?? insns.length); i++) {
      const insn = insns[i]!;
      const mode = O.BPF_MODE(insn.code);
      if (O.BPF_CLASS(insn.code) === O.BPF_LD && (mode === O.BPF_ABS || mode === O.BPF_IND)) ldAbs = true;
      if (insn.code === (O.BPF_JMP | O.BPF_CALL) && insn.src === 0 && insn.imm === 12) tailCall = true;
    }
    if (ldAbs) env.reject('LD_ABS is not allowed in subprogs without BTF');
    if (tailCall) env.reject('tail_call is not allowed in subprogs without BTF');
  }
}

export function checkProgramShape(env: Env): void {
  checkSubprogs(env);
  checkAbnormalReturn(env);
  resolvePseudoLdimm64(env);
  checkCfg(env);
  computeLiveRegisters(env);
  computeStackLiveness(env.insns, env.subprogs, (t) => successors(env.insns, t), env.liveStack, (slot) => {
    const m = env.mapOfInsn.get(slot);
    return m === undefined ? undefined : env.maps[m];
  });
}

/** "Live regs before insn" block of the level-2 log (6.x). */
export function liveRegsText(env: Env, printInsn: (i: number) => string): string {
  let s = 'Live regs before insn:\n';
  for (let i = 0; i < env.insns.length; i++) {
    let m = '';
    for (let r = 0; r < 10; r++) m += env.liveRegs[i]! & (1 << r) ? String(r) : '.';
    s += `${String(i).padStart(7)}: ${m} ${printInsn(i)}\n`;
    if (isLdImm64(env.insns[i]!)) i++;
  }
  return s;
}
