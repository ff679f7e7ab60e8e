/**
 * The IPv6 extension-header walk of xdp-tutorial's parsing_helpers.h (a
 * bounded loop over a switch on the next-header type, the cursor advanced by
 * `(hdrlen + 1) * 8`): the verifier's work on our build stays near clang's,
 * and the program still computes what it did. Also what the two code-shape
 * rules behind it must keep: a switch lowered as a chain in source order
 * keeps C's semantics (fall-through, several values an arm, a default
 * anywhere), and a constant peeled off a pointer's index never changes the
 * address nor what the verifier accepts (not off an index that may be
 * negative, nor where a 32-bit product would wrap).
 */
import { describe, expect, it } from 'vitest';
import { compile, formatDiagnostic } from '../../src/cc';
import { parseSpec } from '../../src/isa/spec';
import { verify } from '../../src/verifier';
import { runOnce } from './cc-helpers';

type Spec = NonNullable<ReturnType<typeof compile>['spec']>;

function ok(src: string): Spec {
  const r = compile(src, { file: 't.c' });
  expect(r.diagnostics.filter((d) => d.severity === 'error').map((d) => formatDiagnostic(d, src))).toEqual([]);
  return r.spec!;
}

/** Written for this test: Ethernet, IPv6, then up to 6 extension headers the way parsing_helpers.h walks them. */
const WALK = `#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct eth { unsigned char dst[6], src[6]; unsigned short proto; };
struct ip6 { unsigned char vtc[4]; unsigned short plen; unsigned char next, hops; unsigned char saddr[16], daddr[16]; };
struct ext { unsigned char next; unsigned char len; };
struct cur { void *pos; };

static __always_inline int skip_ext(struct cur *c, void *end, unsigned char t)
{
	for (int i = 0; i < 6; ++i) {
		struct ext *h = c->pos;
		if ((void *)(h + 1) > end)
			return -1;
		switch (t) {
		case 0: case 60: case 43: case 135:
			c->pos = (char *)h + (h->len + 1) * 8;
			t = h->next;
			break;
		case 51:
			c->pos = (char *)h + (h->len + 2) * 4;
			t = h->next;
			break;
		case 44:
			c->pos = (char *)h + 8;
			t = h->next;
			break;
		default:
			return t;
		}
	}
	return -1;
}

SEC("xdp")
int walk(struct xdp_md *ctx)
{
	void *end = (void *)(long)ctx->data_end;
	struct cur c = { .pos = (void *)(long)ctx->data };
	struct eth *eth = c.pos;
	if ((void *)(eth + 1) > end || eth->proto != __builtin_bswap16(0x86DD))
		return XDP_PASS;
	c.pos = eth + 1;
	struct ip6 *ip = c.pos;
	if ((void *)(ip + 1) > end)
		return XDP_PASS;
	c.pos = ip + 1;
	if (skip_ext(&c, end, ip->next) != 17)
		return XDP_PASS;
	unsigned char *udp = c.pos;
	if ((void *)(udp + 8) > end)
		return XDP_ABORTED;
	return udp[0] == 0xAB ? XDP_TX : XDP_DROP;
}
char _license[] SEC("license") = "GPL";
`;

/** An extension header of `size` bytes (a multiple of 4, at least 8) naming `next`, its length field `len`; the rest 0x11. */
function ext(next: number, len: number, size: number): number[] {
  return [next, len, ...new Array<number>(size - 2).fill(0x11)];
}
/** Ethernet (IPv6) + an IPv6 header naming `first` + the given bytes. */
function ip6Packet(first: number, rest: number[]): Uint8Array {
  const eth = [...new Array<number>(12).fill(0x22), 0x86, 0xdd];
  const ip = [0x60, 0, 0, 0, 0, rest.length, first, 64, ...new Array<number>(32).fill(0x33)];
  return new Uint8Array([...eth, ...ip, ...rest]);
}

describe('the IPv6 extension-header loop', () => {
  const spec = ok(WALK);

  it("costs the verifier no more than 1.5x what clang-19's build does", () => {
    // clang-19 -O2 -g -target bpf of WALK, loaded with `bpftool -d prog load t.o /sys/fs/bpf/x type xdp`
    // on the oracle's kernel (6.18): "processed 2326 insns" (our verifier on clang's object: 2326 too).
    // Before the switch chain and the peeled index constant our build cost 5631 (the kernel agreed);
    // with them, 1839 (the kernel agrees).
    const CLANG = 2326;
    const p = parseSpec(JSON.parse(JSON.stringify(spec)));
    if ('error' in p) throw new Error(p.error);
    const r = verify(p, { logLevel: 0 });
    expect(r.error).toBeUndefined();
    expect(r.accepted).toBe(true);
    expect(r.insnsProcessed).toBeLessThanOrEqual(Math.floor(CLANG * 1.5));
  });

  it('finds the UDP header behind hop-by-hop, routing, AH and fragment headers', () => {
    // hop-by-hop len 1 → 16 bytes, routing len 0 → 8, AH len 1 → (1 + 2) * 4 = 12, fragment → 8.
    const chain = [...ext(43, 1, 16), ...ext(51, 0, 8), ...ext(44, 1, 12), ...ext(17, 0, 8)];
    expect(runOnce(spec, ip6Packet(0, [...chain, 0xab, 1, 2, 3, 4, 5, 6, 7]))).toBe(3); // XDP_TX
    expect(runOnce(spec, ip6Packet(0, [...chain, 0xac, 1, 2, 3, 4, 5, 6, 7]))).toBe(1); // XDP_DROP
    expect(runOnce(spec, ip6Packet(0, [...chain, 0xab, 1, 2, 3]))).toBe(0); // XDP_ABORTED: UDP cut short
    // A routing header's length counts 8-byte units: len 2 → 24 bytes (an AH's 4-byte units would land elsewhere).
    expect(runOnce(spec, ip6Packet(43, [...ext(17, 2, 24), 0xab, 0, 0, 0, 0, 0, 0, 0]))).toBe(3);
    expect(runOnce(spec, ip6Packet(51, [...ext(17, 4, 24), 0xab, 0, 0, 0, 0, 0, 0, 0]))).toBe(3);
  });

  it('passes what is not UDP, and a chain longer than 6 headers', () => {
    expect(runOnce(spec, ip6Packet(0, [...ext(6, 0, 8), ...new Array<number>(20).fill(0xab)]))).toBe(2);
    const seven = Array.from({ length: 7 }, (_, i) => ext(i < 6 ? 60 : 17, 0, 8)).flat();
    expect(runOnce(spec, ip6Packet(60, [...seven, ...new Array<number>(8).fill(0xab)]))).toBe(2);
    // Six headers end the walk whatever the sixth names (parsing_helpers.h returns -1); five do not.
    const six = Array.from({ length: 6 }, (_, i) => ext(i < 5 ? 60 : 17, 0, 8)).flat();
    expect(runOnce(spec, ip6Packet(60, [...six, ...new Array<number>(8).fill(0xab)]))).toBe(2);
    const five = Array.from({ length: 5 }, (_, i) => ext(i < 4 ? 60 : 17, 0, 8)).flat();
    expect(runOnce(spec, ip6Packet(60, [...five, ...new Array<number>(8).fill(0xab)]))).toBe(3);
  });
});

describe('a switch on a local, lowered as a chain in source order', () => {
  const src = `#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
SEC("xdp")
int f(struct xdp_md *ctx)
{
	unsigned char *p = (void *)(long)ctx->data;
	if ((void *)(p + 1) > (void *)(long)ctx->data_end)
		return 0;
	int x = p[0], y = 100;
	switch (x) {
	case 1: y += 3; break;
	default: y = 50;
	case 2: case 3: y += 7;
	case 4: y *= 2; break;
	case 9: return 9;
	case 200: case 201:
	}
	return y;
}
char _license[] SEC("license") = "GPL";
`;
  const spec = ok(src);
  const expected = (x: number): number => {
    let y = 100;
    if (x === 1) return y + 3;
    if (x === 9) return 9;
    if (x === 200 || x === 201) return y;
    if (x !== 2 && x !== 3 && x !== 4) y = 50;
    if (x !== 4) y += 7;
    return y * 2;
  };

  it('keeps fall-through, several values an arm and a default in the middle', () => {
    for (const x of [0, 1, 2, 3, 4, 5, 9, 200, 201, 255]) {
      const pkt = new Uint8Array(64);
      pkt[0] = x;
      expect(runOnce(spec, pkt), `x = ${x}`).toBe(expected(x));
    }
  });
});

describe('a constant peeled off a pointer index', () => {
  it('addresses the same byte: p + (x + 3) * 4 - 1 is p + x * 4, then +11', () => {
    const spec = ok(`#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
SEC("xdp")
int f(struct xdp_md *ctx)
{
	unsigned char *p = (void *)(long)ctx->data;
	return *(p + ((p[0] + 3) * 4 - 1));
}
`);
    const pkt = new Uint8Array(64).map((_, i) => i);
    pkt[0] = 10; // (10 + 3) * 4 - 1 = 51
    expect(runOnce(spec, pkt)).toBe(51);
  });

  it('stays in an index that may be negative: the verifier refuses a packet pointer whose variable part may be negative', () => {
    // (signed char)p[1] is -128..127; + 128 makes the index 0..255. Peeled, the pointer's variable part
    // would be -128..127, which the verifier refuses ("value -2147483648 makes pkt pointer be out of bounds").
    const src = `#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
SEC("xdp")
int f(struct xdp_md *ctx)
{
	unsigned char *p = (void *)(long)ctx->data, *end = (void *)(long)ctx->data_end;
	if (p + 2 > end)
		return XDP_PASS;
	unsigned char *q = p + ((signed char)p[1] + 128);
	if (q + 1 > end)
		return XDP_PASS;
	return *q;
}
char _license[] SEC("license") = "GPL";
`;
    const spec = ok(src);
    const parsed = parseSpec(JSON.parse(JSON.stringify(spec)));
    if ('error' in parsed) throw new Error(parsed.error);
    const r = verify(parsed, { logLevel: 0 });
    expect(r.error).toBeUndefined();
    expect(r.accepted).toBe(true);
    const pkt = new Uint8Array(300).map((_, i) => i & 0xff);
    pkt[1] = 0xfe; // -2 + 128 = 126
    expect(runOnce(spec, pkt)).toBe(126);
  });

  it('is not peeled where the product alone would wrap in 32 bits', () => {
    // x = 0x40000000: (x - 1) * 2 = 0x7ffffffe fits an int, x * 2 does not (it would sign-extend to -2^31).
    const spec = ok(`#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
SEC("xdp")
int f(struct xdp_md *ctx)
{
	unsigned char *p = (void *)(long)ctx->data;
	return *(p + (((int)*(unsigned int *)p - 1) * 2 - 2147483600));
}
`);
    const pkt = new Uint8Array(64).map((_, i) => i);
    pkt.set([0, 0, 0, 0x40], 0); // little-endian 0x40000000
    expect(runOnce(spec, pkt)).toBe(46);
  });
});
