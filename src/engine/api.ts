/**
 * EngineApi: every call the UI can make of the engine. The worker exposes
 * exactly this (src/worker/protocol.ts derives its messages from it), and
 * tests call the same object directly on the main thread.
 */
import type { Attach, Example } from './toolchain';
import type { HotPath } from './hotPath';
import type { PacketDetail } from './inspect';
import type { XdpDumpStatus } from './xdpdump';
import type { InputFormat } from './mapInput';
import type { BuildResult } from './types';
import type { Workspace } from '../cc/workspace';
import type { SimReply } from './simSession';
import type { MapView, SimSettings, SimSnapshot, StepUnit } from './simTypes';

export interface EngineApi {
  /** The examples, and whether programs run through the JIT here (the page's CSP may forbid generated code). */
  hello(): { examples: Example[]; jit: boolean };
  /** Compile, verify, and attach to the simulated NIC if the verifier accepts. A string is a one-file workspace. */
  build(program: string | Workspace): BuildResult;
  /** Compile and verify only; the answer says what to attach (see attach). */
  check(program: string | Workspace): { result: BuildResult; attach: Attach };
  /** Attach a checked program to the simulated NIC (or detach, saying why); the machine restarts. */
  attach(attach: Attach): SimReply;
  simSnapshot(): SimReply;
  simStep(unit: StepUnit, count: number): SimReply & { ran?: number };
  simStepBack(): SimReply;
  simReset(): SimReply;
  simConfigure(patch: { traffic?: Partial<SimSettings['traffic']>; driver?: Partial<SimSettings['driver']> }): SimReply;
  /** Replay the frames of an uploaded pcap file (null: back to generated traffic). */
  /** Replay a pcap's frames (runts: records shorter than an Ethernet header, left out). */
  simLoadPcap(file: Uint8Array | null): SimReply & { frames?: number; runts?: number };
  /** One packet's lifecycle, bytes and program run, instruction by instruction (null: the latest packet). */
  inspectPacket(packet: number | null): PacketDetail | { error: string };
  /** Run until the packet's journey ends (its buffer returned), then its lifecycle as in inspectPacket, with the snapshot after. */
  followPacket(packet: number): SimReply & { detail: PacketDetail | { error: string } };
  /** How often each instruction ran over the frames the attached program saw last (the CFG view's running shade). */
  hotPath(): HotPath | { error: string };
  /** xdpdump: start a capture of the program's runs (entry and exit frames, verdicts), stop it, or its status. */
  xdpdump(cmd: 'start' | 'stop' | 'status'): XdpDumpStatus | { error: string };
  /** The capture as a file: pcapng (two interfaces, entry and exit, a comment per packet) or classic pcap. */
  xdpdumpFile(format: 'pcapng' | 'pcap'): { ok: true; bytes: Uint8Array; packets: number; name: string } | { ok: false; reason: string };
  /** bpf_printk lines since the last call (the worker forwards them as log events). */
  drainPrintk(): string[];
  /** The attached program's maps, as user space dumps them. */
  mapsRead(): { ok: true; maps: MapView[] } | { ok: false; reason: string };
  /** User space's map update (key and value in hex, or as C values of the map's types: formats 'c'); the answer has the maps after it. */
  mapUpdate(index: number, key: string, value: string, formats?: { key?: InputFormat; value?: InputFormat }): { ok: true; maps: MapView[] } | { ok: false; reason: string };
}

/** Events the engine host pushes without being asked. */
export type EngineEvent =
  | { type: 'log'; text: string }
  | { type: 'snapshot'; snapshot: SimSnapshot }
  | { type: 'run'; running: boolean; speed: Speed; reason?: string };

/** Simulation speed: events per second of wall time, or as fast as the CPU allows. */
export type Speed = number | 'max';
