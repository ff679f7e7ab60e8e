/**
 * Atomics on map values, which the JIT translates inline (emitAtomic): every
 * operation (add, or, and, xor, each with and without fetch; xchg; cmpxchg
 * matching and not), 64- and 32-bit, on an array map's value (inlined
 * lookup) and on a hash map's value. The JIT must equal the interpreter
 * (always checked) and both must equal the kernel (BPF_PROG_TEST_RUN with a
 * repeat, maps read back), where the oracle runs.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { compile } from '../../src/cc';
import { parseSpec } from '../../src/isa';
import { createVm, testRunFrame, type XdpResult } from '../../src/vm';
import { translate } from '../../src/vm/jit';
import { verify } from '../../src/verifier';
import { Oracle, oracleAvailable } from './oracle';

const avail = oracleAvailable();

const PKT = '02000000000102000000000208004500003200004000401100000a0000010a000002' + '0400040000001e0000' + 'ab'.repeat(21);

const body = (map: string, key: string) => `
  __u32 k = ${key};
  struct v *s = bpf_map_lookup_elem(&${map}, &k);
  if (!s) return XDP_ABORTED;
  __u64 len = (long)ctx->data_end - (long)ctx->data;
  __u64 before = __sync_fetch_and_add(&s->a, 3);
  __sync_fetch_and_add(&s->b, len);
  __sync_fetch_and_or(&s->c, 1ULL << (before & 63));
  __sync_fetch_and_and(&s->c, ~(1ULL << ((before + 7) & 63)));
  __sync_fetch_and_xor(&s->d, 0x8000000000000001ULL);
  s->e = __sync_fetch_and_or(&s->c, 0) ^ __sync_fetch_and_xor(&s->d, 0);
  __sync_val_compare_and_swap(&s->f, before, before * 3);
  if (!__sync_bool_compare_and_swap(&s->g, 12345, 1)) __sync_lock_test_and_set(&s->g, before + 0xfffffffffULL);
  __u32 w = __sync_fetch_and_add(&s->w1, 0xfffffff0U);
  __sync_fetch_and_xor(&s->w2, w);
  __sync_val_compare_and_swap(&s->w3, (__u32)before, (__u32)before + 5);
  s->h += __sync_add_and_fetch(&s->a, 0x7fffffff);
  return XDP_PASS;`;

const PRELUDE = `#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
struct v { __u64 a, b, c, d, e, f, g, h; __u32 w1, w2, w3, pad; };
struct { __uint(type, BPF_MAP_TYPE_ARRAY); __type(key, __u32); __type(value, struct v); __uint(max_entries, 2); } arr SEC(".maps");
struct { __uint(type, BPF_MAP_TYPE_HASH); __type(key, __u32); __type(value, struct v); __uint(max_entries, 4); } hash SEC(".maps");
`;

const CASES = [
  { name: 'on an array map value (the lookup inlined)', map: 'arr', key: '1', init: undefined },
  { name: 'on a hash map value', map: 'hash', key: '7', init: { key: '07000000', value: '00'.repeat(80) } },
];

function build(c: (typeof CASES)[number]) {
  const r = compile(`${PRELUDE}\nSEC("xdp") int prog(struct xdp_md *ctx) {${body(c.map, c.key)}\n}\nchar _license[] SEC("license") = "GPL";\n`, { file: 't.c' });
  const err = r.diagnostics.find((d) => d.severity === 'error');
  if (!r.spec) throw new Error(err ? `${err.span.line}: ${err.message}` : 'no spec');
  const { btf: _btf, source: _src, line_info: _li, ...spec } = r.spec;
  if (c.init) spec.maps!.find((m) => m.name === 'hash')!.init = [c.init];
  return spec;
}

function runVm(spec: ReturnType<typeof build>, engine: 'jit' | 'interp', repeat: number) {
  const parsed = parseSpec(spec);
  if ('error' in parsed) throw new Error(parsed.error);
  const vm = createVm(parsed, { engine });
  if ('error' in vm) throw new Error(vm.error);
  const out: XdpResult = { retval: 0, data: 0, dataEnd: 0, dataMeta: 0, insns: 0 };
  vm.testRunInto(testRunFrame(Buffer.from(PKT, 'hex')), out, repeat);
  return { vm, out, maps: vm.maps.map((m) => m.dump().entries) };
}

describe('atomics on map values: JIT = interpreter', () => {
  for (const c of CASES) {
    it(c.name, () => {
      const spec = build(c);
      const jit = runVm(spec, 'jit', 37);
      expect(jit.vm.jitUnavailable).toBeUndefined();
      const interp = runVm(spec, 'interp', 37);
      expect(jit.out.fault).toBeUndefined();
      expect(jit.out).toEqual(interp.out);
      expect(jit.maps).toEqual(interp.maps);
      // Translated inline: no atomic is left to the interpreter's implementation (except on a bounds failure).
      const parsed = parseSpec(spec);
      if ('error' in parsed) throw new Error(parsed.error);
      const src = translate(jit.vm.machine, verify(parsed, { proof: true, states: false }).proof!, jit.vm.lastTarget!);
      // 14 atomics (twice over when test_run's loop has its own copy of the body); a guarded one keeps the slow path beside it.
      const inline = src.match(/getInt32\(a, true\); e2 = /g)?.length ?? 0;
      const slow = src.match(/m\.atomic\(/g)?.length ?? 0;
      expect(inline === 14 || inline === 28, `${inline} inline`).toBe(true);
      expect(slow === 0 || slow === inline, `${slow} slow`).toBe(true);
      // The values moved: every field was written.
      expect(jit.maps[c.map === 'arr' ? 0 : 1]!.length).toBe(1);
    });
  }
});

describe.skipIf(!avail.ok)('atomics on map values: VM = kernel', () => {
  const oracle = avail.ok ? new Oracle() : undefined;
  afterAll(() => oracle?.close());
  for (const c of CASES) {
    it(c.name, async () => {
      const spec = build(c);
      const res = await oracle!.ask({ ...spec, log_level: 1, runs: [{ data: PKT, repeat: 37 }], dump_maps: true });
      expect(res.accepted, res.verifier_log).toBe(true);
      for (const engine of ['jit', 'interp'] as const) {
        const ours = runVm(spec, engine, 37);
        expect(ours.out.retval).toBe(res.runs[0]!.retval);
        expect(ours.maps, engine).toEqual(res.maps!.map((m) => m.entries));
      }
    });
  }
});
