/**
 * The packet inspector's data: one packet's life as the trace recorded it
 * (DMA → completion → program → action → tx → completion → recycle), its
 * bytes before and after the program with decoded headers, and the program
 * re-run on a copy of those bytes one instruction at a time. The re-run
 * uses fresh, empty maps so inspecting never changes the running machine;
 * map lookups may therefore see other values than the live run did.
 */
import { decodePacket, type DecodedPacket } from '../net';
import { createVm } from '../vm';
import { disasmInsn, type ParsedSpec } from '../isa';
import type { RunRecord } from './vmHook';

export interface LifecycleStep {
  seq: number;
  kind: string;
  ns: number;
  text: string;
}

export interface InsnStep {
  pc: number;
  text: string;
  /** r0..r10 before and after, hex; only the ones that changed are marked. */
  before: string[];
  after: string[];
  changed: number[];
  mem?: { region: string; offset: number; size: number; write: boolean };
}

export interface PacketDetail {
  packet: number;
  lifecycle: LifecycleStep[];
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

export function replayRun(parsed: ParsedSpec, rec: RunRecord): NonNullable<PacketDetail['run']> {
  const steps: InsnStep[] = [];
  const vm = createVm(parsed, { env: { printk: () => {} } });
  if (!('error' in vm)) {
    vm.setTrace((ev) => {
      if (steps.length >= MAX_STEPS) return;
      const changed: number[] = [];
      ev.before.forEach((v, i) => { if (v !== ev.after[i]) changed.push(i); });
      steps.push({ pc: ev.pc, text: disasmInsn(ev.insn, { style: 'kernel' }, ev.pc), before: ev.before.map(hex64), after: ev.after.map(hex64), changed, mem: ev.mem });
    });
    const page = new Uint8Array(4096);
    page.set(rec.before, 256);
    vm.runXdp({ buf: page, data: 256, dataEnd: 256 + rec.before.length, dataMeta: 256, ingressIfindex: 1, rxQueueIndex: 0, frameSize: 4096 });
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
