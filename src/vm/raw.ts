/**
 * Running a program outside XDP, as bpf_conformance and uBPF tests do: r1
 * points to a block of memory (r2 holds its length), r0's full 64 bits are
 * the result, helpers are whatever the caller binds.
 */
import type { Insn } from '../isa/insn';
import { Machine, type HelperFn } from './interp';
import type { VmFaultInfo } from './xdp';

export function runRaw(insns: readonly Insn[], mem: Uint8Array, helpers: ReadonlyMap<number, HelperFn> = new Map(), budget = 1_000_000, engine: 'jit' | 'interp' = 'jit'): { r0: bigint; fault?: VmFaultInfo; insns: number } {
  const m = new Machine(insns, helpers);
  m.budget = budget;
  m.engine = engine;
  const region = m.regions.add('mem', 'mem', mem, true);
  if (mem.length > 0) m.setPtr(1, region, 0);
  m.setReg(2, mem.length);
  const f = m.run();
  const fault = f ? { pc: f.pc, kind: f.kind, message: f.message, reg: f.reg, region: f.region } : undefined;
  return { r0: m.regU64(0), fault, insns: m.executed };
}
