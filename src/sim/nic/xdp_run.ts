/**
 * bpf_prog_run_xdp as every driver (and the devmap/veth targets) runs it:
 * the xdp_buff laid out around the frame (xdp_init_buff, xdp_prepare_buff),
 * the program run on it in place, and the run's cost charged to the CPU —
 * the run itself, each eBPF instruction, each map lookup. What the driver
 * does with the verdict, and with a VM fault, stays with the driver.
 */
import type { Cpu, Machine } from '../machine';
import type { XdpBuff, XdpHook } from '../program';

// Numbers read per packet, as file-local const enums: the transpiler writes each use as a
// literal (an imported binding is a getter under tsx/vitest; a module-level object is a load
// and checks). tests/unit/sim-const-enums.test.ts holds each to its definition.
const enum S { xdp_run = 6, xdp_insn = 7, map_lookup = 8 }

/** xdp_init_buff + xdp_prepare_buff: `len` bytes at `data`, in a buffer of `frameSz` bytes from `hardStart`, no metadata. */
export function xdp_prepare_buff(x: XdpBuff, mem: Uint8Array, hardStart: number, data: number, len: number, frameSz: number, rxQueueIndex: number): void {
  // A pointer store only on a change: an unchanged one still pays V8's write barrier.
  if (x.mem !== mem) x.mem = mem;
  x.hardStart = hardStart;
  x.data = data;
  x.dataMeta = data;
  x.dataEnd = data + len;
  x.frameSz = frameSz;
  x.rxQueueIndex = rxQueueIndex;
}

/** Run `prog` on `x` and charge it; the action as a u32 (x.fault says whether the VM faulted). */
export function bpf_prog_run_xdp(m: Machine, cpu: Cpu, prog: XdpHook, x: XdpBuff): number {
  x.insns = 0;
  x.mapLookups = 0;
  x.redirectIfindex = -1;
  x.redirectMap = -1;
  x.redirectKey = -1;
  x.fault = undefined;
  x.cpu = cpu.id;
  const act = prog.run(x) >>> 0;
  // xdp_run, then xdp_insn and map_lookup by their counts when not 0.
  m.charge3(cpu, S.xdp_run, S.xdp_insn, x.insns, S.map_lookup, x.mapLookups);
  return act;
}
