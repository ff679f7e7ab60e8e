/**
 * Stack liveness as the verifier observes it (the kernel's 6.18
 * kernel/bpf/liveness.c): while paths are explored, every stack read and
 * every whole-slot write is recorded per instruction, per call chain and per
 * frame; a backward data flow over the function's instructions then says,
 * before each instruction, which slots a later read may still see. A
 * checkpoint whose exploration is complete is cleaned once with it
 * (./prune.ts): slots no explored path read again become invalid, so later
 * paths are compared only on what was actually used.
 *
 * It answers for the paths explored so far, which is what the kernel relies
 * on: when a checkpoint has no branches left, every path below it has
 * recorded its reads. ./stack_liveness.ts is the static bound used
 * alongside (it covers checkpoints still being explored).
 *
 *   live_before(i) = (live_after(i) - must_write(i)) | may_read(i)
 *   live_after(i)  = union of live_before(s), s a successor of i
 *
 * may_read only grows; must_write is the intersection over the visits of
 * an instruction (a slot it did not write on some path is not written).
 * What a callee's entry reads and surely writes of its callers' frames is
 * carried to the call instruction of the caller's chain.
 */
import type { Insn } from '../isa/insn';
import { successors } from './cfg';
import type { VState } from './state';

const MAX_FRAMES = 8;

/** Per frame of one call chain, per instruction of its function: 64-slot masks as lo/hi 32-bit halves. */
class FrameMasks {
  readonly mayRead: Int32Array;
  readonly mustWrite: Int32Array;
  readonly mustWriteAcc: Int32Array;
  readonly live: Int32Array;
  constructor(n: number) {
    this.mayRead = new Int32Array(2 * n);
    this.mustWrite = new Int32Array(2 * n);
    this.mustWriteAcc = new Int32Array(2 * n);
    this.live = new Int32Array(2 * n);
  }
}

/** One function reached through one call chain (func_instance). */
class Instance {
  readonly frames: (FrameMasks | null)[] = [];
  readonly mustWriteSet: Uint8Array;
  updated = false;
  mustWriteDropped = false;
  constructor(
    readonly key: string,
    /** Per frame: the call instruction into the next frame; the last is this function's first insn. */
    readonly callsites: readonly number[],
    readonly start: number,
    readonly end: number,
  ) {
    this.mustWriteSet = new Uint8Array(end - start);
  }
  get curframe(): number {
    return this.callsites.length - 1;
  }
  masks(frame: number): FrameMasks {
    let m = this.frames[frame];
    if (!m) m = this.frames[frame] = new FrameMasks(this.end - this.start);
    return m;
  }
}

export class LiveStack {
  private readonly instances = new Map<string, Instance>();
  private cur: Instance | null = null;
  private writeInsn = -1;
  private readonly writeLo = new Int32Array(MAX_FRAMES);
  private readonly writeHi = new Int32Array(MAX_FRAMES);

  /** Each instruction's fall-through and branch successors (-1: none), found once: the fixpoint revisits them often. */
  private readonly fall: Int32Array;
  private readonly branch: Int32Array;

  constructor(
    private readonly insns: readonly Insn[],
    /** First instruction of each function, sorted. */
    private readonly subprogs: readonly number[],
  ) {
    this.fall = new Int32Array(insns.length);
    this.branch = new Int32Array(insns.length);
    for (let t = 0; t < insns.length; t++) {
      const s = successors(insns, t);
      this.fall[t] = s.fall ?? -1;
      this.branch[t] = s.branch ?? -1;
    }
  }

  /** The function [start, end) containing insn. */
  private bounds(insn: number): [number, number] {
    let i = 0;
    while (i + 1 < this.subprogs.length && this.subprogs[i + 1]! <= insn) i++;
    return [this.subprogs[i]!, this.subprogs[i + 1] ?? this.insns.length];
  }

  /** The instance of st's call chain up to frame `frameno` (compute_callchain). */
  instanceOf(st: VState, frameno: number): Instance {
    const callsites: number[] = [];
    for (let i = 0; i < frameno; i++) callsites.push(st.frames[i + 1]!.callsite);
    const start = st.frames[frameno]!.subprogStart;
    callsites.push(start);
    return this.lookup(callsites);
  }

  private lookup(callsites: number[]): Instance {
    const key = callsites.join(',');
    let inst = this.instances.get(key);
    if (!inst) {
      const [start, end] = this.bounds(callsites[callsites.length - 1]!);
      inst = new Instance(key, callsites, start, end);
      this.instances.set(key, inst);
    }
    return inst;
  }

  /** The current path entered or left a function (bpf_reset_live_stack_callchain). */
  resetCallchain(): void {
    this.cur = null;
  }

  private ensureCur(st: VState): Instance {
    if (!this.cur) this.cur = this.instanceOf(st, st.frames.length - 1);
    return this.cur;
  }

  /** bpf_mark_stack_read: instruction insn may read slot spi of frame `frame`. */
  markRead(st: VState, frame: number, insn: number, spi: number): void {
    if (spi < 0 || spi >= 64) return;
    this.markReadMask(this.ensureCur(st), frame, insn, spi < 32 ? 1 << spi : 0, spi < 32 ? 0 : 1 << (spi - 32));
  }

  private markReadMask(inst: Instance, frame: number, insn: number, lo: number, hi: number): void {
    const m = inst.masks(frame);
    const k = 2 * (insn - inst.start);
    const nLo = m.mayRead[k]! | lo;
    const nHi = m.mayRead[k + 1]! | hi;
    if ((nLo !== m.mayRead[k] || nHi !== m.mayRead[k + 1]) && ((nLo | m.live[k]!) !== m.live[k] || (nHi | m.live[k + 1]!) !== m.live[k + 1])) {
      inst.updated = true;
    }
    m.mayRead[k] = nLo;
    m.mayRead[k + 1] = nHi;
  }

  /** Before an instruction: its whole-slot writes are collected until commitWrites. */
  resetWrites(st: VState, insn: number): void {
    this.ensureCur(st);
    this.writeInsn = insn;
    this.writeLo.fill(0);
    this.writeHi.fill(0);
  }

  /** bpf_mark_stack_write: the instruction overwrote all 8 bytes of slot spi of frame `frame`. */
  markWrite(frame: number, spi: number): void {
    if (spi < 0 || spi >= 64) return;
    if (spi < 32) this.writeLo[frame]! |= 1 << spi;
    else this.writeHi[frame]! |= 1 << (spi - 32);
  }

  /** After the instruction: its writes this time, intersected with those of its earlier visits. */
  commitWrites(): void {
    if (this.cur) this.commit(this.cur);
  }

  private commit(inst: Instance): void {
    const idx = this.writeInsn - inst.start;
    if (idx < 0 || idx >= inst.end - inst.start) return;
    const seen = inst.mustWriteSet[idx] === 1;
    for (let frame = 0; frame <= inst.curframe; frame++) {
      let lo = this.writeLo[frame]!;
      let hi = this.writeHi[frame]!;
      if (lo === 0 && hi === 0 && !seen) continue;
      const m = inst.masks(frame);
      const k = 2 * idx;
      const oLo = m.mustWrite[k]!;
      const oHi = m.mustWrite[k + 1]!;
      if (seen) {
        lo &= oLo;
        hi &= oHi;
      }
      if (oLo !== lo || oHi !== hi) {
        m.mustWrite[k] = lo;
        m.mustWrite[k + 1] = hi;
        inst.updated = true;
      }
      if (oLo & ~lo || oHi & ~hi) inst.mustWriteDropped = true;
    }
    inst.mustWriteSet[idx] = 1;
  }

  /** bpf_update_live_stack: recompute the changed instances of st's chain, innermost first. */
  update(st: VState): void {
    this.cur = null;
    for (let frame = st.frames.length - 1; frame >= 0; frame--) {
      const inst = this.instanceOf(st, frame);
      if (inst.updated) {
        this.updateInstance(inst);
        inst.updated = false;
        inst.mustWriteDropped = false;
      }
    }
  }

  private updateInstance(inst: Instance): void {
    const n = inst.end - inst.start;
    if (inst.mustWriteDropped) for (const m of inst.frames) m?.mustWriteAcc.fill(0);
    let changed = true;
    while (changed) {
      changed = false;
      for (let frame = 0; frame <= inst.curframe; frame++) {
        const m = inst.frames[frame];
        if (!m) continue;
        // Backwards through the function: successors mostly come later, so few rounds are needed.
        for (let i = n - 1; i >= 0; i--) if (this.updateInsn(inst, m, i)) changed = true;
      }
    }
    if (inst.curframe > 0) this.propagateToOuter(inst);
  }

  private updateInsn(inst: Instance, m: FrameMasks, i: number): boolean {
    const t = inst.start + i;
    let aLo = 0;
    let aHi = 0;
    let wLo = -1;
    let wHi = -1;
    let cnt = 0;
    for (let e = 0; e < 2; e++) {
      const w = e === 0 ? this.fall[t]! : this.branch[t]!;
      if (w < 0) continue;
      const j = w - inst.start;
      if (j < 0 || j >= inst.end - inst.start) continue;
      cnt++;
      aLo |= m.live[2 * j]!;
      aHi |= m.live[2 * j + 1]!;
      wLo &= m.mustWriteAcc[2 * j]!;
      wHi &= m.mustWriteAcc[2 * j + 1]!;
    }
    if (cnt === 0) return false;
    const k = 2 * i;
    wLo |= m.mustWrite[k]!;
    wHi |= m.mustWrite[k + 1]!;
    const bLo = (aLo & ~m.mustWrite[k]!) | m.mayRead[k]!;
    const bHi = (aHi & ~m.mustWrite[k + 1]!) | m.mayRead[k + 1]!;
    const changed = bLo !== m.live[k] || bHi !== m.live[k + 1] || wLo !== m.mustWriteAcc[k] || wHi !== m.mustWriteAcc[k + 1];
    m.live[k] = bLo;
    m.live[k + 1] = bHi;
    m.mustWriteAcc[k] = wLo;
    m.mustWriteAcc[k + 1] = wHi;
    return changed;
  }

  /** A callee's entry: what it reads and surely writes of outer frames counts at the caller's call instruction. */
  private propagateToOuter(inst: Instance): void {
    const outerSites = inst.callsites.slice(0, -1);
    const callsite = outerSites[outerSites.length - 1]!;
    // The outer chain ends in its own function's first instruction.
    const [start] = this.bounds(callsite);
    outerSites[outerSites.length - 1] = start;
    const outer = this.lookup(outerSites);
    this.writeInsn = callsite;
    this.writeLo.fill(0);
    this.writeHi.fill(0);
    for (let frame = 0; frame < inst.curframe; frame++) {
      const m = inst.frames[frame];
      if (!m) continue;
      this.writeLo[frame] = m.mustWriteAcc[0]!;
      this.writeHi[frame] = m.mustWriteAcc[1]!;
      this.markReadMask(outer, frame, callsite, m.live[0]!, m.live[1]!);
    }
    this.commit(outer);
  }

  /** bpf_stack_slot_alive for state st (at its insnIdx): may a later read see slot spi of frame frameno? */
  slotAlive(st: VState, frameno: number, spi: number): boolean {
    const top = st.frames.length - 1;
    const bit = (inst: Instance, insn: number): boolean => {
      const m = inst.frames[frameno];
      if (!m || insn < inst.start || insn >= inst.end) return false;
      const k = 2 * (insn - inst.start) + (spi < 32 ? 0 : 1);
      return (m.live[k]! & (1 << (spi & 31))) !== 0;
    };
    const curInst = this.instanceOf(st, top);
    if (bit(curInst, st.insnIdx)) return true;
    for (let i = frameno; i < top; i++) {
      const callsite = st.frames[i + 1]!.callsite;
      const inst = this.instanceOf(st, i);
      // A callback's caller may run it again: live before the call; otherwise after it.
      const alive = st.frames[i + 1]!.callback ? bit(inst, callsite) : bit(inst, callsite + 1);
      if (alive) return true;
    }
    return false;
  }
}
