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
 */
import { describe, expect, it } from 'vitest';
import { HELPERS, helperDisplayName } from '../../src/helpers/table';
import { parseSpec } from '../../src/isa';
import { createVm } from '../../src/vm';

const KNOWN_GAPS = [
  // task and cgroup context (XDP runs in softirq: the interrupted task's), perf counters
  'bpf_get_current_pid_tgid#14', 'bpf_get_current_uid_gid#15', 'bpf_get_current_comm#16', 'bpf_get_cgroup_classid#17', 'bpf_perf_event_read#22',
  'bpf_get_current_task#35', 'bpf_current_task_under_cgroup#37', 'bpf_perf_event_read_value#55', 'bpf_get_current_cgroup_id#80',
  // socket lookups
  'bpf_sk_lookup_tcp#84', 'bpf_sk_lookup_udp#85', 'bpf_sk_release#86',
  // queue/stack maps (not created by the maps module, so unreachable today)
  'bpf_map_push_elem#87', 'bpf_map_pop_elem#88', 'bpf_map_peek_elem#89',
  'bpf_skc_lookup_tcp#99', 'bpf_strtol#105', 'bpf_strtoul#106',
  'bpf_probe_read_user#112', 'bpf_probe_read_kernel#113', 'bpf_probe_read_user_str#114', 'bpf_probe_read_kernel_str#115',
  'bpf_get_ns_current_pid_tgid#120', 'bpf_get_current_ancestor_cgroup_id#123',
  'bpf_ringbuf_query#134', 'bpf_check_mtu#163',
  'bpf_timer_init#169', 'bpf_timer_set_callback#170', 'bpf_timer_start#171', 'bpf_timer_cancel#172', 'bpf_map_lookup_percpu_elem#195',
];

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
