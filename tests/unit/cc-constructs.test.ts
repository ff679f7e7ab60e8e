/**
 * The C that real headers and programs use (issue 13): attributes, inline
 * asm in functions never called, asm labels, float/__int128 declarations,
 * global data as internal maps with value relocations, and more. Each case
 * compiles a small program and checks what the compiler produced.
 */
import { describe, expect, it } from 'vitest';
import { compile, formatDiagnostic } from '../../src/cc';
import { decodeProgram, hexToBytes, type Insn } from '../../src/isa/insn';
import * as O from '../../src/isa/opcodes';
import { parseSpec } from '../../src/isa/spec';
import { verify } from '../../src/verifier';
import { runOnce } from './cc-helpers';
import { createVm, testRunFrame } from '../../src/vm';

const PRE = '#include <linux/bpf.h>\n#include <bpf/bpf_helpers.h>\n';

function ok(src: string): NonNullable<ReturnType<typeof compile>['spec']> {
  const r = compile(src, { file: 't.c' });
  expect(r.diagnostics.filter((d) => d.severity === 'error').map((d) => formatDiagnostic(d, src))).toEqual([]);
  return r.spec!;
}
function errors(src: string): string[] {
  return compile(src, { file: 't.c' }).diagnostics.filter((d) => d.severity === 'error').map((d) => `${d.span.line}:${d.span.col}: ${d.message}`);
}
/** What the program printed (trace_printk / trace_vprintk) on one run of a 64-byte frame. */
function printedBy(spec: NonNullable<ReturnType<typeof compile>['spec']>): string[] {
  const parsed = parseSpec(JSON.parse(JSON.stringify(spec)));
  if ('error' in parsed) throw new Error(parsed.error);
  expect(verify(parsed, { logLevel: 0 }).accepted).toBe(true);
  const vm = createVm(parsed);
  if ('error' in vm) throw new Error(vm.error);
  const r = vm.runXdp(testRunFrame(new Uint8Array(64)));
  expect(r.fault?.message).toBeUndefined();
  return vm.printed;
}
/** Compile src; our verifier must accept the program. */
function accepted(src: string): NonNullable<ReturnType<typeof compile>['spec']> {
  const s = ok(src);
  const parsed = parseSpec(JSON.parse(JSON.stringify(s)));
  if ('error' in parsed) throw new Error(parsed.error);
  const v = verify(parsed, { logLevel: 0 });
  expect(v.accepted, v.error).toBe(true);
  return s;
}

function insnsOf(hex: string): Insn[] {
  return decodeProgram(hexToBytes(hex) as Uint8Array).insns;
}

describe('inline asm', () => {
  it('is accepted in a function never called', () => {
    ok(`${PRE}static inline unsigned int swab32(unsigned int val) { __asm__("bswapl %0" : "=r" (val) : "0" (val)); return val; }
SEC("xdp") int p(struct xdp_md *ctx) { return XDP_PASS; }`);
  });
  it('is an error naming the asm where it is reached', () => {
    const e = errors(`${PRE}static inline unsigned int swab32(unsigned int val) { __asm__("bswapl %0" : "=r" (val) : "0" (val)); return val; }
SEC("xdp") int p(struct xdp_md *ctx) { return swab32(ctx->data) & 1; }`);
    expect(e).toEqual(["3:55: inline asm is not BPF assembly: unknown instruction 'bswapl' in 'bswapl r3' (reached from 'p')"]);
  });
  it('the empty asm is a compiler barrier and emits nothing', () => {
    const a = ok(`${PRE}SEC("xdp") int p(struct xdp_md *ctx) { asm volatile("" ::: "memory"); return XDP_PASS; }`);
    const b = ok(`${PRE}SEC("xdp") int p(struct xdp_md *ctx) { return XDP_PASS; }`);
    expect(a.insns).toBe(b.insns);
  });
  it('"g" operands are registers: __sink(x) from the kernel selftests\' bpf_misc.h (asm volatile("" : "+g"(x))) keeps x and emits nothing', () => {
    const s = ok(`${PRE}#define __sink(expr) asm volatile("" : "+g"(expr))
__noinline static int f0(int v) { __u64 a = 1; __sink(a); a += v; __sink(a); return a; }
SEC("xdp") int p(struct xdp_md *ctx) { return f0(1); }`);
    // f0: a = 1, a += (long)v, return a: no instruction of its own for either __sink.
    expect(insnsOf(s.insns).filter((i) => i.code === 0xb7 && i.imm === 1).length).toBe(2);
  });
  it('asm labels on declarations are accepted', () => {
    ok(`${PRE}typedef unsigned long size_t;\nextern int strerror_r (int __errnum, char *__buf, size_t __buflen) __asm__ ("" "__xpg_strerror_r");
SEC("xdp") int p(struct xdp_md *ctx) { return XDP_PASS; }`);
  });
});

describe('types real headers declare', () => {
  it('float, double, long double and __int128 have their sizes', () => {
    const s = ok(`${PRE}typedef struct { long long a __attribute__((__aligned__(__alignof__(long long)))); long double b __attribute__((__aligned__(__alignof__(long double)))); } max_align_t;
_Static_assert(sizeof(max_align_t) == 32, "max_align_t");
_Static_assert(sizeof(float) == 4 && sizeof(double) == 8 && sizeof(__int128) == 16 && sizeof(unsigned __int128) == 16, "sizes");
SEC("xdp") int p(struct xdp_md *ctx) { return sizeof(max_align_t); }`);
    expect(insnsOf(s.insns)[0]!.imm).toBe(32);
  });
  it("__builtin_va_list is the BPF target's void * (vmlinux.h: typedef __builtin_va_list va_list)", () => {
    const s = ok(`${PRE}typedef __builtin_va_list va_list;
struct va_format { const char *fmt; va_list *va; };
_Static_assert(sizeof(va_list) == 8 && sizeof(struct va_format) == 16, "sizes");
SEC("xdp") int p(struct xdp_md *ctx) { va_list v = 0; return sizeof(v); }`);
    expect(insnsOf(s.insns)[0]!.imm).toBe(8);
  });
});

describe('typeof_unqual', () => {
  it('__typeof_unqual__ and typeof_unqual name a type as typeof does (the selftests\' libarena headers use it)', () => {
    const a = ok(`${PRE}SEC("xdp") int p(struct xdp_md *ctx) { const volatile __u32 q = ctx->rx_queue_index; __typeof_unqual__(q) w = q + 1; typeof_unqual(w) z = w; w += 1; return (w + z) & 3; }`);
    const b = ok(`${PRE}SEC("xdp") int p(struct xdp_md *ctx) { const volatile __u32 q = ctx->rx_queue_index; __u32 w = q + 1; __u32 z = w; w += 1; return (w + z) & 3; }`);
    expect(a.insns).toBe(b.insns);
  });
});

describe('stores to a local nobody reads (clang\'s dead store elimination)', () => {
  it('are gone with their loads: a loop reading one byte past its check into such a local is accepted', () => {
    // `data + i > data_end` lets data[i] be one byte past the end; clang drops the loads with x, and so do we.
    const s = accepted(`${PRE}SEC("xdp") int p(struct xdp_md *ctx) {
  unsigned char *data = (void *)(long)ctx->data, *data_end = (void *)(long)ctx->data_end;
  unsigned char x = 0;
  for (int i = 0; i < 8; i++) { if (data + i > data_end) break; x ^= data[i]; }
  unsigned int y = data[0];
  y++;
  return XDP_PASS;
}`);
    // No byte is read from the packet at all (the two ctx loads are 32-bit).
    expect(insnsOf(s.insns).filter((i) => i.code === (O.BPF_LDX | O.BPF_MEM | O.BPF_B))).toEqual([]);
  });
  it('keep what else they do: a call in the value is still made, and a local read later keeps its stores', () => {
    const s = ok(`${PRE}SEC("xdp") int p(struct xdp_md *ctx) {
  __u32 r = bpf_get_prandom_u32();
  __u32 n = ctx->data_end - ctx->data;
  __u32 m = 0;
  m += n;
  return m == 64 ? XDP_DROP : XDP_PASS;
}`);
    expect(insnsOf(s.insns).some((i) => i.code === (O.BPF_JMP | O.BPF_CALL) && i.imm === 7)).toBe(true);
    expect(runOnce(s)).toBe(1);
  });
  it('keep a volatile access: a load through a cast to a pointer to volatile stays, as clang keeps it', () => {
    // The idiom that forces a read the program does not otherwise use (a bounds probe, a barrier).
    const s = accepted(`${PRE}SEC("xdp") int p(struct xdp_md *ctx) {
  void *data = (void *)(long)ctx->data, *data_end = (void *)(long)ctx->data_end;
  __u32 x;
  if (data + 8 > data_end) return XDP_PASS;
  x = *(volatile __u32 *)(data + 4);
  return XDP_PASS;
}`);
    expect(insnsOf(s.insns).filter((i) => i.code === (O.BPF_LDX | O.BPF_MEM | O.BPF_W) && i.off === 4 && i.src !== 1)).toHaveLength(1);
  });
});

describe('global data', () => {
  const spec = ok(`${PRE}int counter = 7;
const volatile int knob = 3;
static int hidden;
SEC("xdp") int p(struct xdp_md *ctx) { counter += knob; hidden++; return counter; }`);
  it('becomes internal array maps, .rodata frozen and read-only to the program', () => {
    expect(spec.maps).toEqual([
      { name: '.data', type: 'array', key_size: 4, value_size: 4, max_entries: 1, flags: 0x400, internal: '.data', init: [{ key: '00000000', value: '07000000' }] },
      { name: '.rodata', type: 'array', key_size: 4, value_size: 4, max_entries: 1, flags: 0x480, internal: '.rodata', init: [{ key: '00000000', value: '03000000' }], freeze: true },
      { name: '.bss', type: 'array', key_size: 4, value_size: 4, max_entries: 1, flags: 0x400, internal: '.bss' },
    ]);
  });
  it('is addressed with BPF_PSEUDO_MAP_VALUE lddw and value relocations', () => {
    const insns = insnsOf(spec.insns);
    expect(spec.map_relocs!.length).toBeGreaterThanOrEqual(3);
    for (const r of spec.map_relocs!) {
      expect(r.kind).toBe('value');
      expect(insns[r.insn]!.code).toBe(O.BPF_LD | O.BPF_IMM | O.BPF_DW);
      expect(insns[r.insn]!.src).toBe(O.BPF_PSEUDO_MAP_VALUE);
      expect(insns[r.insn + 1]!.imm).toBe(r.offset);
    }
    expect(new Set(spec.map_relocs!.map((r) => r.map))).toEqual(new Set([0, 1, 2]));
  });
  it('a const global that is not volatile folds to its value, as clang folds it', () => {
    const s = ok(`${PRE}const int answer = 42;\nSEC("xdp") int p(struct xdp_md *ctx) { return answer; }`);
    expect(s.maps).toEqual([]);
    expect(insnsOf(s.insns)[0]!.imm).toBe(42);
  });
  it("libbpf's bpf_printk format (a static const local) becomes .rodata", () => {
    const s = ok(`${PRE}SEC("xdp") int p(struct xdp_md *ctx) { ({ static const char ____fmt[] = "len %d"; bpf_trace_printk(____fmt, sizeof(____fmt), (int)(ctx->data_end - ctx->data)); }); return XDP_PASS; }`);
    expect(s.maps!.map((m) => m.internal)).toEqual(['.rodata']);
    expect(s.maps![0]!.init![0]!.value).toBe(Buffer.from('len %d\0').toString('hex'));
  });
  it('__func__ (and __FUNCTION__, __PRETTY_FUNCTION__) is the enclosing function\'s name, in .rodata when printed (the kernel selftests\' xdp_redirect_map.c)', () => {
    const s = ok(`${PRE}static __always_inline int helper(struct xdp_md *ctx) { bpf_printk("%s", __func__); return sizeof(__func__); }
SEC("xdp") int prog_fn(struct xdp_md *ctx) { bpf_printk("%s %s", __FUNCTION__, __PRETTY_FUNCTION__); return helper(ctx); }`);
    const rodata = Buffer.from(s.maps!.find((m) => m.internal === '.rodata')!.init![0]!.value, 'hex').toString('latin1');
    expect(rodata.split('\0')).toEqual(expect.arrayContaining(['prog_fn', 'helper']));
    // sizeof("helper"): 7, the program's return value (the last mov to r0 before exit).
    const ins = insnsOf(s.insns);
    expect(ins.some((i) => (i.code & 0xf7) === 0xb4 && i.dst === 0 && i.imm === 7)).toBe(true);
    // An identifier of that name the program declares is that declaration.
    ok(`${PRE}SEC("xdp") int p(struct xdp_md *ctx) { int __FUNCTION__ = 2; return __FUNCTION__; }`);
    expect(errors(`${PRE}int x = sizeof(__func__);\nSEC("xdp") int p(struct xdp_md *ctx) { return 2; }`)).toEqual(["3:16: use of undeclared identifier '__func__'"]);
  });
});

describe('printing', () => {
  it('a char array initialised from a parenthesized string literal (a macro\'s `(msg)`) is that string', () => {
    const s = ok(`${PRE}#define LOG(msg, v) ({ static const char fmt[] = (msg); bpf_trace_printk(fmt, sizeof(fmt), v); })
SEC("xdp") int p(struct xdp_md *ctx) { static const char two[] = (("x")); LOG("len %d", sizeof(two)); return XDP_PASS; }`);
    expect(printedBy(s)).toEqual(['len 2']);
  });
  it('bpf_printk with more than three arguments calls bpf_trace_vprintk, and the VM prints it as the kernel does', () => {
    const s = ok(`${PRE}SEC("xdp") int p(struct xdp_md *ctx) {
  static const char name[] = "eth0";
  bpf_printk("%d %u %x %s %lld", -1, 2, 255, name, -5LL);
  return XDP_PASS;
}`);
    expect(insnsOf(s.insns).some((i) => i.code === (O.BPF_JMP | O.BPF_CALL) && i.imm === 177)).toBe(true);
    expect(printedBy(s)).toEqual(['-1 2 ff eth0 -5']);
    // More conversions than arguments: -EINVAL and nothing printed (bpf_bprintf_prepare).
    const t = ok(`${PRE}SEC("xdp") int p(struct xdp_md *ctx) {
  __u64 a[4] = { 1, 2, 3, 4 };
  return bpf_trace_vprintk("%d %d %d %d %d", 15, a, sizeof(a)) == -22 ? XDP_DROP : XDP_PASS;
}`);
    expect(runOnce(t)).toBe(1);
  });
});

describe('inlining', () => {
  it('always_inline functions take more than five arguments', () => {
    const s = ok(`${PRE}static __always_inline int six(void *data, void *end, int *pa, int *pb, int k, int m)
{
\tif (data + 4 > end) return -1;
\t*pa = *(unsigned char *)data + k;
\t*pb = *(unsigned char *)(data + 1) + m;
\treturn k + m;
}
SEC("xdp") int p(struct xdp_md *ctx)
{
\tvoid *data = (void *)(long)ctx->data, *end = (void *)(long)ctx->data_end;
\tint a = 0, b = 0;
\tif (six(data + 2, end, &a, &b, ctx->ingress_ifindex, ctx->rx_queue_index) < 0) return XDP_ABORTED;
\treturn a + b;
}`);
    expect(s.funcs).toEqual([{ name: 'p', insn: 0 }]);
  });
  it('a memcpy whose size is a parameter expands once inlining makes it constant', () => {
    const s = ok(`${PRE}static __always_inline void copy(void *d, const void *s, __u64 len) { __builtin_memcpy(d, s, len); }
SEC("xdp") int p(struct xdp_md *ctx)
{
\tchar a[6] = { 1, 2, 3, 4, 5, 6 }, b[6];
\tcopy(b, a, sizeof(b));
\treturn b[5];
}`);
    expect(s.insns.length / 16).toBeLessThan(40);
    const e = errors(`${PRE}static __always_inline void copy(void *d, const void *s, __u64 len) { __builtin_memcpy(d, s, len); }
SEC("xdp") int p(struct xdp_md *ctx) { char a[6] = {}, b[6]; copy(b, a, ctx->ingress_ifindex & 3); return b[5]; }`);
    expect(e[0]).toMatch(/__builtin_memcpy: the size must be a compile-time constant on BPF/);
  });
  it('memcpy, memset and memcmp without a definition are the builtins', () => {
    ok(`${PRE}void *memcpy(void *, const void *, unsigned long);
SEC("xdp") int p(struct xdp_md *ctx) { char a[4] = { 1, 2, 3, 4 }, b[4]; memcpy(b, a, 4); memset(a, 0, 4); return memcmp(a, b, 4) < 0; }`);
  });
});

describe('large arrays', () => {
  it('a map may have millions of entries (katran\'s and the selftests\' xdp_lb_bench\'s hash rings: __uint(max_entries, N) is a pointer to int[N]); what is stored is bounded where it is placed', () => {
    const s = ok(`${PRE}#define CH_RINGS_SIZE (512 * 65537)
struct { __uint(type, BPF_MAP_TYPE_ARRAY); __uint(max_entries, CH_RINGS_SIZE); __type(key, __u32); __type(value, __u32); } ch_rings SEC(".maps");
SEC("xdp") int p(struct xdp_md *ctx) { __u32 k = 7; __u32 *v = bpf_map_lookup_elem(&ch_rings, &k); return v ? *v & 3 : 2; }`);
    expect(s.maps![0]!.max_entries).toBe(512 * 65537);
    // A global that large cannot be one map value; a local that large cannot be on the stack: each said where it is declared.
    expect(errors(`${PRE}char ring[8 << 20];\nSEC("xdp") int p(struct xdp_md *ctx) { return ring[ctx->rx_queue_index & 7]; }`)).toEqual([
      "3:6: global 'ring' is 8388608 bytes: its section is one array map value, and the kernel takes values of at most 4194304 bytes (KMALLOC_MAX_SIZE)",
    ]);
    expect(errors(`${PRE}SEC("xdp") int p(struct xdp_md *ctx) { __u64 big[1 << 24] = {}; return big[ctx->rx_queue_index & 7]; }`)).toEqual([
      "3:46: Looks like the BPF stack limit is exceeded: 'big' alone needs 134217728 bytes, the limit is 512",
    ]);
    expect(errors(`${PRE}typedef char huge[1ull << 33];\nSEC("xdp") int p(struct xdp_md *ctx) { return 2; }`)).toEqual(['3:24: array is too large']);
  });
});

describe('global functions', () => {
  it('a global function called as a BPF function is warned about once (the kernel with BTF verifies it on its own); a static one, an inlined one and the program are not', () => {
    const src = `${PRE}__attribute__((noinline)) int slot_of(__u32 q) { return q & 3; }
static __attribute__((noinline)) int st(__u32 q) { return q & 1; }
int inl(__u32 q) { return q + 1; }
SEC("xdp") int p(struct xdp_md *ctx) { char tbl[4] = {1, 2, 3, 0}; return tbl[slot_of(ctx->rx_queue_index)] + st(1) + slot_of(2) + inl(0); }
SEC("xdp") int q(struct xdp_md *ctx) { return slot_of(ctx->ingress_ifindex); }`;
    const r = compile(src, { file: 't.c' });
    expect(r.spec).toBeDefined();
    const w = r.diagnostics.filter((d) => d.code === 'cc-global-func');
    expect(w.map((d) => `${d.severity} ${d.span.line}:${d.span.col}`)).toEqual(['warning 3:31']);
    expect(w[0]!.message).toMatch(/^'slot_of' is a global function: .* make it 'static'/);
  });
});

describe('objects with several programs and map kinds', () => {
  const src = `${PRE}int xdp_b(struct xdp_md *ctx);
struct {
\t__uint(type, BPF_MAP_TYPE_PROG_ARRAY);
\t__uint(max_entries, 4);
\t__uint(key_size, sizeof(__u32));
\t__array(values, int (void *));
} jmp SEC(".maps") = { .values = { [1] = (void *)&xdp_b } };
struct inner { __uint(type, BPF_MAP_TYPE_ARRAY); __uint(max_entries, 1); __type(key, __u32); __type(value, __u64); };
struct {
\t__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
\t__uint(max_entries, 2);
\t__type(key, __u32);
\t__array(values, struct inner);
} outer SEC(".maps");
struct { __uint(type, BPF_MAP_TYPE_PERF_EVENT_ARRAY); __uint(key_size, sizeof(__u32)); __uint(value_size, sizeof(__u32)); } events SEC(".maps");
SEC("xdp") int xdp_a(struct xdp_md *ctx) { bpf_tail_call(ctx, &jmp, 1); return XDP_PASS; }
SEC("xdp.frags") int xdp_b(struct xdp_md *ctx) { return XDP_DROP; }
char _license[] SEC("license") = "GPL";`;
  it('the first XDP program is the entry; the others are programs, prog_array slots point at them', () => {
    const s = ok(src);
    expect(s.funcs).toEqual([{ name: 'xdp_a', insn: 0 }]);
    expect(s.section).toBeUndefined();
    expect(s.programs!.map((p) => [p.name, p.section])).toEqual([['xdp_b', 'xdp.frags']]);
    expect(s.maps![0]).toMatchObject({ name: 'jmp', type: 'prog_array', key_size: 4, value_size: 4, max_entries: 4, prog_slots: [{ slot: 1, prog: 0 }] });
  });
  it('a map-in-map carries its inner template; a perf event array gets libbpf-like defaults', () => {
    const s = ok(src);
    expect(s.maps![1]).toMatchObject({ name: 'outer', type: 'array_of_maps', value_size: 4, inner_map: 2 });
    expect(s.maps![2]).toMatchObject({ type: 'array', key_size: 4, value_size: 8, max_entries: 1 });
    expect(s.maps![3]).toMatchObject({ name: 'events', type: 'perf_event_array', key_size: 4, value_size: 4 });
  });
  it('the entry can be chosen by name', () => {
    const r = compile(src, { file: 't.c', entry: 'xdp_b' });
    expect(r.spec!.funcs).toEqual([{ name: 'xdp_b', insn: 0 }]);
    expect(r.spec!.section).toBe('xdp.frags');
    expect(r.spec!.programs!.map((p) => p.name)).toEqual(['xdp_a']);
  });
});

describe('code the verifier accepts where it accepts clang\'s', () => {
  it('a NULL test of a local\'s address folds away, also through an inlined parameter', () => {
    const body = (test: string): string => `${PRE}struct hdr { unsigned short proto; };
static __always_inline int get(struct xdp_md *ctx, struct hdr *h)
{
\tvoid *data = (void *)(long)ctx->data, *end = (void *)(long)ctx->data_end;
\tif (data + 2 > end) return -1;
\t${test}
\th->proto = *(unsigned short *)data;
\treturn 0;
}
SEC("xdp") int p(struct xdp_md *ctx)
{
\tstruct hdr h;
\tif (get(ctx, &h) < 0 || !&h) return XDP_ABORTED;
\treturn h.proto == 8 ? XDP_DROP : XDP_PASS;
}`;
    const plain = ok(body(''));
    expect(ok(body('if (!h) return -1;')).insns).toBe(plain.insns);
    expect(ok(body('if (h == 0) return -1;')).insns).toBe(plain.insns);
  });
});

describe('kfuncs', () => {
  const decl = `${PRE}extern int bpf_xdp_metadata_rx_hash(const struct xdp_md *ctx, __u32 *hash, int *rss_type) __attribute__((section(".ksyms")));\n`;
  it('declaring a kfunc adds nothing; calling one is a BPF_PSEUDO_KFUNC_CALL named in kfunc_relocs', () => {
    expect(ok(`${decl}SEC("xdp") int p(struct xdp_md *ctx) { return XDP_PASS; }`).kfunc_relocs).toBeUndefined();
    const spec = ok(`${decl}SEC("xdp") int p(struct xdp_md *ctx) { __u32 h; int t; bpf_xdp_metadata_rx_hash(ctx, &h, &t); return XDP_PASS; }`);
    expect(spec.kfunc_relocs).toHaveLength(1);
    const r = spec.kfunc_relocs![0]!;
    expect(r.name).toBe('bpf_xdp_metadata_rx_hash');
    expect(insnsOf(spec.insns)[r.insn]).toMatchObject({ code: O.BPF_JMP | O.BPF_CALL, src: O.BPF_PSEUDO_KFUNC_CALL, imm: 0 });
  });
});

describe('enum sizes', () => {
  it('a packed enum takes the narrowest type holding its enumerators (pping packs its flow events so)', () => {
    const spec = ok(`${PRE}
enum __attribute__((__packed__)) small { A, B, C };
enum __attribute__((packed)) neg { N = -1, P = 100 };
enum sh { S1 = 300 } __attribute__((packed));
enum plain { Q };
enum wide { W = 0x100000000ULL };
struct s { enum small a; enum small b; enum sh c; enum plain d; };
SEC("xdp") int p(struct xdp_md *ctx) {
  enum small e = C;
  return sizeof(struct s) * 1000 + sizeof(enum small) * 100 + sizeof(enum neg) * 10 + sizeof(enum wide) + (e == C) * 10000 + (sizeof(enum sh) == 2) * 100000;
}`);
    const insns = insnsOf(spec.insns);
    // 8 (struct: 1 + 1 + 2 + 4) * 1000 + 1 * 100 + 1 * 10 + 8, plus the two checks.
    expect(insns[0]!.imm).toBe(100000 + 10000 + 8 * 1000 + 100 + 10 + 8);
  });
});

describe('compound literals', () => {
  const run = (src: string): number => runOnce(ok(src));
  it('is an lvalue object of the enclosing block: its address outlives the expression, later locals do not reuse it', () => {
    expect(run(`${PRE}struct pt { int x, y; };
SEC("xdp") int p(struct xdp_md *ctx) {
  struct pt *a = &(struct pt){ .y = 7 };
  volatile int later[4] = { 1, 2, 3, 4 };
  (struct pt){ 1, 2 }.x = 5;
  return a->x + a->y + later[3] + ((int[]){ 10, 20, 30 })[2] + sizeof((char[]){ "abc" });
}`)).toBe(0 + 7 + 4 + 30 + 4);
  });
  it('is initialised again each time it is evaluated (a loop)', () => {
    expect(run(`${PRE}SEC("xdp") int p(struct xdp_md *ctx) {
  int s = 0;
  for (int i = 0; i < 3; i++) { int *q = (int[2]){ i }; s += q[0] + q[1]; q[1] = 100; }
  return s;
}`)).toBe(0 + 1 + 2);
  });
  it('at file scope is refused by name (it would be static data)', () => {
    expect(errors(`${PRE}int *g = (int[]){ 1, 2 };\nSEC("xdp") int p(struct xdp_md *ctx) { return XDP_PASS; }`)).toEqual(['3:10: compound literals at file scope are not supported']);
  });
});

describe('_Generic and __builtin_choose_expr', () => {
  it('pick by type and by constant as clang does (clang-19 -O2 folds this program to r0 = 997542)', () => {
    const spec = ok(`${PRE}#define kind(x) _Generic((x), char: 1, unsigned char: 2, int: 3, unsigned int: 4, long: 5, unsigned long: 6, int *: 7, default: 9)
#define pick(c, a, b) __builtin_choose_expr(c, a, b)
SEC("xdp") int p(struct xdp_md *ctx) {
  int arr[2] = { 0 };
  unsigned char uc = 1;
  long l = 2;
  __u64 wide = pick(sizeof(long) == 8, (__u64)ctx->data_end, (__u32)0);
  int r = kind(uc) * 1 + kind(ctx->data) * 10 + kind(l) * 100 + kind(arr) * 1000 + kind(wide) * 10000 + kind((short)1) * 100000;
  return pick(1, r, "unused") + (int)(wide & 0);
}`);
    expect(runOnce(spec)).toBe(997542);
  });
  it('say what is wrong when no association fits, or the choice is not constant', () => {
    expect(errors(`${PRE}SEC("xdp") int p(struct xdp_md *ctx) { return _Generic(ctx, int: 1, long: 2); }`)).toEqual([
      "3:56: controlling expression type 'struct xdp_md *' not compatible with any generic association type",
    ]);
    expect(errors(`${PRE}SEC("xdp") int p(struct xdp_md *ctx) { return __builtin_choose_expr(ctx->data, 1, 2); }`)).toEqual([
      "3:69: '__builtin_choose_expr' requires a constant expression",
    ]);
  });
});

describe('map definitions a loader would complete', () => {
  it('say which fields are missing, and why a map without max_entries cannot load here', () => {
    expect(errors(`${PRE}struct { __uint(type, BPF_MAP_TYPE_RINGBUF); } rb SEC(".maps");
struct { __uint(type, BPF_MAP_TYPE_HASH); __uint(max_entries, 4); } h SEC(".maps");
SEC("xdp") int p(struct xdp_md *ctx) { bpf_ringbuf_output(&rb, ctx, 4, 0); return bpf_map_lookup_elem(&h, ctx) ? 1 : 2; }`)).toEqual([
      "3:48: map 'rb' needs max_entries (__uint(max_entries, 4096)): its project sizes it from user space before loading, and XDP Lab loads the object as it is",
      "4:69: map 'h' needs a key (__type(key, __u32) or __uint(key_size, 4)), a value (__type(value, …) or __uint(value_size, …))",
    ]);
  });
});

describe('section attributes', () => {
  it('refuse a section name that is not a string literal, as clang does (SEC(NAME) with NAME no macro)', () => {
    const e = errors(`${PRE}int meta SEC(NOT_A_MACRO) = 1;\nSEC("xdp") int p(struct xdp_md *ctx) { return XDP_PASS; }`);
    expect(e).toHaveLength(1);
    expect(e[0]).toMatch(/^3:\d+: expected string literal as argument of 'section' attribute$/);
  });
});

describe('reads of string literals at constant offsets', () => {
  it('fold to constants, as clang folds them: no .rodata, no load', () => {
    const s = ok(`${PRE}#define KEY ((const char *)"0A1b")
SEC("xdp") int p(struct xdp_md *ctx) { return KEY[1] * 256 + *(KEY + 2) + "xyz"[2]; }`);
    expect(s.maps ?? []).toEqual([]);
    expect(insnsOf(s.insns).some((i) => (i.code & 0x07) === O.BPF_LDX)).toBe(false);
    expect(runOnce(s)).toBe(0x41 * 256 + 0x31 + 0x7a);
  });
  it('past the literal\'s end (undefined; clang folds it to poison) are 0, never a read out of the map', () => {
    // xdp-dnsrrl's siphash stringifies a secret defined only after its use, then reads 32 hex digits.
    const s = ok(`${PRE}#define STR(x) #x
#define XSTR(x) STR(x)
SEC("xdp") int p(struct xdp_md *ctx) { const char *k = XSTR(UNDEFINED_SECRET); return ((const char *)XSTR(UNDEFINED_SECRET))[30] + 1; }`);
    expect(insnsOf(s.insns).some((i) => (i.code & 0x07) === O.BPF_LDX)).toBe(false);
    expect(runOnce(s)).toBe(1);
  });
  it('a variable index still reads the literal', () => {
    const s = ok(`${PRE}SEC("xdp") int p(struct xdp_md *ctx) { return "0123456789abcdef"[ctx->rx_queue_index & 15]; }`);
    expect((s.maps ?? []).map((m) => m.internal)).toEqual(['.rodata']);
    expect(runOnce(s)).toBe(0x30);
  });
});

describe('a field read before the check that guards it', () => {
  const ETH = `${PRE}#include <linux/if_ether.h>\n#include <bpf/bpf_endian.h>\n`;
  const verdict = (s: ReturnType<typeof ok>): { accepted: boolean; error?: string } => {
    const parsed = parseSpec(JSON.parse(JSON.stringify(s)));
    if ('error' in parsed) throw new Error(parsed.error);
    return verify(parsed, { logLevel: 0 });
  };
  it('is read after the checks that return early, as clang sinks the load (suricata xdp_lb.c)', () => {
    const s = ok(`${ETH}SEC("xdp") int p(struct xdp_md *ctx) {
  void *data = (void *)(long)ctx->data, *data_end = (void *)(long)ctx->data_end;
  struct ethhdr *eth = data;
  __u16 proto = eth->h_proto;
  __u64 off = sizeof(*eth);
  if (ctx->rx_queue_index > 64) return XDP_ABORTED;
  if (data + off > data_end) return XDP_DROP;
  return proto == bpf_htons(ETH_P_IP) ? XDP_PASS : XDP_TX;
}`);
    expect(verdict(s).accepted).toBe(true);
    expect(runOnce(s)).toBe(3);
    const ip = new Uint8Array(64);
    ip[12] = 0x08;
    expect(runOnce(s, ip)).toBe(2);
    expect(runOnce(s, new Uint8Array(8))).toBe(1);
  });
  it('stays where it is when the early exit uses the value, or a store comes between (the kernel refuses both, as clang\'s builds)', () => {
    const used = ok(`${ETH}SEC("xdp") int p(struct xdp_md *ctx) {
  void *data = (void *)(long)ctx->data, *data_end = (void *)(long)ctx->data_end;
  struct ethhdr *eth = data;
  __u16 proto = eth->h_proto;
  if (data + sizeof(*eth) > data_end) return proto & 1;
  return proto == bpf_htons(ETH_P_IP) ? XDP_PASS : XDP_TX;
}`);
    expect(verdict(used).error).toMatch(/invalid access to packet/);
    const stored = ok(`${ETH}SEC("xdp") int p(struct xdp_md *ctx) {
  void *data = (void *)(long)ctx->data, *data_end = (void *)(long)ctx->data_end;
  struct ethhdr *eth = data;
  __u16 proto = eth->h_proto;
  eth->h_dest[0] = 1;
  if (data + sizeof(*eth) > data_end) return XDP_DROP;
  return proto == bpf_htons(ETH_P_IP) ? XDP_PASS : XDP_TX;
}`);
    expect(verdict(stored).error).toMatch(/invalid access to packet/);
  });
  it('is not moved past an exit by goto, whose label may read it', () => {
    const s = ok(`${ETH}SEC("xdp") int p(struct xdp_md *ctx) {
  void *data = (void *)(long)ctx->data, *data_end = (void *)(long)ctx->data_end;
  struct ethhdr *eth = data;
  int rc = XDP_PASS;
  __u16 proto = eth->h_proto;
  if (data + sizeof(*eth) > data_end) goto out;
  rc = XDP_TX;
out:
  return rc + (proto & 1);
}`);
    expect(verdict(s).error).toMatch(/invalid access to packet/);
  });
});

describe('a struct passed by value to an inlined function', () => {
  it('is a copy: the callee reads the argument\'s fields and its writes stay its own (xdp_stateful_kern.c add_flow_entry)', () => {
    const s = ok(`${PRE}struct tup { __u8 proto; __u32 a; __u32 b; __u16 sp; __u16 dp; };
static __always_inline int swap_sum(struct tup t, int k)
{
  __u16 p = t.sp; __u32 x = t.a;
  t.sp = t.dp; t.a = t.b; t.dp = p; t.b = x;
  return t.sp * 1000 + t.dp * 10 + t.a - t.b + k + t.proto;
}
int add_twice(struct tup t, int k) { return swap_sum(t, k) + t.sp; }
SEC("xdp") int p(struct xdp_md *ctx) {
  struct tup t = { .proto = 6, .a = 5, .b = 7, .sp = 1, .dp = 2 };
  struct tup *tp = &t;
  int r = swap_sum(t, 3) + add_twice(*tp, 0);
  return r + t.sp * 100000 + t.a;
}`);
    const parsed = parseSpec(JSON.parse(JSON.stringify(s)));
    if ('error' in parsed) throw new Error(parsed.error);
    expect(verify(parsed, { logLevel: 0 }).accepted).toBe(true);
    // swap_sum: 2*1000 + 1*10 + 7 - 5 + k + 6; add_twice adds the unswapped t.sp (1); the caller's t is unchanged (as gcc runs it).
    expect(runOnce(s)).toBe((2018 + 3) + (2018 + 1) + 100000 + 5);
  });
});

describe('__builtin_memmove', () => {
  it('copies overlapping regions as if through a buffer, up or down, on the stack and in the packet (test_xdp_vlan.c xdp_vlan_remove_outer)', () => {
    const s = ok(`${PRE}SEC("xdp") int p(struct xdp_md *ctx) {
  void *data = (void *)(long)ctx->data, *data_end = (void *)(long)ctx->data_end;
  unsigned char b[16] = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15 };
  unsigned char c[16] = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15 };
  char *dest;
  if (data + 16 > data_end) return XDP_ABORTED;
  __builtin_memmove(b + 4, b, 10);
  __builtin_memmove(c, c + 3, 10);
  dest = data;
  dest += 4;
  __builtin_memmove(dest, data, 12);
  unsigned char *d = data;
  return (b[4] << 28) | (b[13] << 24) | (c[0] << 20) | (c[9] << 16) | (d[4] << 8) | d[15];
}`);
    const pkt = Uint8Array.from({ length: 64 }, (_, i) => 0x10 + i);
    // b: 0 1 2 3 0 1 2 3 4 5 6 7 8 9 14 15; c: 3 … 12 10 … 15; the packet's bytes 4..15 are its bytes 0..11.
    expect(runOnce(s, pkt) >>> 0).toBe(((0 << 28) | (9 << 24) | (3 << 20) | (12 << 16) | (0x10 << 8) | 0x1b) >>> 0);
  });
});

describe('a small struct local used member by member (clang\'s SROA, as far as the verifier sees it)', () => {
  const parse = `${PRE}struct res { __u16 proto; __u16 vid; __u8 off_a; __u8 off_b; __u8 n; };
static __always_inline int tags(void *data, void *data_end, struct res *r)
{
  __u8 off = 14;
  if (data + off + 8 > data_end) return -1;
  if (*(__u16 *)(data + 12) == 0x0081) { r->off_a = off; off += 4; r->n++; }
  if (*(__u16 *)(data + off - 2) == 0x0081) { r->off_b = off; off += 4; r->n++; }
  r->proto = *(__u16 *)(data + off - 2);
  return off;
}
SEC("xdp") int p(struct xdp_md *ctx) {
  void *data = (void *)(long)ctx->data, *data_end = (void *)(long)ctx->data_end;
  struct res r = { .vid = 7 };
  if (tags(data, data_end, &r) < 0) return XDP_ABORTED;
  if (r.off_a == 0) return 1000 + r.vid;
  __u8 *tci = data + (r.off_b ? r.off_b : r.off_a);
  return (r.n << 16) | (*tci << 8) | r.vid;
}`;
  it('keeps each member in a stack slot of its own, so a constant offset stays known (test_xdp_vlan.c xdp_vlan_change)', () => {
    const s = ok(parse);
    const parsed = parseSpec(JSON.parse(JSON.stringify(s)));
    if ('error' in parsed) throw new Error(parsed.error);
    // Both one-byte offsets in one 8-byte word: the store to off_b would make off_a unknown, and
    // data + off_a an unbounded packet pointer ("offset is outside of the packet").
    expect(verify(parsed, { logLevel: 0 }).accepted).toBe(true);
    const stores = insnsOf(s.insns).filter((i) => (i.code & 0x07) === O.BPF_ST || (i.code & 0x07) === O.BPF_STX).filter((i) => i.dst === 10).map((i) => i.off);
    expect(new Set(stores.map((o) => o >> 3)).size).toBe(new Set(stores).size);
    const qinq = new Uint8Array(64);
    qinq.set([0x81, 0x00, 0xa0, 0x05, 0x81, 0x00, 0xb0, 0x06, 0x08, 0x00], 12);
    expect(runOnce(s, qinq)).toBe((2 << 16) | (0xb0 << 8) | 7);
    expect(runOnce(s, new Uint8Array(64))).toBe(1007);
  });
  it('stays whole once its address goes anywhere else (a helper, a pointer kept, a copy, memset)', () => {
    const escapes = [
      'struct res *q = &r; q->n = 1;',
      '__builtin_memset(&r, 0, sizeof(r));',
      'struct res c = r; r.n = c.n;',
      '__u8 *pb = &r.off_b; *pb = 2;',
    ];
    for (const esc of escapes) {
      const s = ok(parse.replace('if (tags(', `${esc}\n  if (tags(`));
      // Whole: the five members in 8 bytes (one or two words), not five slots.
      const offs = insnsOf(s.insns).filter((i) => ((i.code & 0x07) === O.BPF_ST || (i.code & 0x07) === O.BPF_STX) && i.dst === 10).map((i) => i.off >> 3);
      expect(new Set(offs).size, esc).toBeLessThan(5);
    }
  });
});

describe('a one-byte local with a constant initialiser that lives on the stack', () => {
  it('is stored as the whole 8-byte register it is reloaded as (the kernel refused the unbounded reload)', () => {
    // Five values live across a helper call: r6-r9 hold four, so \`off\` gets a stack slot.
    const s = ok(`${PRE}SEC("xdp") int p(struct xdp_md *ctx) {
  void *data = (void *)(long)ctx->data, *data_end = (void *)(long)ctx->data_end;
  __u32 a = ctx->ingress_ifindex, b = ctx->rx_queue_index;
  __u8 off = 14;
  bpf_ktime_get_ns();
  if (b == 99) off = 20;
  if (data + off + 1 > data_end) return -1;
  return *(__u8 *)(data + off) + off + ((a + b) << 8);
}`);
    const parsed = parseSpec(JSON.parse(JSON.stringify(s)));
    if ('error' in parsed) throw new Error(parsed.error);
    expect(verify(parsed, { logLevel: 0 }).accepted).toBe(true);
    // No narrow store of 14 to a slot that is then read back 8 bytes wide.
    const ins = insnsOf(s.insns);
    const narrow = ins.filter((i) => i.code === (O.BPF_ST | O.BPF_MEM | O.BPF_B) && i.imm === 14).map((i) => i.off);
    const wideReads = ins.filter((i) => i.code === (O.BPF_LDX | O.BPF_MEM | O.BPF_DW) && i.src === 10).map((i) => i.off);
    expect(narrow.filter((o) => wideReads.includes(o))).toEqual([]);
    const pkt = new Uint8Array(64);
    pkt[14] = 9;
    expect(runOnce(s, pkt) & 0xff).toBe(9 + 14);
  });
});

describe('a packed struct\'s member at a stack offset not aligned to its size', () => {
  it('is stored and loaded in aligned pieces, as clang does (the kernel refuses a misaligned stack access)', () => {
    const s = ok(`${PRE}struct s { __u8 tag; __u32 a; __u64 b; __u16 c; } __attribute__((packed));
SEC("xdp") int p(struct xdp_md *ctx) {
  struct s e = {0};
  volatile __u64 big = 0x1122334455667788ULL;
  e.tag = 1;
  e.a = ctx->ingress_ifindex + 0x10203040;
  e.b = big;
  e.c = 0xbeef;
  e.b += 0x0101010101010101ULL;
  return (e.b >> 56) == 0x12 && (e.b & 0xff) == 0x89 && e.a == 0x10203041 && e.c == 0xbeef && e.tag == 1 ? XDP_DROP : XDP_PASS;
}`);
    const parsed = parseSpec(JSON.parse(JSON.stringify(s)));
    if ('error' in parsed) throw new Error(parsed.error);
    expect(verify(parsed, { logLevel: 0 }).accepted).toBe(true);
    for (const i of insnsOf(s.insns)) {
      const cls = i.code & 0x07;
      const fp = (cls === O.BPF_STX || cls === O.BPF_ST) ? i.dst === 10 : cls === O.BPF_LDX && i.src === 10;
      if (!fp) continue;
      const size = [4, 2, 1, 8][(i.code >> 3) & 3]!;
      expect(i.off % size === 0, `off ${i.off} size ${size}`).toBe(true);
    }
    expect(runOnce(s)).toBe(1);
  });
  it('a cast pointer promises its type\'s alignment: the access stays whole, as clang\'s (and the kernel refuses it)', () => {
    const s = ok(`${PRE}SEC("xdp") int p(struct xdp_md *ctx) { __u8 key[8] = {}; *(__u32 *)(key + 2) = ctx->ingress_ifindex; return key[2]; }`);
    expect(insnsOf(s.insns).filter((i) => i.code === (O.BPF_STX | O.BPF_MEM | O.BPF_W) && i.dst === 10 && i.off % 4 !== 0).length).toBe(1);
  });
});

describe('values read once, as clang\'s GVN reads them', () => {
  it('ctx->data checked in integer arithmetic and returned as a pointer stays the packet pointer: no 32-bit move of it', () => {
    const s = accepted(`${PRE}static __always_inline void *hdr(struct xdp_md *ctx, unsigned long n) {
  if (ctx->data + n > ctx->data_end) return 0;
  return (void *)(unsigned long)ctx->data;
}
SEC("xdp") int p(struct xdp_md *ctx) { unsigned char *h = hdr(ctx, 14); return h ? h[13] : XDP_ABORTED; }`);
    expect(insnsOf(s.insns).filter((i) => i.code === (O.BPF_ALU | O.BPF_MOV | O.BPF_X))).toEqual([]);
    const pkt = new Uint8Array(64);
    pkt[13] = 2;
    expect(runOnce(s, pkt)).toBe(2);
  });
  it('ctx->data checked, then read again in memcpy\'s arguments: one read', () => {
    const s = accepted(`${PRE}SEC("xdp") int p(struct xdp_md *ctx) {
  char h[4] = { 1, 2, 3, 4 };
  if (ctx->data + 4UL > ctx->data_end) return XDP_ABORTED;
  __builtin_memcpy((void *)(unsigned long)ctx->data, h, 4);
  return XDP_PASS;
}`);
    expect(insnsOf(s.insns).filter((i) => i.code === (O.BPF_LDX | O.BPF_MEM | O.BPF_W) && i.off === 0 && i.src !== 10).length).toBe(1);
  });
  it('a checked sum whose base is itself a sum (`m + 14 + off + 8`) shares `m + 14 + off` with the read after it', () => {
    const s = accepted(`${PRE}SEC("xdp") int p(struct xdp_md *ctx) {
  unsigned char *m = (void *)(long)ctx->data; void *end = (void *)(long)ctx->data_end;
  if (m + 15 > (unsigned char *)end) return XDP_PASS;
  __u32 off = (m[14] & 0xf) * 4;
  if (m + 14 + off + 8 > (unsigned char *)end) return XDP_PASS;
  return *(__u16 *)(m + 14 + off + 2) == 0x3500 ? XDP_DROP : XDP_PASS;
}`);
    const pkt = new Uint8Array(64);
    pkt[14] = 0x45;
    pkt[14 + 20 + 2] = 0x00;
    pkt[14 + 20 + 3] = 0x35;
    expect(runOnce(s, pkt)).toBe(1);
  });
});

describe('a header pointer NULL until it fits, tested again later', () => {
  const build = (src: string) => {
    const s = ok(src);
    const parsed = parseSpec(JSON.parse(JSON.stringify(s)));
    if ('error' in parsed) throw new Error(parsed.error);
    return { s, v: verify(parsed, { logLevel: 0 }) };
  };
  // `if (udp && udp + 1 > end) udp = NULL; if (!udp) return`: each edge into the second test knows udp's answer.
  const nullable = (spill: string) => `${PRE}#include <linux/udp.h>
SEC("xdp") int p(struct xdp_md *ctx) {
  void *data = (void *)(long)ctx->data, *end = (void *)(long)ctx->data_end;
  struct udphdr *udp = NULL;
  if (ctx->ingress_ifindex == 1) udp = data + 34;
  ${spill}
  if (udp && (void *)(udp + 1) > end) udp = NULL;
  if (!udp) return XDP_PASS;
  return udp->dest == 0x3500 ? XDP_DROP : XDP_ABORTED;
}`;
  it('threads the second test, as clang does: the read is reached only past the bounds check (in a register, and spilled across a call)', () => {
    for (const spill of ['', 'bpf_printk("x");']) {
      const { s, v } = build(nullable(spill));
      expect(v.accepted, v.error).toBe(true);
      // One test of udp against 0 is left (the first); the second is threaded away.
      const zeroTests = insnsOf(s.insns).filter((i) => (i.code === (O.BPF_JMP | O.BPF_JEQ | O.BPF_K) || i.code === (O.BPF_JMP | O.BPF_JNE | O.BPF_K)) && i.imm === 0);
      expect(zeroTests.length).toBe(1);
    }
  });
  it('keeps what the program computes: the port read when the header fits, XDP_PASS when it does not or udp stayed NULL', () => {
    const { s } = build(nullable(''));
    const pkt = new Uint8Array(64);
    pkt[36] = 0x00;
    pkt[37] = 0x35;
    // testRunFrame's ingress_ifindex is 1 (the loopback, as BPF_PROG_TEST_RUN's default).
    expect(runOnce(s, pkt)).toBe(1);
    expect(runOnce(s, new Uint8Array(40))).toBe(2);
    const other = ok(nullable('').replace('ingress_ifindex == 1', 'ingress_ifindex == 7'));
    expect(runOnce(other, pkt)).toBe(2);
  });
  it('a pointer written between the two tests is not taken for the one tested', () => {
    const { v } = build(`${PRE}SEC("xdp") int p(struct xdp_md *ctx) {
  unsigned char *data = (void *)(long)ctx->data, *end = (void *)(long)ctx->data_end;
  unsigned char *h = NULL;
  if (ctx->ingress_ifindex == 1) h = data + 20;
  if (h && h + 1 > end) h = NULL;
  if (h) h = data + 40;
  if (!h) return XDP_PASS;
  return *h;
}`);
    // h + 40 was never checked: the kernel refuses the read, and so must ours.
    expect(v.accepted).toBe(false);
  });
});

describe('a volatile local', () => {
  it('lives on the stack and every access to it is made, as clang makes them (C11 5.1.2.3)', () => {
    const s = ok(`${PRE}SEC("xdp") int p(struct xdp_md *ctx) { volatile __u64 sum = 0; sum = 5; sum += 1; return XDP_PASS; }`);
    const ins = insnsOf(s.insns);
    const stores = ins.filter((i) => (i.code & 0x07) !== O.BPF_LDX && ((i.code & 0x07) === O.BPF_ST || (i.code & 0x07) === O.BPF_STX) && i.dst === 10);
    const loads = ins.filter((i) => (i.code & 0x07) === O.BPF_LDX && i.src === 10);
    expect([stores.length, loads.length]).toEqual([3, 1]);
  });
  it('is read again at each use: a check and the use after it are two loads', () => {
    const s = ok(`${PRE}SEC("xdp") int p(struct xdp_md *ctx) { volatile __u32 len = ctx->data_end - ctx->data; if (len > 100) return XDP_DROP; return len > 50 ? XDP_TX : XDP_PASS; }`);
    expect(insnsOf(s.insns).filter((i) => i.code === (O.BPF_LDX | O.BPF_MEM | O.BPF_W) && i.src === 10).length).toBe(2);
    const pkt = new Uint8Array(60);
    expect(runOnce(s, pkt)).toBe(3);
    expect(runOnce(s, new Uint8Array(40))).toBe(2);
  });
});

describe('sums and copies clang lowers by what it knows', () => {
  it('a checked pointer sum holding a field read (`data + 14 + (iph->ihl << 2)`) is computed once for the check and the pointer', () => {
    const s = accepted(`${PRE}#include <linux/if_ether.h>
#include <linux/ip.h>
#include <linux/tcp.h>
SEC("xdp") int p(struct xdp_md *ctx) {
  void *data_end = (void *)(long)ctx->data_end, *data = (void *)(long)ctx->data;
  if (data + sizeof(struct ethhdr) + sizeof(struct iphdr) > data_end) return XDP_PASS;
  struct iphdr *iph = data + sizeof(struct ethhdr);
  if (data + sizeof(struct ethhdr) + (iph->ihl << 2) + sizeof(struct tcphdr) > data_end) return XDP_PASS;
  struct tcphdr *tcp = data + sizeof(struct ethhdr) + (iph->ihl << 2);
  return tcp->syn ? XDP_DROP : XDP_TX;
}`);
    // ihl is read once: one byte load at offset 14 of the packet.
    expect(insnsOf(s.insns).filter((i) => i.code === (O.BPF_LDX | O.BPF_MEM | O.BPF_B) && i.off === 14).length).toBe(1);
    const pkt = new Uint8Array(80);
    pkt[14] = 0x46; // ihl 6: TCP at 14 + 24
    pkt[14 + 24 + 13] = 0x02; // SYN
    expect(runOnce(s, pkt)).toBe(1);
    pkt[14 + 24 + 13] = 0x10;
    expect(runOnce(s, pkt)).toBe(3);
  });
  it('a field read in the sum is read again when a store may change it in between', () => {
    const s = ok(`${PRE}SEC("xdp") int p(struct xdp_md *ctx) {
  unsigned char *data = (void *)(long)ctx->data, *end = (void *)(long)ctx->data_end;
  if (data + 20 > end) return XDP_PASS;
  unsigned char *h = data;
  if (data + (h[0] & 3) + 8 > end) return XDP_PASS;
  h[0] = 2;
  return *(data + (h[0] & 3) + 4);
}`);
    expect(insnsOf(s.insns).filter((i) => i.code === (O.BPF_LDX | O.BPF_MEM | O.BPF_B) && i.off === 0).length).toBe(2);
  });
  it('memcpy from a packed struct\'s member copies in pieces its alignment (1) allows: no misaligned stack read', () => {
    const s = accepted(`${PRE}struct tail { __u8 mac[6]; __u32 ip; } __attribute__((packed));
SEC("xdp") int p(struct xdp_md *ctx) {
  void *data_end = (void *)(long)ctx->data_end, *data = (void *)(long)ctx->data;
  struct tail *t = data;
  if ((void *)(t + 1) > data_end) return XDP_PASS;
  struct tail old = {};
  __builtin_memcpy(&old, t, sizeof(old));
  old.mac[0] ^= 1;
  __builtin_memcpy(&t->ip, &old.ip, sizeof(old.ip));
  return XDP_PASS;
}`);
    for (const i of insnsOf(s.insns)) {
      if ((i.code & 0x07) !== O.BPF_LDX || i.src !== 10) continue;
      const size = [4, 2, 1, 8][(i.code >> 3) & 3]!;
      expect(Math.abs(i.off % size), `stack read of ${size} at ${i.off}`).toBe(0);
    }
  });
});

describe('an empty if body', () => {
  it('leaves no test behind, as clang leaves none (a jump to the next instruction would give the verifier a second state)', () => {
    const s = ok(`${PRE}SEC("xdp") int p(struct xdp_md *ctx) {
  void *data = (void *)(long)ctx->data, *end = (void *)(long)ctx->data_end;
  __u32 q = ctx->rx_queue_index;
  if (q == 6) { }
  if (data + 14 > end) { ; }
  return q ? XDP_PASS : XDP_DROP;
}`);
    const ins = insnsOf(s.insns);
    expect(ins.filter((i) => (i.code & 0x07) === O.BPF_JMP || (i.code & 0x07) === O.BPF_JMP32).filter((i) => i.off === 0 && (i.code & 0xf0) !== O.BPF_EXIT && (i.code & 0xf0) !== O.BPF_CALL)).toEqual([]);
    expect(runOnce(s)).toBe(1);
  });
});

describe('memset and memcpy on the stack', () => {
  it('clear an 8-aligned buffer with 8-byte stores of a register holding 0, as clang does (the kernel then prunes a loop that fills it a byte at a time)', () => {
    const s = accepted(`${PRE}struct { __uint(type, BPF_MAP_TYPE_ARRAY); __uint(max_entries, 1); __type(key, __u32); __type(value, char[64]); } q SEC(".maps");
SEC("xdp") int p(struct xdp_md *ctx) {
  __u32 k = 0;
  char *name = bpf_map_lookup_elem(&q, &k);
  char dom[64];
  if (!name) return XDP_ABORTED;
  __builtin_memset(dom, 0, sizeof(dom));
  for (int i = 0; i < 64; i++) {
    if (name[i] == '.') { __builtin_memset(dom, 0, sizeof(dom)); continue; }
    else if (name[i] == 0) break;
    dom[i] = name[i];
  }
  return dom[0] == 'x' ? XDP_DROP : XDP_PASS;
}`);
    const ins = insnsOf(s.insns);
    expect(ins.filter((i) => i.code === (O.BPF_STX | O.BPF_MEM | O.BPF_DW) && i.dst === 10).length).toBe(16);
    expect(ins.filter((i) => (i.code & 0x07) === O.BPF_ST && i.dst === 10 && i.imm === 0 && (i.code & 0x18) === O.BPF_B)).toEqual([]);
  });
  it('copy between stack objects as wide as both frame offsets allow, and no wider', () => {
    const s = ok(`${PRE}SEC("xdp") int p(struct xdp_md *ctx) {
  char a[16], b[16];
  __builtin_memset(a, ctx->rx_queue_index, sizeof(a));
  __builtin_memcpy(b, a, sizeof(b));
  __builtin_memcpy(b + 2, a + 4, 4);
  return b[2] == b[15] ? XDP_PASS : XDP_DROP;
}`);
    for (const i of insnsOf(s.insns)) {
      const cls = i.code & 0x07;
      const fp = (cls === O.BPF_STX || cls === O.BPF_ST) ? i.dst === 10 : cls === O.BPF_LDX && i.src === 10;
      if (!fp) continue;
      const size = [4, 2, 1, 8][(i.code >> 3) & 3]!;
      expect(Math.abs(i.off % size), `stack access of ${size} at ${i.off}`).toBe(0);
    }
    expect(insnsOf(s.insns).filter((i) => i.code === (O.BPF_LDX | O.BPF_MEM | O.BPF_DW) && i.src === 10).length).toBe(2);
    expect(runOnce(s)).toBe(2);
  });
});
