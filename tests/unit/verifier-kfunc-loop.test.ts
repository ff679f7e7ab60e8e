/**
 * The verifier on kfunc calls (the XDP conntrack set: arguments, acquired
 * references, nf_conn reads) and on bpf_loop callbacks (PTR_TO_FUNC, the
 * callback's R0 in [0, 1], every run of the callback checked). Programs are
 * small C files compiled by our compiler. The kernel oracle cannot load
 * these (it passes no BTF: "missing btf func_info" for a callback, and no
 * kfunc BTF ids), so the expectations are the kernel's rules as
 * verifier.c / nf_conntrack_bpf.c state them.
 */
import { describe, expect, it } from 'vitest';
import { compile } from '../../src/cc';
import { parseSpec } from '../../src/isa/spec';
import { verify } from '../../src/verifier';

const PRE = '#include <linux/bpf.h>\n#include <bpf/bpf_helpers.h>\n';

function judge(src: string): { accepted: boolean; error?: string; log: string } {
  const r = compile(PRE + src, { file: 't.c' });
  if (!r.spec) throw new Error(r.diagnostics.map((d) => d.message).join('; '));
  const parsed = parseSpec(JSON.parse(JSON.stringify(r.spec)));
  if ('error' in parsed) throw new Error(parsed.error);
  const v = verify(parsed, { logLevel: 1, states: false });
  return { accepted: v.accepted, error: v.error, log: v.log };
}

const CT_DECLS = `
struct nf_conn { unsigned long status; unsigned int mark; } __attribute__((preserve_access_index));
struct bpf_ct_opts___local { int netns_id; int error; unsigned char l4proto; unsigned char dir; unsigned char reserved[2]; };
extern struct nf_conn *bpf_xdp_ct_lookup(struct xdp_md *, struct bpf_sock_tuple *, __u32, struct bpf_ct_opts___local *, __u32) __ksym;
extern struct nf_conn *bpf_xdp_ct_alloc(struct xdp_md *, struct bpf_sock_tuple *, __u32, struct bpf_ct_opts___local *, __u32) __ksym;
extern struct nf_conn *bpf_ct_insert_entry(struct nf_conn *) __ksym;
extern void bpf_ct_release(struct nf_conn *) __ksym;
extern struct nf_conn *bpf_ct_unknown_thing(struct nf_conn *) __ksym;
`;

function ctProg(body: string, opts = 'sizeof(opts)'): string {
  return `${CT_DECLS}
SEC("xdp") int prog(struct xdp_md *ctx) {
  struct bpf_sock_tuple tup = {};
  struct bpf_ct_opts___local opts = { .netns_id = -1, .l4proto = 6 };
  struct nf_conn *ct = bpf_xdp_ct_lookup(ctx, &tup, sizeof(tup.ipv4), &opts, ${opts});
  ${body}
  return XDP_PASS;
}
char _license[] SEC("license") = "GPL";`;
}

describe('kfunc calls', () => {
  it('accepts a lookup whose reference is released, reading ct->status first', () => {
    const v = judge(ctProg('if (ct) { unsigned long s = ct->status; bpf_ct_release(ct); if (s & 8) return XDP_DROP; }'));
    expect(v.error).toBeUndefined();
    expect(v.accepted).toBe(true);
  });
  it('refuses a lookup whose reference leaks, naming the reference and the call that took it', () => {
    const v = judge(ctProg('if (ct) { if (ct->mark) return XDP_DROP; }'));
    expect(v.accepted).toBe(false);
    expect(v.error).toMatch(/^Unreleased reference id=\d+ alloc_insn=\d+$/);
    expect(v.log).toContain('BPF_EXIT instruction in main prog would lead to reference leak');
  });
  it('refuses a release of a pointer that may be NULL', () => {
    const v = judge(ctProg('bpf_ct_release(ct);'));
    expect(v.accepted).toBe(false);
    expect(v.error).toBe('Possibly NULL pointer passed to trusted arg0');
  });
  it('refuses a read past the end of struct nf_conn', () => {
    const v = judge(ctProg('if (ct) { long x = *(long *)((char *)ct + 4096); bpf_ct_release(ct); if (x) return XDP_DROP; }'));
    expect(v.accepted).toBe(false);
    expect(v.error).toMatch(/access beyond struct nf_conn/);
  });
  it('refuses opts memory smaller than the size argument says', () => {
    const v = judge(ctProg('if (ct) bpf_ct_release(ct);', '64'));
    expect(v.accepted).toBe(false);
    expect(v.error).toMatch(/invalid (indirect read|read from) stack R4/);
  });
  it('allocation then insert: the insert releases the allocation and acquires the entry', () => {
    const src = `${CT_DECLS}
SEC("xdp") int prog(struct xdp_md *ctx) {
  struct bpf_sock_tuple tup = {};
  struct bpf_ct_opts___local opts = { .netns_id = -1, .l4proto = 6 };
  struct nf_conn *n = bpf_xdp_ct_alloc(ctx, &tup, sizeof(tup.ipv4), &opts, sizeof(opts));
  if (!n) return XDP_PASS;
  struct nf_conn *ct = bpf_ct_insert_entry(n);
  if (ct) bpf_ct_release(ct);
  return XDP_PASS;
}
char _license[] SEC("license") = "GPL";`;
    const v = judge(src);
    expect(v.error).toBeUndefined();
    expect(v.accepted).toBe(true);
    // Releasing the allocation as if it were an entry is a type error.
    const bad = judge(src.replace('struct nf_conn *ct = bpf_ct_insert_entry(n);\n  if (ct) bpf_ct_release(ct);', 'bpf_ct_release(n);'));
    expect(bad.accepted).toBe(false);
    expect(bad.error).toMatch(/bpf_ct_release args#0 expected pointer to STRUCT nf_conn but R1 has a pointer to nf_conn___init/);
  });
  it('refuses a kfunc outside the XDP set, naming it', () => {
    const v = judge(ctProg('if (ct) { bpf_ct_unknown_thing(ct); bpf_ct_release(ct); }'));
    expect(v.accepted).toBe(false);
    expect(v.error).toBe('calling kernel function bpf_ct_unknown_thing is not allowed');
  });
  it('refuses the XDP metadata kfuncs before verifying, as the kernel does for a program not bound to a device (xdp_metadata.c under bpftool prog load, Linux 6.18)', () => {
    for (const call of ['__u64 ts; bpf_xdp_metadata_rx_timestamp(ctx, &ts);', '__u32 h; enum xdp_rss_hash_type t; bpf_xdp_metadata_rx_hash(ctx, &h, &t);']) {
      const v = judge(`extern int bpf_xdp_metadata_rx_timestamp(const struct xdp_md *ctx, __u64 *timestamp) __ksym;
extern int bpf_xdp_metadata_rx_hash(const struct xdp_md *ctx, __u32 *hash, enum xdp_rss_hash_type *rss_type) __ksym;
SEC("xdp") int p(struct xdp_md *ctx) { ${call} return XDP_PASS; }
char _license[] SEC("license") = "GPL";`);
      expect(v.accepted).toBe(false);
      expect(v.error).toBe('metadata kfuncs require device-bound program');
      expect(v.log).toContain('processed 0 insns');
    }
  });
});

function loopProg(cb: string, flags = '0', nr = '8'): string {
  return `
struct lctx { long n; };
static int cb(__u32 i, void *c) { struct lctx *l = c; ${cb} }
SEC("xdp") int prog(struct xdp_md *ctx) {
  struct lctx l = { .n = 0 };
  long r = bpf_loop(${nr}, cb, &l, ${flags});
  return l.n > 100 || r < 0 ? XDP_DROP : XDP_PASS;
}
char _license[] SEC("license") = "GPL";`;
}

describe('bpf_loop callbacks', () => {
  it('accepts a callback that returns 0 or 1 and updates the caller\'s stack through callback_ctx', () => {
    const v = judge(loopProg('l->n += i; return l->n > 50;'));
    expect(v.error).toBeUndefined();
    expect(v.accepted).toBe(true);
  });
  it('refuses a callback returning 2', () => {
    const v = judge(loopProg('l->n += i; return 2;'));
    expect(v.accepted).toBe(false);
    expect(v.error).toBe('At callback return the register R0 has 2 should have been in [0, 1]');
  });
  it('checks the callback\'s second run too: state the first run left behind', () => {
    const v = judge(loopProg('if (l->n == 1) return 5; l->n = 1; return 0;'));
    expect(v.accepted).toBe(false);
    expect(v.error).toBe('At callback return the register R0 has 5 should have been in [0, 1]');
  });
  it('checks the callback body: R1 is a scalar index, not a pointer', () => {
    const v = judge(loopProg('return *(char *)(long)i;'));
    expect(v.accepted).toBe(false);
    expect(v.error).toMatch(/invalid mem access 'scalar'/);
  });
  it('accepts flags other than 0 as the kernel does (bpf_loop returns -EINVAL at run time)', () => {
    expect(judge(loopProg('l->n += i; return 0;', '1')).accepted).toBe(true);
  });
  it('refuses raw bytecode loading a callback without BTF func_info, as the kernel does', () => {
    const r = compile(PRE + loopProg('return 0;'), { file: 't.c' });
    const spec = JSON.parse(JSON.stringify(r.spec));
    delete spec.funcs;
    const parsed = parseSpec(spec);
    if ('error' in parsed) throw new Error(parsed.error);
    expect(verify(parsed, { states: false }).error).toBe('missing btf func_info');
  });
});
