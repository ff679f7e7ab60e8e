/**
 * The seam between the engine and the pipeline stages built elsewhere in the
 * tree (src/cc, src/isa's disassembler, src/verifier, src/vm, src/sim).
 * The shapes here are the engine's own; ./stages.ts adapts each module's
 * published API into them (through ./pipeline.ts), so the rest of the
 * engine and the worker protocol do not change when a module's internals
 * do, and tests can put a stand-in behind one stage.
 */
import type { Insn, ParsedSpec, ProgramSpec } from '../isa';
import type { Diagnostic, InsnState } from './types';
import type { MapView, SimSettings, SimSnapshot, StepUnit } from './simTypes';
import type { PacketDetail } from './inspect';
import type { HotPath } from './hotPath';
import type { XdpDumpStatus } from './xdpdump';
import type { InputFormat } from './mapInput';
import type { ExampleSetup } from '../examples';
import type { Workspace } from '../cc/workspace';

export interface CompileOutput {
  spec: ProgramSpec | null;
  diagnostics: Diagnostic[];
}

export interface VerifyOutput {
  accepted: boolean;
  log: string;
  /** The log outgrew its buffer and lost its beginning. */
  logTruncated?: boolean;
  error?: string;
  errorPc?: number;
  /** The pcs of the path that led to the error, first to last (the CFG view highlights it). */
  errorPath?: number[];
  states: InsnState[];
  processed?: number;
}

export interface Example {
  name: string;
  title: string;
  source: string;
  /** The machine the example is meant for (absent: the default mlx4 machine); see src/examples ExampleSetup. */
  setup?: ExampleSetup;
}

export interface Toolchain {
  compile: (ws: Workspace) => CompileOutput;
  /** One kernel-syntax line per slot (the second lddw slot may be ''). */
  disassemble: (insns: readonly Insn[]) => string[];
  verify: (parsed: ParsedSpec) => VerifyOutput;
  examples: readonly Example[];
  sim: SimFactory;
  /** Split a pcap file into Ethernet frames (records shorter than an Ethernet header left out and counted as runts). */
  readPcap: (file: Uint8Array) => { frames: Uint8Array[]; runts?: number } | { error: string };
}

/**
 * The simulated machine as the engine drives it. Deterministic: the same
 * settings, program and packets always give the same event stream, which is
 * how the engine steps back (reset, then replay to one event earlier).
 */
export interface SimPort {
  /** Why the simulator would refuse these settings (one line), or null; the running machine is not touched. */
  check?(settings: SimSettings): string | null;
  /** Start over with these settings, and the program to attach (or why there is none). */
  reset(settings: SimSettings, attach: Attach, pcap: Uint8Array[] | null): void;
  /** Run up to `count` units; returns how many completed (fewer if nothing is left to do). */
  advance(unit: StepUnit, count: number): number;
  /** Events processed since reset. */
  eventCount(): number;
  snapshot(): SimSnapshot;
  /** One packet's lifecycle and program run (null: the latest packet). */
  inspect?(packet: number | null): PacketDetail | { error: string };
  /** Run until the packet's journey ends (bounded), then inspect it. */
  followToEnd?(packet: number): PacketDetail | { error: string };
  /** The attached program's hot path over the frames it ran last (see ./hotPath.ts). */
  hotPath?(): HotPath | { error: string };
  /** xdpdump's capture of the program's runs. */
  xdpdump?(cmd: 'start' | 'stop' | 'status'): XdpDumpStatus | { error: string };
  xdpdumpFile?(format: 'pcapng' | 'pcap'): { ok: true; bytes: Uint8Array; packets: number; name: string } | { ok: false; reason: string };
  /** bpf_printk lines since the last call. */
  drainPrintk?(): string[];
  /** The attached program's maps. */
  maps?(typed?: boolean): MapView[];
  updateMap?(index: number, key: string, value: string, formats?: { key?: InputFormat; value?: InputFormat }): { ok: true } | { ok: false; reason: string };
}

export type SimFactory = () => SimPort;

/** What to attach to the NIC: a verified program, or the reason nothing is attached. */
export type Attach = { program: ParsedSpec } | { reason: string };
