/**
 * Inline BPF assembly (issue 13): operands, immediates, ties, clobbers and
 * jumps inside the template, checked by running what the compiler emits
 * (our verifier must accept it, the VM gives the value C promises); and
 * `__builtin_trap` / `__builtin_constant_p` decided after inlining, as clang
 * decides them (the pattern of cilium's and bpf-examples' memcpy).
 */
import { describe, expect, it } from 'vitest';
import { compile, formatDiagnostic } from '../../src/cc';
import { decodeProgram, hexToBytes } from '../../src/isa/insn';
import { parseSpec } from '../../src/isa/spec';
import { verify } from '../../src/verifier';
import { createVm, testRunFrame } from '../../src/vm';

const PRE = '#include <linux/bpf.h>\n#include <bpf/bpf_helpers.h>\n';

function build(src: string): NonNullable<ReturnType<typeof compile>['spec']> {
  const r = compile(PRE + src, { file: 't.c' });
  expect(r.diagnostics.filter((d) => d.severity === 'error').map((d) => formatDiagnostic(d, PRE + src))).toEqual([]);
  return r.spec!;
}
function errors(src: string): string[] {
  return compile(PRE + src, { file: 't.c' }).diagnostics.filter((d) => d.severity === 'error').map((d) => d.message);
}
/** Compile, verify with our verifier, run on `pkt`: the return value and the packet after. */
function run(src: string, pkt = Uint8Array.from({ length: 64 }, (_, i) => i)): { retval: number; data: Uint8Array } {
  const spec = build(src);
  const parsed = parseSpec(JSON.parse(JSON.stringify(spec)));
  if ('error' in parsed) throw new Error(parsed.error);
  const v = verify(parsed, { logLevel: 1 });
  expect(v.accepted, v.log).toBe(true);
  const vm = createVm(parsed);
  if ('error' in vm) throw new Error(vm.error);
  const frame = testRunFrame(pkt);
  const r = vm.runXdp(frame);
  expect(r.fault?.message).toBeUndefined();
  return { retval: r.retval, data: frame.buf.slice(r.data, r.dataEnd) };
}

/** cilium's xdp_load_bytes / xdp_store_bytes (bpf-examples include/xdp/context_helpers.h), written here from its contract. */
const CTX_BYTES = `
static __always_inline int load_bytes(const struct xdp_md *ctx, __u64 off, void *to, const __u64 len)
{
	void *from;
	int ret;
	asm volatile("r1 = *(u32 *)(%[ctx] +0)\\n\\t"
		     "r2 = *(u32 *)(%[ctx] +4)\\n\\t"
		     "%[off] &= %[offmax]\\n\\t"
		     "r1 += %[off]\\n\\t"
		     "%[from] = r1\\n\\t"
		     "r1 += %[len]\\n\\t"
		     "if r1 > r2 goto +2\\n\\t"
		     "%[ret] = 0\\n\\t"
		     "goto +1\\n\\t"
		     "%[ret] = %[errno]\\n\\t"
		     : [ret]"=r"(ret), [from]"=r"(from)
		     : [ctx]"r"(ctx), [off]"r"(off), [len]"ri"(len), [offmax]"i"(0x3fff), [errno]"i"(-22)
		     : "r1", "r2");
	if (!ret)
		__builtin_memcpy(to, from, len);
	return ret;
}
`;

describe('inline BPF assembly', () => {
  it('loads packet bytes through a bounds check written in asm (operands named, immediates, clobbers, jumps)', () => {
    const src = `${CTX_BYTES}
SEC("xdp") int p(struct xdp_md *ctx) {
	__u8 buf[4];
	if (load_bytes(ctx, 10, buf, 4)) return 100;
	return buf[0] + buf[3];
}`;
    expect(run(src).retval).toBe(10 + 13);
    // Past the end: the asm's error path.
    expect(run(src, new Uint8Array(12)).retval).toBe(100);
  });
  it('an input register the asm modifies leaves the C value intact', () => {
    const src = `SEC("xdp") int p(struct xdp_md *ctx) {
	__u64 x = ctx->ingress_ifindex + 40, y;
	asm volatile("%[x] += 2\\n\\t%[y] = %[x]" : [y]"=r"(y) : [x]"r"(x));
	return x + y;
}`;
    // ingress_ifindex is 1 in the VM's test run (loopback), as in BPF_PROG_TEST_RUN.
    const r = run(src);
    expect(r.retval).toBe(2 * 41 + 2);
  });
  it('numbered operands, "+r" and an input tied to an output ("0")', () => {
    const src = `SEC("xdp") int p(struct xdp_md *ctx) {
	__u64 a = ctx->data_end - ctx->data, b = 5, c;
	asm("%0 *= 3" : "+r"(a));
	asm("%0 += %1" : "=r"(c) : "r"(b), "0"(a));
	return c;
}`;
    expect(run(src).retval).toBe(64 * 3 + 5);
  });
  it('the w modifier names the 32-bit register', () => {
    const spec = build(`SEC("xdp") int p(struct xdp_md *ctx) { __u32 v; asm volatile("%w0 = 7" : "=r"(v)); return v; }`);
    const insns = decodeProgram(hexToBytes(spec.insns) as Uint8Array).insns;
    expect(insns.some((i) => i.code === 0xb4 && i.imm === 7)).toBe(true); // w = 7 (BPF_ALU | BPF_MOV | BPF_K)
  });
  it('a value kept in a clobbered register survives the asm', () => {
    const src = `SEC("xdp") int p(struct xdp_md *ctx) {
	__u64 keep = ctx->data_end - ctx->data;
	asm volatile("r1 = 0\\n\\tr2 = 0\\n\\tr3 = 0\\n\\tr4 = 0\\n\\tr5 = 0\\n\\tr0 = 0" ::: "r0", "r1", "r2", "r3", "r4", "r5", "memory");
	return keep;
}`;
    expect(run(src).retval).toBe(64);
  });
  it('is kept as written: the peephole pass does not touch it', () => {
    const spec = build(`SEC("xdp") int p(struct xdp_md *ctx) { asm volatile("r1 = r1\\n\\tr2 = 3\\n\\tr2 = 4" ::: "r1", "r2"); return XDP_PASS; }`);
    const insns = decodeProgram(hexToBytes(spec.insns) as Uint8Array).insns;
    expect(insns.filter((i) => i.code === 0xb7 && i.dst === 2).map((i) => i.imm)).toEqual([3, 4]);
  });
  it('x86 asm is an error naming the instruction, only where it is reached', () => {
    const swab = 'static inline unsigned int swab32(unsigned int val) { __asm__("bswapl %0" : "=r" (val) : "0" (val)); return val; }\n';
    build(`${swab}SEC("xdp") int p(struct xdp_md *ctx) { return XDP_PASS; }`);
    expect(errors(`${swab}SEC("xdp") int p(struct xdp_md *ctx) { return swab32(ctx->data) & 1; }`)).toEqual([expect.stringMatching(/^inline asm is not BPF assembly: .*'bswapl'.*reached from 'p'/)]);
  });
  it('an "i" operand that is not constant is clang\'s error', () => {
    expect(errors(`SEC("xdp") int p(struct xdp_md *ctx) { int v = ctx->data; asm volatile("r0 = %0" :: "i"(v)); return 2; }`)).toEqual(["constraint 'i' expects an integer constant expression"]);
  });
  it('a jump out of the template is refused', () => {
    expect(errors(`SEC("xdp") int p(struct xdp_md *ctx) { asm volatile("goto +3"); return 2; }`)).toEqual([expect.stringMatching(/jump leaves the asm statement/)]);
  });
});

describe('__builtin_trap and __builtin_constant_p are decided after inlining', () => {
  const COPY = `
static __always_inline void copy(void *d, const void *s, __u64 len)
{
	if (!__builtin_constant_p(len))
		__builtin_trap();
	switch (len) {
	case 4: *(__u32 *)d = *(const __u32 *)s; break;
	case 2: *(__u16 *)d = *(const __u16 *)s; break;
	default: __builtin_trap();
	}
}
`;
  it('a trap optimisation removes is no error', () => {
    const r = run(`${COPY}SEC("xdp") int p(struct xdp_md *ctx) { __u32 a = 0x01020304, b = 0; copy(&b, &a, 4); return b == 0x01020304 ? 2 : 1; }`);
    expect(r.retval).toBe(2);
  });
  it('a reachable trap is clang\'s error', () => {
    expect(errors(`${COPY}SEC("xdp") int p(struct xdp_md *ctx) { __u32 a = 1, b = 0; copy(&b, &a, 3); return b; }`)).toEqual(["A call to built-in function 'abort' is not supported."]);
    expect(errors(`${COPY}SEC("xdp") int p(struct xdp_md *ctx) { __u32 a = 1, b = 0; copy(&b, &a, ctx->data_end - ctx->data); return b; }`)).toContain("A call to built-in function 'abort' is not supported.");
  });
});

describe('the kernel selftests\' asm idioms', () => {
  it('a map\'s address as an "i" operand, C comments in the template, GNU local labels (1:, 1f, 1b): clang-19\'s bytes', () => {
    const spec = build(`struct { __uint(type, BPF_MAP_TYPE_ARRAY); __uint(max_entries, 1); __type(key, __u32); __type(value, __u64); } m SEC(".maps");
SEC("xdp") __attribute__((naked)) int p(void)
{
	asm volatile ("					\\
	r1 = 0;						\\
	*(u64*)(r10 - 8) = r1;	/* a zero key */	\\
	r2 = r10;					\\
	r2 += -8;					\\
	r1 = %[m] ll;					\\
	call %[lookup];					\\
	if r0 == 0 goto 1f;				\\
	r0 = *(u64 *)(r0 + 0);				\\
1:	r0 += 1;					\\
	if r0 < 3 goto 1b;				\\
	goto 1f;					\\
1:	exit;						\\
"	:
	: [m]"i"(&m), [lookup]"i"(bpf_map_lookup_elem)
	: "r0", "r1", "r2", "r3", "r4", "r5");
}`);
    // llvm-objdump of clang-19 -O2 -target bpf's object, the lddw's src_reg 1 (BPF_PSEUDO_MAP_FD) set as libbpf sets it at load.
    expect(spec.insns).toBe('b7010000000000007b1af8ff00000000bfa200000000000007020000f8ffffff1811000000000000000000000000000085000000010000001500010000000000'
      + '79000000000000000700000001000000a500feff0300000005000000000000009500000000000000');
    expect(spec.map_relocs).toEqual([{ insn: 4, map: 0 }]);
  });
});
