/**
 * EngineApi: every call the UI can make of the engine. The worker exposes
 * exactly this (src/worker/protocol.ts derives its messages from it), and
 * tests call the same object directly on the main thread.
 */
import type { Example } from './toolchain';
import type { BuildResult, Capabilities } from './types';
import type { SimReply } from './simSession';
import type { SimSettings, SimSnapshot, StepUnit } from './simTypes';

export interface EngineApi {
  hello(): { capabilities: Capabilities; examples: Example[] };
  build(source: string): BuildResult;
  simSnapshot(): SimReply;
  simStep(unit: StepUnit, count: number): SimReply & { ran?: number };
  simStepBack(): SimReply;
  simReset(): SimReply;
  simConfigure(patch: { traffic?: Partial<SimSettings['traffic']>; driver?: Partial<SimSettings['driver']> }): SimReply;
  /** Replay the frames of an uploaded pcap file (null: back to generated traffic). */
  simLoadPcap(file: Uint8Array | null): SimReply & { frames?: number };
}

/** Events the engine host pushes without being asked. */
export type EngineEvent =
  | { type: 'log'; text: string }
  | { type: 'snapshot'; snapshot: SimSnapshot }
  | { type: 'run'; running: boolean; speed: Speed; reason?: string };

/** Simulation speed: events per second of wall time, or as fast as the CPU allows. */
export type Speed = number | 'max';
