/**
 * __builtin_* and __sync_* lowering: byte swaps, memcpy/memset expanded to
 * loads and stores of the widest width the alignment allows (as clang does
 * for BPF, which has no libc), atomics as BPF_ATOMIC instructions.
 */
import type { Expr } from '../ast';
import { T, sizeOf, type Type } from '../types';
import type { Addr, Val } from './frame';
import { constOf, sizeField, ptrAlign } from './tree';
import { ExprGen } from './expr';
import * as O from '../../isa/opcodes';

export abstract class BuiltinGen extends ExprGen {
  // ---- builtins --------------------------------------------------------------------
  protected override builtin(e: Expr & { k: 'builtin' }, discard: boolean): Val {
    const n = e.name;
    if (n === '__builtin_unreachable') return { k: 'imm', v: 0n };
    if (n === '__builtin_trap') {
      // BPF has no trap: clang's error comes only if the call survives optimisation (see finish()).
      this.emit(O.BPF_JMP | O.BPF_EXIT, 0, 0, 0, 0, { trap: true, pinned: true });
      return { k: 'imm', v: 0n };
    }
    if (n === '__builtin_constant_p') return { k: 'imm', v: this.evalStatic(e.args[0]!) !== undefined ? 1n : 0n };
    if (n.startsWith('__builtin_bswap')) {
      const bits = n.endsWith('16') ? 16 : n.endsWith('32') ? 32 : 64;
      const r = this.owned(this.expr(e.args[0]!), e.ty);
      this.emit(O.BPF_ALU | O.BPF_END | O.BPF_TO_BE, r.r, 0, 0, bits);
      return { ...r, zext: bits < 64, bits: bits < 64 ? bits : undefined };
    }
    if (n === '__builtin_memcpy' || n === '__builtin_memmove') {
      const size = this.blockSize(e);
      const src = this.pointerAddr(e.args[1]!);
      const dst = this.pointerAddr(e.args[0]!);
      const align = Math.min(knownAlign(src, ptrAlign(e.args[1]!)), knownAlign(dst, ptrAlign(e.args[0]!)), 8);
      if (n === '__builtin_memmove') this.moveMem({ ...dst, temp: false }, src, size, align);
      else this.copyMem({ ...dst, temp: false }, src, size, align);
      this.freeAddr(src);
      if (discard) { this.freeAddr(dst); return { k: 'imm', v: 0n }; }
      return this.addrToVal(dst);
    }
    if (n === '__builtin_memset') {
      const size = this.blockSize(e);
      const cv = constOf(e.args[1]!);
      const dst = this.pointerAddr(e.args[0]!);
      const align = Math.min(knownAlign(dst, ptrAlign(e.args[0]!)), 8);
      const base = this.baseReg(dst);
      let valReg: Val | undefined;
      // Zeroing the stack: clang stores a register holding 0 (`r1 = 0; *(u64 *)(r10 - 8) = r1`), and
      // the kernel then keeps each 8-byte slot as a spilled scalar, which one byte written later turns
      // wholly into plain data; stored as immediates the bytes stay STACK_ZERO one by one, and a loop
      // that writes the buffer a byte an iteration never repeats a state ("BPF program is too large").
      if (cv !== undefined && (cv & 0xffn) === 0n && dst.base === 'fp' && align >= 8) valReg = this.owned({ k: 'imm', v: 0n }, T.ulong);
      else if (cv === undefined || (cv & 0xffn) !== 0n) {
        const byte = cv !== undefined ? cv & 0xffn : undefined;
        if (byte !== undefined) valReg = this.owned({ k: 'imm', v: byte * 0x0101010101010101n }, T.ulong);
        else {
          const r = this.owned(this.expr(e.args[1]!), T.ulong, [base]);
          this.emit(O.BPF_ALU64 | O.BPF_AND | O.BPF_K, r.r, 0, 0, 0xff);
          this.emit(O.BPF_ALU64 | O.BPF_MUL | O.BPF_K, r.r, 0, 0, 0x01010101);
          const t = this.allocTemp([r.r, base]);
          this.emit(O.BPF_ALU64 | O.BPF_MOV | O.BPF_X, t, r.r);
          this.emit(O.BPF_ALU64 | O.BPF_LSH | O.BPF_K, t, 0, 0, 32);
          this.emit(O.BPF_ALU64 | O.BPF_OR | O.BPF_X, r.r, t);
          this.release({ k: 'reg', r: t, temp: true });
          valReg = r;
        }
      }
      let o = 0;
      while (o < size) {
        let w = Math.min(8, align);
        while (w > 1 && o + w > size) w >>= 1;
        if (valReg) this.emit(O.BPF_STX | O.BPF_MEM | sizeField(w), base, (valReg as { r: number }).r, dst.off + o);
        else this.emit(O.BPF_ST | O.BPF_MEM | sizeField(w), base, 0, dst.off + o, 0);
        o += w;
      }
      if (valReg) this.release(valReg);
      if (discard) { this.freeAddr(dst); return { k: 'imm', v: 0n }; }
      return this.addrToVal(dst);
    }
    if (n === '__builtin_memcmp') return this.memcmp(e);
    if (n.startsWith('__sync_')) return this.atomic(e, discard);
    this.fail(`builtin '${n}' is not supported`, e.span);
  }
  protected atomic(e: Expr & { k: 'builtin' }, discard: boolean): Val {
    const n = e.name;
    const vt = e.args[1]!.ty;
    const size = sizeOf((e.args[0]!.ty as { to: Type }).to);
    const is64 = size === 8;
    const code = O.BPF_STX | O.BPF_ATOMIC | sizeField(size);
    if (n === '__sync_val_compare_and_swap' || n === '__sync_bool_compare_and_swap') {
      if (this.regOwner[0] !== 'free') this.fail('expression too complex around a compare-and-swap', e.span, 'cc-out-of-registers');
      this.regOwner[0] = 'reserved';
      const a = this.pointerAddr(e.args[0]!);
      const exp = this.expr(e.args[1]!);
      this.regOwner[0] = 'free';
      this.moveTo(exp, 0, vt);
      this.regOwner[0] = 'reserved';
      this.release(exp);
      const nv = this.toReg(this.expr(e.args[2]!), vt);
      const expKeep = n === '__sync_bool_compare_and_swap' ? this.owned(this.expr(e.args[1]!), vt, [0]) : undefined;
      this.emit(code, this.baseReg(a), nv.r, a.off, O.BPF_CMPXCHG);
      this.release(nv);
      this.freeAddr(a);
      this.regOwner[0] = 'temp';
      if (expKeep) {
        const r = this.allocTemp([0]);
        const l = this.newLabel();
        this.emit(O.BPF_ALU | O.BPF_MOV | O.BPF_K, r, 0, 0, 1);
        this.emit((is64 ? O.BPF_JMP : O.BPF_JMP32) | O.BPF_JEQ | O.BPF_X, 0, expKeep.r, 0, 0, { label: l });
        this.emit(O.BPF_ALU | O.BPF_MOV | O.BPF_K, r, 0, 0, 0);
        this.place(l);
        this.release(expKeep);
        this.release({ k: 'reg', r: 0, temp: true });
        return { k: 'reg', r, temp: true, zext: true };
      }
      return { k: 'reg', r: 0, temp: true, zext: !is64 };
    }
    const kind = n.replace('__sync_', '').replace('fetch_and_', '').replace('_and_fetch', '');
    const fetchFirst = n.includes('fetch_and_') || n === '__sync_lock_test_and_set';
    const opOf: Record<string, number> = { add: O.BPF_ADD, sub: O.BPF_ADD, or: O.BPF_OR, and: O.BPF_AND, xor: O.BPF_XOR, lock_test: O.BPF_XCHG };
    const aop = n === '__sync_lock_test_and_set' ? O.BPF_XCHG : opOf[kind];
    if (aop === undefined) this.fail(`builtin '${n}' is not supported`, e.span);
    const a = this.pointerAddr(e.args[0]!);
    let v = this.expr(e.args[1]!);
    const r = this.owned(v, vt, a.base === 'reg' ? [a.reg!] : []);
    v = r;
    if (kind === 'sub') this.emit((is64 ? O.BPF_ALU64 : O.BPF_ALU) | O.BPF_NEG, r.r);
    const needValue = !discard;
    let keep: (Val & { k: 'reg' }) | undefined;
    if (needValue && !fetchFirst) keep = this.owned({ ...r, temp: false }, vt, a.base === 'reg' ? [a.reg!, r.r] : [r.r]);
    const fetch = needValue || aop === O.BPF_XCHG ? O.BPF_FETCH : 0;
    this.emit(code, this.baseReg(a), r.r, a.off, aop === O.BPF_XCHG ? O.BPF_XCHG : aop | fetch);
    this.freeAddr(a);
    if (!needValue) { this.release(r); return { k: 'imm', v: 0n }; }
    if (keep) {
      // op_and_fetch: the new value is old op operand.
      const alu = ({ [O.BPF_ADD]: O.BPF_ADD, [O.BPF_OR]: O.BPF_OR, [O.BPF_AND]: O.BPF_AND, [O.BPF_XOR]: O.BPF_XOR } as Record<number, number>)[aop]!;
      this.emit((is64 ? O.BPF_ALU64 : O.BPF_ALU) | alu | O.BPF_X, r.r, keep.r);
      this.release(keep);
    }
    return { ...r, zext: !is64 };
  }

  /** The size of a memcpy/memset/memcmp: constant once inlining has bound the arguments, as clang needs it. */
  private blockSize(e: Expr & { k: 'builtin' }): number {
    const v = this.evalStatic(e.args[2]!);
    if (v === undefined) this.fail(`${e.name}: the size must be a compile-time constant on BPF (BPF has no libc to call)`, e.args[2]!.span, 'cc-builtin-size');
    if (v > 4096n) this.fail(`${e.name}: ${v} bytes is too large to expand inline`, e.args[2]!.span, 'cc-builtin-size');
    return Number(v);
  }

  /**
   * memcmp(a, b, n) with n constant: byte by byte, as clang expands it for
   * BPF — the result is the difference of the first unequal bytes, 0 when
   * all n are equal.
   */
  private memcmp(e: Expr & { k: 'builtin' }): Val {
    const size = this.blockSize(e);
    const pa = this.pointerAddr(e.args[0]!);
    const keepA = { ...pa, temp: false };
    const pb = this.pointerAddr(e.args[1]!);
    const keepB = { ...pb, temp: false };
    const res = this.allocTemp([this.baseReg(keepA), this.baseReg(keepB)]);
    const end = this.newLabel();
    this.emit(O.BPF_ALU64 | O.BPF_MOV | O.BPF_K, res, 0, 0, 0);
    for (let i = 0; i < size; i++) {
      const x = this.load({ ...keepA, off: keepA.off + i }, T.uchar) as Val & { k: 'reg' };
      const y = this.load({ ...keepB, off: keepB.off + i }, T.uchar) as Val & { k: 'reg' };
      this.emit(O.BPF_ALU64 | O.BPF_MOV | O.BPF_X, res, x.r);
      this.emit(O.BPF_ALU64 | O.BPF_SUB | O.BPF_X, res, y.r);
      this.release(x);
      this.release(y);
      this.emit(O.BPF_JMP | O.BPF_JNE | O.BPF_K, res, 0, 0, 0, { label: end });
    }
    this.place(end);
    this.freeAddr(pa);
    this.freeAddr(pb);
    return { k: 'reg', r: res, temp: true, zext: false };
  }
}

/**
 * The alignment a memory block's address is known to have: a stack
 * address's from its frame offset (exact, and clang raises a stack
 * object's alignment to widen a copy), anything else the pointer type's
 * (fromType).
 */
function knownAlign(a: Addr, fromType: number): number {
  if (a.base !== 'fp') return fromType;
  const off = Math.abs(a.off);
  return off === 0 ? 8 : Math.min(8, off & -off);
}
