/**
 * The packet inspector's data: one packet's life as the trace recorded it
 * (DMA → completion → program → action → tx → completion → recycle), its
 * bytes before and after the program with decoded headers, and the program
 * re-run on a copy of those bytes one instruction at a time. The re-run
 * uses copies of the maps as they are when inspecting, so inspecting never
 * changes the running machine; a lookup sees today's values, which later
 * packets may have changed since the live run.
 */
import { decodePacket, type DecodedPacket } from '../net';
import { createVm, STACK_SIZE, type XdpFrame } from '../vm';
import { createMap, type BpfMap } from '../maps';
import { disasmInsn, type ParsedSpec } from '../isa';
import type { RunRecord } from './vmHook';

import type { LifecycleStep } from './journey';
export type { LifecycleStep } from './journey';
// Kept apart so the UI thread can fold a replay without loading the VM.
export { memoryAt, type MemoryAt } from './memoryAt';

export interface InsnStep {
  pc: number;
  text: string;
  /** r0..r10 before and after, hex; only the ones that changed are marked. */
  before: string[];
  after: string[];
  changed: number[];
  /**
   * Memory the instruction touched: the region's name and kind, the offset
   * (from the packet's data, or from the frame's fp for the stack: -8 is
   * fp-8), the size, and the bytes there after it ran, hex.
   */
  mem?: { region: string; kind: string; offset: number; size: number; write: boolean; hex: string };
}

export interface PacketDetail {
  packet: number;
  lifecycle: LifecycleStep[];
  /** The frame's buffer is back (page cache, page_pool, allocator, fill ring) or the frame was lost: nothing more will happen to it. */
  ended: boolean;
  /** The stage that lost the frame (xdp_exception, tx_dropped, …) when the journey ended with the frame lost rather than its buffer returned. */
  lostAt?: string;
  run?: {
    action: string;
    insns: number;
    fault?: string;
    before: { hex: string; decoded: DecodedPacket };
    after: { hex: string; decoded: DecodedPacket };
    steps: InsnStep[];
  };
  /** Why part of the picture is missing (trace window passed, no program attached, …). */
  note?: string;
}

const ACTIONS = ['XDP_ABORTED', 'XDP_DROP', 'XDP_PASS', 'XDP_TX', 'XDP_REDIRECT'];
/** Most instructions shown for one run (a bounded loop can run long). */
const MAX_STEPS = 4096;

const hex64 = (v: bigint) => `0x${v.toString(16)}`;
const hexBytes = (b: Uint8Array) => Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');

/**
 * Copies of the live maps (every present key, every CPU's value; a bloom
 * filter's bits), so the re-run sees the maps as they are now without
 * changing them.
 */
export function copyMaps(parsed: ParsedSpec, live: readonly BpfMap[]): BpfMap[] | undefined {
  const out: BpfMap[] = [];
  for (const [i, spec] of (parsed.spec.maps ?? []).entries()) {
    const src = live[i];
    const m = createMap({ ...spec, init: undefined }, { nCpus: src?.nCpus ?? 1 });
    if ('error' in m || !src) return undefined;
    // A bloom filter has no keys to copy: its bits travel as they are.
    if (src.saveState && m.restoreState) m.restoreState(src.saveState());
    for (const key of src.keys()) {
      const vals = src.userLookup(key);
      if (!vals) continue;
      const all = new Uint8Array(vals.length * src.valueSize);
      vals.forEach((v, c) => all.set(v, c * src.valueSize));
      m.userUpdate(key, src.percpu ? all : vals[0]!);
    }
    out.push(m);
  }
  return out;
}

/** A recorded frame laid out again for a re-run: 256 bytes of headroom in a zeroed 4 KiB page (reused when given), queue 0 of ifindex 1. */
export function replayFrame(before: Uint8Array, page: Uint8Array): XdpFrame {
  const len = Math.min(before.length, page.length - 256);
  page.fill(0);
  page.set(before.subarray(0, len), 256);
  return { buf: page, data: 256, dataEnd: 256 + len, dataMeta: 256, ingressIfindex: 1, rxQueueIndex: 0, frameSize: page.length };
}

/** Re-run a recorded packet one instruction at a time, with copies of the live maps when given (else empty ones). */
export function replayRun(parsed: ParsedSpec, rec: RunRecord, liveMaps?: readonly BpfMap[]): NonNullable<PacketDetail['run']> {
  const steps: InsnStep[] = [];
  const maps = liveMaps ? copyMaps(parsed, liveMaps) : undefined;
  const vm = createVm(parsed, { maps, nCpus: maps?.[0]?.nCpus ?? 1, env: { printk: () => {} } });
  if (!('error' in vm)) {
    vm.setTrace((ev) => {
      if (steps.length >= MAX_STEPS) return;
      const changed: number[] = [];
      ev.before.forEach((v, i) => { if (v !== ev.after[i]) changed.push(i); });
      const m = ev.mem;
      const mem = m && { region: m.region, kind: m.kind, offset: m.kind === 'stack' ? m.offset - STACK_SIZE : m.offset, size: m.size, write: m.write, hex: hexBytes(m.bytes) };
      steps.push({ pc: ev.pc, text: disasmInsn(ev.insn, { style: 'kernel' }, ev.pc), before: ev.before.map(hex64), after: ev.after.map(hex64), changed, mem });
    });
    vm.runXdp(replayFrame(rec.before, new Uint8Array(4096)));
  }
  return {
    action: ACTIONS[rec.retval] ?? `unknown action ${rec.retval}`,
    insns: rec.insns,
    fault: rec.fault,
    before: { hex: hexBytes(rec.before), decoded: decodePacket(rec.before) },
    after: { hex: hexBytes(rec.after), decoded: decodePacket(rec.after) },
    steps,
  };
}
