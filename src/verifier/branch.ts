/**
 * Conditional jumps (the kernel's check_cond_jmp_op): deciding a branch
 * when the operands already decide it (is_branch_taken), and otherwise
 * splitting the path and teaching each side what the comparison implies —
 * scalar bounds in every comparison form and JMP32 (regs_refine_cond_op),
 * packet ranges from `data + N > data_end` and all its mirrors
 * (try_match_pkt_pointers), and null checks propagated by id.
 */
import { collectLinkedRegs, markChainPrecision, pushJmpHistory } from './precision';
import type { LinkedReg } from './state';
import * as O from '../isa/opcodes';
import type { Insn } from '../isa/insn';
import type { Env } from './env';
import {
  AT_PKT_END,
  BEYOND_PKT_END,
  copyReg,
  isPktPointerAny,
  isPointer,
  knownScalar,
  markUnbounded,
  mayBeNull,
  type Reg,
  type RegType,
} from './reg';
import { regBoundsSync, regInvariantViolation, scalarAlu } from './scalar';
import {
  tnumAnd,
  tnumConst,
  tnumIsConst,
  tnumIntersect,
  tnumOr,
  tnumSubreg,
  tnumSubregIsConst,
  tnumWithSubreg,
  U64_MAX,
  s32,
  s64,
  u32,
} from './tnum';
import { checkRegArg } from './regarg';
import { cloneState, curFrame, forEachReg, type VState } from './state';

const JSET_X = O.BPF_JSET | O.BPF_X;

export function flipOpcode(op: number): number {
  switch (op) {
    case O.BPF_JGT: return O.BPF_JLT;
    case O.BPF_JLT: return O.BPF_JGT;
    case O.BPF_JGE: return O.BPF_JLE;
    case O.BPF_JLE: return O.BPF_JGE;
    case O.BPF_JSGT: return O.BPF_JSLT;
    case O.BPF_JSLT: return O.BPF_JSGT;
    case O.BPF_JSGE: return O.BPF_JSLE;
    case O.BPF_JSLE: return O.BPF_JSGE;
    default: return op;
  }
}

function revOpcode(op: number): number {
  switch (op) {
    case O.BPF_JEQ: return O.BPF_JNE;
    case O.BPF_JNE: return O.BPF_JEQ;
    case O.BPF_JSET: return JSET_X;
    case JSET_X: return O.BPF_JSET;
    case O.BPF_JGE: return O.BPF_JLT;
    case O.BPF_JLT: return O.BPF_JGE;
    case O.BPF_JGT: return O.BPF_JLE;
    case O.BPF_JLE: return O.BPF_JGT;
    case O.BPF_JSGE: return O.BPF_JSLT;
    case O.BPF_JSLT: return O.BPF_JSGE;
    case O.BPF_JSGT: return O.BPF_JSLE;
    case O.BPF_JSLE: return O.BPF_JSGT;
    default: return op;
  }
}

const isRegConst = (r: Reg, is32: boolean): boolean =>
  r.type === 'scalar' && (is32 ? tnumSubregIsConst(r.varOff) : tnumIsConst(r.varOff));
const regConstValue = (r: Reg, is32: boolean): bigint => (is32 ? u32(r.varOff.value) : r.varOff.value);

/** Pointers that can never be NULL (reg_not_null). */
const regNotNull = (r: Reg): boolean =>
  r.type === 'map_value' || r.type === 'map_ptr' || r.type === 'xdp_sock' || r.type === 'sock' || r.type === 'sock_common' || r.type === 'ringbuf_mem' ||
  r.type === 'mem' || r.type === 'rdonly_mem' || r.type === 'func' || r.type === 'nf_conn' || r.type === 'nf_conn___init';

function isPktPtrBranchTaken(dst: Reg, src: Reg, op: number): number {
  let pkt: Reg;
  if (src.type === 'pkt_end') pkt = dst;
  else if (dst.type === 'pkt_end') {
    pkt = src;
    op = flipOpcode(op);
  } else return -1;
  if (pkt.range >= 0) return -1;
  switch (op) {
    case O.BPF_JLE:
    case O.BPF_JGT:
      if (pkt.range === BEYOND_PKT_END) return op === O.BPF_JGT ? 1 : 0;
      break;
    case O.BPF_JLT:
    case O.BPF_JGE:
      if (pkt.range === BEYOND_PKT_END || pkt.range === AT_PKT_END) return op === O.BPF_JGE ? 1 : 0;
      break;
  }
  return -1;
}

function isScalarBranchTaken(r1: Reg, r2: Reg, op: number, is32: boolean): number {
  const t1 = is32 ? tnumSubreg(r1.varOff) : r1.varOff;
  const t2 = is32 ? tnumSubreg(r2.varOff) : r2.varOff;
  const umin1 = is32 ? r1.u32min : r1.umin;
  const umax1 = is32 ? r1.u32max : r1.umax;
  const smin1 = is32 ? r1.s32min : r1.smin;
  const smax1 = is32 ? r1.s32max : r1.smax;
  const umin2 = is32 ? r2.u32min : r2.umin;
  const umax2 = is32 ? r2.u32max : r2.umax;
  const smin2 = is32 ? r2.s32min : r2.smin;
  const smax2 = is32 ? r2.s32max : r2.smax;
  switch (op) {
    case O.BPF_JEQ:
    case O.BPF_JNE: {
      const eq = op === O.BPF_JEQ;
      if (t1.mask === 0n && t2.mask === 0n) return (t1.value === t2.value) === eq ? 1 : 0;
      // tnum_overlap: a bit both know, set differently, makes them unequal.
      const mu = t1.mask | t2.mask;
      if ((t1.value & ~mu) !== (t2.value & ~mu)) return eq ? 0 : 1;
      if (umin1 > umax2 || umax1 < umin2) return eq ? 0 : 1;
      if (smin1 > smax2 || smax1 < smin2) return eq ? 0 : 1;
      if (!is32) {
        if (r1.u32min > r2.u32max || r1.u32max < r2.u32min) return eq ? 0 : 1;
        if (r1.s32min > r2.s32max || r1.s32max < r2.s32min) return eq ? 0 : 1;
      }
      break;
    }
    case O.BPF_JSET: {
      let a = t1;
      let b = t2;
      if (!isRegConst(r2, is32)) {
        [a, b] = [t2, t1];
        if (!isRegConst(r1, is32)) return -1;
      }
      if (~a.mask & a.value & b.value) return 1;
      if (!((a.mask | a.value) & b.value)) return 0;
      break;
    }
    case O.BPF_JGT:
      if (umin1 > umax2) return 1;
      if (umax1 <= umin2) return 0;
      break;
    case O.BPF_JSGT:
      if (smin1 > smax2) return 1;
      if (smax1 <= smin2) return 0;
      break;
    case O.BPF_JLT:
      if (umax1 < umin2) return 1;
      if (umin1 >= umax2) return 0;
      break;
    case O.BPF_JSLT:
      if (smax1 < smin2) return 1;
      if (smin1 >= smax2) return 0;
      break;
    case O.BPF_JGE:
      if (umin1 >= umax2) return 1;
      if (umax1 < umin2) return 0;
      break;
    case O.BPF_JSGE:
      if (smin1 >= smax2) return 1;
      if (smax1 < smin2) return 0;
      break;
    case O.BPF_JLE:
      if (umax1 <= umin2) return 1;
      if (umin1 > umax2) return 0;
      break;
    case O.BPF_JSLE:
      if (smax1 <= smin2) return 1;
      if (smin1 > smax2) return 0;
      break;
  }
  return -1;
}

/** 1: always taken, 0: never taken, -1: unknown. */
export function isBranchTaken(r1: Reg, r2: Reg, op: number, is32: boolean): number {
  if (isPktPointerAny(r1) && isPktPointerAny(r2) && !is32) return isPktPtrBranchTaken(r1, r2, op);
  if (isPointer(r1) || isPointer(r2)) {
    if (!isRegConst(r2, is32)) {
      op = flipOpcode(op);
      [r1, r2] = [r2, r1];
    }
    if (!isRegConst(r2, is32)) return -1;
    if (!regNotNull(r1)) return -1;
    if (regConstValue(r2, is32) !== 0n) return -1;
    if (op === O.BPF_JEQ) return 0;
    if (op === O.BPF_JNE) return 1;
    return -1;
  }
  return isScalarBranchTaken(r1, r2, op, is32);
}

const maxB = (a: bigint, b: bigint): bigint => (a > b ? a : b);
const minB = (a: bigint, b: bigint): bigint => (a < b ? a : b);
const isPow2 = (v: bigint): boolean => v !== 0n && (v & (v - 1n)) === 0n;

/** regs_refine_cond_op: what `reg1 OP reg2` being true teaches about both. */
function regsRefineCondOp(reg1: Reg, reg2: Reg, op: number, is32: boolean): void {
  switch (op) {
    case O.BPF_JGE:
    case O.BPF_JGT:
    case O.BPF_JSGE:
    case O.BPF_JSGT:
      op = flipOpcode(op);
      [reg1, reg2] = [reg2, reg1];
      break;
  }
  switch (op) {
    case O.BPF_JEQ:
      if (is32) {
        reg1.u32min = maxB(reg1.u32min, reg2.u32min);
        reg1.u32max = minB(reg1.u32max, reg2.u32max);
        reg1.s32min = maxB(reg1.s32min, reg2.s32min);
        reg1.s32max = minB(reg1.s32max, reg2.s32max);
        reg2.u32min = reg1.u32min;
        reg2.u32max = reg1.u32max;
        reg2.s32min = reg1.s32min;
        reg2.s32max = reg1.s32max;
        const t = tnumIntersect(tnumSubreg(reg1.varOff), tnumSubreg(reg2.varOff));
        reg1.varOff = tnumWithSubreg(reg1.varOff, t);
        reg2.varOff = tnumWithSubreg(reg2.varOff, t);
      } else {
        reg1.umin = maxB(reg1.umin, reg2.umin);
        reg1.umax = minB(reg1.umax, reg2.umax);
        reg1.smin = maxB(reg1.smin, reg2.smin);
        reg1.smax = minB(reg1.smax, reg2.smax);
        reg2.umin = reg1.umin;
        reg2.umax = reg1.umax;
        reg2.smin = reg1.smin;
        reg2.smax = reg1.smax;
        reg1.varOff = tnumIntersect(reg1.varOff, reg2.varOff);
        reg2.varOff = reg1.varOff;
      }
      break;
    case O.BPF_JNE: {
      if (!isRegConst(reg2, is32)) [reg1, reg2] = [reg2, reg1];
      if (!isRegConst(reg2, is32)) break;
      const val = regConstValue(reg2, is32);
      if (is32) {
        if (reg1.u32min === u32(val)) reg1.u32min++;
        if (reg1.u32max === u32(val)) reg1.u32max--;
        if (reg1.s32min === s32(val)) reg1.s32min++;
        if (reg1.s32max === s32(val)) reg1.s32max--;
      } else {
        if (reg1.umin === val) reg1.umin++;
        if (reg1.umax === val) reg1.umax--;
        if (reg1.smin === s64(val)) reg1.smin++;
        if (reg1.smax === s64(val)) reg1.smax--;
      }
      break;
    }
    case O.BPF_JSET: {
      if (!isRegConst(reg2, is32)) [reg1, reg2] = [reg2, reg1];
      if (!isRegConst(reg2, is32)) break;
      const val = regConstValue(reg2, is32);
      if (!isPow2(val)) break;
      if (is32) reg1.varOff = tnumWithSubreg(reg1.varOff, tnumOr(tnumSubreg(reg1.varOff), tnumConst(val)));
      else reg1.varOff = tnumOr(reg1.varOff, tnumConst(val));
      break;
    }
    case JSET_X: {
      if (!isRegConst(reg2, is32)) [reg1, reg2] = [reg2, reg1];
      if (!isRegConst(reg2, is32)) break;
      const val = regConstValue(reg2, is32);
      markUnbounded(reg1);
      if (is32) reg1.varOff = tnumWithSubreg(reg1.varOff, tnumAnd(tnumSubreg(reg1.varOff), tnumConst(~val & U64_MAX)));
      else reg1.varOff = tnumAnd(reg1.varOff, tnumConst(~val & U64_MAX));
      break;
    }
    case O.BPF_JLE:
      if (is32) {
        reg1.u32max = minB(reg1.u32max, reg2.u32max);
        reg2.u32min = maxB(reg1.u32min, reg2.u32min);
      } else {
        reg1.umax = minB(reg1.umax, reg2.umax);
        reg2.umin = maxB(reg1.umin, reg2.umin);
      }
      break;
    case O.BPF_JLT:
      if (is32) {
        reg1.u32max = minB(reg1.u32max, u32(reg2.u32max - 1n));
        reg2.u32min = maxB(u32(reg1.u32min + 1n), reg2.u32min);
      } else {
        reg1.umax = minB(reg1.umax, BigInt.asUintN(64, reg2.umax - 1n));
        reg2.umin = maxB(BigInt.asUintN(64, reg1.umin + 1n), reg2.umin);
      }
      break;
    case O.BPF_JSLE:
      if (is32) {
        reg1.s32max = minB(reg1.s32max, reg2.s32max);
        reg2.s32min = maxB(reg1.s32min, reg2.s32min);
      } else {
        reg1.smax = minB(reg1.smax, reg2.smax);
        reg2.smin = maxB(reg1.smin, reg2.smin);
      }
      break;
    case O.BPF_JSLT:
      if (is32) {
        reg1.s32max = minB(reg1.s32max, s32(reg2.s32max - 1n));
        reg2.s32min = maxB(s32(reg1.s32min + 1n), reg2.s32min);
      } else {
        reg1.smax = minB(reg1.smax, s64(reg2.smax - 1n));
        reg2.smin = maxB(s64(reg1.smin + 1n), reg2.smin);
      }
      break;
  }
}

/**
 * reg_set_min_max: refine both operands on both sides. When a side's bounds
 * come out contradictory the kernel does not call the branch dead: it logs a
 * "REG INVARIANTS VIOLATION", forgets that register's bounds (keeping its
 * tnum) and walks the branch anyway (reg_bounds_sanity_check), and so do we.
 */
function regSetMinMax(env: Env, tr1: Reg, tr2: Reg, fr1: Reg, fr2: Reg, op: number, is32: boolean): void {
  if (fr1.type !== 'scalar' || fr2.type !== 'scalar') return;
  regsRefineCondOp(fr1, fr2, revOpcode(op), is32);
  regBoundsSync(fr1);
  regBoundsSync(fr2);
  regsRefineCondOp(tr1, tr2, op, is32);
  regBoundsSync(tr1);
  regBoundsSync(tr2);
  regBoundsSanityCheck(env, tr1, 'true_reg1');
  regBoundsSanityCheck(env, tr2, 'true_reg2');
  regBoundsSanityCheck(env, fr1, 'false_reg1');
  regBoundsSanityCheck(env, fr2, 'false_reg2');
}

const hex = (v: bigint, bits: 32 | 64): string => '0x' + BigInt.asUintN(bits, v).toString(16);

/** reg_bounds_sanity_check without BPF_F_TEST_REG_INVARIANTS: report, then forget the bounds. */
function regBoundsSanityCheck(env: Env, r: Reg, ctx: string): void {
  const msg = regInvariantViolation(r);
  if (!msg) return;
  if (env.log.level) {
    env.verbose(
      `verifier bug: REG INVARIANTS VIOLATION (${ctx}): ${msg} u64=[${hex(r.umin, 64)}, ${hex(r.umax, 64)}] ` +
        `s64=[${hex(r.smin, 64)}, ${hex(r.smax, 64)}] u32=[${hex(r.u32min, 32)}, ${hex(r.u32max, 32)}] ` +
        `s32=[${hex(r.s32min, 32)}, ${hex(r.s32max, 32)}] var_off=(${hex(r.varOff.value, 64)}, ${hex(r.varOff.mask, 64)})\n`,
    );
  }
  markUnbounded(r);
}

/** Copy the refined bounds of `known` to every scalar sharing its id. */
function syncLinkedRegs(s: VState, known: Reg): void {
  if (known.type !== 'scalar' || !known.id) return;
  forEachReg(s, (r) => {
    if (r !== known && r.type === 'scalar' && r.id === known.id) {
      // A 32-bit delta link and a 64-bit one say nothing exact about each other.
      if (r.addConst && known.addConst && r.add32 !== known.add32) return;
      if ((!r.addConst && !known.addConst) || r.off === known.off) {
        // The same value: r becomes known, its link kind included.
        Object.assign(r, known, { precise: r.precise || known.precise });
        return;
      }
      const { off, add32, addConst } = r;
      const in32 = add32 || known.add32;
      Object.assign(r, known, { precise: r.precise || known.precise });
      // r = known + (r.off - known.off): in 64 bits for 64-bit links, else in 32 bits, zero-extended
      // (the base fits in 32 bits, so each member is zext(lo32(base) + off)).
      scalarAlu(O.BPF_ADD, in32, r, knownScalar(BigInt(off) - BigInt(known.off)));
      r.id = known.id;
      r.off = off;
      r.add32 = add32;
      r.addConst = addConst;
    }
  });
}

/** find_good_pkt_pointers */
function findGoodPktPointers(s: VState, dst: Reg, rightOpen: boolean): void {
  if (dst.off < 0 || (dst.off === 0 && rightOpen)) return;
  if (dst.umax > 0xffffn || dst.umax + BigInt(dst.off) > 0xffffn) return;
  let newRange = dst.off;
  if (rightOpen) newRange++;
  const type = dst.type;
  const id = dst.id;
  forEachReg(s, (r) => {
    if (r.type === type && r.id === id) r.range = Math.max(r.range, newRange);
  });
}

function markPktEnd(s: VState, regno: number, rangeOpen: boolean): void {
  const r = curFrame(s).regs[regno]!;
  if (r.type !== 'pkt') return;
  r.range = rangeOpen ? BEYOND_PKT_END : AT_PKT_END;
}

const isInitPkt = (r: Reg): boolean => r.type === 'pkt' && r.off === 0 && tnumIsConst(r.varOff) && r.varOff.value === 0n;

/** try_match_pkt_pointers; `thisS` falls through, `other` jumps. */
function tryMatchPktPointers(insn: Insn, dst: Reg, src: Reg, thisS: VState, other: VState): boolean {
  if (O.BPF_SRC(insn.code) !== O.BPF_X || O.BPF_CLASS(insn.code) === O.BPF_JMP32) return false;
  const dstFirst = (dst.type === 'pkt' && src.type === 'pkt_end') || (dst.type === 'pkt_meta' && isInitPkt(src));
  const srcFirst = (dst.type === 'pkt_end' && src.type === 'pkt') || (isInitPkt(dst) && src.type === 'pkt_meta');
  const od = (s: VState): Reg => curFrame(s).regs[insn.dst]!;
  const os = (s: VState): Reg => curFrame(s).regs[insn.src]!;
  switch (O.BPF_OP(insn.code)) {
    case O.BPF_JGT:
      if (dstFirst) {
        findGoodPktPointers(thisS, od(thisS), false);
        markPktEnd(other, insn.dst, true);
      } else if (srcFirst) {
        findGoodPktPointers(other, os(other), true);
        markPktEnd(thisS, insn.src, false);
      } else return false;
      return true;
    case O.BPF_JLT:
      if (dstFirst) {
        findGoodPktPointers(other, od(other), true);
        markPktEnd(thisS, insn.dst, false);
      } else if (srcFirst) {
        findGoodPktPointers(thisS, os(thisS), false);
        markPktEnd(other, insn.src, true);
      } else return false;
      return true;
    case O.BPF_JGE:
      if (dstFirst) {
        findGoodPktPointers(thisS, od(thisS), true);
        markPktEnd(other, insn.dst, false);
      } else if (srcFirst) {
        findGoodPktPointers(other, os(other), false);
        markPktEnd(thisS, insn.src, true);
      } else return false;
      return true;
    case O.BPF_JLE:
      if (dstFirst) {
        findGoodPktPointers(other, od(other), false);
        markPktEnd(thisS, insn.dst, true);
      } else if (srcFirst) {
        findGoodPktPointers(thisS, os(thisS), true);
        markPktEnd(other, insn.src, false);
      } else return false;
      return true;
    default:
      return false;
  }
}

/**
 * mark_ptr_or_null_reg: a non-null xskmap lookup result is the socket
 * itself; a non-null map-in-map lookup result is the inner map
 * (CONST_PTR_TO_MAP), typed by the outer map's inner_map_meta.
 */
function nonNullType(r: Reg, maps: Env['maps']): RegType {
  if (r.type === 'map_value_or_null' && maps[r.map]?.inner_map !== undefined) return 'map_ptr';
  if (r.type === 'sock_or_null') return 'sock';
  if (r.type === 'sock_common_or_null') return 'sock_common';
  if (r.type === 'ringbuf_mem_or_null') return 'ringbuf_mem';
  if (r.type === 'mem_or_null') return 'mem';
  if (r.type === 'rdonly_mem_or_null') return 'rdonly_mem';
  if (r.type === 'nf_conn_or_null') return 'nf_conn';
  if (r.type === 'nf_conn___init_or_null') return 'nf_conn___init';
  return r.type === 'xdp_sock_or_null' || maps[r.map]?.type === 'xskmap' ? 'xdp_sock' : 'map_value';
}

/** mark_ptr_or_null_regs: after `if (p == 0)`, every copy of p learns. */
function markPtrOrNullRegs(s: VState, id: number, isNull: boolean, maps: Env['maps']): void {
  // A reference that turned out null was never taken: drop it (release_reference_state).
  if (isNull && s.refs?.length) s.refs = s.refs.filter((ref) => ref.id !== id);
  forEachReg(s, (r) => {
    if (!mayBeNull(r.type) || r.id !== id) return;
    if (isNull) {
      Object.assign(r, knownScalar(0n));
      return;
    }
    const t = nonNullType(r, maps);
    // Which inner map it is is only known at run time: the verifier knows the template (kernel: map->inner_map_meta).
    if (t === 'map_ptr') r.map = maps[r.map]!.inner_map!;
    r.type = t;
    r.id = 0;
  });
}

export interface BranchOutcome {
  /** Continue at this index on the current path. */
  next: number;
  /** A second path to explore later (the taken side), if any. */
  push?: { state: VState; insnIdx: number };
}

export function checkCondJmpOp(env: Env, insn: Insn, idx: number): BranchOutcome {
  const op = O.BPF_OP(insn.code);
  const is32 = O.BPF_CLASS(insn.code) === O.BPF_JMP32;
  if (op > O.BPF_JSLE) env.reject(`invalid BPF_JMP/JMP32 opcode ${op.toString(16)}`);
  checkRegArg(env, insn.dst, 'src');
  let src: Reg;
  const srcX = O.BPF_SRC(insn.code) === O.BPF_X;
  if (srcX) {
    if (insn.imm !== 0) env.reject('BPF_JMP/JMP32 uses reserved fields');
    checkRegArg(env, insn.src, 'src');
    src = env.regs[insn.src]!;
    if (!env.allowPtrLeaks && !(isPktPointerAny(env.regs[insn.dst]!) && isPktPointerAny(src)) && isPointer(src)) {
      env.reject(`R${insn.src} pointer comparison prohibited`);
    }
  } else {
    if (insn.src !== 0) env.reject('BPF_JMP/JMP32 uses reserved fields');
    src = knownScalar(BigInt(insn.imm));
  }
  const dst = env.regs[insn.dst]!;
  const target = idx + insn.off + 1;
  const pred = isBranchTaken(dst, src, op, is32);
  if (pred >= 0) {
    // The path goes one way because of these values: they must stay what they are in the checkpoints behind.
    if (dst.type === 'scalar') markChainPrecision(env, insn.dst);
    if (srcX && src.type === 'scalar') markChainPrecision(env, insn.src);
  }
  if (pred === 1) {
    env.printInsnState();
    return { next: target };
  }
  if (pred === 0) {
    env.printInsnState();
    return { next: idx + 1 };
  }
  // Scalars sharing an id learn together from this branch: backtracking must want them together too.
  // Recorded before the copy, so both sides share it.
  if (env.precisionTracking) {
    const linked: LinkedReg[] = [];
    if (srcX && src.type === 'scalar' && src.id) collectLinkedRegs(env, env.cur, src.id, linked);
    if (dst.type === 'scalar' && dst.id) collectLinkedRegs(env, env.cur, dst.id, linked);
    if (linked.length > 1) pushJmpHistory(env, env.cur, 0, 0, 0, linked);
  }
  const other = cloneState(env.cur);
  const thisS = env.cur;
  const oregs = curFrame(other).regs;
  const regs = curFrame(thisS).regs;
  if (srcX) {
    regSetMinMax(env, oregs[insn.dst]!, oregs[insn.src]!, regs[insn.dst]!, regs[insn.src]!, op, is32);
  } else {
    regSetMinMax(env, oregs[insn.dst]!, copyReg(src), regs[insn.dst]!, copyReg(src), op, is32);
  }
  if (srcX && regs[insn.src]!.type === 'scalar' && regs[insn.src]!.id) {
    syncLinkedRegs(thisS, regs[insn.src]!);
    syncLinkedRegs(other, oregs[insn.src]!);
  }
  if (regs[insn.dst]!.type === 'scalar' && regs[insn.dst]!.id) {
    syncLinkedRegs(thisS, regs[insn.dst]!);
    syncLinkedRegs(other, oregs[insn.dst]!);
  }
  const d = regs[insn.dst]!;
  const sr = srcX ? regs[insn.src]! : src;
  if (!is32 && srcX && isPointer(sr) && isPointer(d) && mayBeNull(sr.type) !== mayBeNull(d.type)) {
    const eqRegs = op === O.BPF_JEQ ? oregs : op === O.BPF_JNE ? regs : null;
    if (eqRegs) {
      const which = mayBeNull(sr.type) ? insn.src : insn.dst;
      const r = eqRegs[which]!;
      r.type = nonNullType(r, env.maps);
    }
  }
  if (!is32 && !srcX && insn.imm === 0 && (op === O.BPF_JEQ || op === O.BPF_JNE) && mayBeNull(d.type)) {
    const id = d.id;
    markPtrOrNullRegs(thisS, id, op === O.BPF_JNE, env.maps);
    markPtrOrNullRegs(other, id, op === O.BPF_JEQ, env.maps);
  } else if (!tryMatchPktPointers(insn, d, regs[insn.src]!, thisS, other) && isPointer(d) && !env.allowPtrLeaks) {
    env.reject(`R${insn.dst} pointer comparison prohibited`);
  }
  env.branchLogPos = env.log.pos;
  env.printInsnState();
  return { next: idx + 1, push: { state: other, insnIdx: target } };
}

