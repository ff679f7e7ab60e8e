/**
 * The interpreter: the whole eBPF ISA as Linux 6.x executes it (RFC 9669
 * semantics, including division by zero, shift masking, sdiv/smod, movsx,
 * sign-extending loads, bswap, atomics, ja32, bpf-to-bpf calls).
 *
 * Registers are pairs of 32-bit ints (lo/hi), so the hot path never touches
 * BigInt; only 64-bit division and modulo fall back to it. Memory goes
 * through the region table (memory.ts): every access is bounds- and
 * permission-checked, and a bad one ends the run with a VmFault naming the
 * pc, the register and the region. An instruction budget ends runaways.
 *
 * Pointers carry provenance, as in the kernel's model of one address space:
 * beside each register's value, `pv` holds the region the value was derived
 * from (0 for a scalar). Only a register with provenance can be
 * dereferenced, and only inside its own region: arithmetic that carries the
 * value into another region's tag faults as out-of-bounds of its own, and a
 * constant that happens to equal a pointer is still a scalar. Pointers
 * spilled to the stack keep their provenance (a shadow per 8-byte slot).
 * Every program is validated (isa/validate.ts) before its first run.
 */
import { type Insn } from '../isa/insn';
import { BPF_LOAD_ACQ, BPF_PSEUDO_FUNC, BPF_STORE_REL } from '../isa/opcodes';
import { BPF_FUNC_LOOP, CALLBACK_RETURN, loopBegin, loopStep, type LoopCall } from './callbacks';
import { lookupInsn } from '../isa/table';
import { validateProgram } from '../isa/validate';
import { clearStack, HI_BASE, LO_BASE, RegionTable, VmFault, type Region, type RegionKind } from './memory';

// Local copies: under a CommonJS-style loader (tsx, the CLI) every use of an
// imported binding is a getter call, which the hot path cannot afford.
const HI0 = HI_BASE;
const LO0 = LO_BASE;
const hiOf = (r: Region): number => (HI0 + r.id * 8) | 0;
const loOf = (off: number): number => (LO0 + off) | 0;

/** MAX_CALL_FRAMES in the kernel. */
export const MAX_CALL_FRAMES = 8;
/** may_goto's budget per run: the kernel's BPF_MAX_LOOPS (8M), as its interpreter and the JITs without a timed may_goto count it. */
export const BPF_MAX_LOOPS = 8 * 1024 * 1024;
export const STACK_SIZE = 512;

export type HelperFn = (m: Machine, pc: number) => void;

export interface TraceEvent {
  pc: number;
  insn: Insn;
  /** r0..r10 as unsigned 64-bit values, before and after the instruction. */
  before: bigint[];
  after: bigint[];
  /**
   * Memory touched by a load, store or atomic: the region (its fault name and
   * kind), the offset from the region's start, and the bytes there after the
   * instruction (the value read, or the value written).
   */
  mem?: { region: string; kind: RegionKind; offset: number; size: number; write: boolean; bytes: Uint8Array };
}

export type TraceHook = (ev: TraceEvent) => void;

const U32 = 0x100000000;

export class Machine {
  readonly lo = new Int32Array(11);
  readonly hi = new Int32Array(11);
  /** Provenance: the id of the region each register's pointer came from, 0 for a scalar. */
  readonly pv = new Int32Array(11);
  readonly regions = new RegionTable();
  readonly stacks: Region[] = [];
  /** Predecoded program (read by the JIT too). */
  readonly code: Uint8Array;
  readonly dst: Uint8Array;
  readonly src: Uint8Array;
  readonly off: Int16Array;
  readonly imm: Int32Array;
  readonly imm2: Int32Array;
  /** For lddw slots that load a map: the map's region; 0 otherwise (see bindLdImm64). */
  readonly ldMapRegion: Int32Array;
  readonly ldPtrHi: Int32Array;
  readonly ldPtrLo: Int32Array;
  readonly n: number;
  budget = 1_000_000;
  /** may_goto's loop budget left in this run (the kernel keeps it in a hidden stack slot). */
  mayGoto = BPF_MAX_LOOPS;
  /** With a trace hook set, runs always use the interpreter (it reports every instruction). */
  trace: TraceHook | undefined;
  /**
   * 'jit' (the default) runs the translation `jit` when the owner set one
   * (a verified program, see xdp.ts); 'interp' forces this interpreter, the reference.
   */
  engine: 'jit' | 'interp' = 'jit';
  /** The translated program, set by the owner (the JIT needs the verifier's proof, which only the owner has). */
  jit: (() => void) | undefined;
  /** The validation result: undefined until the first run, null when the program is valid. */
  private problem: VmFault | null | undefined;
  /** Executed instruction count of the last run. */
  executed = 0;
  private lastMem: TraceEvent['mem'];
  /**
   * The ctx's fields as 32-bit loads see them (lo, hi pairs by offset / 4),
   * kept current by the owner of ctxRegion (xdp.ts) whenever they change; the
   * JIT reads them straight from here for loads through the ctx pointer
   * itself. Loads it cannot answer (other offsets, a moved pointer) go to ctxLoad.
   */
  ctxRegion: Region | undefined;
  readonly ctxFields = new Int32Array(12);
  /** Which ctxFields entries (by offset / 4) a plain 32-bit load may read. */
  ctxReadable: readonly boolean[] = [];
  /** Set by a helper that ends the program early (bpf_conformance's unwind). */
  unwound = false;

  /** The program as it runs (sanitizeDeadCode may have rewritten what the verifier never reached). */
  insns: readonly Insn[];

  constructor(
    insns: readonly Insn[],
    readonly helpers: ReadonlyMap<number, HelperFn>,
  ) {
    this.insns = insns;
    const n = (this.n = insns.length);
    this.code = new Uint8Array(n);
    this.dst = new Uint8Array(n);
    this.src = new Uint8Array(n);
    this.off = new Int16Array(n);
    this.imm = new Int32Array(n);
    this.imm2 = new Int32Array(n);
    this.ldMapRegion = new Int32Array(n);
    this.ldPtrHi = new Int32Array(n);
    this.ldPtrLo = new Int32Array(n);
    for (let k = 0; k < n; k++) {
      const i = insns[k]!;
      // Opcodes the table rejects, or encodings with reserved bits, become 0x00 (invalid): they fault when reached.
      this.code[k] = lookupInsn(i) ? i.code : 0;
      this.dst[k] = i.dst;
      this.src[k] = i.src;
      this.off[k] = i.off;
      this.imm[k] = i.imm;
      if (i.code === 0x18 && k + 1 < n) {
        this.imm2[k] = insns[k + 1]!.imm;
        k++;
      }
    }
    // One buffer for all frames (the JIT indexes it directly); each frame is its own region.
    const stackMem = new Uint8Array(STACK_SIZE * MAX_CALL_FRAMES);
    for (let f = 0; f < MAX_CALL_FRAMES; f++) {
      const st = this.regions.add('stack', `stack[frame ${f}]`, stackMem.subarray(f * STACK_SIZE, (f + 1) * STACK_SIZE), true);
      st.spill = new Int32Array(STACK_SIZE / 8);
      this.stacks.push(st);
    }
  }

  /**
   * Validate the program once (registers, opcodes, jumps, lddw pairs, helper
   * ids against the helpers bound now): the fault every run returns, or null.
   */
  checkProgram(): VmFault | null {
    if (this.problem === undefined) {
      const p = validateProgram(this.insns, { helperExists: (id) => this.helpers.has(id) || id === BPF_FUNC_LOOP, frameReadOnly: true })[0];
      this.problem = p ? new VmFault(p.slot, 'invalid_insn', `invalid program: insn ${p.slot}: ${p.reason}`) : null;
    }
    return this.problem;
  }

  /**
   * sanitize_dead_code: every slot the verifier never reached becomes a
   * `ja -1` trap, as the kernel rewrites a verified program's dead code. The
   * kernel checks registers and helper ids only on the instructions it
   * explores, so a dead call to an unknown helper loads and runs there; here
   * it would otherwise fail validation and abort every run. Found by the
   * verifier fuzz target (tests/fuzz/regressions/verifier/verifier-361409723-792.json).
   */
  sanitizeDeadCode(reached: (slot: number) => boolean): void {
    const trap: Insn = { code: 0x05, dst: 0, src: 0, off: -1, imm: 0 };
    let patched: Insn[] | undefined;
    for (let k = 0; k < this.n; k++) {
      const wide = this.insns[k]!.code === 0x18 ? 2 : 1;
      if (!reached(k)) {
        patched ??= this.insns.slice();
        for (let j = k; j < k + wide && j < this.n; j++) {
          patched[j] = trap;
          this.code[j] = 0x05;
          this.dst[j] = 0;
          this.src[j] = 0;
          this.off[j] = -1;
          this.imm[j] = 0;
          this.imm2[j] = 0;
        }
      }
      k += wide - 1;
    }
    if (patched) {
      this.insns = patched;
      this.problem = undefined;
    }
  }

  /** Make the lddw at `slot` load a pointer into `region` (a map, or a map value at imm2's offset). */
  bindLdImm64(slot: number, region: Region, offset?: number): void {
    this.ldMapRegion[slot] = region.id;
    this.ldPtrHi[slot] = hiOf(region);
    this.ldPtrLo[slot] = loOf(region.kind === 'map' ? 0 : (offset ?? this.imm2[slot]!));
  }

  // ---- register access for helpers --------------------------------------------

  regU64(r: number): bigint {
    return (BigInt(this.hi[r]! >>> 0) << 32n) | BigInt(this.lo[r]! >>> 0);
  }
  /** Low 32 bits, unsigned. */
  regU32(r: number): number {
    return this.lo[r]! >>> 0;
  }
  /** As a JS number when it fits 53 bits signed (helper sizes, offsets). */
  regNum(r: number): number {
    return this.hi[r]! * U32 + (this.lo[r]! >>> 0);
  }
  setReg(r: number, v: number | bigint): void {
    this.pv[r] = 0;
    if (typeof v === 'bigint') {
      this.lo[r] = Number(BigInt.asIntN(32, v));
      this.hi[r] = Number(BigInt.asIntN(32, v >> 32n));
    } else {
      this.lo[r] = v | 0;
      this.hi[r] = v < 0 ? -1 : Math.floor(v / U32) | 0;
    }
  }
  setPtr(r: number, region: Region, off: number): void {
    this.hi[r] = hiOf(region);
    this.lo[r] = loOf(off);
    this.pv[r] = region.id;
  }

  /**
   * Rebuild provenance from the values (registers and stack slots whose high
   * word is a region's tag). Only sound for a verified program, whose
   * pointers the verifier tracked: the JIT, which keeps no provenance, calls
   * this before it hands a run over to the interpreter.
   */
  provenanceFromTags(): void {
    const rt = this.regions;
    for (let r = 0; r < 11; r++) this.pv[r] = rt.byHi(this.hi[r]!)?.id ?? 0;
    for (const st of this.stacks) {
      const dv = st.dv;
      const sp = st.spill!;
      for (let i = 0; i < sp.length; i++) sp[i] = rt.byHi(dv.getInt32(i * 8 + 4, true))?.id ?? 0;
    }
    // The callers' saved r6-r10: (lo, hi, provenance) triples.
    const sv = this.saved;
    for (let i = 0; i + 2 < sv.length; i += 3) sv[i + 2] = rt.byHi(sv[i + 1]!)?.id ?? 0;
  }

  /**
   * Resolve [reg + off, +size) to a region and byte offset, checking bounds
   * and permission; faults name the pc, the register and the region.
   */
  /** The region the last resolve() found (kept in a field so the hot path allocates nothing). */
  resRegion!: Region;

  resolve(pc: number, reg: number, off: number, size: number, write: boolean): number {
    const h = this.hi[reg]!;
    const region = this.regions.get(this.pv[reg]!);
    const what = write ? 'write to' : 'read from';
    if (!region || region.kind === 'map') {
      throw new VmFault(pc, 'invalid_ptr', `pc ${pc}: invalid ${write ? 'write' : 'read'} through R${reg}: ${region ? `a map pointer (${region.name})` : `not a pointer (0x${this.regU64(reg).toString(16)})`}`, reg, region?.name ?? 'none');
    }
    // The offset from the region's base over all 64 bits: a pointer whose arithmetic left its region's tag is out of its bounds.
    const at = (h - hiOf(region)) * U32 + (this.lo[reg]! >>> 0) - LO0 + off;
    if (at < region.start || at + size > region.end) {
      throw new VmFault(pc, 'oob', `pc ${pc}: out-of-bounds ${what} ${region.name} through R${reg}: offset ${at - region.start} size ${size}, region has ${region.end - region.start} bytes`, reg, region.name);
    }
    if (!write && region.noRead) throw new VmFault(pc, 'readonly', `pc ${pc}: read from write-only ${region.name} through R${reg} (BPF_F_WRONLY_PROG)`, reg, region.name);
    if (write && !region.writable) throw new VmFault(pc, region.kind === 'ctx' ? 'ctx' : 'readonly', `pc ${pc}: ${what} read-only ${region.name} through R${reg}`, reg, region.name);
    if (this.trace) this.lastMem = { region: region.name, kind: region.kind, offset: at - region.start, size, write, bytes: region.bytes.subarray(at, at + size) };
    if (write && at < region.dirtyLo) region.dirtyLo = at;
    if (write && region.spill) forgetSpill(region.spill, at, size);
    this.resRegion = region;
    return at;
  }

  /** Bytes [ptr, ptr+len) of the region R`reg` points into, as a live view (helper arguments). */
  bytesAt(pc: number, reg: number, len: number, write: boolean): Uint8Array {
    if (len === 0) return new Uint8Array(0);
    const at = this.resolve(pc, reg, 0, len, write);
    // A helper may write through a view it asked for read-only: count it as written.
    if (at < this.resRegion.dirtyLo) this.resRegion.dirtyLo = at;
    if (this.resRegion.spill) forgetSpill(this.resRegion.spill, at, len);
    return this.resRegion.bytes.subarray(at, at + len);
  }

  /** Context loads are rewritten by the kernel (convert_ctx_access); the VM's ctx provides this hook. */
  ctxLoad: (pc: number, reg: number, dstReg: number, at: number, size: number) => void = (pc, reg) => {
    throw new VmFault(pc, 'ctx', `pc ${pc}: invalid access to ctx through R${reg}`, reg, 'ctx');
  };

  // ---- the run loop -------------------------------------------------------------

  /** Zero a call frame's stack where the last run wrote it (the JIT's calls use this). */
  clearStack(r: Region): void {
    clearStack(r);
  }

  /**
   * Run from pc 0 with the registers as the caller set them; r0 holds the
   * result, the fault (if any) is returned. Each frame's stack starts zeroed
   * (frame 0 here, callees at the call), so runs are deterministic even for
   * programs the verifier would refuse.
   */
  run(): VmFault | undefined {
    this.executed = 0;
    this.mayGoto = BPF_MAX_LOOPS;
    this.unwound = false;
    const bad = this.problem === null ? null : this.checkProgram();
    if (bad) return bad;
    if (this.retPc.length) this.retPc.length = 0;
    if (this.saved.length) this.saved.length = 0;
    if (this.loops.length) this.loops.length = 0;
    try {
      if (this.jit !== undefined && this.engine === 'jit' && !this.trace) {
        this.jit();
        return undefined;
      }
      this.hi[10] = hiOf(this.stacks[0]!);
      this.lo[10] = loOf(STACK_SIZE);
      this.pv[10] = this.stacks[0]!.id;
      clearStack(this.stacks[0]!);
      this.loop(this.retPc, this.saved, 0, 0, 0);
      return undefined;
    } catch (e) {
      if (e instanceof VmFault) return e;
      throw e;
    }
  }
  /** Return pcs and saved r6-r10 (lo, hi, provenance triples) of the callers, innermost last; shared with the JIT. */
  readonly retPc: number[] = [];
  readonly saved: number[] = [];
  /** The kfunc each BPF_PSEUDO_KFUNC_CALL slot calls, bound by name (./kfuncs.ts). */
  kfuncAt: (HelperFn | undefined)[] = [];
  /** bpf_loop calls in progress, innermost last (./callbacks.ts). */
  readonly loops: LoopCall[] = [];

  /** Enter l's callback for its next index, as a bpf-to-bpf call whose return goes back to bpf_loop. */
  private enterCallback(here: number, frame: number, retPc: number[], saved: number[], l: LoopCall): number {
    const { lo, hi, pv } = this;
    if (frame + 1 >= MAX_CALL_FRAMES) throw new VmFault(here, 'call_depth', `pc ${here}: call stack overflow: more than ${MAX_CALL_FRAMES} frames`);
    if (l.fn < 0 || l.fn >= this.n) throw new VmFault(here, 'invalid_insn', `pc ${here}: bpf_loop's callback_fn is not a function of the program`);
    retPc.push(CALLBACK_RETURN);
    for (let r = 6; r <= 10; r++) saved.push(lo[r]!, hi[r]!, pv[r]!);
    const st = this.stacks[frame + 1]!;
    clearStack(st);
    hi[10] = hiOf(st);
    lo[10] = loOf(STACK_SIZE);
    pv[10] = st.id;
    lo[1] = l.i; hi[1] = 0; pv[1] = 0;
    [lo[2], hi[2], pv[2]] = l.ctx;
    for (let r = 3; r <= 5; r++) { lo[r] = 0; hi[r] = 0; pv[r] = 0; }
    return frame + 1;
  }

  /**
   * Continue a run in the interpreter from a JIT state (pc, instructions
   * counted so far, call depth): the JIT hands over here when a block would
   * overrun the budget, so the budget fault is the interpreter's, exactly.
   */
  resume(pc: number, count: number, frame: number): void {
    this.loop(this.retPc, this.saved, pc, count, frame);
  }

  private loop(retPc: number[], saved: number[], pc: number, count: number, frame: number): void {
    const { code, dst, src, off, imm, imm2, lo, hi, pv, n } = this;
    const budget = this.budget;
    let before: bigint[] | undefined;
    const trace = this.trace;
    for (;;) {
      if (pc < 0 || pc >= n) throw new VmFault(pc, 'invalid_insn', `pc ${pc}: jumped outside the program (${n} insns)`);
      if (++count > budget) {
        this.executed = count - 1;
        throw new VmFault(pc, 'budget', `pc ${pc}: instruction budget of ${budget} exhausted`);
      }
      this.executed = count;
      if (trace) {
        before = this.snapshot();
        this.lastMem = undefined;
      }
      const c = code[pc]!;
      const d = dst[pc]!;
      const s = src[pc]!;
      const o = off[pc]!;
      const k = imm[pc]!;
      const here = pc;
      pc++;
      // Two-level dispatch: the class first (a dense jump table), then the opcode within it.
      switch (c & 7) {
        case 7: // ALU64
          // Provenance first (the operands as they are before the instruction): mov copies it, ptr +/- scalar keeps it,
          // scalar + ptr takes it, ptr - ptr and everything else gives a scalar.
          if (c === 0xbf) pv[d] = o === 0 ? pv[s]! : 0;
          else if (c === 0x0f) pv[d] = pv[d] !== 0 ? (pv[s] !== 0 ? 0 : pv[d]!) : pv[s]!;
          else if (c === 0x1f) { if (pv[s] !== 0) pv[d] = 0; }
          else if (c !== 0x07 && c !== 0x17) pv[d] = 0;
          switch (c) {
            case 0xb7: lo[d] = k; hi[d] = k >> 31; break; // mov
            case 0xbf:
              if (o === 0) { lo[d] = lo[s]!; hi[d] = hi[s]!; }
              else if (o === 8) { lo[d] = (lo[s]! << 24) >> 24; hi[d] = lo[d]! >> 31; }
              else if (o === 16) { lo[d] = (lo[s]! << 16) >> 16; hi[d] = lo[d]! >> 31; }
              else { lo[d] = lo[s]!; hi[d] = lo[s]! >> 31; }
              break;
            case 0x07: this.add64(d, k, k >> 31); break;
            case 0x0f: this.add64(d, lo[s]!, hi[s]!); break;
            case 0x17: this.sub64(d, k, k >> 31); break;
            case 0x1f: this.sub64(d, lo[s]!, hi[s]!); break;
            case 0x27: this.mul64(d, k, k >> 31); break;
            case 0x2f: this.mul64(d, lo[s]!, hi[s]!); break;
            case 0x37: this.divmod64(d, BigInt(k), o === 1, true); break;
            case 0x3f: this.divmod64(d, this.regU64(s), o === 1, true); break;
            case 0x97: this.divmod64(d, BigInt(k), o === 1, false); break;
            case 0x9f: this.divmod64(d, this.regU64(s), o === 1, false); break;
            case 0x47: lo[d] = lo[d]! | k; hi[d] = hi[d]! | (k >> 31); break;
            case 0x4f: lo[d] = lo[d]! | lo[s]!; hi[d] = hi[d]! | hi[s]!; break;
            case 0x57: lo[d] = lo[d]! & k; hi[d] = hi[d]! & (k >> 31); break;
            case 0x5f: lo[d] = lo[d]! & lo[s]!; hi[d] = hi[d]! & hi[s]!; break;
            case 0xa7: lo[d] = lo[d]! ^ k; hi[d] = hi[d]! ^ (k >> 31); break;
            case 0xaf: lo[d] = lo[d]! ^ lo[s]!; hi[d] = hi[d]! ^ hi[s]!; break;
            case 0x67: this.lsh64(d, k & 63); break;
            case 0x6f: this.lsh64(d, lo[s]! & 63); break;
            case 0x77: this.rsh64(d, k & 63); break;
            case 0x7f: this.rsh64(d, lo[s]! & 63); break;
            case 0xc7: this.arsh64(d, k & 63); break;
            case 0xcf: this.arsh64(d, lo[s]! & 63); break;
            case 0x87: this.neg64(d); break;
            case 0xd7: this.bswap(d, k); break;
            default: this.invalid(here);
          }
          break;
        case 4: // ALU (32-bit; results zero-extended)
          pv[d] = 0;
          switch (c) {
            case 0xb4: lo[d] = k; hi[d] = 0; break;
            case 0xbc:
              lo[d] = o === 8 ? (lo[s]! << 24) >> 24 : o === 16 ? (lo[s]! << 16) >> 16 : lo[s]!;
              hi[d] = 0;
              break;
            case 0x04: lo[d] = (lo[d]! + k) | 0; hi[d] = 0; break;
            case 0x0c: lo[d] = (lo[d]! + lo[s]!) | 0; hi[d] = 0; break;
            case 0x14: lo[d] = (lo[d]! - k) | 0; hi[d] = 0; break;
            case 0x1c: lo[d] = (lo[d]! - lo[s]!) | 0; hi[d] = 0; break;
            case 0x24: lo[d] = Math.imul(lo[d]!, k); hi[d] = 0; break;
            case 0x2c: lo[d] = Math.imul(lo[d]!, lo[s]!); hi[d] = 0; break;
            case 0x34: this.divmod32(d, k, o === 1, true); break;
            case 0x3c: this.divmod32(d, lo[s]!, o === 1, true); break;
            case 0x94: this.divmod32(d, k, o === 1, false); break;
            case 0x9c: this.divmod32(d, lo[s]!, o === 1, false); break;
            case 0x44: lo[d] = lo[d]! | k; hi[d] = 0; break;
            case 0x4c: lo[d] = lo[d]! | lo[s]!; hi[d] = 0; break;
            case 0x54: lo[d] = lo[d]! & k; hi[d] = 0; break;
            case 0x5c: lo[d] = lo[d]! & lo[s]!; hi[d] = 0; break;
            case 0xa4: lo[d] = lo[d]! ^ k; hi[d] = 0; break;
            case 0xac: lo[d] = lo[d]! ^ lo[s]!; hi[d] = 0; break;
            case 0x64: lo[d] = lo[d]! << (k & 31); hi[d] = 0; break;
            case 0x6c: lo[d] = lo[d]! << (lo[s]! & 31); hi[d] = 0; break;
            case 0x74: lo[d] = lo[d]! >>> (k & 31); hi[d] = 0; break;
            case 0x7c: lo[d] = lo[d]! >>> (lo[s]! & 31); hi[d] = 0; break;
            case 0xc4: lo[d] = lo[d]! >> (k & 31); hi[d] = 0; break;
            case 0xcc: lo[d] = lo[d]! >> (lo[s]! & 31); hi[d] = 0; break;
            case 0x84: lo[d] = -lo[d]! | 0; hi[d] = 0; break;
            case 0xd4: // le: truncate on a little-endian machine
              if (k === 16) { lo[d] = lo[d]! & 0xffff; hi[d] = 0; } else if (k === 32) hi[d] = 0;
              break;
            case 0xdc: this.bswap(d, k); break;
            default: this.invalid(here);
          }
          break;
        case 1: // LDX
          this.load(here, c, d, s, o);
          break;
        case 2: // ST
          this.store(here, c, d, o, k, k >> 31, 0);
          break;
        case 3: // STX
          if ((c & 0xe0) === 0xc0) {
            // BPF_ATOMIC. Load-acquire / store-release (any size) are the plain load and store of their size here
            // (one thread, no reordering); read-modify-write atomics are 32- and 64-bit only.
            if (k === BPF_LOAD_ACQ) this.load(here, 0x61 | (c & 0x18), d, s, o);
            else if (k === BPF_STORE_REL) this.store(here, 0x63 | (c & 0x18), d, o, lo[s]!, hi[s]!, pv[s]!);
            else if (c === 0xc3 || c === 0xdb) this.atomic(here, c === 0xdb, d, s, o, k);
            else this.invalid(here);
          } else this.store(here, c, d, o, lo[s]!, hi[s]!, pv[s]!);
          break;
        case 0: { // LD: only lddw is valid for XDP
          if (c !== 0x18) this.invalid(here);
          const mr = this.ldMapRegion[here]!;
          if (s === BPF_PSEUDO_FUNC) {
            // A function's address (bpf_loop's callback_fn): its first instruction, as the kernel resolves imm.
            lo[d] = here + 1 + k;
            hi[d] = 0;
          } else if (mr) {
            hi[d] = this.ldPtrHi[here]!;
            lo[d] = this.ldPtrLo[here]!;
          } else {
            lo[d] = k;
            hi[d] = imm2[here]!;
          }
          pv[d] = mr;
          pc++;
          break;
        }
        default: // JMP, JMP32
          switch (c) {
            case 0x05: pc += o; break;
            case 0xe5: if (this.mayGoto !== 0) this.mayGoto--; else pc += o; break; // may_goto
            case 0x06: pc += k; break;
            case 0x85:
              if (s === 1) {
                if (frame + 1 >= MAX_CALL_FRAMES) throw new VmFault(here, 'call_depth', `pc ${here}: call stack overflow: more than ${MAX_CALL_FRAMES} frames`);
                retPc.push(pc);
                for (let r = 6; r <= 10; r++) saved.push(lo[r]!, hi[r]!, pv[r]!);
                frame++;
                const st = this.stacks[frame]!;
                clearStack(st);
                hi[10] = hiOf(st);
                lo[10] = loOf(STACK_SIZE);
                pv[10] = st.id;
                pc += k;
              } else if (s === 0 && k === BPF_FUNC_LOOP) {
                const l = loopBegin(lo[1]!, lo[2]!, [lo[3]!, hi[3]!, pv[3]!], lo[4]!, hi[4]!, pc);
                if (typeof l === 'number') { lo[0] = l | 0; hi[0] = l < 0 ? -1 : 0; pv[0] = 0; } else {
                  this.loops.push(l);
                  frame = this.enterCallback(here, frame, retPc, saved, l);
                  pc = l.fn;
                }
              } else if (s === 2) {
                const f = this.kfuncAt[here];
                if (!f) throw new VmFault(here, 'helper', `pc ${here}: call to a kfunc the VM does not provide`);
                f(this, here);
              } else this.callHelper(here, k);
              if (this.unwound) return;
              break;
            case 0x8d:
              this.callHelper(here, lo[d]!);
              if (this.unwound) return;
              break;
            case 0x95:
              if (frame === 0) {
                this.executed = count;
                if (trace) trace({ pc: here, insn: this.insns[here]!, before: before!, after: this.snapshot() });
                return;
              }
              frame--;
              pc = retPc.pop()!;
              for (let r = 10; r >= 6; r--) {
                pv[r] = saved.pop()!;
                hi[r] = saved.pop()!;
                lo[r] = saved.pop()!;
              }
              if (pc === CALLBACK_RETURN) {
                // A bpf_loop callback returned: call it again, or return from bpf_loop with the count.
                const l = this.loops[this.loops.length - 1]!;
                if (loopStep(l, lo[0]!, hi[0]!)) {
                  this.loops.pop();
                  lo[0] = l.i; hi[0] = 0; pv[0] = 0;
                  pc = l.ret;
                } else {
                  frame = this.enterCallback(here, frame, retPc, saved, l);
                  pc = l.fn;
                }
              }
              break;
            default:
              if (!this.jump(here, c, d, s, k)) break;
              pc += o;
              break;
          }
          break;
      }
      if (trace) {
        const mem = this.lastMem;
        // The bytes as they are after the instruction, copied: the region lives on.
        if (mem) mem.bytes = mem.bytes.slice();
        trace({ pc: here, insn: this.insns[here]!, before: before!, after: this.snapshot(), mem });
      }
    }
  }

  invalid(pc: number): never {
    throw new VmFault(pc, 'invalid_insn', `pc ${pc}: invalid instruction (opcode 0x${this.insns[pc]!.code.toString(16).padStart(2, '0')})`);
  }

  private snapshot(): bigint[] {
    return Array.from({ length: 11 }, (_, r) => this.regU64(r));
  }

  callHelper(pc: number, id: number): void {
    const h = this.helpers.get(id);
    if (!h) throw new VmFault(pc, 'helper', `pc ${pc}: call to unknown helper #${id}`);
    h(this, pc);
  }

  /** Conditional jumps; returns whether taken. Unknown opcodes fault here. */
  private jump(pc: number, c: number, d: number, s: number, k: number): boolean {
    const cls = c & 7;
    const op = c & 0xf0;
    if ((cls !== 5 && cls !== 6) || op === 0x80 || op === 0x90 || op === 0) {
      throw new VmFault(pc, 'invalid_insn', `pc ${pc}: invalid instruction (opcode 0x${this.insns[pc]!.code.toString(16).padStart(2, '0')})`);
    }
    const lo = this.lo;
    const hi = this.hi;
    const isX = (c & 8) !== 0;
    let aLo = lo[d]!;
    let bLo = isX ? lo[s]! : k;
    let aHi: number;
    let bHi: number;
    if (cls === 6) {
      aHi = 0;
      bHi = 0;
      if (op === 0x60 || op === 0x70 || op === 0xc0 || op === 0xd0) {
        // signed 32-bit: compare as signed ints
        aHi = aLo >> 31;
        bHi = bLo >> 31;
      }
    } else {
      aHi = hi[d]!;
      bHi = isX ? hi[s]! : k >> 31;
    }
    switch (op) {
      case 0x10: return aLo === bLo && (cls === 6 || aHi === bHi);
      case 0x50: return aLo !== bLo || (cls === 5 && aHi !== bHi);
      case 0x40: return (aLo & bLo) !== 0 || (cls === 5 && (aHi & bHi) !== 0);
    }
    // Ordered comparisons: compare (hi, lo) lexicographically, hi signed or not.
    const signed = op === 0x60 || op === 0x70 || op === 0xc0 || op === 0xd0;
    let cmp: number;
    const ah = signed ? aHi : aHi >>> 0;
    const bh = signed ? bHi : bHi >>> 0;
    if (ah !== bh) cmp = ah < bh ? -1 : 1;
    else {
      aLo >>>= 0;
      bLo >>>= 0;
      cmp = aLo === bLo ? 0 : aLo < bLo ? -1 : 1;
    }
    switch (op) {
      case 0x20: case 0x60: return cmp > 0;
      case 0x30: case 0x70: return cmp >= 0;
      case 0xa0: case 0xc0: return cmp < 0;
      case 0xb0: case 0xd0: return cmp <= 0;
    }
    return false;
  }

  // ---- 64-bit arithmetic on lo/hi pairs ---------------------------------------------

  private add64(d: number, bLo: number, bHi: number): void {
    const a = this.lo[d]! >>> 0;
    const sum = a + (bLo >>> 0);
    this.lo[d] = sum | 0;
    this.hi[d] = (this.hi[d]! + bHi + (sum >= U32 ? 1 : 0)) | 0;
  }

  private sub64(d: number, bLo: number, bHi: number): void {
    const a = this.lo[d]! >>> 0;
    const b = bLo >>> 0;
    this.lo[d] = (a - b) | 0;
    this.hi[d] = (this.hi[d]! - bHi - (a < b ? 1 : 0)) | 0;
  }

  private mul64(d: number, bLo: number, bHi: number): void {
    const aLo = this.lo[d]!;
    const aHi = this.hi[d]!;
    // High word of the unsigned 32x32 product, from 16-bit halves (exact in doubles).
    const a0 = aLo & 0xffff, a1 = aLo >>> 16, b0 = bLo & 0xffff, b1 = bLo >>> 16;
    const t = a0 * b0, m1 = a1 * b0, m2 = a0 * b1;
    const carry = ((t >>> 16) + (m1 & 0xffff) + (m2 & 0xffff)) / 65536;
    const mulhi = a1 * b1 + Math.floor(m1 / 65536) + Math.floor(m2 / 65536) + Math.floor(carry);
    this.lo[d] = Math.imul(aLo, bLo);
    this.hi[d] = (mulhi + Math.imul(aLo, bHi) + Math.imul(aHi, bLo)) | 0;
  }

  divmod64(d: number, b: bigint, signed: boolean, div: boolean): void {
    const a = this.regU64(d);
    let r: bigint;
    if (signed) {
      const sa = BigInt.asIntN(64, a);
      const sb = BigInt.asIntN(64, b);
      // RFC 9669: x s/ 0 = 0, x s% 0 = x; LLONG_MIN s/ -1 wraps (LLONG_MIN), s% -1 = 0.
      if (sb === 0n) r = div ? 0n : sa;
      else r = div ? sa / sb : sa % sb;
    } else {
      const ub = BigInt.asUintN(64, b);
      if (ub === 0n) r = div ? 0n : a;
      else r = div ? a / ub : a % ub;
    }
    this.setReg(d, BigInt.asUintN(64, r));
  }

  private divmod32(d: number, bRaw: number, signed: boolean, div: boolean): void {
    const aRaw = this.lo[d]!;
    let r: number;
    if (signed) {
      if (bRaw === 0) r = div ? 0 : aRaw;
      else if (bRaw === -1) r = div ? -aRaw | 0 : 0;
      else r = div ? (aRaw / bRaw) | 0 : aRaw % bRaw;
    } else {
      const a = aRaw >>> 0;
      const b = bRaw >>> 0;
      if (b === 0) r = div ? 0 : a;
      else r = div ? Math.floor(a / b) : a % b;
    }
    this.lo[d] = r | 0;
    this.hi[d] = 0;
  }

  private lsh64(d: number, n: number): void {
    if (n === 0) return;
    const l = this.lo[d]!;
    if (n < 32) {
      this.hi[d] = (this.hi[d]! << n) | (l >>> (32 - n));
      this.lo[d] = l << n;
    } else {
      this.hi[d] = l << (n - 32);
      this.lo[d] = 0;
    }
  }

  private rsh64(d: number, n: number): void {
    if (n === 0) return;
    const h = this.hi[d]!;
    if (n < 32) {
      this.lo[d] = (this.lo[d]! >>> n) | (h << (32 - n));
      this.hi[d] = h >>> n;
    } else {
      this.lo[d] = h >>> (n - 32);
      this.hi[d] = 0;
    }
  }

  private arsh64(d: number, n: number): void {
    if (n === 0) return;
    const h = this.hi[d]!;
    if (n < 32) {
      this.lo[d] = (this.lo[d]! >>> n) | (h << (32 - n));
      this.hi[d] = h >> n;
    } else {
      this.lo[d] = h >> (n - 32);
      this.hi[d] = h >> 31;
    }
  }

  private neg64(d: number): void {
    const l = this.lo[d]!;
    this.lo[d] = -l | 0;
    this.hi[d] = (~this.hi[d]! + (l === 0 ? 1 : 0)) | 0;
  }

  private bswap(d: number, width: number): void {
    const l = this.lo[d]!;
    if (width === 16) {
      this.lo[d] = ((l & 0xff) << 8) | ((l >>> 8) & 0xff);
      this.hi[d] = 0;
    } else if (width === 32) {
      this.lo[d] = swap32(l);
      this.hi[d] = 0;
    } else {
      this.lo[d] = swap32(this.hi[d]!);
      this.hi[d] = swap32(l);
    }
  }

  // ---- memory ---------------------------------------------------------------------

  load(pc: number, c: number, d: number, s: number, o: number): void {
    const size = SIZE[c]!;
    const region = this.regions.regions[this.pv[s]!];
    const inTag = region !== undefined && this.hi[s] === hiOf(region);
    let at = (this.lo[s]! >>> 0) - LO0 + o;
    if (region !== undefined && region.kind === 'ctx' && inTag) {
      this.ctxLoad(pc, s, d, at, size);
      return;
    }
    // Fast path: in bounds and not tracing; resolve() handles (and names) everything else.
    if (region === undefined || !inTag || region.kind === 'map' || region.noRead || at < region.start || at + size > region.end || this.trace) at = this.resolve(pc, s, o, size, false);
    else this.resRegion = region;
    const rr = this.resRegion;
    const dv = rr.dv;
    const lo = this.lo;
    const hi = this.hi;
    // A pointer filled from the stack slot it was spilled to keeps its provenance.
    this.pv[d] = c === 0x79 && rr.spill !== undefined && (at & 7) === 0 ? rr.spill[at >> 3]! : 0;
    switch (c) {
      case 0x61: lo[d] = dv.getInt32(at, true); hi[d] = 0; break;
      case 0x69: lo[d] = dv.getUint16(at, true); hi[d] = 0; break;
      case 0x71: lo[d] = dv.getUint8(at); hi[d] = 0; break;
      case 0x79: lo[d] = dv.getInt32(at, true); hi[d] = dv.getInt32(at + 4, true); break;
      case 0x81: lo[d] = dv.getInt32(at, true); hi[d] = lo[d]! >> 31; break;
      case 0x89: lo[d] = dv.getInt16(at, true); hi[d] = lo[d]! >> 31; break;
      case 0x91: lo[d] = dv.getInt8(at); hi[d] = lo[d]! >> 31; break;
    }
  }

  store(pc: number, c: number, d: number, o: number, vLo: number, vHi: number, vPv: number): void {
    const size = SIZE[c]!;
    const region = this.regions.regions[this.pv[d]!];
    const inTag = region !== undefined && this.hi[d] === hiOf(region);
    if (region && inTag && region.kind === 'ctx') throw new VmFault(pc, 'ctx', `pc ${pc}: write to ctx through R${d} (struct xdp_md is read-only)`, d, 'ctx');
    let at = (this.lo[d]! >>> 0) - LO0 + o;
    if (region === undefined || !inTag || !region.writable || region.kind === 'map' || at < region.start || at + size > region.end || this.trace) at = this.resolve(pc, d, o, size, true);
    else {
      this.resRegion = region;
      if (at < region.dirtyLo) region.dirtyLo = at;
      if (region.spill) forgetSpill(region.spill, at, size);
    }
    // A whole aligned 8-byte store of a pointer is a spill: the slot remembers where the pointer came from.
    const sp = this.resRegion.spill;
    if (sp !== undefined && size === 8 && (at & 7) === 0) sp[at >> 3] = vPv;
    const dv = this.resRegion.dv;
    switch (size) {
      case 1: dv.setUint8(at, vLo & 0xff); break;
      case 2: dv.setUint16(at, vLo & 0xffff, true); break;
      case 4: dv.setInt32(at, vLo, true); break;
      default: dv.setInt32(at, vLo, true); dv.setInt32(at + 4, vHi, true); break;
    }
  }

  atomic(pc: number, is64: boolean, d: number, s: number, o: number, op: number): void {
    const size = is64 ? 8 : 4;
    const region = this.regions.get(this.pv[d]!);
    if (region && region.kind === 'ctx' && this.hi[d] === hiOf(region)) throw new VmFault(pc, 'ctx', `pc ${pc}: atomic on ctx through R${d}`, d, 'ctx');
    // As check_atomic reads the slot, then writes it: the fetch of a whole spilled pointer gives the pointer back
    // (a fill), and the write (resolve's, for writing) leaves the slot holding a scalar (STACK_MISC).
    const seen = this.resolve(pc, d, o, size, false);
    const sp = this.resRegion.spill;
    const oldPv = is64 && sp !== undefined && (seen & 7) === 0 ? sp[seen >> 3]! : 0;
    const at = this.resolve(pc, d, o, size, true);
    const dv = this.resRegion.dv;
    const oldLo = dv.getInt32(at, true);
    const oldHi = is64 ? dv.getInt32(at + 4, true) : 0;
    const lo = this.lo;
    const hi = this.hi;
    const sLo = lo[s]!;
    const sHi = is64 ? hi[s]! : 0;
    let nLo: number;
    let nHi: number;
    switch (op & ~1) {
      case 0x00: {
        const sum = (oldLo >>> 0) + (sLo >>> 0);
        nLo = sum | 0;
        nHi = (oldHi + sHi + (sum >= U32 ? 1 : 0)) | 0;
        break;
      }
      case 0x40: nLo = oldLo | sLo; nHi = oldHi | sHi; break;
      case 0x50: nLo = oldLo & sLo; nHi = oldHi & sHi; break;
      case 0xa0: nLo = oldLo ^ sLo; nHi = oldHi ^ sHi; break;
      case 0xe0: nLo = sLo; nHi = sHi; break; // xchg
      case 0xf0: { // cmpxchg: compare with r0
        const eq = lo[0] === oldLo && (!is64 || hi[0] === oldHi);
        nLo = eq ? sLo : oldLo;
        nHi = eq ? sHi : oldHi;
        lo[0] = oldLo;
        hi[0] = oldHi;
        this.pv[0] = oldPv;
        break;
      }
      default:
        throw new VmFault(pc, 'invalid_insn', `pc ${pc}: invalid atomic operation 0x${op.toString(16)}`);
    }
    dv.setInt32(at, nLo, true);
    if (is64) dv.setInt32(at + 4, nHi, true);
    if ((op & 1) && op !== 0xf1) {
      lo[s] = oldLo;
      hi[s] = oldHi;
      this.pv[s] = oldPv;
    }
  }
}

/** Bytes [at, at+size) of a stack were overwritten: the slots they touch no longer hold a spilled pointer. */
function forgetSpill(spill: Int32Array, at: number, size: number): void {
  const first = at >> 3;
  const last = (at + size - 1) >> 3;
  for (let i = first; i <= last && i < spill.length; i++) if (i >= 0) spill[i] = 0;
}

function swap32(x: number): number {
  return ((x & 0xff) << 24) | ((x & 0xff00) << 8) | ((x >>> 8) & 0xff00) | (x >>> 24);
}

const SIZE = new Uint8Array(256);
for (const [c, n] of [[0x61, 4], [0x69, 2], [0x71, 1], [0x79, 8], [0x81, 4], [0x89, 2], [0x91, 1], [0x62, 4], [0x6a, 2], [0x72, 1], [0x7a, 8], [0x63, 4], [0x6b, 2], [0x73, 1], [0x7b, 8]] as const) SIZE[c] = n;

export { HI_BASE, LO_BASE };
