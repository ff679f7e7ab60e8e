/** Exercises 32–33: an LPM prefix filter and forwarding with bpf_fib_lookup (the kernel's routing table). */
import { parseMac } from '../../net';
import { ETH_IP, prog } from './c';
import { ip4, pkt, ttlDec, u32le } from './packets';
import type { ProgramExercise } from './types';

const TODO = '\t/* TODO */\n\treturn XDP_PASS;';

const LPM = `
struct prefix_key {
	__u32 prefixlen;
	__u8 addr[4];
};

/* value 1: drop; 0: allow (a more specific exception) */
struct {
	__uint(type, BPF_MAP_TYPE_LPM_TRIE);
	__type(key, struct prefix_key);
	__type(value, __u32);
	__uint(max_entries, 256);
	__uint(map_flags, BPF_F_NO_PREALLOC);
} prefixes SEC(".maps");
`;

const prefix = (p: string) => {
  const [a, len] = p.split('/') as [string, string];
  return Uint8Array.from([...u32le(Number(len)), ...ip4(a)]);
};

// struct bpf_fib_lookup, BPF_FIB_LKUP_RET_* and bpf_fib_lookup itself come from
// the real <linux/bpf.h> and <bpf/bpf_helper_defs.h>; AF_INET lives in a libc header.
const FIB = `
#ifndef AF_INET
#define AF_INET 2
#endif
`;

/** The frame as the forwarder leaves it: the route's MACs, TTL - 1 with the checksum. */
function forwarded(b: Uint8Array, smac: string, dmac: string): Uint8Array {
  const o = ttlDec(b);
  o.set(parseMac(dmac), 0);
  o.set(parseMac(smac), 6);
  return o;
}

const toRemote = pkt({ dst: '8.8.8.8', src: '10.0.0.2' });
const toLocal = pkt({ dst: '10.0.0.2', src: '10.0.1.9', ttl: 9 });

export const ROUTING: ProgramExercise[] = [
  {
    kind: 'program', id: 'lpm-filter', title: 'An LPM prefix filter', topic: 'maps',
    statement: 'User space fills the LPM trie `prefixes` with IPv4 prefixes and a verdict (1: drop, 0: allow, for a more specific exception). Look up each IPv4 source address as a full /32 key: the trie returns the longest prefix that contains it. Drop when the verdict is 1; pass otherwise.',
    starter: prog(`${ETH_IP}\n${TODO}`, LPM),
    solution: prog(`${ETH_IP}\n\tstruct prefix_key key = { .prefixlen = 32 };\n\n\t__builtin_memcpy(key.addr, &iph->saddr, 4);\n\t__u32 *verdict = bpf_map_lookup_elem(&prefixes, &key);\n\tif (verdict && *verdict == 1)\n\t\treturn XDP_DROP;\n\treturn XDP_PASS;`, LPM),
    hints: ['The key of a lookup is the whole address: prefixlen 32.', 'Copy the address bytes as they are in the packet (network order).'],
    setup: [
      { map: 'prefixes', key: prefix('192.0.2.0/24'), value: u32le(1) },
      { map: 'prefixes', key: prefix('198.51.100.128/25'), value: u32le(1) },
      { map: 'prefixes', key: prefix('198.51.100.130/32'), value: u32le(0) },
    ],
    tests: [
      { name: 'from 192.0.2.9 (in 192.0.2.0/24)', packet: pkt({ src: '192.0.2.9' }), action: 'XDP_DROP' },
      { name: 'from 198.51.100.200 (in 198.51.100.128/25)', packet: pkt({ src: '198.51.100.200' }), action: 'XDP_DROP' },
      { name: 'from 198.51.100.130 (allowed /32 inside the /25)', packet: pkt({ src: '198.51.100.130' }), action: 'XDP_PASS' },
      { name: 'from 198.51.100.5 (outside the /25)', packet: pkt({ src: '198.51.100.5' }), action: 'XDP_PASS' },
      { name: 'from 10.0.0.1', packet: pkt(), action: 'XDP_PASS' },
    ],
  },
  {
    kind: 'program', id: 'fib-forward', title: 'Forwarding with bpf_fib_lookup', topic: 'redirect',
    statement: 'Route IPv4 in XDP: ask the kernel\'s FIB with bpf_fib_lookup (family AF_INET, the addresses, tot_len, and ifindex = ctx->ingress_ifindex). On success, decrement the TTL (fixing the checksum), write the returned smac/dmac into the Ethernet header and bpf_redirect to the returned ifindex. Drop what the table blackholes, is unreachable or prohibits; pass everything else to the stack (e.g. no neighbour entry yet). The lab\'s table: 10.0.0.0/24 on ifindex 1, 10.0.1.0/24 on ifindex 2, a default route via 10.0.1.254, 192.0.2.0/24 blackholed.',
    starter: prog(`${ETH_IP}\n${TODO}`, FIB),
    solution: prog(`${ETH_IP}\n\tif (iph->ttl <= 1)\n\t\treturn XDP_PASS;\n\tstruct bpf_fib_lookup p = {};\n\n\tp.family = AF_INET;\n\tp.tos = iph->tos;\n\tp.l4_protocol = iph->protocol;\n\tp.tot_len = bpf_ntohs(iph->tot_len);\n\tp.ipv4_src = iph->saddr;\n\tp.ipv4_dst = iph->daddr;\n\tp.ifindex = ctx->ingress_ifindex;\n\tlong rc = bpf_fib_lookup(ctx, &p, sizeof(p), 0);\n\tif (rc == BPF_FIB_LKUP_RET_BLACKHOLE || rc == BPF_FIB_LKUP_RET_UNREACHABLE || rc == BPF_FIB_LKUP_RET_PROHIBIT)\n\t\treturn XDP_DROP;\n\tif (rc != BPF_FIB_LKUP_RET_SUCCESS)\n\t\treturn XDP_PASS;\n\t__u32 check = iph->check;\n\tcheck += bpf_htons(0x0100);\n\tiph->check = (__u16)(check + (check >= 0xFFFF));\n\tiph->ttl--;\n\t__builtin_memcpy(eth->h_dest, p.dmac, ETH_ALEN);\n\t__builtin_memcpy(eth->h_source, p.smac, ETH_ALEN);\n\treturn bpf_redirect(p.ifindex, 0);`, FIB),
    hints: ['Zero the parameters first (`struct bpf_fib_lookup p = {};`) and pass sizeof(p) as plen.', 'On success the helper fills in p.ifindex, p.smac and p.dmac.', 'tot_len is in host order for the lookup (bpf_ntohs).'],
    tests: [
      { name: 'to 8.8.8.8 (default route via 10.0.1.254)', packet: toRemote, action: 'XDP_REDIRECT', redirect: { ifindex: 2 }, out: forwarded(toRemote, '02:00:00:00:00:02', '02:00:00:00:fe:fe') },
      { name: 'to 10.0.0.2 (connected, neighbour known)', packet: toLocal, action: 'XDP_REDIRECT', redirect: { ifindex: 1 }, out: forwarded(toLocal, '02:00:00:00:00:01', '02:00:00:00:0a:02') },
      { name: 'to 192.0.2.7 (blackhole)', packet: pkt({ dst: '192.0.2.7' }), action: 'XDP_DROP' },
      { name: 'to 10.0.1.5 (no neighbour entry yet)', packet: pkt({ dst: '10.0.1.5' }), action: 'XDP_PASS' },
    ],
  },
];
