/** Shared fixtures for the compiler's unit tests: a compiled program run once in the VM. */
import { expect } from 'vitest';
import type { ProgramSpec } from '../../src/isa';
import { parseSpec } from '../../src/isa/spec';
import { createVm, testRunFrame } from '../../src/vm';

/** Run a compiled program on one packet (64 zero bytes by default) as BPF_PROG_TEST_RUN would; it must not fault. The return value. */
export function runOnce(spec: ProgramSpec, packet: Uint8Array = new Uint8Array(64)): number {
  // Through JSON, as the worker and the CLI hand a compiled program over.
  const parsed = parseSpec(JSON.parse(JSON.stringify(spec)));
  if ('error' in parsed) throw new Error(parsed.error);
  const vm = createVm(parsed);
  if ('error' in vm) throw new Error(vm.error);
  const r = vm.runXdp(testRunFrame(packet));
  expect(r.fault?.message).toBeUndefined();
  return r.retval;
}
