/**
 * Scalar precision (the kernel's mark_chain_precision, backtrack_insn and
 * propagate_precision). A checkpoint's scalars start imprecise, and pruning
 * (./prune.ts) ignores the value of an imprecise one: a later path with a
 * different value is just as safe, because nothing after the checkpoint
 * depended on it. When a safety decision does depend on a scalar's value
 * (a branch decided by it, a pointer moved by it, a helper's size or a
 * constant map key), this walks the path backwards through the jump history
 * and the chain of checkpoints, marking precise, in every checkpoint the
 * path passed, each register and spilled stack slot that value came from.
 * A pruned path hands its match's precise marks back along its own chain.
 *
 * The current state is never marked: only checkpoints are compared later.
 * Where the walk cannot follow a value (a scalar used as a store's base)
 * every scalar of every checkpoint on the path becomes precise, as the
 * kernel falls back. Programs whose loops converge by state equality
 * (may_goto, bpf_loop callbacks) keep comparing every scalar instead: there
 * the kernel's marks come from its SCC backedge propagation, not modelled.
 */
import * as O from '../isa/opcodes';
import type { Env } from './env';
import type { Reg } from './reg';
import { formatFrame } from './log';
import { STACK_SPILL, type HistEntry, type LinkedReg, type VState } from './state';

/** insn_flags of a history entry. */
export const INSN_F_STACK_ACCESS = 1;

const MAX_CALL_FRAMES = 8;
const BPF_REG_FP = 10;
/** r1-r5. */
const REGMASK_ARGS = 0x3e;

/** backtrack_state: per frame, the registers and stack slots whose value is still wanted. */
class Backtrack {
  frame = 0;
  readonly regs = new Int32Array(MAX_CALL_FRAMES);
  /** Stack slots 0-31 and 32-63 (spi), as two 32-bit masks per frame. */
  readonly stackLo = new Int32Array(MAX_CALL_FRAMES);
  readonly stackHi = new Int32Array(MAX_CALL_FRAMES);

  reset(frame: number): void {
    this.frame = frame;
    this.regs.fill(0);
    this.stackLo.fill(0);
    this.stackHi.fill(0);
  }
  empty(): boolean {
    for (let i = 0; i <= this.frame; i++) if (this.regs[i] || this.stackLo[i] || this.stackHi[i]) return false;
    return true;
  }
  isReg(r: number): boolean {
    return (this.regs[this.frame]! & (1 << r)) !== 0;
  }
  setReg(r: number, fr = this.frame): void {
    this.regs[fr]! |= 1 << r;
  }
  clearReg(r: number, fr = this.frame): void {
    this.regs[fr]! &= ~(1 << r);
  }
  isSlot(fr: number, spi: number): boolean {
    return spi < 32 ? (this.stackLo[fr]! & (1 << spi)) !== 0 : (this.stackHi[fr]! & (1 << (spi - 32))) !== 0;
  }
  setSlot(fr: number, spi: number): void {
    if (spi < 32) this.stackLo[fr]! |= 1 << spi;
    else this.stackHi[fr]! |= 1 << (spi - 32);
  }
  clearSlot(fr: number, spi: number): void {
    if (spi < 32) this.stackLo[fr]! &= ~(1 << spi);
    else this.stackHi[fr]! &= ~(1 << (spi - 32));
  }
  stackEmpty(fr: number): boolean {
    return !this.stackLo[fr] && !this.stackHi[fr];
  }
}

const bt = new Backtrack();

// ---- the level-2 log lines (the kernel's "mark_precise:" trace) ----------

/** fmt_reg_mask: "r0,r2". */
const fmtRegs = (mask: number): string => {
  const out: string[] = [];
  for (let i = 0; i < 32; i++) if (mask & (1 << i)) out.push(`r${i}`);
  return out.join(',');
};

/** bpf_fmt_stack_mask: "-8,-24". */
const fmtStack = (fr: number): string => {
  const out: string[] = [];
  for (let i = 0; i < 64; i++) if (bt.isSlot(fr, i)) out.push(String(-(i + 1) * 8));
  return out.join(',');
};

const logOn = (env: Env): boolean => env.log.level >= 2;

/**
 * Thrown where the walk cannot follow a value (the kernel's -ENOTSUPP), and where the kernel would
 * report a verifier bug: either way every scalar on the path becomes precise, which is always sound.
 */
class NotSupported extends Error {}

/** push_jmp_history: record this instruction in cur's history, or add flags to the entry it already has. */
export function pushJmpHistory(env: Env, st: VState, flags: number, spi: number, frame: number, linked: readonly LinkedReg[] | null): void {
  if (!env.precisionTracking) return;
  const h = st.hist;
  if (env.histInsn === env.insnIdx && env.histState === st && h.length > 0 && h[h.length - 1]!.idx === env.insnIdx) {
    // Copy on write: copies of this state made earlier in the instruction share the old entry.
    const e = h[h.length - 1]!;
    h[h.length - 1] = { idx: e.idx, prevIdx: e.prevIdx, flags: e.flags | flags, spi: flags ? spi : e.spi, frame: flags ? frame : e.frame, linked: linked ?? e.linked };
    return;
  }
  h.push({ idx: env.insnIdx, prevIdx: env.histPrevIdx, flags, spi, frame, linked });
  env.histInsn = env.insnIdx;
  env.histState = st;
}

/** get_prev_insn_idx: the instruction before i on the path, or -1 when st's stretch begins at i. */
function prevInsnIdx(st: VState, i: number, cnt: { n: number }): number {
  const h = st.hist;
  if (i === st.firstInsnIdx) {
    if (cnt.n === 0) return -1;
    if (cnt.n === 1 && h[0]!.idx === i) return -1;
  }
  if (cnt.n && h[cnt.n - 1]!.idx === i) {
    cnt.n--;
    return h[cnt.n]!.prevIdx;
  }
  return i - 1;
}

/** bt_sync_linked_regs: if one scalar of a linked set is wanted, all are. */
function syncLinked(hist: HistEntry | null): void {
  if (!hist?.linked) return;
  let some = false;
  for (const e of hist.linked) {
    if (e.isReg ? (bt.regs[e.frameno]! & (1 << e.regno)) !== 0 : bt.isSlot(e.frameno, e.regno)) {
      some = true;
      break;
    }
  }
  if (!some) return;
  for (const e of hist.linked) {
    if (e.isReg) bt.setReg(e.regno, e.frameno);
    else bt.setSlot(e.frameno, e.regno);
  }
}

/** backtrack_insn: what instruction idx needs precise before it, given what is wanted after it. */
function backtrackInsn(env: Env, idx: number, subseqIdx: number, hist: HistEntry | null): void {
  const insn = env.insns[idx]!;
  if (insn.code === 0) return;
  if (logOn(env)) env.verbose(`mark_precise: frame${bt.frame}: regs=${fmtRegs(bt.regs[bt.frame]!)} stack=${fmtStack(bt.frame)} before ${idx}: ${env.insnText(idx)}\n`);
  const cls = O.BPF_CLASS(insn.code);
  const op = O.BPF_OP(insn.code);
  const mode = O.BPF_MODE(insn.code);
  const dreg = insn.dst;
  const sreg = insn.src;
  syncLinked(hist);
  if (cls === O.BPF_ALU || cls === O.BPF_ALU64) {
    if (!bt.isReg(dreg)) return;
    if (op === O.BPF_END || op === O.BPF_NEG) return;
    if (op === O.BPF_MOV) {
      // dst = src: src is wanted before; dst = K: the value came from here.
      bt.clearReg(dreg);
      if (O.BPF_SRC(insn.code) === O.BPF_X && sreg !== BPF_REG_FP) bt.setReg(sreg);
    } else if (O.BPF_SRC(insn.code) === O.BPF_X && sreg !== BPF_REG_FP) {
      bt.setReg(sreg);
    }
  } else if (cls === O.BPF_LDX || (cls === O.BPF_STX && mode === O.BPF_ATOMIC && (insn.imm === 0x100 || (insn.imm & O.BPF_FETCH) !== 0))) {
    // A load, load-acquire, or an atomic fetch's old value (into src, r0 for cmpxchg).
    const loadReg = cls === O.BPF_STX && insn.imm !== 0x100 ? (insn.imm === O.BPF_CMPXCHG ? 0 : sreg) : dreg;
    if (!bt.isReg(loadReg)) return;
    bt.clearReg(loadReg);
    // Only a fill from the stack keeps a scalar exactly; other memory is not followed.
    if (!hist || !(hist.flags & INSN_F_STACK_ACCESS)) return;
    bt.setSlot(hist.frame, hist.spi);
  } else if (cls === O.BPF_STX || cls === O.BPF_ST) {
    // A scalar used as a store's base: pointer subtraction the walk cannot follow.
    if (bt.isReg(dreg)) throw new NotSupported();
    if (!hist || !(hist.flags & INSN_F_STACK_ACCESS)) return;
    if (!bt.isSlot(hist.frame, hist.spi)) return;
    bt.clearSlot(hist.frame, hist.spi);
    if (cls === O.BPF_STX) bt.setReg(sreg);
  } else if (cls === O.BPF_JMP || cls === O.BPF_JMP32) {
    if (op === O.BPF_CALL && insn.src === O.BPF_PSEUDO_CALL) {
      // Going back out of a callee through its call: only its arguments can still be wanted.
      if (bt.regs[bt.frame]! & ~REGMASK_ARGS) throw new NotSupported();
      if (!bt.stackEmpty(bt.frame)) throw new NotSupported();
      for (let r = 1; r <= 5; r++) {
        if (bt.isReg(r)) {
          bt.clearReg(r);
          bt.setReg(r, bt.frame - 1);
        }
      }
      if (bt.frame === 0) throw new NotSupported();
      bt.frame--;
    } else if (op === O.BPF_CALL) {
      if (insn.src === O.BPF_PSEUDO_KFUNC_CALL && insn.imm === 0) throw new NotSupported();
      // A helper or kfunc sets r0 and clobbers r1-r5, which must have been found after it.
      bt.clearReg(0);
      if (bt.regs[bt.frame]! & REGMASK_ARGS) throw new NotSupported();
    } else if (op === O.BPF_EXIT) {
      // Going back into a callee from its return: r0 is its result.
      const fromCall = subseqIdx - 1 >= 0 && env.insns[subseqIdx - 1]!.code === (O.BPF_JMP | O.BPF_CALL) && env.insns[subseqIdx - 1]!.src === O.BPF_PSEUDO_CALL;
      const r0 = fromCall && bt.isReg(0);
      if (fromCall && bt.regs[bt.frame]! & REGMASK_ARGS) throw new NotSupported();
      bt.clearReg(0);
      if (bt.frame === MAX_CALL_FRAMES - 1) throw new NotSupported();
      bt.frame++;
      if (r0) bt.setReg(0);
      return;
    } else if (O.BPF_SRC(insn.code) === O.BPF_X && op !== O.BPF_JA) {
      // dst <cond> src: a value compared against another is wanted only with the other.
      if (!bt.isReg(dreg) && !bt.isReg(sreg)) return;
      // The frame pointer is never a scalar: nothing to follow (the kernel flags stack pointers so).
      if (sreg !== BPF_REG_FP) bt.setReg(sreg);
      if (dreg !== BPF_REG_FP) bt.setReg(dreg);
    }
  } else if (cls === O.BPF_LD) {
    if (mode === O.BPF_IMM) {
      bt.clearReg(dreg);
      return;
    }
    if (bt.isReg(dreg)) throw new NotSupported();
  }
  syncLinked(hist);
}

/** mark_all_scalars_precise: the fallback, every scalar of every checkpoint on st's path. */
function markAllScalarsPrecise(env: Env, st: VState): void {
  const log = logOn(env);
  if (log) env.verbose(`mark_precise: frame${st.frames.length - 1}: falling back to forcing all scalars precise\n`);
  for (let p = st.parent; p; p = p.state?.parent ?? null) {
    const s = p.state;
    if (!s) continue;
    s.frames.forEach((f, fr) => {
      for (let j = 0; j < BPF_REG_FP; j++) {
        const r = f.regs[j]!;
        if (r.type !== 'scalar' || r.precise) continue;
        r.precise = true;
        if (log) env.verbose(`force_precise: frame${fr}: forcing r${j} to be precise\n`);
      }
      f.stack.forEach((sl, j) => {
        if (sl.types[7] !== STACK_SPILL || sl.spilled.type !== 'scalar' || sl.spilled.precise) return;
        sl.spilled.precise = true;
        if (log) env.verbose(`force_precise: frame${fr}: forcing fp${-(j + 1) * 8} to be precise\n`);
      });
    });
  }
}

/**
 * __mark_chain_precision: walk back from `start` (the current state, or one being pruned), marking
 * in each checkpoint the registers and slots the wanted values came from. The wanted set is `regno`
 * (>= 0) plus whatever the caller put in `bt` beforehand (markChainPrecisionBatch).
 */
function markChain(env: Env, start: VState, regno: number, preset: boolean): void {
  if (!env.precisionTracking) return;
  if (!preset) bt.reset(start.frames.length - 1);
  else bt.frame = start.frames.length - 1;
  if (regno >= 0) {
    const r = start.frames[bt.frame]!.regs[regno]!;
    if (r.type !== 'scalar') throw new NotSupported();
    bt.setReg(regno);
  }
  if (bt.empty()) return;
  let st: VState = start;
  let firstIdx = st.firstInsnIdx;
  let lastIdx = start.insnIdx;
  let subseqIdx = -1;
  let skipFirst = true;
  try {
    for (;;) {
      if (lastIdx < 0) throw new NotSupported();
      if (logOn(env)) env.verbose(`mark_precise: frame${bt.frame}: last_idx ${lastIdx} first_idx ${firstIdx} subseq_idx ${subseqIdx} \n`);
      const cnt = { n: st.hist.length };
      for (let i = lastIdx; ; ) {
        if (skipFirst) skipFirst = false;
        else {
          const top = cnt.n > 0 ? st.hist[cnt.n - 1]! : null;
          backtrackInsn(env, i, subseqIdx, top && top.idx === i ? top : null);
        }
        if (bt.empty()) return;
        subseqIdx = i;
        i = prevInsnIdx(st, i, cnt);
        if (i < 0) break;
        if (i >= env.insns.length) throw new NotSupported();
      }
      const parent = st.parent;
      const ps = parent?.state;
      if (!parent || !ps) break;
      st = ps;
      for (let fr = bt.frame; fr >= 0; fr--) {
        const f = st.frames[fr]!;
        for (let i = 0; i < BPF_REG_FP; i++) {
          if (!(bt.regs[fr]! & (1 << i))) continue;
          const r = f.regs[i]!;
          if (r.type !== 'scalar' || r.precise) bt.clearReg(i, fr);
          else r.precise = true;
        }
        for (let i = 0; i < 64; i++) {
          if (!bt.isSlot(fr, i)) continue;
          const sl = f.stack[i];
          if (!sl || sl.types[7] !== STACK_SPILL || sl.spilled.type !== 'scalar' || sl.spilled.precise) bt.clearSlot(fr, i);
          else sl.spilled.precise = true;
        }
        if (logOn(env)) env.verbose(`mark_precise: frame${fr}: parent state regs=${fmtRegs(bt.regs[fr]!)} stack=${fmtStack(fr)}: ${formatFrame(f, env.maps, null, null)}\n`);
      }
      if (bt.empty()) return;
      subseqIdx = firstIdx;
      lastIdx = st.lastInsnIdx;
      firstIdx = st.firstInsnIdx;
    }
  } catch (e) {
    if (!(e instanceof NotSupported)) throw e;
    markAllScalarsPrecise(env, start);
    bt.reset(0);
    return;
  }
  // Something wanted was not found (a stack access through another register): the fallback.
  if (!bt.empty()) {
    markAllScalarsPrecise(env, start);
    bt.reset(0);
  }
}

/** mark_chain_precision: the value of scalar register regno (current frame) is relied on here. */
export function markChainPrecision(env: Env, regno: number): void {
  if (regno < 0) return;
  markChain(env, env.cur, regno, false);
}

/** mark_chain_precision_batch for one stack slot: a constant spilled there is relied on here. */
export function markStackSlotPrecision(env: Env, frameno: number, spi: number): void {
  if (!env.precisionTracking) return;
  bt.reset(env.cur.frames.length - 1);
  bt.setSlot(frameno, spi);
  markChain(env, env.cur, -1, true);
}

/** propagate_precision: cur was pruned against old; what old needed precise, cur's checkpoints need too. */
export function propagatePrecision(env: Env, old: VState, cur: VState): void {
  if (!env.precisionTracking) return;
  bt.reset(cur.frames.length - 1);
  const log = logOn(env);
  for (let fr = old.frames.length - 1; fr >= 0; fr--) {
    const f = old.frames[fr]!;
    const names: string[] = [];
    for (let i = 0; i < BPF_REG_FP; i++) {
      const r = f.regs[i]!;
      if (r.type !== 'scalar' || !r.precise) continue;
      bt.setReg(i, fr);
      names.push(`r${i}`);
    }
    for (let i = 0; i < f.stack.length && i < 64; i++) {
      const sl = f.stack[i]!;
      if (sl.types[7] !== STACK_SPILL || sl.spilled.type !== 'scalar' || !sl.spilled.precise) continue;
      bt.setSlot(fr, i);
      names.push(`fp${-(i + 1) * 8}`);
    }
    if (log && names.length) env.verbose(`frame ${fr}: propagating ${names.join(',')}\n`);
  }
  markChain(env, cur, -1, true);
}

/** collect_linked_regs: the live scalars (registers and spills, every frame) sharing id. */
export function collectLinkedRegs(env: Env, st: VState, id: number, out: LinkedReg[]): void {
  const top = st.frames.length - 1;
  for (let i = top; i >= 0; i--) {
    const f = st.frames[i]!;
    // Dead registers of the innermost frame are left out, as the kernel's live_regs_before.
    const live = i === top ? env.liveRegs[env.insnIdx]! : 0x3ff;
    for (let j = 0; j < BPF_REG_FP; j++) {
      if (!(live & (1 << j))) continue;
      addLinked(out, f.regs[j]!, id, i, j, true);
    }
    for (let j = 0; j < f.stack.length; j++) {
      const sl = f.stack[j]!;
      if (sl.types[7] === STACK_SPILL) addLinked(out, sl.spilled, id, i, j, false);
    }
  }
}

const LINKED_REGS_MAX = 6;

function addLinked(out: LinkedReg[], r: Reg, id: number, frameno: number, regno: number, isReg: boolean): void {
  if (r.type !== 'scalar' || r.id !== id) return;
  if (out.some((e) => e.frameno === frameno && e.isReg === isReg && e.regno === regno)) return;
  // The kernel keeps at most LINKED_REGS_MAX and unlinks the rest (clear_scalar_id).
  if (out.length >= LINKED_REGS_MAX) {
    r.id = 0;
    r.off = 0;
    r.add32 = false;
    r.addConst = false;
    return;
  }
  out.push({ frameno, isReg, regno });
}

/** mark_all_scalars_imprecise: a new checkpoint starts with no marks inherited. */
export function markAllScalarsImprecise(st: VState): void {
  for (const f of st.frames) {
    for (let j = 0; j < BPF_REG_FP; j++) {
      const r = f.regs[j]!;
      if (r.type === 'scalar') r.precise = false;
    }
    for (const sl of f.stack) if (sl.types[7] === STACK_SPILL && sl.spilled.type === 'scalar') sl.spilled.precise = false;
  }
}
