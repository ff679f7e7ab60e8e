/**
 * BPF_PROG_TEST_RUN's repeat, VM against the kernel (issue 16): the kernel's
 * bpf_test_run sets the xdp_buff up once and runs the program `repeat`
 * times on it, nothing reset in between, so a program that moves data,
 * data_meta or data_end moves them again on every run, and the maps see
 * every run. XdpVm.testRunInto must do the same in both engines, through
 * the JIT's own repeat loop and through the owner's loop (a program that
 * may take a tail call, and the interpreter). Each program is built by our
 * compiler; retval, data_out and the maps after the runs must equal the
 * kernel's.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { compile } from '../../src/cc';
import { parseSpec } from '../../src/isa';
import { createVm, testRunFrame, type XdpResult } from '../../src/vm';
import { helperNotOffered, Oracle, oracleAvailable, warnHelperNotOffered } from './oracle';

const avail = oracleAvailable();

const PRELUDE = `#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
struct { __uint(type, BPF_MAP_TYPE_ARRAY); __uint(key_size, 4); __uint(value_size, 8); __uint(max_entries, 4); } out SEC(".maps");
struct { __uint(type, BPF_MAP_TYPE_PROG_ARRAY); __uint(key_size, 4); __uint(value_size, 4); __uint(max_entries, 2); } jmp SEC(".maps");
`;

const PKT = '02000000000102000000000208004500003200004000401100000a0000010a000002' + '0400040000001e0000' + 'ab'.repeat(21);

const CASES: { name: string; body: string; repeat: number; tailCall?: boolean }[] = [
  {
    name: 'push a 4-byte header per run, each stamped with the run count',
    repeat: 7,
    body: `
  __u32 k = 0; __u64 *n = bpf_map_lookup_elem(&out, &k);
  if (!n) return XDP_ABORTED;
  *n += 1;
  if (bpf_xdp_adjust_head(ctx, -4)) return XDP_DROP;
  void *data = (void *)(long)ctx->data, *end = (void *)(long)ctx->data_end;
  if (data + 4 > end) return XDP_DROP;
  *(__u32 *)data = (__u32)*n;
  return XDP_PASS;`,
  },
  {
    name: 'grow metadata and shrink the tail until the helpers refuse',
    repeat: 40,
    body: `
  __u32 k = 1; __u64 *fails = bpf_map_lookup_elem(&out, &k);
  if (!fails) return XDP_ABORTED;
  if (bpf_xdp_adjust_meta(ctx, -4)) *fails += 1;
  if (bpf_xdp_adjust_tail(ctx, -1)) *fails += 0x100;
  return XDP_TX;`,
  },
  {
    name: 'an xdp1-like counter: no helper but the (inlined) lookup, the JIT repeat loop',
    repeat: 1000,
    body: `
  void *data = (void *)(long)ctx->data, *end = (void *)(long)ctx->data_end;
  __u32 k = 2;
  if (data + 24 <= end) k = ((__u8 *)data)[23] & 3;
  __u64 *n = bpf_map_lookup_elem(&out, &k);
  if (n) *n += 1;
  return XDP_DROP;`,
  },
  {
    name: 'a program that may tail call (an empty prog_array: the call falls through) moves data per run',
    repeat: 9,
    tailCall: true,
    body: `
  bpf_tail_call(ctx, &jmp, 0);
  if (bpf_xdp_adjust_head(ctx, 2)) return XDP_ABORTED;
  __u32 k = 3; __u64 *n = bpf_map_lookup_elem(&out, &k);
  if (n) *n += 1;
  return XDP_PASS;`,
  },
];

describe.skipIf(!avail.ok)('test_run repeat: VM vs kernel', () => {
  const oracle = avail.ok ? new Oracle() : undefined;
  afterAll(() => oracle?.close());

  for (const c of CASES) {
    it(`${c.name} (repeat ${c.repeat})`, async (ctx) => {
      const r = compile(`${PRELUDE}\nSEC("xdp") int prog(struct xdp_md *ctx) {${c.body}\n}\nchar _license[] SEC("license") = "GPL";\n`, { file: 't.c' });
      const err = r.diagnostics.find((d) => d.severity === 'error');
      if (!r.spec) throw new Error(err ? `${err.span.line}: ${err.message}` : 'no spec');
      const { btf: _btf, source: _src, line_info: _li, ...spec } = r.spec;
      const outcomes = (['interp', 'jit'] as const).map((engine) => {
        const parsed = parseSpec(spec);
        if ('error' in parsed) throw new Error(parsed.error);
        const vm = createVm(parsed, { engine });
        if ('error' in vm) throw new Error(vm.error);
        if (engine === 'jit') expect(vm.jitUnavailable).toBeUndefined();
        const frame = testRunFrame(Buffer.from(PKT, 'hex'));
        const out: XdpResult = { retval: 0, data: 0, dataEnd: 0, dataMeta: 0, insns: 0 };
        vm.testRunInto(frame, out, c.repeat);
        expect(out.fault, engine).toBeUndefined();
        return { engine, retval: out.retval, data_out: Buffer.from(frame.buf.subarray(Math.min(out.data, out.dataMeta), out.dataEnd)).toString('hex'), entries: vm.maps[0]!.dump().entries };
      });
      // Both engines agree whatever the kernel here offers.
      expect({ ...outcomes[1]!, engine: '' }).toEqual({ ...outcomes[0]!, engine: '' });
      const res = await oracle!.ask({ ...spec, log_level: 1, runs: [{ data: PKT, repeat: c.repeat }], dump_maps: true });
      const absent = res.accepted ? undefined : helperNotOffered(res.verifier_log);
      if (absent) {
        warnHelperNotOffered(`test_run repeat: ${c.name}`, absent, 'this case is SKIPPED against the kernel (the interpreter and the JIT still agree)');
        ctx.skip();
      }
      expect(res.accepted, res.verifier_log).toBe(true);
      const kernel = res.runs[0]!;
      for (const o of outcomes) {
        expect(o.retval, o.engine).toBe(kernel.retval);
        expect(o.data_out, o.engine).toBe(kernel.data_out);
        expect(o.entries, o.engine).toEqual(res.maps![0]!.entries);
      }
    });
  }
});
