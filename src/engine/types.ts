/**
 * The engine's data model: plain, structured-clone-safe records that cross
 * the worker boundary unchanged. Nothing here holds behaviour; the UI renders
 * these and the store mirrors them.
 */
import type { Workspace } from '../cc/workspace';
import type { LogIndex, VisitCounts } from './logIndex';

/** A source-anchored message (DESIGN.md convention 3). Lines and columns are 1-based. */
export interface Diagnostic {
  stage: 'compiler' | 'verifier' | 'engine';
  /** The workspace file it is in (absent: the main file). */
  file?: string;
  severity: 'error' | 'warning' | 'info';
  message: string;
  code?: string;
  line: number;
  col: number;
  endLine: number;
  endCol: number;
}

/** One line of the llvm-objdump -S style listing: a C line, or one instruction slot. */
export type DisasmLine =
  | { kind: 'source'; line: number; text: string; file?: string }
  | { kind: 'insn'; pc: number; hex: string; text: string; line?: number }
  | { kind: 'label'; pc: number; text: string };

/** Register or stack slot as the verifier sees it, pre-rendered in the kernel's words. */
export interface AbstractValue {
  name: string;
  text: string;
}

/** The verifier's abstract state before one instruction. */
export interface InsnState {
  pc: number;
  regs: AbstractValue[];
  stack: AbstractValue[];
}

export type StageResult<T> =
  | ({ status: 'ok' } & T)
  | { status: 'failed'; message: string }
  | { status: 'skipped'; message: string };

export interface CompileInfo {
  insnCount: number;
  maps: { name: string; type: string; key_size: number; value_size: number; max_entries: number }[];
  /** Slot → 1-based C line, from line_info. */
  lineOf: Record<number, number>;
  /** Slot → workspace file, for slots whose line is in a file other than the main one. */
  fileOf?: Record<number, string>;
}

export interface VerifyInfo {
  accepted: boolean;
  /** The kernel-format log (log level 2 when available), bounded as the kernel bounds it (its last 16 MiB). */
  log: string;
  /** Earlier bytes of the log fell off (the kernel's rotating log; a load would fail with ENOSPC). */
  logTruncated?: boolean;
  /** Where each line of `log` starts and the pc it prints (see ./logIndex.ts): the UI slices lines, never splits. */
  logIndex: LogIndex;
  /** Per pc: how often the verifier explored it, and states pruned there (the CFG view's shading). */
  visits: VisitCounts;
  error?: string;
  errorPc?: number;
  /** The pcs of the path that led to the error, first to last (its last MAX_ERROR_PATH steps when longer). */
  errorPath?: number[];
  /** The failing path's full length, when errorPath holds only its end. */
  errorPathLength?: number;
  /** Per-instruction abstract states, when the verifier reports them. */
  states: InsnState[];
  /** Instructions processed, as the kernel reports it. */
  processed?: number;
}

/** Everything the UI needs after the source changed. */
export interface BuildResult {
  /** Monotonic build number; the UI ignores results older than what it shows. */
  seq: number;
  /** The main file's text. */
  source: string;
  /** The workspace that was built (absent in results made by hand). */
  workspace?: Workspace;
  diagnostics: Diagnostic[];
  compile: StageResult<CompileInfo>;
  disasm: StageResult<{ lines: DisasmLine[] }>;
  verify: StageResult<VerifyInfo>;
}
