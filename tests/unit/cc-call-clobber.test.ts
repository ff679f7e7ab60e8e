/**
 * Values held in caller-saved registers across a call: a call clobbers
 * r0-r5, so whatever the enclosing expression already computed there (an
 * earlier argument of an inlined function, the left operand of `a + f()`,
 * an initialiser's earlier fields, a ternary's condition feeding an
 * operand, the left side of a comma) must survive it. Each program is
 * compiled by us and by clang-19 (when installed); both run in our VM on
 * the same packet and must leave the same maps and return value, and ours
 * must give the values C says (written out, so the test holds without
 * clang too). Where the kernel oracle is available, ours runs there too.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { compile, formatDiagnostic } from '../../src/cc';
import { bytesToHex, parseSpec } from '../../src/isa';
import { createVm, testRunFrame } from '../../src/vm';
import { clangAvailable, clangCompile } from '../../src/cli/clang';
import { extractProgram } from '../../src/cli/bpf_elf';
import { Oracle, oracleAvailable } from '../differential/oracle';

const PRE = `#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
struct { __uint(type, BPF_MAP_TYPE_ARRAY); __uint(key_size, 4); __uint(value_size, 8); __uint(max_entries, 40); } out SEC(".maps");
struct { __uint(type, BPF_MAP_TYPE_ARRAY); __uint(key_size, 4); __uint(value_size, 4); __uint(max_entries, 3); } a SEC(".maps");
static __always_inline void put(__u32 k, __u64 v) { bpf_map_update_elem(&out, &k, &v, 0); }
static __noinline __u64 sub(__u64 x) { return x * 3 + 1; }
static __always_inline void put3(__u32 k, __u64 v, __u64 w) { put(k, v + w * 1000); }
`;
const POST = '\nchar _license[] SEC("license") = "GPL";\n';
const PACKET = '02000000000202000000000108004500001c00004000401126790a0000010a000002d4294eab00080000';

interface Case { name: string; body: string; /** out[k] = v for every nonzero entry, as C computes it. */ want: Record<number, bigint>; ret: number }

const E2BIG = BigInt.asUintN(64, -7n);
const CASES: Case[] = [
  {
    name: 'an inlined call\'s earlier argument survives a helper call in a later one (l.c)',
    body: `__u32 v, i, k;
\tfor (i = 1; i <= 4; i++) { v = i * 10; k = i - 1; put(i - 1, bpf_map_update_elem(&a, &k, &v, 0)); }
\treturn XDP_PASS;`,
    want: { 3: E2BIG },
    ret: 2,
  },
  {
    name: 'nested calls in an inlined call\'s arguments',
    body: `__u64 n = ctx->data_end - ctx->data;
	put(n - 40, sub(sub(n) + n));
	put(sub(1) + 1, sub(n) + sub(n + 1));
	return XDP_PASS;`,
    // sub(42) = 127, sub(169) = 508; sub(1) = 4: out[5] = 127 + 130.
    want: { 2: 508n, 5: 257n },
    ret: 2,
  },
  {
    name: 'a value computed before a call in the other operand, a ternary and a comma',
    body: `__u64 n = ctx->data_end - ctx->data, t;
	put(1, (n * 2) - sub(n));
	put(2, n & 1 ? sub(n) : n + sub(n - 1));
	put(3, (t = n + 5, t * sub(t)));
	put(4, n ^ (sub(n) << 1));
	return XDP_PASS;`,
    // 84 - 127 wraps; 42 + sub(41) = 42 + 124; t = 47: 47 * 142; 42 ^ 254.
    want: { 1: BigInt.asUintN(64, -43n), 2: 166n, 3: 6674n, 4: 42n ^ 254n },
    ret: 2,
  },
  {
    // Before: "internal: value live across a call" (two arguments held, the call took one register).
    name: 'two earlier arguments held across a real call in the third',
    body: `__u64 n = ctx->data_end - ctx->data;
	put3(n - 32, n + 1, sub(n));
	put3(sub(0) + 10, n * 2, sub(n) + sub(1));
	put3(n - 29, n & 1 ? n : sub(n) + 1, n & 2 ? sub(n) + 1 : n);
	put3(n - 28, (sub(n), n), sub(n));
	return XDP_PASS;`,
    // out[10] = 43 + 127000; out[11] = 84 + 131000.
    want: { 10: 127043n, 11: 131084n, 13: 128n * 1001n, 14: 42n + 1000n * 127n },
    ret: 2,
  },
  {
    // r6-r9 hold locals that live across calls, so the held arguments go to the stack.
    name: 'held values spilled to the stack when the callee-saved registers are taken',
    body: `__u64 n = ctx->data_end - ctx->data, p = sub(n), q = sub(p), r = sub(q), s = sub(r);
	put3(n - 30, n + 2, sub(n));
	put(20, p + q + r + s);
	put(21, n);
	return XDP_PASS;`,
    want: { 12: 127044n, 20: 127n + 382n + 1147n + 3442n, 21: 42n },
    ret: 2,
  },
  {
    name: 'a struct initialiser whose later field calls',
    body: `__u64 n = ctx->data_end - ctx->data;
	struct { __u64 x, y, z; } s = { n + 1, sub(n), n + sub(2) };
	put(6, s.x); put(7, s.y); put(8, s.z);
	return s.x == 43 ? XDP_PASS : XDP_DROP;`,
    want: { 6: 43n, 7: 127n, 8: 49n },
    ret: 2,
  },
  {
    name: 'helper arguments after a value held for an inlined call',
    body: `__u32 k = 9, v = 3, n = ctx->data_end - ctx->data;
	put(n - 30, bpf_map_update_elem(&a, &k, &v, 0) + bpf_map_update_elem(&a, &k, &v, 0) + n);
	return XDP_PASS;`,
    // Two E2BIG results plus 42 in the 64-bit parameter: 42 - 14.
    want: { 12: 28n },
    ret: 2,
  },
  {
    // The helper's fifth argument is written into r5, the register s is given; the next local must not get it too.
    name: 'a local initialised by a call keeps its argument register from the next local',
    body: `void *data = (void *)(long)ctx->data, *data_end = (void *)(long)ctx->data_end;
	if (data + 20 > data_end)
		return XDP_ABORTED;
	__u32 s = bpf_csum_diff(0, 0, data, 20, 0);
	__u32 t = s + 1;
	__u32 d = t - s + *(__u8 *)data;
	put(13, d);
	return XDP_PASS;`,
    // The packet's first byte is 2: (s + 1) - s + 2.
    want: { 13: 3n },
    ret: 2,
  },
];

function ourSpec(src: string): unknown {
  const r = compile(src, { file: 'clobber.c' });
  const errors = r.diagnostics.filter((d) => d.severity === 'error');
  expect(errors.map((d) => formatDiagnostic(d, src))).toEqual([]);
  return r.spec;
}

function runVm(spec: unknown): { ret: number; out: Record<number, bigint> } {
  const parsed = parseSpec(spec);
  if ('error' in parsed) throw new Error(parsed.error);
  const vm = createVm(parsed, {});
  if ('error' in vm) throw new Error(vm.error);
  const r = vm.runXdp(testRunFrame(Buffer.from(PACKET, 'hex')));
  expect(r.fault?.message ?? '').toBe('');
  return { ret: r.retval, out: entries(vm.maps[0]!.dump().entries) };
}

/** The nonzero entries of the (array) out map; a per-cpu dump would list values per cpu. */
function entries(list: readonly { key: string; value: string | readonly string[] }[]): Record<number, bigint> {
  const o: Record<number, bigint> = {};
  for (const e of list) {
    if (typeof e.value !== 'string') throw new Error('out is an array map: one value per key');
    const v = Buffer.from(e.value, 'hex').readBigUInt64LE();
    if (v !== 0n) o[Buffer.from(e.key, 'hex').readUInt32LE()] = v;
  }
  return o;
}

const oracle = oracleAvailable();
const kernel = oracle.ok ? new Oracle() : undefined;
afterAll(() => kernel?.close());

describe('values held in r0-r5 survive a later call', () => {
  for (const c of CASES) {
    it(c.name, async () => {
      const src = `${PRE}SEC("xdp") int prog(struct xdp_md *ctx)\n{\n\t${c.body}\n}${POST}`;
      const spec = ourSpec(src) as { insns: string; maps: unknown[]; map_relocs: unknown };
      const ours = runVm(spec);
      expect(ours).toEqual({ ret: c.ret, out: c.want });
      if (clangAvailable()) {
        const obj = clangCompile(src, 'clobber.c');
        expect(obj.stderr.includes('error:') ? obj.stderr : '').toBe('');
        const ref = extractProgram(obj.obj!, (spec.maps as { name: string }[]).map((m) => m.name));
        expect(runVm({ prog_type: 'xdp', insns: bytesToHex(ref.insns), maps: ref.maps, map_relocs: ref.map_relocs })).toEqual(ours);
      }
      if (kernel) {
        const k = await kernel.ask({ insns: spec.insns, maps: spec.maps as never, map_relocs: spec.map_relocs as never, runs: [{ data: PACKET }], dump_maps: true, log_level: 1 });
        expect(k.accepted).toBe(true);
        expect({ ret: k.runs[0]!.retval, out: entries(k.maps![0]!.entries) }).toEqual(ours);
      }
    });
  }
});
