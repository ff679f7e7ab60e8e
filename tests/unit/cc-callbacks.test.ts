/**
 * Function addresses and kfunc calls in the compiler (issue 13, xdp-synproxy's
 * needs): a static function passed to bpf_loop is emitted as a subprogram of
 * its own and named by a BPF_PSEUDO_FUNC lddw whose imm is its offset from
 * the next slot (what libbpf makes of clang's relocation); an `__ksym`
 * extern call is a BPF_PSEUDO_KFUNC_CALL named in spec.kfunc_relocs. Both
 * are run in the VM, compiled from C, to check the whole way through.
 */
import { describe, expect, it } from 'vitest';
import { compile, formatDiagnostic } from '../../src/cc';
import { decodeProgram, hexToBytes } from '../../src/isa/insn';
import * as O from '../../src/isa/opcodes';
import { runOnce } from './cc-helpers';

const PRE = '#include <linux/bpf.h>\n#include <bpf/bpf_helpers.h>\n';

function build(src: string): NonNullable<ReturnType<typeof compile>['spec']> {
  const r = compile(PRE + src, { file: 't.c' });
  expect(r.diagnostics.filter((d) => d.severity === 'error').map((d) => formatDiagnostic(d, PRE + src))).toEqual([]);
  return r.spec!;
}

const run = (spec: ReturnType<typeof build>): number => runOnce(spec);

describe('bpf_loop callbacks', () => {
  const src = `
struct acc { __u64 sum; __u32 stop; };
static int add(__u32 i, void *ctx) {
  struct acc *a = ctx;
  a->sum += i * i;
  return i == a->stop;
}
SEC("xdp") int prog(struct xdp_md *ctx) {
  struct acc a = { .sum = 0, .stop = 4 };
  long n = bpf_loop(10, add, &a, 0);
  struct acc b = { .sum = 0, .stop = 100 };
  long m = bpf_loop(3, &add, &b, 0);
  return n * 10000 + a.sum * 100 + m * 10 + b.sum;
}`;
  it('names the callback with a BPF_PSEUDO_FUNC lddw pointing at its subprogram', () => {
    const spec = build(src);
    const insns = decodeProgram(hexToBytes(spec.insns) as Uint8Array).insns;
    const start = spec.funcs!.find((f) => f.name === 'add')!.insn;
    const lds = insns.map((x, i) => ({ x, i })).filter(({ x }) => x.code === (O.BPF_LD | O.BPF_IMM | O.BPF_DW) && x.src === O.BPF_PSEUDO_FUNC);
    expect(lds.length).toBe(2);
    for (const { x, i } of lds) expect(i + 1 + x.imm).toBe(start);
  });
  it('runs: calls until the callback returns 1, bpf_loop returns the calls made', () => {
    // a: i = 0..4, sum 0+1+4+9+16 = 30, five calls; b: i = 0..2, sum 5, three calls.
    expect(run(build(src))).toBe(5 * 10000 + 30 * 100 + 3 * 10 + 5);
  });
});

describe('kfunc calls', () => {
  it('emit BPF_PSEUDO_KFUNC_CALL named in kfunc_relocs, and run against the kfuncs of the VM', () => {
    const spec = build(`
struct nf_conn;
struct opts { __s32 netns_id; __s32 error; __u8 l4proto; __u8 dir; __u8 reserved[2]; };
extern struct nf_conn *bpf_xdp_ct_lookup(struct xdp_md *, struct bpf_sock_tuple *, __u32, struct opts *, __u32) __ksym;
extern void bpf_ct_release(struct nf_conn *) __ksym;
SEC("xdp") int prog(struct xdp_md *ctx) {
  struct bpf_sock_tuple t = {};
  struct opts o = { .netns_id = -1, .l4proto = 6 };
  struct nf_conn *ct = bpf_xdp_ct_lookup(ctx, &t, sizeof(t.ipv4), &o, sizeof(o));
  if (ct) { bpf_ct_release(ct); return 1; }
  return -o.error;
}`);
    const insns = decodeProgram(hexToBytes(spec.insns) as Uint8Array).insns;
    expect(spec.kfunc_relocs!.map((r) => r.name)).toEqual(['bpf_xdp_ct_lookup', 'bpf_ct_release']);
    for (const r of spec.kfunc_relocs!) expect(insns[r.insn]).toMatchObject({ code: O.BPF_JMP | O.BPF_CALL, src: O.BPF_PSEUDO_KFUNC_CALL });
    expect(run(spec)).toBe(2); // -ENOENT: the VM tracks no connections
  });
});
