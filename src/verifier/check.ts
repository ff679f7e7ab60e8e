/**
 * The exploration loop (the kernel's do_check): walk every path from the
 * first instruction, one instruction at a time, checking each against the
 * state of its path; branches push the other side for later, exits and
 * pruned paths pop it back. The 1,000,000 processed-instruction limit ends
 * programs whose paths never converge.
 */
import * as O from '../isa/opcodes';
import { checkAluOp, maybeForkScalars } from './alu';
import { checkCondJmpOp } from './branch';
import { checkExitFields, checkFuncCall, checkHelperCall, checkReferenceLeak, prepareFuncExit } from './call';
import { Reject, type Env } from './env';
import { BPF_JCOND_K, BPF_PSEUDO_FUNC } from './cfg';
import { checkMemAccess } from './mem';
import { isStateVisited, updateBranchCounts } from './prune';
import { pushJmpHistory } from './precision';
import { LiveStack } from './live_stack';
import { isPointer, knownScalar, pointer } from './reg';
import { checkRegArg } from './regarg';
import { cloneState, curFrame, initialState } from './state';
import { checkKfuncCall } from './kfunc';
import { BPF_FUNC_loop, callbackExit, checkLoopCall } from './callback';

/** push_stack counts the new branch before it compares, so the kernel's message names 8193 (one past the pending ones). */
const BPF_COMPLEXITY_LIMIT_JMP_SEQ = 8192;

function checkLdImm(env: Env, idx: number): void {
  const insn = env.insns[idx]!;
  if (O.BPF_SIZE(insn.code) !== O.BPF_DW) env.reject('invalid BPF_LD_IMM insn');
  if (insn.off !== 0) env.reject('BPF_LD_IMM64 uses reserved fields');
  checkRegArg(env, insn.dst, 'dst');
  // A callback's address: the kernel needs the program's BTF func_info to type it.
  if (insn.src === BPF_PSEUDO_FUNC) {
    // The kernel types a callback from the program's BTF func_info: raw bytecode without it is refused.
    if (!env.hasFuncInfo) env.reject('missing btf func_info');
    // PTR_TO_FUNC naming the subprogram (its first insn kept in `range`).
    env.regs[insn.dst] = pointer('func', { range: idx + insn.imm + 1 });
    return;
  }
  const mapIdx = env.mapOfInsn.get(idx);
  if (mapIdx === undefined) {
    const v = (BigInt((insn.imm2 ?? 0) >>> 0) << 32n) | BigInt(insn.imm >>> 0);
    env.regs[insn.dst] = knownScalar(v);
    return;
  }
  if (insn.src === O.BPF_PSEUDO_MAP_VALUE) {
    env.regs[insn.dst] = pointer('map_value', { map: mapIdx, off: (insn.imm2 ?? 0) >>> 0 });
  } else {
    env.regs[insn.dst] = pointer('map_ptr', { map: mapIdx });
  }
}

const BPF_LOAD_ACQ = 0x100;
const BPF_STORE_REL = 0x110;

/**
 * atomic_ptr_type_ok for load-acquire / store-release: not through the
 * context, packet or socket pointers (their accesses are rewritten).
 */
function atomicPtrTypeOk(t: string): boolean {
  return t !== 'ctx' && t !== 'pkt' && t !== 'pkt_meta' && t !== 'pkt_end' && t !== 'xdp_sock' && t !== 'sock' && t !== 'sock_common';
}

/** check_atomic_load / check_atomic_store: an ordered load or store of any size. */
function checkLoadAcqStoreRel(env: Env, idx: number): void {
  const insn = env.insns[idx]!;
  const size = O.sizeBytes(O.BPF_SIZE(insn.code));
  if (insn.imm === BPF_LOAD_ACQ) {
    checkRegArg(env, insn.src, 'src');
    const t = env.regs[insn.src]!.type;
    if (!atomicPtrTypeOk(t)) env.reject(`BPF_ATOMIC loads from R${insn.src} ${t} is not allowed`);
    checkRegArg(env, insn.dst, 'dst_no_mark');
    checkMemAccess(env, { regno: insn.src, off: insn.off, size, t: 'read', valueRegno: insn.dst, strictOnce: true });
    saveAuxPtrType(env, idx, t);
    return;
  }
  checkRegArg(env, insn.src, 'src');
  checkRegArg(env, insn.dst, 'src');
  const t = env.regs[insn.dst]!.type;
  checkMemAccess(env, { regno: insn.dst, off: insn.off, size, t: 'write', valueRegno: insn.src, strictOnce: true });
  saveAuxPtrType(env, idx, t);
  if (!atomicPtrTypeOk(t)) env.reject(`BPF_ATOMIC stores into R${insn.dst} ${t} is not allowed`);
}

function checkAtomic(env: Env, idx: number): void {
  const insn = env.insns[idx]!;
  if (insn.imm === BPF_LOAD_ACQ || insn.imm === BPF_STORE_REL) {
    checkLoadAcqStoreRel(env, idx);
    return;
  }
  const okOps = [O.BPF_ADD, O.BPF_AND, O.BPF_OR, O.BPF_XOR];
  const base = insn.imm & ~O.BPF_FETCH;
  if (!(okOps.includes(base) || insn.imm === O.BPF_XCHG || insn.imm === O.BPF_CMPXCHG)) {
    env.reject(`BPF_ATOMIC uses invalid atomic opcode ${(insn.imm & 0xff).toString(16).padStart(2, '0')}`);
  }
  if (O.BPF_SIZE(insn.code) !== O.BPF_W && O.BPF_SIZE(insn.code) !== O.BPF_DW) env.reject('invalid atomic operand size');
  checkRegArg(env, insn.src, 'src');
  checkRegArg(env, insn.dst, 'src');
  if (insn.imm === O.BPF_CMPXCHG) {
    checkRegArg(env, 0, 'src');
    if (!env.allowPtrLeaks && isPointer(env.regs[0]!)) env.reject('R0 leaks addr into mem');
  }
  if (!env.allowPtrLeaks && isPointer(env.regs[insn.src]!)) env.reject(`R${insn.src} leaks addr into mem`);
  const dt = env.regs[insn.dst]!.type;
  if (dt === 'ctx' || dt === 'pkt' || dt === 'pkt_meta' || dt === 'pkt_end' || dt === 'xdp_sock' || dt === 'sock' || dt === 'sock_common') {
    env.reject(`BPF_ATOMIC stores into R${insn.dst} ${dt} is not allowed`);
  }
  const size = O.sizeBytes(O.BPF_SIZE(insn.code));
  let loadReg = -1;
  if (insn.imm & O.BPF_FETCH) {
    loadReg = insn.imm === O.BPF_CMPXCHG ? 0 : insn.src;
    checkRegArg(env, loadReg, 'dst');
  }
  checkMemAccess(env, { regno: insn.dst, off: insn.off, size, t: 'read', valueRegno: -1, strictOnce: true });
  if (loadReg >= 0) checkMemAccess(env, { regno: insn.dst, off: insn.off, size, t: 'read', valueRegno: loadReg, strictOnce: true });
  checkMemAccess(env, { regno: insn.dst, off: insn.off, size, t: 'write', valueRegno: -1, strictOnce: true });
}

/**
 * Pointer types whose loads and stores the kernel rewrites per type
 * (reg_type_mismatch_ok is false for them): one instruction may not reach
 * such an object on one path and other memory on another.
 */
const CONVERTED_PTR = new Set(['ctx', 'xdp_sock', 'xdp_sock_or_null', 'sock', 'sock_or_null', 'sock_common', 'sock_common_or_null']);

/** save_aux_ptr_type */
function saveAuxPtrType(env: Env, idx: number, type: string): void {
  const prev = env.auxPtrType.get(idx);
  if (prev === undefined) env.auxPtrType.set(idx, type);
  else if (prev !== type && (CONVERTED_PTR.has(type) || CONVERTED_PTR.has(prev))) {
    env.reject('same insn cannot be used with different pointers');
  }
}

/** check_return_code for the main program's exit. */
function checkReturnCode(env: Env): void {
  checkReferenceLeak(env, 'BPF_EXIT instruction in main prog');
  checkRegArg(env, 0, 'src');
  if (!env.allowPtrLeaks && isPointer(env.regs[0]!)) env.reject('R0 leaks addr as return value');
}

/** Run the exploration. Throws Reject (after logging) when the program is refused. */
export function doCheck(env: Env): void {
  env.cur = initialState();
  env.live = new LiveStack(env.insns, env.subprogs);
  const insns = env.insns;
  let doPrintState = false;
  env.insnIdx = 0;
  env.prevInsnIdx = -1;
  env.markAllScratched();
  env.path = [];
  for (;;) {
    const idx = env.insnIdx;
    if (idx < 0 || idx >= insns.length) env.reject(`invalid insn idx ${idx} insn_cnt ${insns.length}`);
    const insn = insns[idx]!;
    if (++env.insnProcessed > env.insnLimit) {
      env.reject(`BPF program is too large. Processed ${env.insnProcessed} insn`);
    }
    env.path.push(idx);
    // Where this instruction was reached from, for the jump history (./precision.ts).
    env.histInsn = -1;
    env.histPrevIdx = env.prevInsnIdx;
    env.cur.lastInsnIdx = env.prevInsnIdx;
    env.cur.insnIdx = idx;
    let pruned = false;
    if (env.prunePoint[idx] && isStateVisited(env, idx)) {
      if (env.log.level) {
        if (doPrintState) env.verbose(`\nfrom ${env.prevInsnIdx} to ${idx}: safe\n`);
        else env.verbose(`${idx}: safe\n`);
      }
      pruned = true;
    }
    if (!pruned) {
      if (env.jmpPoint[idx]) pushJmpHistory(env, env.cur, 0, 0, 0, null);
      if (env.log.level >= 2 && doPrintState) {
        env.verbose(`\nfrom ${env.prevInsnIdx} to ${idx}:${env.formatState(true)}\n`);
        doPrintState = false;
      }
      if (env.log.level) {
        if (env.stateScratched) env.printInsnState();
        env.verboseLinfo(idx, '; ');
        env.printInsnLine(idx);
      }
      doPrintState = false;
      env.onInsn?.(env, idx, 'before');
      env.prevInsnIdx = idx;
      env.live.resetWrites(env.cur, idx);
      const cls = O.BPF_CLASS(insn.code);
      let next = idx + 1;
      let pathEnded = false;
      switch (cls) {
        case O.BPF_ALU:
        case O.BPF_ALU64: {
          const fork = maybeForkScalars(env, insn);
          if (fork) {
            if (env.pending.length >= BPF_COMPLEXITY_LIMIT_JMP_SEQ) env.reject(`The sequence of ${env.pending.length + 1} jumps is too complex.`);
            if (fork.parent) fork.parent.branches++;
            // The forked side resumes at this instruction (re-running it with its own value).
            env.pending.push({ state: fork, insnIdx: idx, prevInsnIdx: idx, logPos: env.log.pos, pathLen: env.path.length });
          }
          checkAluOp(env, insn);
          break;
        }
        case O.BPF_LDX: {
          checkRegArg(env, insn.src, 'src');
          checkRegArg(env, insn.dst, 'dst_no_mark');
          const srcType = env.regs[insn.src]!.type;
          checkMemAccess(env, {
            regno: insn.src,
            off: insn.off,
            size: O.sizeBytes(O.BPF_SIZE(insn.code)),
            t: 'read',
            valueRegno: insn.dst,
            signExtend: O.BPF_MODE(insn.code) === O.BPF_MEMSX,
          });
          saveAuxPtrType(env, idx, srcType);
          break;
        }
        case O.BPF_STX:
          if (O.BPF_MODE(insn.code) === O.BPF_ATOMIC) {
            checkAtomic(env, idx);
            break;
          }
          if (O.BPF_MODE(insn.code) !== O.BPF_MEM || insn.imm !== 0) env.reject('BPF_STX uses reserved fields');
          checkRegArg(env, insn.src, 'src');
          checkRegArg(env, insn.dst, 'src');
          checkMemAccess(env, { regno: insn.dst, off: insn.off, size: O.sizeBytes(O.BPF_SIZE(insn.code)), t: 'write', valueRegno: insn.src });
          saveAuxPtrType(env, idx, env.regs[insn.dst]!.type);
          break;
        case O.BPF_ST:
          if (O.BPF_MODE(insn.code) !== O.BPF_MEM || insn.src !== 0) env.reject('BPF_ST uses reserved fields');
          checkRegArg(env, insn.dst, 'src');
          checkMemAccess(env, { regno: insn.dst, off: insn.off, size: O.sizeBytes(O.BPF_SIZE(insn.code)), t: 'write', valueRegno: -1, stImm: insn.imm });
          saveAuxPtrType(env, idx, env.regs[insn.dst]!.type);
          break;
        case O.BPF_LD: {
          const mode = O.BPF_MODE(insn.code);
          if (mode === O.BPF_ABS || mode === O.BPF_IND) env.reject('BPF_LD_[ABS|IND] instructions not allowed for this program type');
          if (mode !== O.BPF_IMM) env.reject('invalid BPF_LD mode');
          checkLdImm(env, idx);
          next = idx + 2;
          break;
        }
        case O.BPF_JMP:
        case O.BPF_JMP32: {
          env.jmpsProcessed++;
          const op = O.BPF_OP(insn.code);
          if (op === O.BPF_CALL) {
            if (
              O.BPF_SRC(insn.code) !== O.BPF_K ||
              (insn.src !== O.BPF_PSEUDO_KFUNC_CALL && insn.off !== 0) ||
              (insn.src !== 0 && insn.src !== O.BPF_PSEUDO_CALL && insn.src !== O.BPF_PSEUDO_KFUNC_CALL) ||
              insn.dst !== 0 ||
              cls === O.BPF_JMP32
            ) {
              env.reject('BPF_CALL uses reserved fields');
            }
            if (insn.src === O.BPF_PSEUDO_CALL) {
              next = checkFuncCall(env, insn, idx);
              doPrintState = true;
            } else if (insn.src === O.BPF_PSEUDO_KFUNC_CALL) {
              checkKfuncCall(env, idx);
            } else if (insn.imm === BPF_FUNC_loop) {
              next = checkLoopCall(env, idx);
              doPrintState = true;
            } else {
              checkHelperCall(env, insn);
            }
            env.markRegScratched(0);
          } else if (op === O.BPF_JA) {
            if (
              O.BPF_SRC(insn.code) !== O.BPF_K ||
              insn.src !== 0 ||
              insn.dst !== 0 ||
              (cls === O.BPF_JMP && insn.imm !== 0) ||
              (cls === O.BPF_JMP32 && insn.off !== 0)
            ) {
              env.reject('BPF_JA uses reserved fields');
            }
            next = cls === O.BPF_JMP ? idx + insn.off + 1 : idx + insn.imm + 1;
          } else if (op === O.BPF_EXIT) {
            checkExitFields(env, insn);
            if (env.cur.frames.length > 1 && curFrame(env.cur).callback) {
              next = callbackExit(env);
              doPrintState = true;
            } else if (env.cur.frames.length > 1) {
              next = prepareFuncExit(env);
              doPrintState = true;
            } else {
              checkReturnCode(env);
              pathEnded = true;
            }
          } else if (op === 0xe0) {
            // may_goto: explore the jump now, the fall-through (one more trip) later.
            if (insn.code !== BPF_JCOND_K || insn.src !== 0 || insn.dst !== 0 || insn.imm !== 0) env.reject(`invalid may_goto imm ${insn.imm}`);
            const st = cloneState(env.cur);
            st.mayGotoDepth = (st.mayGotoDepth ?? 0) + 1;
            if (env.pending.length >= BPF_COMPLEXITY_LIMIT_JMP_SEQ) env.reject(`The sequence of ${env.pending.length + 1} jumps is too complex.`);
            if (st.parent) st.parent.branches++;
            env.pending.push({ state: st, insnIdx: idx + 1, prevInsnIdx: idx, logPos: env.log.pos, pathLen: env.path.length });
            env.branchLogPos = env.log.pos;
            next = idx + insn.off + 1;
          } else {
            const out = checkCondJmpOp(env, insn, idx);
            next = out.next;
            if (out.push) {
              if (env.pending.length >= BPF_COMPLEXITY_LIMIT_JMP_SEQ) {
                env.reject(`The sequence of ${env.pending.length + 1} jumps is too complex.`);
              }
              const st = out.push.state;
              if (st.parent) st.parent.branches++;
              env.pending.push({ state: st, insnIdx: out.push.insnIdx, prevInsnIdx: idx, logPos: env.branchLogPos, pathLen: env.path.length });
            }
          }
          break;
        }
        default:
          env.reject(`unknown insn class ${cls}`);
      }
      env.live.commitWrites();
      env.onInsn?.(env, idx, 'after');
      if (!pathEnded) {
        env.insnIdx = next;
        continue;
      }
    }
    // process_bpf_exit: this path is done; resume a pending one.
    env.markAllScratched();
    updateBranchCounts(env.cur);
    // Every read below this path's checkpoints is recorded: bring the liveness up to date before they are cleaned.
    env.live.update(env.cur);
    const p = env.pending.pop();
    if (!p) return;
    if (env.log.level === 1) env.log.reset(p.logPos);
    env.cur = p.state;
    env.insnIdx = p.insnIdx;
    env.prevInsnIdx = p.prevInsnIdx;
    env.path.length = p.pathLen;
    doPrintState = true;
  }
}

export { Reject };
