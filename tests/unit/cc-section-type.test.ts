/**
 * A program in a section libbpf gives no type (SEC("prog"), as
 * bpf-examples' encap-forward writes it; its loader makes it XDP): without
 * an xdp section, our compiler takes the function that takes struct
 * xdp_md * as the XDP program, with a warning naming the section, and the
 * ELF reader takes clang's object of it the same way. A section of another
 * type (SEC("tc")) is never taken, and an xdp section wins over a typeless one.
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
