/**
 * Every helper the verifier lets an XDP program call is one the VM runs. The
 * verifier refuses helpers marked `refusal` or `unmodelled` in
 * src/helpers/table.ts; for any other id in the table a verified program may
 * call it, and the VM used to abort such a program (the verifier fuzz target
 * found bpf_ktime_get_tai_ns#208: verifier-366916187-911.json).
 *
 * KNOWN GAPS: helpers the verifier accepts and the VM does not run yet (a
 * program that reaches one aborts with "invalid func"). Pinned: the test
 * fails when one is implemented (take it off the list) or a new one appears.
 * None are left.
 */
import { describe, expect, it } from 'vitest';
import { HELPERS, helperDisplayName } from '../../src/helpers/table';
import { parseSpec } from '../../src/isa';
import { createVm } from '../../src/vm';

// Empty since issue 17: the task/cgroup, perf-read, probe-read, socket, strto*, queue/stack, ringbuf_query,
// check_mtu and percpu-lookup helpers run in the VM (src/vm/helpers_context.ts and friends); the timers are
// marked unmodelled (no lab map carries the BTF a bpf_timer needs, so the verifier refuses them first).
const KNOWN_GAPS: string[] = [];

describe('helpers', () => {
  it('the VM implements every helper the verifier accepts a call to', () => {
    const parsed = parseSpec({ insns: 'b7000000020000009500000000000000' });
    if ('error' in parsed) throw new Error(parsed.error);
    const vm = createVm(parsed, { engine: 'interp' });
    if ('error' in vm) throw new Error(vm.error);
    const callable = HELPERS.filter((h) => !h.refusal && !h.unmodelled);
    expect(callable.length).toBeGreaterThan(40);
    const missing = callable.filter((h) => !vm.machine.helpers.has(h.id)).map((h) => `${helperDisplayName(h.id)}#${h.id}`);
    expect(missing).toEqual(KNOWN_GAPS);
  });
});
