/**
 * Seeded generator of random C integer-expression programs for the
 * compiler's differential tests (see cc-expr-fuzz.test.ts). Expressions
 * avoid undefined behaviour: arithmetic is done in unsigned types, shifts
 * are by small constants, divisors are made odd.
 */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const TYPES = [
  { name: '__u8', size: 1, signed: false }, { name: '__u16', size: 2, signed: false }, { name: '__u32', size: 4, signed: false }, { name: '__u64', size: 8, signed: false },
  { name: '__s8', size: 1, signed: true }, { name: '__s16', size: 2, signed: true }, { name: '__s32', size: 4, signed: true }, { name: '__s64', size: 8, signed: true },
];
const UNSIGNED = ['__u8', '__u16', '__u32', '__u64', 'unsigned int', 'unsigned long'];

export function genProgram(seed: number): string {
  const r = rng(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
  const vars = TYPES.map((t, i) => ({ ...t, v: `v${i}`, off: i * 2 }));
  const leaf = (): string => {
    const x = r();
    if (x < 0.6) return pick(vars).v;
    if (x < 0.8) return String(Math.floor(r() * 300));
    return pick(['0xff', '0xffffffffu', '-1', '0x80000000u', '7', '1ull << 40', '-5']);
  };
  // Unsigned arithmetic only (no signed overflow); signedness enters through casts and comparisons.
  const expr = (d: number): string => {
    if (d <= 0) return leaf();
    const k = Math.floor(r() * 9);
    const a = expr(d - 1), b = expr(d - 1);
    const u = pick(UNSIGNED);
    switch (k) {
      case 0: {
        // u8/u16 operands promote to int, where * can overflow (undefined): multiply in 32/64 bits.
        const op = pick(['+', '-', '*', '&', '|', '^']);
        const t = op === '*' ? pick(['__u32', '__u64', 'unsigned int', 'unsigned long']) : u;
        return `((${t})(${a}) ${op} (${t})(${b}))`;
      }
      case 1: return `((${u})(${a}) ${pick(['<<', '>>'])} ${Math.floor(r() * 8)})`;
      case 2: return `((${pick(TYPES).name})(${a}) >> ${Math.floor(r() * 7)})`;
      case 3: return `((${a}) ${pick(['<', '>', '<=', '>=', '==', '!='])} (${b}))`;
      case 4: return `((${a}) ? (${pick(TYPES).name})(${b}) : (${pick(TYPES).name})(${expr(d - 1)}))`;
      case 5: return `((${pick(TYPES).name})(${a}))`;
      case 6: return `(!(${a}) || ((${b}) && 1))`;
      case 7: return `((${u})(${a}) / ((${u})(${b}) | 1))`;
      default: return `(~(${u})(${a}))`;
    }
  };
  const lines: string[] = [];
  vars.forEach((v) => lines.push(`\t${v.name} ${v.v} = *(${v.name} *)(p + ${v.off});`));
  const n = 8;
  for (let i = 0; i < n; i++) {
    if (r() < 0.3) {
      const t = pick(vars);
      // No signed overflow: signed variables only get bitwise updates; * only in 32/64-bit unsigned.
      const ops = t.signed ? ['&=', '|=', '^='] : t.size >= 4 ? ['+=', '-=', '*=', '&=', '|=', '^='] : ['+=', '-=', '&=', '|=', '^='];
      lines.push(`\t${t.v} ${pick(ops)} (${t.name})(${expr(2)});`);
    }
    lines.push(`\tput(${i}, (__u64)(${expr(3)}));`);
  }
  return `#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, __u64);
	__uint(max_entries, ${n});
} out SEC(".maps");

static __always_inline void put(__u32 k, __u64 v)
{
	__u64 *slot = bpf_map_lookup_elem(&out, &k);
	if (slot)
		*slot = v;
}

SEC("xdp")
int xdp_expr(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;
	__u8 *p = data;

	if ((void *)(p + 24) > data_end)
		return XDP_PASS;
${lines.join('\n')}
	return XDP_PASS;
}
char _license[] SEC("license") = "GPL";
`;
}

