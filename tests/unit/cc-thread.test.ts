/**
 * Jump threading over values known through memory (src/cc/thread.ts): a
 * field of a map value stored on each arm of a branch and tested after the
 * join (pping's `p_info->pid.flow.ipv`) must reach the verifier threaded,
 * each arm's packet reads under the bounds check its own edge made; and the
 * forwarding must stay sound where another pointer, the stack through a
 * pointer, or a helper may have written the field in between (the VM's
 * result is what C says).
 */
import { describe, expect, it } from 'vitest';
import { compile, formatDiagnostic } from '../../src/cc';
import { parseSpec } from '../../src/isa/spec';
import { verify } from '../../src/verifier';
import { createVm, testRunFrame } from '../../src/vm';

const PRE = `#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>
struct info { __u64 t; __u16 proto; __u8 ipv; __u8 pad; __u32 addr[4]; };
struct { __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY); __uint(max_entries, 1); __type(key, __u32); __type(value, struct info); } infos SEC(".maps");
`;

function run(src: string, pkt: Uint8Array): number {
  const r = compile(PRE + src, { file: 't.c' });
  expect(r.diagnostics.filter((d) => d.severity === 'error').map((d) => formatDiagnostic(d, PRE + src))).toEqual([]);
  const parsed = parseSpec(JSON.parse(JSON.stringify(r.spec!)));
  if ('error' in parsed) throw new Error(parsed.error);
  const v = verify(parsed, { logLevel: 1 });
  expect(v.accepted, v.log.split('\n').slice(-4).join('\n')).toBe(true);
  const vm = createVm(parsed);
  if ('error' in vm) throw new Error(vm.error);
  const res = vm.runXdp(testRunFrame(pkt));
  expect(res.fault?.message).toBeUndefined();
  return res.retval;
}

/** Ethernet + IPv4 (20 bytes) or IPv6 (40 bytes) header, padded to at least 60 bytes for IPv4. */
function packet(v6: boolean): Uint8Array {
  const b = new Uint8Array(v6 ? 14 + 40 : 14 + 20);
  b[12] = v6 ? 0x86 : 0x08;
  b[13] = v6 ? 0xdd : 0x00;
  b[14] = v6 ? 0x60 : 0x45;
  if (v6) b[14 + 8 + 15] = 0x77; // last byte of the source address
  else b[14 + 12 + 3] = 0x44; // last byte of saddr
  return b;
}

// pping's shape: the family is stored into the map value on each arm, the header parsed with the arm's size,
// then the stored family re-tested after the join to pick which header to read.
const PPING_SHAPE = `
SEC("xdp") int prog(struct xdp_md *ctx) {
  void *data = (void *)(long)ctx->data, *data_end = (void *)(long)ctx->data_end;
  __u32 k = 0;
  struct info *p = bpf_map_lookup_elem(&infos, &k);
  if (!p) return XDP_ABORTED;
  struct ethhdr *eth = data;
  if ((void *)(eth + 1) > data_end) return XDP_DROP;
  void *l3 = eth + 1;
  int proto;
  if (eth->h_proto == bpf_htons(ETH_P_IP)) {
    p->ipv = 4;
    struct iphdr *ip = l3;
    if ((void *)(ip + 1) > data_end) return XDP_DROP;
    proto = ip->protocol;
  } else if (eth->h_proto == bpf_htons(ETH_P_IPV6)) {
    p->ipv = 6;
    struct ipv6hdr *ip6 = l3;
    if ((void *)(ip6 + 1) > data_end) return XDP_DROP;
    proto = ip6->nexthdr;
  } else return XDP_PASS;
  if (proto < 0) return XDP_ABORTED;
  p->proto = proto;
  if (p->ipv == 4) {
    struct iphdr *ip = l3;
    return ip->saddr >> 24;
  }
  struct ipv6hdr *ip6 = l3;
  return ip6->saddr.in6_u.u6_addr8[15];
}`;

describe('jump threading through memory', () => {
  it('threads the re-test of a stored field so each arm reads under its own bounds check', () => {
    expect(run(PPING_SHAPE, packet(false))).toBe(0x44);
    expect(run(PPING_SHAPE, packet(true))).toBe(0x77);
  });

  it('does not forward across a store through another pointer that may alias', () => {
    const src = `
SEC("xdp") int prog(struct xdp_md *ctx) {
  __u32 k = 0;
  struct info *p = bpf_map_lookup_elem(&infos, &k);
  struct info *q = bpf_map_lookup_elem(&infos, &k);
  if (!p || !q) return XDP_ABORTED;
  if (ctx->data_end - ctx->data > 40) p->ipv = 4; else p->ipv = 6;
  q->ipv = 9;
  if (p->ipv == 4) return 1;
  if (p->ipv == 6) return 2;
  return p->ipv;
}`;
    expect(run(src, packet(true))).toBe(9);
    expect(run(src, packet(false))).toBe(9);
  });

  it('does not forward a stack slot across a store through a pointer into the stack', () => {
    const src = `
SEC("xdp") int prog(struct xdp_md *ctx) {
  __u8 buf[8] = {};
  void *data = (void *)(long)ctx->data, *data_end = (void *)(long)ctx->data_end;
  if (data + 1 > data_end) return XDP_DROP;
  __u32 i = *(__u8 *)data & 1;   /* 0 for these packets, unknown to the compiler */
  volatile __u8 *bp = buf;
  if (ctx->data_end - ctx->data > 40) buf[0] = 4; else buf[0] = 6;
  bp[i] = 9;
  if (buf[0] == 4) return 1;
  if (buf[0] == 6) return 2;
  return buf[0];
}`;
    expect(run(src, packet(true))).toBe(9);
  });

  it('does not forward across a helper call that rewrites the value', () => {
    const src = `
SEC("xdp") int prog(struct xdp_md *ctx) {
  __u32 k = 0;
  struct info *p = bpf_map_lookup_elem(&infos, &k);
  if (!p) return XDP_ABORTED;
  struct info n = { .ipv = 9 };
  if (ctx->data_end - ctx->data > 40) p->ipv = 4; else p->ipv = 6;
  bpf_map_update_elem(&infos, &k, &n, BPF_ANY);
  if (p->ipv == 4) return 1;
  if (p->ipv == 6) return 2;
  return p->ipv;
}`;
    expect(run(src, packet(true))).toBe(9);
  });
});
