/**
 * The verifier environment (the kernel's bpf_verifier_env): the program,
 * its maps, options, the log, the current path's state and the bookkeeping
 * of exploration. A rejection is a thrown Reject after its message lines
 * have been written to the log, like the kernel's verbose() + return -E.
 */
import type { Insn } from '../isa/insn';
import type { MapSpec } from '../isa/spec';
import { disasmInsn } from '../isa/disasm';
import { VLog, formatFrame, vlogAlignment } from './log';
import type { Reg } from './reg';
import type { StackLiveness } from './stack_liveness';
import type { LiveStack } from './live_stack';
import { curFrame, type Checkpoint, type Frame, type VState } from './state';

export interface VerifyOptions {
  logLevel?: 0 | 1 | 2;
  /**
   * Load without CAP_PERFMON (and CAP_SYS_ADMIN): the least an XDP program loads with, CAP_BPF +
   * CAP_NET_ADMIN (a loader without CAP_BPF cannot load XDP at all). The kernel's allow_ptr_leaks,
   * allow_uninit_stack and bypass_spec_v1/v4 are off (uninitialised stack reads and pointer leaks are
   * refused); bpf_capable stays on (bounded loops, the 1M-instruction budget, narrow spills). With
   * bypass_spec_v1 off the Spectre v1 checks on pointer arithmetic apply (sanitize_ptr_alu's first pass,
   * sanitize_check_bounds); not modelled yet: its masking window across paths (REASON_PATHS) and the
   * speculative paths the kernel also walks (tests/differential/explain-oracle.test.ts lists where that
   * shows). CLI: --no-perfmon (or --unprivileged).
   */
  unprivileged?: boolean;
  /** BPF_F_STRICT_ALIGNMENT. */
  strictAlignment?: boolean;
  /** Log buffer size in bytes (default libbpf's 16 MiB); older lines fall off the front. */
  logSize?: number;
  /** Processed-instruction limit (the kernel's BPF_COMPLEXITY_LIMIT_INSNS). */
  insnLimit?: number;
  /**
   * Record per-instruction states for the UI (default true; off for bulk
   * runs). 'first': only the state before each instruction's first visit,
   * as text (VerifyResult.firstStates) — what the app shows, at a fraction
   * of the cost.
   */
  states?: boolean | 'first';
  /**
   * Record what the VM's JIT needs (VerifyResult.proof): per instruction
   * and register, the types seen on every explored path.
   */
  proof?: boolean;
}

export class Reject extends Error {}

export interface PendingPath {
  pathLen: number;
  state: VState;
  insnIdx: number;
  prevInsnIdx: number;
  logPos: number;
}

export interface LineInfoEntry {
  insn: number;
  text: string;
}

export class Env {
  readonly log: VLog;
  cur!: VState;
  insnIdx = 0;
  prevInsnIdx = -1;
  idGen = 0;
  /** kfunc call slot -> the kernel function it names (spec.kfunc_relocs). */
  readonly kfuncNames = new Map<number, string>();
  /** The loader passes BTF func_info (a compiled program: spec.funcs), which the kernel needs to type callbacks. */
  hasFuncInfo = false;
  insnProcessed = 0;
  jmpsProcessed = 0;
  prevJmpsProcessed = 0;
  prevInsnProcessed = 0;
  totalStates = 0;
  peakStates = 0;
  curStates = 0;
  maxStatesPerInsn = 0;
  readonly explored = new Map<number, Checkpoint[]>();
  readonly pending: PendingPath[] = [];
  /** Registers (bit i = Ri) and stack slots touched since the last print. */
  scratchedRegs = 0;
  /** Scratched stack slots: bit spi of lo (spi < 32) or hi (spi - 32). */
  scratchedStackLo = 0;
  scratchedStackHi = 0;
  allScratched = true;
  prevLogPos = 0;
  prevInsnPrintPos = 0;
  prevLinfo: LineInfoEntry | null = null;
  errorLine: string | undefined;
  /** Per instruction: is a prune point / force a checkpoint. */
  prunePoint: Uint8Array;
  /** Instructions reached other than by falling through (mark_jmp_point): each visit goes into the jump history. */
  jmpPoint: Uint8Array;
  /**
   * Scalar precision tracked by backtracking (./precision.ts). Off for programs whose loops converge
   * by state equality (may_goto, callbacks), which compare every scalar as precise instead.
   */
  precisionTracking = true;
  /** The instruction and state whose history entry this instruction already pushed (cur_hist_ent); -1: none yet. */
  histInsn = -1;
  histState: VState | null = null;
  /** The instruction before the current one on this path (prev_insn_idx while it runs). */
  histPrevIdx = -1;
  /** Stack reads and writes seen so far, for cleaning completed checkpoints (./live_stack.ts); set by doCheck. */
  live!: LiveStack;
  forceCheckpoint: Uint8Array;
  /** Static register liveness before each instruction (bit i = Ri). */
  liveRegs: Uint16Array;
  /** Static stack-slot liveness before each instruction, for its own function's frame (./stack_liveness.ts). */
  liveStack: StackLiveness;
  /** First instruction of each subprogram, sorted. */
  subprogs: number[] = [0];
  /** Deepest stack use per subprogram start. */
  stackDepth = new Map<number, number>();
  readonly bypassSpec: boolean;
  readonly allowPtrLeaks: boolean;
  /**
   * env->bpf_capable (CAP_BPF or CAP_SYS_ADMIN): always, because bpf_prog_load refuses XDP to a loader
   * without CAP_BPF. It is what allows scalar spills narrower than 8 bytes, constant map keys and loops;
   * not to be confused with allowPtrLeaks (CAP_PERFMON), which `unprivileged` turns off.
   */
  readonly bpfCapable = true;
  readonly strictAlignment: boolean;
  readonly insnLimit: number;
  /** nr_cpu_ids of the modelled machine (bounds get_smp_processor_id). */
  nrCpuIds = 2;
  /** Per load/store instruction: the pointer type it first accessed through (insn_aux_data ptr_type). */
  readonly auxPtrType = new Map<number, string>();
  /** The current path's pcs; a pending path remembers how long its prefix was. */
  path: number[] = [];
  /** Log position when the last branch was pushed (level 1 rolls back to it). */
  branchLogPos = 0;
  onInsn?: (env: Env, idx: number, phase: 'before' | 'after') => void;

  constructor(
    readonly insns: Insn[],
    readonly maps: MapSpec[],
    /** lddw slot -> map index. */
    readonly mapOfInsn: Map<number, number>,
    readonly linfo: LineInfoEntry[],
    opts: VerifyOptions,
  ) {
    this.log = new VLog(opts.logLevel ?? 0, opts.logSize);
    this.prunePoint = new Uint8Array(insns.length + 1);
    this.forceCheckpoint = new Uint8Array(insns.length + 1);
    this.jmpPoint = new Uint8Array(insns.length + 1);
    this.liveRegs = new Uint16Array(insns.length + 1);
    this.liveStack = { lo: new Int32Array(insns.length + 1).fill(-1), hi: new Int32Array(insns.length + 1).fill(-1) };
    this.bypassSpec = !opts.unprivileged;
    this.allowPtrLeaks = !opts.unprivileged;
    this.strictAlignment = !!opts.strictAlignment;
    this.insnLimit = opts.insnLimit ?? 1_000_000;
  }

  get frame(): Frame {
    return curFrame(this.cur);
  }
  get regs(): Reg[] {
    return curFrame(this.cur).regs;
  }

  verbose(s: string): void {
    this.log.write(s);
  }

  /** Log the message lines and abandon verification. */
  reject(...lines: string[]): never {
    if (this.errorLine === undefined) this.errorLine = lines[0];
    for (const l of lines) this.log.write(l + '\n');
    throw new Reject(lines[0]);
  }

  /** An error line that does not end verification by itself. */
  verboseErr(line: string): void {
    if (this.errorLine === undefined) this.errorLine = line;
    this.log.write(line + '\n');
  }

  /** Abandon verification after verboseErr() has logged the reason. */
  rejectSilently(): Reject {
    return new Reject(this.errorLine ?? 'rejected');
  }

  markRegScratched(regno: number): void {
    this.scratchedRegs |= 1 << regno;
  }
  markStackScratched(spi: number): void {
    if (spi < 32) this.scratchedStackLo |= 1 << spi;
    else this.scratchedStackHi |= 1 << (spi - 32);
  }
  isStackScratched(spi: number): boolean {
    return spi < 32 ? (this.scratchedStackLo & (1 << spi)) !== 0 : (this.scratchedStackHi & (1 << (spi - 32))) !== 0;
  }
  markAllScratched(): void {
    this.allScratched = true;
  }
  get stateScratched(): boolean {
    return this.allScratched || this.scratchedRegs !== 0 || this.scratchedStackLo !== 0 || this.scratchedStackHi !== 0;
  }
  markStateClean(): void {
    this.allScratched = false;
    this.scratchedRegs = 0;
    this.scratchedStackLo = 0;
    this.scratchedStackHi = 0;
  }

  formatState(all: boolean): string {
    const f = this.frame;
    if (all || this.allScratched) return formatFrame(f, this.maps, null, null);
    return formatFrame(f, this.maps, this.scratchedRegs, (spi) => this.isStackScratched(spi));
  }

  /** print_insn_state: the "; R1=..." suffix, or a "N: R1=..." line. */
  printInsnState(): void {
    if (!this.log.level) {
      this.markStateClean();
      return;
    }
    if (this.prevLogPos && this.prevLogPos === this.log.pos) {
      this.log.reset(this.prevLogPos - 1);
      this.verbose(' '.repeat(vlogAlignment(this.prevInsnPrintPos)) + ';');
    } else {
      this.verbose(`${this.insnIdx}:`);
    }
    this.verbose(this.formatState(false) + '\n');
    this.markStateClean();
  }

  /** verbose_linfo: "; <source line>" when the line changes. */
  verboseLinfo(idx: number, prefix: string): void {
    if (!this.log.level || this.linfo.length === 0) return;
    let found: LineInfoEntry | null = null;
    for (const l of this.linfo) {
      if (l.insn <= idx) found = l;
      else break;
    }
    if (!found || found === this.prevLinfo) return;
    this.verbose(prefix + found.text + '\n');
    this.prevLinfo = found;
  }

  /** An instruction as the kernel log prints it; maps print as a kernel address. */
  insnText(idx: number): string {
    const insn = this.insns[idx]!;
    if (insn.code === 0xe5) return `(e5) may_goto pc${insn.off >= 0 ? '+' : ''}${insn.off}`;
    return disasmInsn(this.insns[idx]!, {
      style: 'kernel',
      ldImm64: (_i, slot) => {
        const m = this.mapOfInsn.get(slot);
        return m === undefined ? undefined : `0x${(0xffff888100000000n + BigInt(m) * 0x400n).toString(16)}`;
      },
    }, idx);
  }

  printInsnLine(idx: number): void {
    if (!this.log.level) return;
    this.prevLogPos = this.log.pos;
    this.verbose(`${idx}: ${this.insnText(idx)}\n`);
    this.prevInsnPrintPos = this.log.pos - this.prevLogPos;
    this.prevLogPos = this.log.pos;
  }
}
