/**
 * Issue 17's helpers in the VM against the kernel, where the kernel's answer
 * does not depend on the machine or on test_run's calling process: string
 * parsing, kernel reads of program memory and of user-space or
 * non-canonical addresses, perf counters on an empty perf_event_array, a
 * pid namespace that does not match, check_mtu's error codes, a fresh ring
 * buffer's query, per-cpu lookups. One thing the kernel's answer does
 * depend on, the CPU's virtual address width (a non-canonical address is
 * -ERANGE, a canonical unmapped one -EFAULT: 0xffff000000000000 is the
 * first with 48 bits, the second with 57), is read from /proc/cpuinfo and
 * given to the VM. Each program (C, built by our compiler)
 * stores its helpers' results in an array map; the kernel's copy of that map
 * after BPF_PROG_TEST_RUN must equal the VM's (both engines).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { compile } from '../../src/cc';
import { parseSpec } from '../../src/isa';
import { createVm, testRunFrame } from '../../src/vm';
import { Oracle, oracleAvailable, oracleFib } from './oracle';

const avail = oracleAvailable();

function possibleCpus(): number {
  const text = readFileSync('/sys/devices/system/cpu/possible', 'utf8').trim();
  return text.split(',').reduce((n, part) => {
    const [lo, hi] = part.split('-').map(Number);
    return n + (hi === undefined ? 1 : hi - lo! + 1);
  }, 0);
}

/** boot_cpu_data.x86_virt_bits as /proc/cpuinfo prints it ("57 bits virtual" with five-level paging). */
function hostVirtAddrBits(): 48 | 57 {
  const m = /(\d+) bits virtual/.exec(readFileSync('/proc/cpuinfo', 'utf8'));
  return m && Number(m[1]) === 57 ? 57 : 48;
}

const PRELUDE = `#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
struct { __uint(type, BPF_MAP_TYPE_ARRAY); __uint(key_size, 4); __uint(value_size, 8); __uint(max_entries, 32); } out SEC(".maps");
static __always_inline void put(__u32 k, __u64 v) { bpf_map_update_elem(&out, &k, &v, 0); }
`;

const PKT = '02000000000102000000000208004500003200004000401100000a0000010a000002' + '0400040000001e0000' + 'ab'.repeat(21);

const CASES: { name: string; body: string; maps?: string }[] = [
  {
    name: 'bpf_strtol / bpf_strtoul: bases, prefixes, signs',
    body: `
  char s1[16] = " \\t-0x1fZ", s2[8] = "0777", s4[8] = "-5";
  long r; unsigned long u; long n;
  r = 1; n = bpf_strtol(s1, 8, 0, &r); put(0, n); put(1, r);
  r = 1; n = bpf_strtol(s2, 8, 0, &r); put(2, n); put(3, r);
  u = 1; n = bpf_strtoul(s4, 8, 0, &u); put(6, n); put(7, u);
  r = 1; n = bpf_strtol(s2, 8, 3, &r); put(8, n); put(9, r);
  u = 1; n = bpf_strtoul(s2, 4, 8, &u); put(20, n); put(21, u);
  u = 1; n = bpf_strtoul(s1 + 4, 4, 16, &u); put(22, n); put(23, u);`,
  },
  {
    name: 'bpf_strtol / bpf_strtoul: range and empty numbers',
    body: `
  char s3[24] = "18446744073709551616", s5[24] = "-9223372036854775808", s6[24] = "9223372036854775808", s7[8] = "0x", s8[8] = "+5";
  long r; unsigned long u; long n;
  u = 1; n = bpf_strtoul(s3, 24, 10, &u); put(4, n); put(5, u);
  r = 1; n = bpf_strtol(s5, 24, 0, &r); put(10, n); put(11, r);
  r = 1; n = bpf_strtol(s6, 24, 0, &r); put(12, n); put(13, r);
  r = 1; n = bpf_strtol(s7, 8, 0, &r); put(14, n); put(15, r);
  r = 1; n = bpf_strtol(s7, 8, 16, &r); put(16, n); put(17, r);
  r = 1; n = bpf_strtol(s8, 8, 0, &r); put(18, n); put(19, r);`,
  },
  {
    name: 'bpf_probe_read_kernel(_str) and bpf_probe_read_user(_str) on program memory and bad addresses',
    body: `
  __u64 buf = 0x5555, src = 0x123456789;
  char e[8] = "hello";
  char o[8] = {1, 1, 1, 1, 1, 1, 1, 1};
  long r;
  r = bpf_probe_read_kernel(&buf, 8, 0); put(0, r); put(1, buf);
  buf = 0x5555; r = bpf_probe_read_kernel(&buf, 8, &src); put(2, r); put(3, buf);
  buf = 0x5555; r = bpf_probe_read_kernel(&buf, 8, (void *)0xffff000000000000ULL); put(4, r); put(5, buf);
  r = bpf_probe_read_kernel_str(o, 4, e); put(6, r); put(7, *(__u64 *)o);
  r = bpf_probe_read_kernel_str(o, 8, e); put(8, r); put(9, *(__u64 *)o);
  r = bpf_probe_read_kernel_str(o, 8, 0); put(10, r); put(11, *(__u64 *)o);
  put(12, bpf_probe_read_kernel(o, 0, 0));
  put(13, bpf_probe_read_kernel_str(o, 0, 0));
  buf = 0x5555; r = bpf_probe_read_user(&buf, 8, e); put(14, r); put(15, buf);
  buf = 0x5555; r = bpf_probe_read_user_str(&buf, 8, e); put(16, r); put(17, buf);`,
  },
  {
    name: 'perf counters on an empty perf_event_array',
    maps: 'struct { __uint(type, BPF_MAP_TYPE_PERF_EVENT_ARRAY); __uint(key_size, 4); __uint(value_size, 4); __uint(max_entries, 4); } pe SEC(".maps");',
    body: `
  struct bpf_perf_event_value v = {1, 2, 3};
  put(0, bpf_perf_event_read(&pe, 0));
  put(1, bpf_perf_event_read(&pe, 9));
  put(2, bpf_perf_event_read(&pe, 1ULL << 40));
  put(3, bpf_perf_event_read(&pe, 0xffffffffULL));
  long r = bpf_perf_event_read_value(&pe, 0, &v, sizeof(v)); put(4, r); put(5, v.counter + v.enabled + v.running);
  v.counter = 1; r = bpf_perf_event_read_value(&pe, 7, &v, sizeof(v)); put(6, r); put(7, v.counter);`,
  },
  {
    name: 'bpf_get_ns_current_pid_tgid with a namespace that does not match',
    body: `
  struct bpf_pidns_info ns = {7, 7};
  long r = bpf_get_ns_current_pid_tgid(1, 2, &ns, sizeof(ns)); put(0, r); put(1, ns.pid); put(2, ns.tgid);
  ns.pid = 7; r = bpf_get_ns_current_pid_tgid(1ULL << 40, 2, &ns, sizeof(ns)); put(3, r); put(4, ns.pid);`,
  },
  {
    name: 'bpf_check_mtu: no such device, flags, and the mtu left alone on failure',
    body: `
  __u32 mtu = 3; long r;
  r = bpf_check_mtu(ctx, 999, &mtu, 0, 0); put(0, r); put(1, mtu);
  mtu = 3; r = bpf_check_mtu(ctx, 0, &mtu, 0, 1); put(2, r); put(3, mtu);`,
  },
  {
    name: 'bpf_ringbuf_query on a fresh ring',
    maps: 'struct { __uint(type, BPF_MAP_TYPE_RINGBUF); __uint(max_entries, 8192); } rb SEC(".maps");',
    body: `
  put(0, bpf_ringbuf_query(&rb, 0));
  put(1, bpf_ringbuf_query(&rb, 1));
  put(2, bpf_ringbuf_query(&rb, 2));
  put(3, bpf_ringbuf_query(&rb, 3));
  put(4, bpf_ringbuf_query(&rb, 4));
  put(5, bpf_ringbuf_query(&rb, 1ULL << 32 | 1));`,
  },
  {
    name: 'bpf_map_lookup_percpu_elem',
    maps: 'struct { __uint(type, BPF_MAP_TYPE_PERCPU_HASH); __uint(key_size, 4); __uint(value_size, 8); __uint(max_entries, 4); } ph SEC(".maps");',
    body: `
  __u32 k = 1; __u64 one = 41;
  bpf_map_update_elem(&ph, &k, &one, 0);
  __u32 cpu = bpf_get_smp_processor_id();
  __u64 *v = bpf_map_lookup_percpu_elem(&ph, &k, cpu);
  if (v) { *v += 1; put(0, *v); }
  v = bpf_map_lookup_percpu_elem(&ph, &k, 100000);
  put(1, v ? 1 : 2);
  k = 2; v = bpf_map_lookup_percpu_elem(&ph, &k, 0);
  put(2, v ? 1 : 2);`,
  },
];

describe.skipIf(!avail.ok)('issue-17 helpers: VM vs kernel', () => {
  const oracle = avail.ok ? new Oracle() : undefined;
  afterAll(() => oracle?.close());
  const nCpus = avail.ok ? possibleCpus() : 1;
  const virtAddrBits = hostVirtAddrBits();

  for (const c of CASES) {
    it(c.name, async () => {
      const r = compile(`${PRELUDE}${c.maps ?? ''}\nSEC("xdp") int prog(struct xdp_md *ctx) {${c.body}\n  return XDP_PASS;\n}\nchar _license[] SEC("license") = "GPL";\n`, { file: 't.c' });
      const err = r.diagnostics.find((d) => d.severity === 'error');
      if (!r.spec) throw new Error(err ? `${err.span.line}: ${err.message}` : 'no spec');
      const { btf: _btf, source: _src, line_info: _li, ...spec } = r.spec;
      const res = await oracle!.ask({ ...spec, log_level: 1, runs: [{ data: PKT }], dump_maps: true });
      expect(res.accepted, res.verifier_log).toBe(true);
      const outIndex = spec.maps!.findIndex((m) => m.name === 'out');
      const kernel = res.maps![outIndex]!.entries;
      for (const engine of ['interp', 'jit'] as const) {
        const parsed = parseSpec(spec);
        if ('error' in parsed) throw new Error(parsed.error);
        const vm = createVm(parsed, { nCpus, engine, env: { virtAddrBits }, fib: oracleFib() });
        if ('error' in vm) throw new Error(vm.error);
        if (engine === 'jit') expect(vm.jitUnavailable).toBeUndefined();
        const ours = vm.runXdp(testRunFrame(Buffer.from(PKT, 'hex')));
        expect(ours.fault).toBeUndefined();
        expect(ours.retval).toBe(res.runs[0]!.retval);
        expect(vm.maps[outIndex]!.dump().entries).toEqual(kernel);
      }
    });
  }
});
