/**
 * ALU instructions (the kernel's check_alu_op and adjust_*_min_max_vals):
 * operand checks, moves (with scalar ids and sign extension), scalar range
 * arithmetic, and which pointer arithmetic is allowed — with the kernel's
 * words when it is not.
 */
import { markChainPrecision } from './precision';
import * as O from '../isa/opcodes';
import type { Insn } from '../isa/insn';
import { Reject, type Env } from './env';
import { assignScalarIdBeforeMov, BPF_MAX_VAR_OFF, checkMapAccess } from './mem';
import {
  copyReg,
  isPktPointer,
  isPointer,
  knownScalar,
  markKnown,
  mark32Unbounded,
  markUnknown,
  mayBeNull,
  S64_MAX,
  S64_MIN,
  S32_MAX,
  S32_MIN,
  type Reg,
  type RegType,
} from './reg';
import {
  coerceRegToSizeSx,
  coerceSubregToSizeSx,
  regBoundsSync,
  scalarAlu,
  zext32To64,
} from './scalar';
import { tnumAdd, tnumConst, tnumIsConst, tnumStr, tnumSub, tnumSubregIsConst, tnumWithSubreg, U32_MAX, U64_MAX, s64 } from './tnum';
import { cloneState, curFrame, type VState } from './state';
import { checkRegArg } from './regarg';

const ALU_STR = ['+=', '-=', '*=', '/=', '|=', '&=', '<<=', '>>=', 'neg', '%=', '^=', '=', 's>>=', 'endian'];

function regTypeStr(t: RegType): string {
  return t;
}

/** check_reg_sane_offset */
function checkRegSaneOffset(env: Env, reg: Reg, type: RegType): boolean {
  const known = tnumIsConst(reg.varOff);
  const val = s64(reg.varOff.value);
  const smin = reg.smin;
  const M = BigInt(BPF_MAX_VAR_OFF);
  if (known && (val >= M || val <= -M)) {
    env.verboseErr(`math between ${regTypeStr(type)} pointer and ${val} is not allowed`);
    return false;
  }
  if (reg.off >= BPF_MAX_VAR_OFF || reg.off <= -BPF_MAX_VAR_OFF) {
    env.verboseErr(`${regTypeStr(type)} pointer offset ${reg.off} is not allowed`);
    return false;
  }
  if (smin === S64_MIN) {
    env.verboseErr(`math between ${regTypeStr(type)} pointer and register with unbounded min value is not allowed`);
    return false;
  }
  if (smin >= M || smin <= -M) {
    env.verboseErr(`value ${smin} makes ${regTypeStr(type)} pointer be out of bounds`);
    return false;
  }
  return true;
}

/** The same limits on the pointer a computation produced (6.18 words it by offset). */
function checkResultSaneOffset(env: Env, reg: Reg, type: RegType): boolean {
  const M = BigInt(BPF_MAX_VAR_OFF);
  if (reg.off >= BPF_MAX_VAR_OFF || reg.off <= -BPF_MAX_VAR_OFF) {
    env.verboseErr(`${regTypeStr(type)} pointer offset ${reg.off} is not allowed`);
    return false;
  }
  if (reg.smin === S64_MIN) {
    env.verboseErr(`math between ${regTypeStr(type)} pointer and register with unbounded min value is not allowed`);
    return false;
  }
  if (reg.smin >= M || reg.smin <= -M) {
    env.verboseErr(`${regTypeStr(type)} pointer offset ${reg.smin} is not allowed`);
    return false;
  }
  return true;
}

const addOv = (a: bigint, b: bigint): boolean => s64(a + b) !== a + b;
const subOv = (a: bigint, b: bigint): boolean => s64(a - b) !== a - b;

const SANITIZE_ERR = 'pointer arithmetic with it prohibited for !root';

/**
 * sanitize_ptr_alu, its first pass (before the operation): without bypass_spec_v1 (no CAP_PERFMON) the
 * kernel masks a pointer moved by a register against Spectre v1, so the offset must have one sign, the
 * pointer must be a stack or map value pointer (the kinds with a limit to mask against) and still inside
 * that limit. Not modelled: the second pass's masking window (REASON_PATHS when two paths need different
 * masks at one instruction) and the speculative path it pushes.
 */
function sanitizePtrAlu(env: Env, insn: Insn, ptr: Reg, off: Reg, offIsDst: boolean): void {
  if (env.bypassSpec || O.BPF_SRC(insn.code) !== O.BPF_X) return;
  const op = O.BPF_OP(insn.code);
  if (!tnumIsConst(off.varOff) && off.smin < 0n !== off.smax < 0n) env.reject(`R${offIsDst ? insn.dst : insn.src} has unknown scalar with mixed signed bounds, ${SANITIZE_ERR}`);
  const offIsNeg = off.smin < 0n;
  const maskToLeft = (op === O.BPF_ADD && offIsNeg) || (op === O.BPF_SUB && !offIsNeg);
  let max: bigint;
  let limit: bigint;
  if (ptr.type === 'fp') {
    max = 512n + (maskToLeft ? 1n : 0n);
    limit = -(ptr.varOff.value + BigInt(ptr.off));
  } else if (ptr.type === 'map_value') {
    max = BigInt(env.maps[ptr.map]?.value_size ?? 0);
    limit = (maskToLeft ? ptr.smin : ptr.umax) + BigInt(ptr.off);
  } else env.reject(`R${offIsDst ? insn.src : insn.dst} has pointer with unsupported alu operation, ${SANITIZE_ERR}`);
  // ptr_limit is a u32.
  if (BigInt.asUintN(32, limit) >= max) env.reject(`R${insn.dst} tried to ${op === O.BPF_ADD ? 'add' : 'sub'} beyond pointer bounds, ${SANITIZE_ERR}`);
}

/**
 * adjust_ptr_min_max_vals: dst = ptr OP off. `dst` is the register being
 * written (it may be the scalar operand for scalar += pointer).
 */
function adjustPtrMinMaxVals(env: Env, insn: Insn, ptr: Reg, offReg: Reg, dstIsOff: boolean): void {
  const dstno = insn.dst;
  const op = O.BPF_OP(insn.code);
  const known = tnumIsConst(offReg.varOff);
  const sminVal = offReg.smin;
  const smaxVal = offReg.smax;
  const uminVal = offReg.umin;
  const umaxVal = offReg.umax;
  const dst = env.regs[dstno]!;
  if ((known && (sminVal !== smaxVal || uminVal !== umaxVal)) || sminVal > smaxVal || uminVal > umaxVal) {
    markUnknown(dst);
    return;
  }
  if (O.BPF_CLASS(insn.code) !== O.BPF_ALU64) {
    if (op === O.BPF_SUB && env.allowPtrLeaks) {
      markUnknown(dst);
      return;
    }
    env.reject(`R${dstno} 32-bit pointer arithmetic prohibited`);
  }
  if (mayBeNull(ptr.type)) {
    env.reject(`R${dstno} pointer arithmetic on ${regTypeStr(ptr.type)} prohibited, null-check it first`);
  }
  switch (ptr.type) {
    case 'ctx':
    case 'map_value':
    case 'ringbuf_mem':
    case 'mem':
    case 'rdonly_mem':
    case 'fp':
    case 'pkt_meta':
    case 'pkt':
      break;
    default:
      if (ptr.type === 'map_ptr' && known && sminVal === 0n && op === O.BPF_ADD) break;
      env.reject(`R${dstno} pointer arithmetic on ${regTypeStr(ptr.type)} prohibited`);
  }
  const p = copyReg(ptr);
  const out = copyReg(dst);
  out.type = p.type;
  out.id = p.id;
  if (!checkRegSaneOffset(env, offReg, p.type) || !checkRegSaneOffset(env, p, p.type)) throw env.rejectSilently();
  const res: Reg = { ...p, type: p.type, id: p.id };
  // The at/beyond-pkt_end markers describe only the register compared.
  if (res.range < 0) res.range = 0;
  mark32Unbounded(res);
  if (op === O.BPF_ADD || op === O.BPF_SUB) sanitizePtrAlu(env, insn, p, offReg, dstIsOff);
  switch (op) {
    case O.BPF_ADD:
      if (known && BigInt(p.off) + sminVal === BigInt.asIntN(32, BigInt(p.off) + sminVal)) {
        res.off = p.off + Number(sminVal);
        break;
      }
      if (addOv(p.smin, sminVal) || addOv(p.smax, smaxVal)) {
        res.smin = S64_MIN;
        res.smax = S64_MAX;
      } else {
        res.smin = p.smin + sminVal;
        res.smax = p.smax + smaxVal;
      }
      if (p.umin + uminVal > U64_MAX || p.umax + umaxVal > U64_MAX) {
        res.umin = 0n;
        res.umax = U64_MAX;
      } else {
        res.umin = p.umin + uminVal;
        res.umax = p.umax + umaxVal;
      }
      res.varOff = tnumAdd(p.varOff, offReg.varOff);
      if (isPktPointer(p)) {
        res.id = ++env.idGen;
        res.range = 0;
      }
      break;
    case O.BPF_SUB:
      if (dstIsOff) env.reject(`R${dstno} tried to subtract pointer from scalar`);
      if (p.type === 'fp') env.reject(`R${dstno} subtraction from stack pointer prohibited`);
      if (known && BigInt(p.off) - sminVal === BigInt.asIntN(32, BigInt(p.off) - sminVal)) {
        res.off = p.off - Number(sminVal);
        break;
      }
      if (subOv(p.smin, smaxVal) || subOv(p.smax, sminVal)) {
        res.smin = S64_MIN;
        res.smax = S64_MAX;
      } else {
        res.smin = p.smin - smaxVal;
        res.smax = p.smax - sminVal;
      }
      if (p.umin < umaxVal) {
        res.umin = 0n;
        res.umax = U64_MAX;
      } else {
        res.umin = p.umin - umaxVal;
        res.umax = p.umax - uminVal;
      }
      res.varOff = tnumSub(p.varOff, offReg.varOff);
      if (isPktPointer(p)) {
        res.id = ++env.idGen;
        if (sminVal < 0n) res.range = 0;
      }
      break;
    case O.BPF_AND:
    case O.BPF_OR:
    case O.BPF_XOR:
      return env.reject(`R${dstno} bitwise operator ${ALU_STR[op >> 4]} on pointer prohibited`);
    default:
      env.reject(`R${dstno} pointer arithmetic with ${ALU_STR[op >> 4]} operator prohibited`);
  }
  if (!checkResultSaneOffset(env, res, p.type)) throw env.rejectSilently();
  regBoundsSync(res);
  env.regs[dstno] = res;
  sanitizeCheckBounds(env, dstno, res);
}

/**
 * sanitize_check_bounds: without bypass_spec_v1 a stack or map value pointer must stay where an access through
 * it could be masked: a stack pointer at a constant offset inside the frame, a map value pointer inside the value.
 */
function sanitizeCheckBounds(env: Env, dstno: number, r: Reg): void {
  if (env.bypassSpec) return;
  if (r.type === 'fp') {
    const off = r.off + Number(s64(r.varOff.value));
    if (!tnumIsConst(r.varOff)) env.reject(`R${dstno} variable stack access prohibited for !root, var_off=${tnumStr(r.varOff)} off=${off}`);
    if (off >= 0 || off < -512) env.reject(`R${dstno} stack pointer arithmetic goes out of range, prohibited for !root; off=${off}`);
  } else if (r.type === 'map_value') {
    try {
      checkMapAccess(env, dstno, r.off, 1, false);
    } catch (e) {
      // check_map_access's complaint comes first (the error line), then this one.
      if (e instanceof Reject) env.verbose(`R${dstno} pointer arithmetic of map value goes out of range, prohibited for !root\n`);
      throw e;
    }
  }
}

/** adjust_reg_min_max_vals */
function adjustRegMinMaxVals(env: Env, insn: Insn): void {
  const regs = env.regs;
  const dst = regs[insn.dst]!;
  const op = O.BPF_OP(insn.code);
  const alu32 = O.BPF_CLASS(insn.code) !== O.BPF_ALU64;
  let src: Reg;
  if (O.BPF_SRC(insn.code) === O.BPF_X) {
    src = regs[insn.src]!;
    if (isPointer(src)) {
      if (isPointer(dst)) {
        if (op === O.BPF_SUB && env.allowPtrLeaks) {
          markUnknown(dst);
          return;
        }
        env.reject(`R${insn.dst} pointer ${ALU_STR[op >> 4]} pointer prohibited`);
      }
      // scalar OP pointer: the result is computed as pointer OP scalar; the scalar's value moves the pointer.
      markChainPrecision(env, insn.dst);
      adjustPtrMinMaxVals(env, insn, src, copyReg(dst), true);
      return;
    } else if (isPointer(dst)) {
      markChainPrecision(env, insn.src);
      adjustPtrMinMaxVals(env, insn, dst, copyReg(src), false);
      return;
    }
    src = copyReg(src);
  } else {
    src = knownScalar(BigInt(insn.imm));
    if (isPointer(dst)) {
      adjustPtrMinMaxVals(env, insn, dst, src, false);
      return;
    }
  }
  if (dst.type !== 'scalar') {
    // Not reached: check_reg_arg refused an uninitialised dst already.
    markUnknown(dst);
    return;
  }
  // Linked scalars with a constant delta (the kernel's BPF_ADD_CONST): after r1 = r0; r1 += 4,
  // r1 keeps r0's id and off = 4, so a bound learned on either later moves to the other
  // (sync_linked_regs). Only 64-bit adds and subtracts of a constant that fits s32, and only once:
  // a second delta on the same register breaks the link. addConst is the BPF_ADD_CONST mark (set by
  // += 0 too: a +0 link is not a plain copy for pruning, and the kernel prints it "id=N+0").
  //
  // In 32 bits (BPF_ADD_CONST32: w1 = w0; w1 += 4) only when the base fits in 32 bits (dst has no
  // delta yet, so it is the base itself, and umax <= U32_MAX): then every link of the group is
  // zext(lo32(base) + its off), the plain ones with off 0, and bounds move between them by a
  // 32-bit add. A group never mixes the two kinds usefully: sync skips a 32-bit/64-bit pair.
  let linkOff = 0;
  let keepId = false;
  let add32 = false;
  if (env.allowPtrLeaks && (op === O.BPF_ADD || op === O.BPF_SUB) && dst.id && !dst.addConst) {
    if (!alu32 && tnumIsConst(src.varOff)) {
      let v = s64(src.varOff.value);
      if (op === O.BPF_SUB) v = -v;
      if (v >= S32_MIN && v <= S32_MAX) {
        keepId = true;
        linkOff = Number(v);
      }
    } else if (alu32 && tnumSubregIsConst(src.varOff) && dst.umax <= U32_MAX) {
      let v = BigInt.asIntN(32, src.varOff.value);
      if (op === O.BPF_SUB) v = -v;
      if (v >= S32_MIN && v <= S32_MAX) {
        keepId = true;
        linkOff = Number(v);
        add32 = true;
      }
    }
  }
  const id = dst.id;
  scalarAlu(op, alu32, dst, src);
  // Otherwise the result is a new value: break links with registers it was copied from.
  dst.id = keepId ? id : 0;
  dst.off = keepId ? linkOff : 0;
  dst.add32 = add32;
  dst.addConst = keepId;
}

function bswap(v: bigint, bytes: number): bigint {
  let out = 0n;
  for (let i = 0; i < bytes; i++) out = (out << 8n) | ((v >> BigInt(8 * i)) & 0xffn);
  return out;
}

/**
 * scalar_byte_swap: the known bits travel with their bytes (tnum_bswapN on a
 * little-endian machine: bswap and be swap, le only truncates), and the
 * bounds are recomputed from them; the result is zero-extended from N bits.
 */
function scalarByteSwap(dst: Reg, bits: number, swap: boolean): void {
  const bytes = bits / 8;
  const t = dst.varOff;
  const keep = bits === 64 ? U64_MAX : (1n << BigInt(bits)) - 1n;
  const varOff = swap ? { value: bswap(t.value, bytes), mask: bswap(t.mask, bytes) } : { value: t.value & keep, mask: t.mask & keep };
  markUnknown(dst);
  dst.varOff = varOff;
  regBoundsSync(dst);
}

/** check_alu_op */
export function checkAluOp(env: Env, insn: Insn): void {
  const op = O.BPF_OP(insn.code);
  const cls = O.BPF_CLASS(insn.code);
  const is64 = cls === O.BPF_ALU64;
  const srcX = O.BPF_SRC(insn.code) === O.BPF_X;
  if (op === O.BPF_END || op === O.BPF_NEG) {
    if (op === O.BPF_NEG) {
      if (O.BPF_SRC(insn.code) !== O.BPF_K || insn.src !== 0 || insn.off !== 0 || insn.imm !== 0) {
        env.reject('BPF_NEG uses reserved fields');
      }
    } else if (
      insn.src !== 0 ||
      insn.off !== 0 ||
      (insn.imm !== 16 && insn.imm !== 32 && insn.imm !== 64) ||
      (is64 && O.BPF_SRC(insn.code) !== O.BPF_TO_LE)
    ) {
      env.reject('BPF_END uses reserved fields');
    }
    checkRegArg(env, insn.dst, 'src');
    if (isPointer(env.regs[insn.dst]!) && !env.allowPtrLeaks) {
      env.reject(`R${insn.dst} pointer arithmetic prohibited`);
    }
    checkRegArg(env, insn.dst, 'dst_no_mark');
    const dst = env.regs[insn.dst]!;
    if (op === O.BPF_NEG && dst.type === 'scalar') {
      scalarAlu(O.BPF_NEG, !is64, dst, knownScalar(0n));
      dst.id = 0;
    } else if (op === O.BPF_END && dst.type === 'scalar') {
      scalarByteSwap(dst, insn.imm, is64 || O.BPF_SRC(insn.code) === O.BPF_TO_BE);
    } else {
      markUnknown(dst);
    }
    env.markRegScratched(insn.dst);
    return;
  }
  if (op === O.BPF_MOV) {
    if (srcX) {
      if (cls === O.BPF_ALU) {
        if ((insn.off !== 0 && insn.off !== 8 && insn.off !== 16) || insn.imm) env.reject('BPF_MOV uses reserved fields');
      } else if ((insn.off !== 0 && insn.off !== 8 && insn.off !== 16 && insn.off !== 32) || insn.imm) {
        env.reject('BPF_MOV uses reserved fields');
      }
      checkRegArg(env, insn.src, 'src');
    } else if (insn.src !== 0 || insn.off !== 0) {
      env.reject('BPF_MOV uses reserved fields');
    }
    checkRegArg(env, insn.dst, 'dst_no_mark');
    const regs = env.regs;
    if (srcX) {
      const src = regs[insn.src]!;
      if (is64) {
        if (insn.off === 0) {
          assignScalarIdBeforeMov(env, src);
          regs[insn.dst] = copyReg(src);
        } else if (isPointer(src)) {
          if (!env.allowPtrLeaks) env.reject(`R${insn.src} sign-extension part of pointer`);
          markUnknown(regs[insn.dst]!);
        } else {
          const noSext = src.umax < 1n << BigInt(insn.off - 1);
          if (noSext) assignScalarIdBeforeMov(env, src);
          const d = copyReg(src);
          if (!noSext) d.id = 0;
          coerceRegToSizeSx(d, insn.off >> 3);
          regs[insn.dst] = d;
        }
      } else {
        if (isPointer(src)) {
          if (!env.allowPtrLeaks) env.reject(`R${insn.src} partial copy of pointer`);
          regs[insn.dst] = knownScalar(0n);
          markUnknown(regs[insn.dst]!);
        } else if (insn.off === 0) {
          const isU32 = src.umax <= 0xffffffffn;
          if (isU32) assignScalarIdBeforeMov(env, src);
          const d = copyReg(src);
          if (!isU32) d.id = 0;
          regs[insn.dst] = d;
        } else {
          const noSext = src.umax < 1n << BigInt(insn.off - 1);
          if (noSext) assignScalarIdBeforeMov(env, src);
          const d = copyReg(src);
          if (!noSext) d.id = 0;
          coerceSubregToSizeSx(d, insn.off >> 3);
          regs[insn.dst] = d;
        }
        const d = regs[insn.dst]!;
        zext32To64(d);
        regBoundsSync(d);
      }
    } else {
      regs[insn.dst] = knownScalar(is64 ? BigInt(insn.imm) : BigInt(insn.imm >>> 0));
    }
    env.markRegScratched(insn.dst);
    if (srcX) env.markRegScratched(insn.src);
    return;
  }
  if (op > O.BPF_END) env.reject(`invalid BPF_ALU opcode ${op.toString(16)}`);
  // Binary operations.
  if (srcX) {
    if (insn.imm !== 0 || (insn.off > 1 || insn.off < 0) || (insn.off === 1 && op !== O.BPF_MOD && op !== O.BPF_DIV)) {
      env.reject('BPF_ALU uses reserved fields');
    }
    checkRegArg(env, insn.src, 'src');
  } else if (insn.src !== 0 || (insn.off > 1 || insn.off < 0) || (insn.off === 1 && op !== O.BPF_MOD && op !== O.BPF_DIV)) {
    env.reject('BPF_ALU uses reserved fields');
  }
  checkRegArg(env, insn.dst, 'src');
  if ((op === O.BPF_MOD || op === O.BPF_DIV) && !srcX && insn.imm === 0) env.reject('div by zero');
  if ((op === O.BPF_LSH || op === O.BPF_RSH || op === O.BPF_ARSH) && !srcX) {
    const size = is64 ? 64 : 32;
    if (insn.imm < 0 || insn.imm >= size) env.reject(`invalid shift ${insn.imm}`);
  }
  checkRegArg(env, insn.dst, 'dst_no_mark');
  adjustRegMinMaxVals(env, insn);
  env.markRegScratched(insn.dst);
  if (srcX) env.markRegScratched(insn.src);
}

export { zext32To64 };

/**
 * maybe_fork_scalars: `w2 s>>= 31; w2 &= K` (LLVM's select-by-sign-mask) leaves a register that is
 * exactly 0 or -1 before the AND/OR; a range cannot say "0 or K" afterwards, so the kernel splits
 * the path: this one goes on with the register -1, the returned state redoes the instruction with 0.
 * The two values are all the range holds, so nothing is lost (sound) and each side is exact.
 */
export function maybeForkScalars(env: Env, insn: Insn): VState | null {
  const op = O.BPF_OP(insn.code);
  if (op !== O.BPF_AND && op !== O.BPF_OR) return null;
  const dst = env.regs[insn.dst];
  if (!dst || dst.type !== 'scalar') return null;
  if (O.BPF_SRC(insn.code) === O.BPF_X) {
    const src = env.regs[insn.src];
    if (!src || src.type !== 'scalar' || !tnumIsConst(src.varOff)) return null;
  }
  let alu32: boolean;
  if (dst.smin === -1n && dst.smax === 0n) alu32 = false;
  else if (dst.s32min === -1n && dst.s32max === 0n) alu32 = true;
  else return null;
  const branch = cloneState(env.cur);
  const other = curFrame(branch).regs[insn.dst]!;
  const mark = (r: Reg, v: bigint): void => {
    if (alu32) {
      // __mark_reg32_known: only the low half becomes known.
      r.varOff = tnumWithSubreg(r.varOff, tnumConst(v & 0xffffffffn));
      r.s32min = r.s32max = BigInt.asIntN(32, v);
      r.u32min = r.u32max = BigInt.asUintN(32, v);
      regBoundsSync(r);
    } else {
      markKnown(r, v);
      r.id = 0;
      r.off = 0;
    }
  };
  mark(other, 0n);
  mark(dst, -1n);
  return branch;
}
