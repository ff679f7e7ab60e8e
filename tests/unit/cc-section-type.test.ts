/**
 * A program in a section libbpf gives no type (SEC("prog"), as
 * bpf-examples' encap-forward writes it; its loader makes it XDP): without
 * an xdp section, our compiler takes the function that takes struct
 * xdp_md * as the XDP program, with a warning naming the section, and the
 * ELF reader takes clang's object of it the same way. A section of another
 * type (SEC("tc")) is never taken, and an xdp section wins over a typeless one.
 * A map of a type the lab does not support that only the file's program of
 * another type uses (the selftests' test_migrate_reuseport.c: a reuseport
 * sockarray for its sk_reuseport program) is left out with a warning, by
 * both readers; one the XDP code uses is still refused.
 */
import { describe, expect, it } from 'vitest';
import { compile } from '../../src/cc';
import { clangAvailable, clangCompile } from '../../src/cli/clang';
import { extractObject } from '../../src/cli/bpf_elf';
import { parseSpec } from '../../src/isa';
import { createVm, testRunFrame } from '../../src/vm';

const HEAD = '#include <linux/bpf.h>\n#include <bpf/bpf_helpers.h>\n';
const TAIL = 'char _license[] SEC("license") = "GPL";\n';
const PROG = `${HEAD}SEC("prog") int xdp_encap(struct xdp_md *ctx) {
  void *data = (void *)(long)ctx->data, *end = (void *)(long)ctx->data_end;
  return data + 14 <= end ? XDP_TX : XDP_DROP;
}
${TAIL}`;

const run = (spec: Parameters<typeof parseSpec>[0], len: number) => {
  const parsed = parseSpec(spec);
  if ('error' in parsed) throw new Error(parsed.error);
  const vm = createVm(parsed);
  if ('error' in vm) throw new Error(vm.error);
  return vm.runXdp(testRunFrame(new Uint8Array(len))).retval;
};

describe('XDP programs in a section of no type', () => {
  it('SEC("prog") with a struct xdp_md * argument is the XDP program, with a warning', () => {
    const r = compile(PROG, { file: 'encap.c' });
    expect(r.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    expect(r.diagnostics.find((d) => d.code === 'cc-section-type')?.message).toMatch(/section "prog" names no program type: 'xdp_encap'/);
    expect(r.spec!.funcs?.[0]?.name).toBe('xdp_encap');
    expect([run(r.spec!, 64), run(r.spec!, 10)]).toEqual([3, 1]);
  });

  it('a section of another type is not taken; an xdp section wins over a typeless one', () => {
    const tc = compile(`${HEAD}SEC("tc") int f(struct xdp_md *ctx) { return 0; }\n${TAIL}`, { file: 'tc.c' });
    expect(tc.diagnostics.find((d) => d.severity === 'error')?.code).toBe('cc-no-entry');
    const skb = compile(`${HEAD}SEC("prog") int f(struct __sk_buff *skb) { return 0; }\n${TAIL}`, { file: 'skb.c' });
    expect(skb.diagnostics.find((d) => d.severity === 'error')?.code).toBe('cc-no-entry');
    const both = compile(`${HEAD}SEC("prog") int a(struct xdp_md *ctx) { return XDP_DROP; }\nSEC("xdp") int b(struct xdp_md *ctx) { return XDP_PASS; }\n${TAIL}`, { file: 'both.c' });
    expect(both.spec!.funcs?.[0]?.name).toBe('b');
    expect(both.diagnostics.some((d) => d.code === 'cc-section-type')).toBe(false);
  });

  // Reported as skipped (not passed) where clang-19, the reference compiler, is not installed.
  it.skipIf(!clangAvailable())('clang-19\'s object of it reads back with that program (the ELF reader), running alike', () => {
    const obj = clangCompile(PROG, 'encap.c');
    expect(obj.stderr.includes('error:') ? obj.stderr : '').toBe('');
    const { spec } = extractObject(obj.obj!);
    expect(spec.section).toBe('prog');
    expect([run(spec, 64), run(spec, 10)]).toEqual([3, 1]);
  });
});

const REUSEPORT = (xdpUses: boolean) => `${HEAD}
struct { __uint(type, BPF_MAP_TYPE_REUSEPORT_SOCKARRAY); __uint(max_entries, 4); __type(key, int); __type(value, __u64); } reuseport_map SEC(".maps");
struct { __uint(type, BPF_MAP_TYPE_ARRAY); __uint(max_entries, 1); __type(key, __u32); __type(value, __u64); } seen SEC(".maps");
SEC("sk_reuseport") int pick(struct sk_reuseport_md *md) { int k = 0; bpf_sk_select_reuseport(md, &reuseport_map, &k, 0); return SK_PASS; }
SEC("xdp") int count(struct xdp_md *ctx) {
  __u32 k = 0; __u64 *n = bpf_map_lookup_elem(${xdpUses ? '&reuseport_map' : '&seen'}, &k);
  if (n) *n += 1;
  return XDP_PASS;
}
${TAIL}`;

describe('a map only a program of another type uses', () => {
  it('is left out with a warning; the XDP program and its own map build and run', () => {
    const r = compile(REUSEPORT(false), { file: 'reuseport.c' });
    expect(r.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    expect(r.diagnostics.find((d) => d.code === 'cc-map-type')).toMatchObject({ severity: 'warning', message: expect.stringMatching(/map 'reuseport_map': map type 20 is not supported here; no XDP code of this file uses it/) });
    expect(r.spec!.maps!.map((m) => m.name)).toEqual(['seen']);
    expect(run(r.spec!, 64)).toBe(2);
  });
  it('is refused when the XDP code uses it', () => {
    const r = compile(REUSEPORT(true), { file: 'reuseport.c' });
    expect(r.diagnostics.find((d) => d.severity === 'error')?.message).toMatch(/map 'reuseport_map': map type 20 is not supported here \(supported/);
  });
  it.skipIf(!clangAvailable())('clang-19\'s object reads back without it; with the XDP code using it, the reader refuses it', () => {
    const ok = clangCompile(REUSEPORT(false), 'reuseport.c');
    expect(ok.stderr.includes('error:') ? ok.stderr : '').toBe('');
    const { spec } = extractObject(ok.obj!);
    expect(spec.maps!.map((m) => m.name)).toEqual(['seen']);
    expect(run(spec, 64)).toBe(2);
    const bad = clangCompile(REUSEPORT(true), 'reuseport.c');
    expect(() => extractObject(bad.obj!)).toThrow(/map reuseport_map: unsupported type/);
  });
});
