/**
 * The raw SYN-cookie helpers in the VM (src/vm/helpers_syncookie.ts): a
 * cookie made for a SYN checks for the ACK answering the SYN-ACK built from
 * it (same 4-tuple, seq = the SYN's + 1, ack_seq = cookie + 1) and not for a
 * changed tuple or ack; the MSS comes from the SYN's option, rounded down to
 * the family's table, 536 without one; a th_len that is not doff * 4 is -EINVAL.
 * The programs are written in C and compiled by XDP Lab.
 */
import { describe, expect, it } from 'vitest';
import { compile, formatDiagnostic } from '../../src/cc';
import { parseSpec } from '../../src/isa/spec';
import { createVm, testRunFrame } from '../../src/vm';

const SRC = `#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/ip.h>
#include <linux/tcp.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>
struct { __uint(type, BPF_MAP_TYPE_ARRAY); __uint(max_entries, 4); __type(key, __u32); __type(value, __s64); } out SEC(".maps");
SEC("xdp") int prog(struct xdp_md *ctx) {
  void *data = (void *)(long)ctx->data, *data_end = (void *)(long)ctx->data_end;
  struct iphdr *ip = data + sizeof(struct ethhdr);
  struct tcphdr *th = (void *)(ip + 1);
  if ((void *)(th + 1) + 4 > data_end) return XDP_DROP;
  __u32 k = 0;
  __s64 g = bpf_tcp_raw_gen_syncookie_ipv4(ip, th, th->doff * 4 == 24 ? 24 : 20);
  bpf_map_update_elem(&out, &k, &g, 0);
  __s64 bad = bpf_tcp_raw_gen_syncookie_ipv4(ip, th, 28);
  k = 1; bpf_map_update_elem(&out, &k, &bad, 0);
  /* The ACK answering our SYN-ACK: seq + 1, ack_seq = cookie + 1. */
  th->seq = bpf_htonl(bpf_ntohl(th->seq) + 1);
  th->ack_seq = bpf_htonl((__u32)g + 1);
  __s64 ok = bpf_tcp_raw_check_syncookie_ipv4(ip, th);
  k = 2; bpf_map_update_elem(&out, &k, &ok, 0);
  th->source ^= 1;
  __s64 other = bpf_tcp_raw_check_syncookie_ipv4(ip, th);
  k = 3; bpf_map_update_elem(&out, &k, &other, 0);
  return XDP_PASS;
}`;

/** Ethernet + IPv4 + a TCP SYN with (mss) or without an MSS option. */
function syn(mss?: number): Uint8Array {
  const b = new Uint8Array(14 + 20 + 24);
  b.set([0x08, 0x00], 12);
  b.set([0x45, 0, 0, 44, 0, 0, 0, 0, 64, 6, 0, 0, 10, 0, 0, 1, 10, 0, 0, 2], 14);
  const t = 34;
  b.set([0x30, 0x39, 0x00, 0x50, 0x12, 0x34, 0x56, 0x78, 0, 0, 0, 0, mss ? 0x60 : 0x50, 0x02, 0xff, 0xff], t);
  if (mss) b.set([2, 4, mss >> 8, mss & 0xff], t + 20);
  return b;
}

function results(pkt: Uint8Array): bigint[] {
  const r = compile(SRC, { file: 't.c' });
  expect(r.diagnostics.filter((d) => d.severity === 'error').map((d) => formatDiagnostic(d, SRC))).toEqual([]);
  const parsed = parseSpec(JSON.parse(JSON.stringify(r.spec!)));
  if ('error' in parsed) throw new Error(parsed.error);
  const vm = createVm(parsed);
  if ('error' in vm) throw new Error(vm.error);
  const res = vm.runXdp(testRunFrame(pkt));
  expect(res.fault?.message).toBeUndefined();
  const entries = vm.maps[0]!.dump().entries;
  return [0, 1, 2, 3].map((i) => {
    const e = entries.find((x) => x.key === i.toString(16).padStart(2, '0') + '000000');
    return e ? Buffer.from(e.value as string, 'hex').readBigInt64LE() : 0n;
  });
}

describe('bpf_tcp_raw_*_syncookie_ipv4', () => {
  it('makes a cookie that checks for the answering ACK only, with the table MSS', () => {
    const [g, bad, ok, other] = results(syn(1400));
    expect(g! >> 32n).toBe(1300n); // 1400 rounds down to 1300
    expect(bad).toBe(-22n);
    expect(ok).toBe(0n);
    expect(other).toBe(-13n);
  });
  it('takes 536 without an MSS option', () => {
    const [g, , ok] = results(syn());
    expect(g! >> 32n).toBe(536n);
    expect(ok).toBe(0n);
  });
});
