/**
 * Rejections explained: for each family, a program in tests/cases/explain
 * whose explanation (read from the verifier's state) names the right kind
 * and C line, and whose fix, applied, makes our verifier accept it. The
 * kernel's side of the same claim is tests/differential/explain-oracle.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { applyFix, editHeading, explain } from '../../src/explain';
import { checkSource, explainSource } from '../../src/explain/program';
import { parseSpec } from '../../src/isa/spec';
import { verify } from '../../src/verifier';

const here = path.dirname(fileURLToPath(import.meta.url));
export const EXPLAIN_DIR = path.resolve(here, '../cases/explain');

/** file, kind, line of the offending access, whether a mechanical fix exists, verifier options. */
export const EXPLAIN_CASES: { file: string; kind: string; line: number; fix: boolean; unprivileged?: boolean }[] = [
  { file: 'pkt_access.c', kind: 'pkt-access', line: 18, fix: true },
  { file: 'pkt_access_ip.c', kind: 'pkt-access', line: 24, fix: true },
  { file: 'helper_arg.c', kind: 'pkt-access', line: 25, fix: true },
  { file: 'helper_value.c', kind: 'helper-arg', line: 21, fix: true },
  { file: 'map_null.c', kind: 'null-deref', line: 24, fix: true },
  { file: 'map_value_oob.c', kind: 'map-value-access', line: 27, fix: true },
  { file: 'ctx_read.c', kind: 'ctx-access', line: 13, fix: true },
  { file: 'ctx_write.c', kind: 'ctx-write', line: 14, fix: true },
  { file: 'stale_adjust.c', kind: 'stale-pkt-pointer', line: 22, fix: true },
  { file: 'pkt_end_arith.c', kind: 'pkt-end-arith', line: 17, fix: true },
  { file: 'unbounded_signed.c', kind: 'pkt-unbounded-offset', line: 21, fix: true },
  { file: 'loop_unbounded.c', kind: 'loop', line: 17, fix: true },
  { file: 'uninit_key.c', kind: 'uninit-stack', line: 21, fix: true, unprivileged: true },
  { file: 'uninit_local.c', kind: 'uninit-stack', line: 18, fix: true, unprivileged: true },
  { file: 'scalar_deref.c', kind: 'scalar-deref', line: 27, fix: true },
  { file: 'stack_big.c', kind: 'stack-size', line: 24, fix: true },
  { file: 'ptr_align.c', kind: 'pointer-arith', line: 18, fix: true },
  { file: 'stack_misaligned.c', kind: 'stack-access', line: 28, fix: true },
  { file: 'uninit_var.c', kind: 'uninit-reg', line: 22, fix: true },
  { file: 'infinite_loop.c', kind: 'loop', line: 16, fix: true },
  { file: 'jump_seq.c', kind: 'loop', line: 11, fix: true },
  { file: 'r0_asm_exit.c', kind: 'uninit-reg', line: 11, fix: true },
  { file: 'r0_asm_multiline.c', kind: 'uninit-reg', line: 11, fix: true },
  // References: a ring buffer record or a socket held at a return, used after its release, a record too small, NULL untested.
  { file: 'ringbuf_leak.c', kind: 'unreleased-ref', line: 20, fix: true },
  { file: 'sk_leak.c', kind: 'unreleased-ref', line: 32, fix: true },
  { file: 'ringbuf_after_submit.c', kind: 'released-ref', line: 15, fix: true },
  { file: 'ringbuf_oob.c', kind: 'mem-access', line: 17, fix: true },
  { file: 'ringbuf_null.c', kind: 'null-deref', line: 19, fix: true },
  { file: 'ringbuf_var_size.c', kind: 'helper-arg', line: 13, fix: false },
  // A store into a const global (.rodata, BPF_F_RDONLY_PROG).
  { file: 'rodata_write.c', kind: 'map-readonly', line: 10, fix: true },
  // bpf_redirect_map on a hash map: the map declared as a type the helper takes.
  { file: 'redirect_map_type.c', kind: 'helper-arg', line: 12, fix: true },
  // A constant index one past a map value's array.
  { file: 'map_value_const_oob.c', kind: 'map-value-access', line: 17, fix: false },
  // A tail call with a ring buffer record held (its submit written after the call): the submit moved before it.
  { file: 'tailcall_leak.c', kind: 'unreleased-ref', line: 20, fix: true },
  // A length a helper cannot take: maybe 0 (ARG_CONST_SIZE), maybe more than the stack buffer before it.
  { file: 'helper_len_zero.c', kind: 'helper-arg', line: 10, fix: true },
  { file: 'helper_len_big.c', kind: 'helper-arg', line: 13, fix: true },
  { file: 'perf_output_signed_len.c', kind: 'helper-arg', line: 19, fix: true },
  // Packet memory given to a helper without pkt_access (bpf_perf_event_output).
  { file: 'perf_output_len.c', kind: 'helper-arg', line: 16, fix: false },
  // A local array indexed by a packet field.
  { file: 'stack_index.c', kind: 'stack-access', line: 14, fix: true },
  // egress_ifindex outside a devmap program.
  { file: 'ctx_egress.c', kind: 'ctx-access', line: 6, fix: false },
];

describe('explain: every rejection family, from the verifier state', () => {
  for (const c of EXPLAIN_CASES) {
    it(`${c.file}: ${c.kind} at line ${c.line}`, () => {
      const source = readFileSync(path.join(EXPLAIN_DIR, c.file), 'utf8');
      const opts = { unprivileged: c.unprivileged === true };
      const r = explainSource(source, opts);
      if ('error' in r) throw new Error(r.error);
      const e = r.explanation;
      expect(e, 'rejected').not.toBeNull();
      expect(e!.kind).toBe(c.kind);
      expect(e!.line).toBe(c.line);
      expect(e!.message).toBe(r.checked.result.error);
      expect(e!.path[e!.path.length - 1] === c.line || e!.path.includes(c.line) || c.kind === 'loop').toBe(true);
      expect(e!.summary.length).toBeGreaterThan(20);
      if (!c.fix) return expect(e!.fix).toBeUndefined();
      expect(e!.fix).toBeDefined();
      const fixed = checkSource(applyFix(source, e!.fix!), opts);
      if ('error' in fixed) throw new Error(fixed.error);
      expect(fixed.result.accepted, `after the fix: ${fixed.result.error}`).toBe(true);
    });
  }

  it('a use after bpf_ringbuf_submit: the fix moves the submit after the use, shown as two edits (insert, delete)', () => {
    const source = readFileSync(path.join(EXPLAIN_DIR, 'ringbuf_after_submit.c'), 'utf8');
    const r = explainSource(source);
    if ('error' in r) throw new Error(r.error);
    const fix = r.explanation!.fix!;
    expect(r.explanation!.summary).toMatch(/after bpf_ringbuf_submit at line 14/);
    expect([fix, ...(fix.also ?? [])].map(editHeading)).toEqual(['insert before line 16', 'delete line 14']);
    expect(fix.insert.trim()).toBe('bpf_ringbuf_submit(e, 0);');
  });

  it('a leak at a return the compiler merged with an equal one: the return the path took, not the one the exit is attributed to', () => {
    const source = readFileSync(path.join(EXPLAIN_DIR, 'ringbuf_leak.c'), 'utf8');
    const r = explainSource(source);
    if ('error' in r) throw new Error(r.error);
    const e = r.explanation!;
    // The exit instruction carries line 18 (the NULL test's return); the path reached it from the bounds check on line 19.
    expect(e.line).toBe(20);
    expect(e.path.slice(-2)).toEqual([19, 20]);
    expect(e.summary).toMatch(/bpf_ringbuf_reserve at line 16/);
    expect(e.fix?.insert).toMatch(/bpf_ringbuf_discard\(e, 0\);\n\s*return XDP_PASS;/);
  });

  it('R0 !read_ok: an exit with no return value is explained as one, on the closing line', () => {
    // Hand-written: our compiler always sets R0, clang -O2 may not.
    const p = parseSpec({ insns: '9500000000000000', line_info: [{ insn: 0, line: 3, col: 1 }], source: 'SEC("xdp")\nint prog(struct xdp_md *ctx)\n{\n}\n' });
    if ('error' in p) throw new Error(p.error);
    const v = verify(p, { logLevel: 1 });
    expect(v.accepted).toBe(false);
    const e = explain({ parsed: p, result: v });
    expect(e?.kind).toBe('uninit-reg');
    expect(e?.summary).toMatch(/R0 !read_ok/);
    expect(e?.fix?.insert).toMatch(/return XDP_PASS;/);
  });

  it('R0 !read_ok from an `exit` in a multi-line asm statement with clobbers: r0 set first in the template, "r0" clobbered', () => {
    const source = readFileSync(path.join(EXPLAIN_DIR, 'r0_asm_multiline.c'), 'utf8');
    const r = explainSource(source);
    if ('error' in r) throw new Error(r.error);
    const e = r.explanation;
    expect(r.checked.result.error).toBe('R0 !read_ok');
    expect(e?.kind).toBe('uninit-reg');
    expect(e?.summary).toMatch(/`exit` in the inline asm/);
    expect(e?.line).toBe(11);
    expect(e?.fix?.line).toBe(11);
    expect(e?.fix?.insert).toBe('\tasm volatile("r0 = 2\\n\\tr3 = %[p]\\n\\t"');
    expect(e?.fix?.also).toEqual([{ line: 16, insert: '\t\t     : "r3", "r0");', replace: true }]);
    const fixed = checkSource(applyFix(source, e!.fix!));
    if ('error' in fixed) throw new Error(fixed.error);
    expect(fixed.result.accepted, `after the fix: ${fixed.result.error}`).toBe(true);
  });

  it('a kfunc refused before the walk is explained at its call, not as the loop the program also has (xdp_metadata.c: metadata kfuncs need a device-bound program)', () => {
    const src = (call: string): string => `#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
extern int bpf_xdp_metadata_rx_hash(const struct xdp_md *ctx, __u32 *hash, int *rss_type) __ksym;
extern int bpf_ct_frobnicate(struct xdp_md *ctx) __ksym;
SEC("xdp") int p(struct xdp_md *ctx)
{
	__u32 h = 0; int t = 0, s = 0;
	for (volatile int i = 0; i < 4; i++) s += i;
	if (${call})
		return XDP_PASS;
	return h & 1 ? XDP_DROP : XDP_PASS + s;
}
char _license[] SEC("license") = "GPL";`;
    const meta = explainSource(src('bpf_xdp_metadata_rx_hash(ctx, &h, &t)'));
    if ('error' in meta) throw new Error(meta.error);
    expect(meta.checked.result.error).toBe('metadata kfuncs require device-bound program');
    expect(meta.explanation?.kind).toBe('kfunc-unavailable');
    expect(meta.explanation?.line).toBe(9);
    expect(meta.explanation?.summary).toMatch(/bpf_xdp_metadata_rx_hash, an XDP metadata kfunc/);
    expect(meta.explanation?.detail).toMatch(/device-bound/);
    const other = explainSource(src('bpf_ct_frobnicate(ctx)'));
    if ('error' in other) throw new Error(other.error);
    expect(other.checked.result.error).toBe('calling kernel function bpf_ct_frobnicate is not allowed');
    expect(other.explanation?.kind).toBe('kfunc-unavailable');
    expect(other.explanation?.summary).toMatch(/calls bpf_ct_frobnicate, a kernel function \(kfunc\) XDP programs may not call/);
  });

  it('an accepted program has no explanation', () => {
    const r = explainSource(readFileSync(path.join(EXPLAIN_DIR, 'pkt_access.c'), 'utf8').replace('if (eth->h_proto', 'if ((void *)(eth + 1) <= data_end && eth->h_proto'));
    if ('error' in r) throw new Error(r.error);
    expect(r.checked.result.accepted).toBe(true);
    expect(r.explanation).toBeNull();
  });
});
