/**
 * EngineApi: every call the UI can make of the engine. The worker exposes
 * exactly this (src/worker/protocol.ts derives its messages from it), and
 * tests call the same object directly on the main thread.
 */
import type { Example } from './toolchain';
import type { BuildResult, Capabilities } from './types';

export interface EngineApi {
  hello(): { capabilities: Capabilities; examples: Example[] };
  build(source: string): BuildResult;
}

/** Events the engine pushes without being asked (snapshots, printk lines). */
export type EngineEvent = { type: 'log'; text: string };
