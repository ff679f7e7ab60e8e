/**
 * XDP dynptrs (Linux 6.18): bpf_dynptr_from_xdp, bpf_dynptr_slice, _rdwr and
 * the helpers bpf_dynptr_read / _write / _data, compiled from C, verified
 * and run. The VM's answers (slices into the packet, -E2BIG past the
 * dynptr, a NULL dynptr after non-zero flags) and the verifier's refusals
 * (an unchecked slice, an access past buffer__szk, a slice kept across
 * bpf_xdp_adjust_head, a non-constant buffer__szk, a dynptr at a variable
 * offset or through a misaligned pointer, its bytes read as data) in the
 * kernel's words. The JIT declines kfunc programs, so both engine choices
 * run the interpreter.
 */
import { describe, expect, it } from 'vitest';
import { parseSpec, type ParsedSpec } from '../../src/isa/spec';
import { createVm, testRunFrame } from '../../src/vm';
import { compile } from '../../src/cc';
import { verify } from '../../src/verifier';
import { explain } from '../../src/explain';

const PRELUDE = `#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>
extern int bpf_dynptr_from_xdp(struct xdp_md *x, __u64 flags, struct bpf_dynptr *ptr__uninit) __ksym;
extern void *bpf_dynptr_slice(const struct bpf_dynptr *p, __u32 offset, void *buffer__opt, __u32 buffer__szk) __ksym;
extern void *bpf_dynptr_slice_rdwr(const struct bpf_dynptr *p, __u32 offset, void *buffer__opt, __u32 buffer__szk) __ksym;
char _license[] SEC("license") = "GPL";
`;

function build(body: string): ParsedSpec {
  const r = compile(PRELUDE + body, { file: 'dyn.c' });
  if (!r.spec) throw new Error(r.diagnostics.map((d) => d.message).join('; '));
  const parsed = parseSpec(r.spec);
  if ('error' in parsed) throw new Error(parsed.error);
  return parsed;
}

const GOOD = `
SEC("xdp") int prog(struct xdp_md *ctx) {
  struct bpf_dynptr ptr;
  __u8 buf[sizeof(struct ethhdr)];
  __u8 two[2];
  __u8 w[2] = { 0xab, 0xcd };
  if (bpf_dynptr_from_xdp(ctx, ctx->rx_queue_index, &ptr)) {
    /* non-zero flags: -EINVAL and a NULL dynptr, which slices to NULL and reads -EINVAL */
    if (bpf_dynptr_slice(&ptr, 0, buf, sizeof(buf))) return 40;
    return bpf_dynptr_read(two, sizeof(two), &ptr, 0, 0) == -22 ? 41 : 42;
  }
  struct ethhdr *eth = bpf_dynptr_slice(&ptr, 0, buf, sizeof(buf));
  if (!eth) return 2;
  if (eth->h_proto != bpf_htons(0x0800)) return 3;
  __u8 *p = bpf_dynptr_slice_rdwr(&ptr, 14, NULL, 2);
  if (!p) return 4;
  p[0] = 0x45;
  p[1] = 0x99;
  if (bpf_dynptr_read(two, sizeof(two), &ptr, 14, 0)) return 5;
  if (bpf_dynptr_write(&ptr, 16, w, sizeof(w), 0)) return 6;
  if (bpf_dynptr_read(two, sizeof(two), &ptr, 1000, 0) != -7) return 7;
  if (bpf_dynptr_write(&ptr, 16, w, sizeof(w), 1) != -22) return 8;
  if (bpf_dynptr_data(&ptr, 0, 2)) return 9;
  if (bpf_dynptr_slice(&ptr, 1000, NULL, 2)) return 10;
  return two[1] == 0x99 ? 100 : 11;
}
`;

function runGood(frame: Uint8Array, queue = 0): { retval: number; data: Uint8Array } {
  const parsed = build(GOOD);
  const v = verify(parsed, { states: false, proof: true });
  expect(v.accepted, v.error).toBe(true);
  let out: { retval: number; data: Uint8Array } | undefined;
  for (const engine of ['interp', 'jit'] as const) {
    const vm = createVm(parsed, { engine, proof: v.proof });
    if ('error' in vm) throw new Error(vm.error);
    // The JIT declines kfunc calls and says why; the interpreter runs the program.
    if (engine === 'jit') expect(vm.jitUnavailable).toMatch(/kfuncs/);
    const f = testRunFrame(frame.slice());
    f.rxQueueIndex = queue;
    const r = vm.runXdp(f);
    expect(r.fault?.message).toBeUndefined();
    const got = { retval: r.retval, data: f.buf.slice(r.data, r.dataEnd) };
    if (out) expect(got).toEqual(out);
    out = got;
  }
  return out!;
}

describe('XDP dynptrs: compile, verify, run', () => {
  const ipv4 = new Uint8Array(60);
  ipv4.set([0x08, 0x00], 12);
  it('slices read the header and write the packet; read/write/data answer as the kernel does', () => {
    const r = runGood(ipv4);
    expect(r.retval).toBe(100);
    expect([...r.data.subarray(12, 18)]).toEqual([0x08, 0x00, 0x45, 0x99, 0xab, 0xcd]);
  });
  it('a frame of another protocol, and one too short for the slice (NULL)', () => {
    const v6 = new Uint8Array(60);
    v6.set([0x86, 0xdd], 12);
    expect(runGood(v6).retval).toBe(3);
    expect(runGood(new Uint8Array(10)).retval).toBe(2);
  });
  it('non-zero flags: -EINVAL and a NULL dynptr', () => {
    expect(runGood(ipv4, 1).retval).toBe(41);
  });
});

const refuse = (body: string): string | undefined => {
  const parsed = build(body);
  const v = verify(parsed, { logLevel: 2 });
  expect(v.accepted).toBe(false);
  // The explainer reads the states and the log around dynptr slots and slices without failing.
  expect(explain({ parsed, result: v })?.summary).toBeTruthy();
  return v.error;
};

describe('XDP dynptrs: what the verifier refuses', () => {
  it('a slice used without a NULL check', () => {
    expect(refuse(`SEC("xdp") int p(struct xdp_md *ctx) {
      struct bpf_dynptr ptr; __u8 buf[4];
      bpf_dynptr_from_xdp(ctx, 0, &ptr);
      __u8 *d = bpf_dynptr_slice(&ptr, 0, buf, sizeof(buf));
      return d[0];
    }`)).toMatch(/^R\d invalid mem access 'rdonly_mem_or_null'$/);
  });
  it('a read past buffer__szk', () => {
    expect(refuse(`SEC("xdp") int p(struct xdp_md *ctx) {
      struct bpf_dynptr ptr; __u8 buf[4];
      bpf_dynptr_from_xdp(ctx, 0, &ptr);
      __u8 *d = bpf_dynptr_slice(&ptr, 0, buf, sizeof(buf));
      if (!d) return 0;
      return d[4];
    }`)).toBe('invalid access to memory, mem_size=4 off=4 size=1');
  });
  it('a write through the read-only slice', () => {
    expect(refuse(`SEC("xdp") int p(struct xdp_md *ctx) {
      struct bpf_dynptr ptr; __u8 buf[4];
      bpf_dynptr_from_xdp(ctx, 0, &ptr);
      __u8 *d = bpf_dynptr_slice(&ptr, 0, buf, sizeof(buf));
      if (!d) return 0;
      d[0] = 1;
      return 1;
    }`)).toMatch(/^R\d cannot write into rdonly_mem$/);
  });
  it('a slice kept across bpf_xdp_adjust_head (it pointed into the packet)', () => {
    const body = `SEC("xdp") int p(struct xdp_md *ctx) {
      struct bpf_dynptr ptr; __u8 buf[4];
      bpf_dynptr_from_xdp(ctx, 0, &ptr);
      __u8 *d = bpf_dynptr_slice_rdwr(&ptr, 0, buf, sizeof(buf));
      if (!d) return 0;
      if (bpf_xdp_adjust_head(ctx, 4)) return 1;
      return d[0];
    }`;
    expect(refuse(body)).toMatch(/^R\d invalid mem access 'scalar'$/);
    // The explainer names the call that moved the packet.
    const parsed = build(body);
    expect(explain({ parsed, result: verify(parsed, { logLevel: 2 }) })?.summary).toMatch(/packet pointer taken before a call that moved the packet/);
  });
  it('a buffer__szk that is not a constant', () => {
    expect(refuse(`SEC("xdp") int p(struct xdp_md *ctx) {
      struct bpf_dynptr ptr;
      bpf_dynptr_from_xdp(ctx, 0, &ptr);
      __u8 *d = bpf_dynptr_slice(&ptr, 0, NULL, ctx->rx_queue_index & 7);
      return d ? 1 : 0;
    }`)).toBe('R4 must be a known constant');
  });
  it('a dynptr at a variable offset of the stack', () => {
    expect(refuse(`SEC("xdp") int p(struct xdp_md *ctx) {
      struct bpf_dynptr ptrs[2];
      bpf_dynptr_from_xdp(ctx, 0, &ptrs[ctx->rx_queue_index & 1]);
      return 1;
    }`)).toBe('dynptr has to be at a constant offset');
  });
  it('the dynptr bytes read as data, and a dynptr that was never initialised', () => {
    expect(refuse(`SEC("xdp") int p(struct xdp_md *ctx) {
      struct bpf_dynptr ptr;
      bpf_dynptr_from_xdp(ctx, 0, &ptr);
      return *(volatile __u32 *)&ptr;
    }`)).toMatch(/^invalid read from stack off -\d+\+0 size 4$/);
    // So is a copy of the struct: its 8-byte loads read the slots as data.
    expect(refuse(`SEC("xdp") int p(struct xdp_md *ctx) {
      struct bpf_dynptr ptr, copy;
      bpf_dynptr_from_xdp(ctx, 0, &ptr);
      copy = ptr;
      return bpf_dynptr_read(&copy, 1, &copy, 0, 0);
    }`)).toMatch(/^invalid read from stack off -\d+\+0 size 8$/);
    expect(refuse(`SEC("xdp") int p(struct xdp_md *ctx) {
      struct bpf_dynptr ptr; __u8 buf[4];
      __u8 *d = bpf_dynptr_slice(&ptr, 0, buf, sizeof(buf));
      return d ? 1 : 0;
    }`)).toBe('Expected an initialized dynptr as arg #0');
  });
  it('a store over a dynptr destroys it', () => {
    expect(refuse(`SEC("xdp") int p(struct xdp_md *ctx) {
      struct bpf_dynptr ptr; __u8 buf[4];
      bpf_dynptr_from_xdp(ctx, 0, &ptr);
      *(volatile __u64 *)&ptr = 0;
      __u8 *d = bpf_dynptr_slice(&ptr, 0, buf, sizeof(buf));
      return d ? 1 : 0;
    }`)).toBe('Expected an initialized dynptr as arg #0');
  });
});
