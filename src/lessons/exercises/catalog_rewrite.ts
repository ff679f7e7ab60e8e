/** Exercises 13–24: rewriting frames and keeping state in maps. */
import { ETH, ETH_IP, prog, VLAN_HDR } from './c';
import { ip4, macSwap, pkt, tcpFlags, ttlDec, u32le, u64le, udpDport, vlanPop, vlanPush } from './packets';
import type { ProgramExercise } from './types';

const TODO = '\t/* TODO */\n\treturn XDP_PASS;';

const CSUM_REPLACE = `
/* One's-complement update of a checksum when one 16-bit word changes (RFC 1624). */
static __always_inline __u16 csum_replace2(__u16 check, __u16 old, __u16 new)
{
	__u32 c = (__u16)~check + (__u16)~old + new;

	c = (c & 0xffff) + (c >> 16);
	c = (c & 0xffff) + (c >> 16);
	return ~c;
}
`;

const ttl1 = pkt({ ttl: 1 });

export const REWRITE: ProgramExercise[] = [
  {
    kind: 'program', id: 'mac-swap', title: 'XDP_TX: swap MACs and bounce', topic: 'rewriting',
    statement: 'Swap the source and destination MAC addresses of every Ethernet frame and return XDP_TX: the driver sends the frame back out of the port it came in on, from the same page, without a copy.',
    starter: prog(`${ETH}\n${TODO}`),
    solution: prog(`${ETH}\n\tunsigned char tmp[ETH_ALEN];\n\n\t__builtin_memcpy(tmp, eth->h_dest, ETH_ALEN);\n\t__builtin_memcpy(eth->h_dest, eth->h_source, ETH_ALEN);\n\t__builtin_memcpy(eth->h_source, tmp, ETH_ALEN);\n\treturn XDP_TX;`),
    hints: ['Keep a copy of h_dest in a 6-byte array on the stack.', '__builtin_memcpy with a constant length compiles to plain loads and stores.'],
    tests: [
      { name: 'IPv4 UDP', packet: pkt({ srcMac: '02:00:00:00:00:aa', dstMac: '02:00:00:00:00:bb' }), action: 'XDP_TX', out: macSwap(pkt({ srcMac: '02:00:00:00:00:aa', dstMac: '02:00:00:00:00:bb' })) },
      { name: 'ARP', packet: pkt({ l3: 'arp', srcMac: '0a:0b:0c:0d:0e:0f' }), action: 'XDP_TX', out: macSwap(pkt({ l3: 'arp', srcMac: '0a:0b:0c:0d:0e:0f' })) },
    ],
  },
  {
    kind: 'program', id: 'ttl-csum', title: 'Decrement the TTL, update the checksum', topic: 'rewriting',
    statement: 'For IPv4 frames: drop the frame when its TTL is 1 or less; otherwise decrement the TTL, update the IPv4 header checksum incrementally (no full recomputation) and pass it. Pass non-IPv4 frames unchanged.',
    starter: prog(`${ETH_IP}\n${TODO}`),
    solution: prog(`${ETH_IP}\n\tif (iph->ttl <= 1)\n\t\treturn XDP_DROP;\n\t/* ttl is the high byte of its 16-bit word: the word drops by 0x0100, so the checksum rises by it. */\n\t__u32 check = iph->check;\n\tcheck += bpf_htons(0x0100);\n\tiph->check = (__u16)(check + (check >= 0xFFFF));\n\tiph->ttl--;\n\treturn XDP_PASS;`),
    hints: ['The checksum is the one\'s complement of a one\'s-complement sum: when a word goes down by x, the checksum goes up by x (with the carry folded back).', 'ttl shares a 16-bit word with protocol, as its high byte: the word changes by 0x0100, in network order bpf_htons(0x0100).'],
    tests: [
      { name: 'UDP ttl 64', packet: pkt({ ttl: 64 }), action: 'XDP_PASS', out: ttlDec(pkt({ ttl: 64 })) },
      { name: 'TCP ttl 2', packet: pkt({ ttl: 2, l4: 'tcp', src: '192.168.255.254', dst: '10.255.255.1' }), action: 'XDP_PASS', out: ttlDec(pkt({ ttl: 2, l4: 'tcp', src: '192.168.255.254', dst: '10.255.255.1' })) },
      { name: 'UDP ttl 1', packet: ttl1, action: 'XDP_DROP' },
      { name: 'ICMP ttl 255', packet: pkt({ l4: 'icmp', ttl: 255 }), action: 'XDP_PASS', out: ttlDec(pkt({ l4: 'icmp', ttl: 255 })) },
      { name: 'IPv6', packet: pkt({ l3: 'ipv6' }), action: 'XDP_PASS', out: pkt({ l3: 'ipv6' }) },
    ],
  },
  {
    kind: 'program', id: 'vlan-pop', title: 'Pop a VLAN tag', topic: 'rewriting',
    statement: 'Remove the 802.1Q tag from tagged frames and pass them: move the two MAC addresses 4 bytes forward, then give the 4 bytes back with bpf_xdp_adjust_head(ctx, 4). Untagged frames pass unchanged. Remember that after bpf_xdp_adjust_head every packet pointer must be read again from ctx.',
    starter: prog(`${ETH}\n${TODO}`, VLAN_HDR),
    solution: prog(`${ETH}\n\tif (eth->h_proto != bpf_htons(ETH_P_8021Q))\n\t\treturn XDP_PASS;\n\tstruct vlan_hdr *vh = (void *)(eth + 1);\n\tif ((void *)(vh + 1) > data_end)\n\t\treturn XDP_DROP;\n\t__be16 inner = vh->h_vlan_encapsulated_proto;\n\tunsigned char macs[12];\n\n\t__builtin_memcpy(macs, eth, 12);\n\tif (bpf_xdp_adjust_head(ctx, 4))\n\t\treturn XDP_DROP;\n\tdata = (void *)(long)ctx->data;\n\tdata_end = (void *)(long)ctx->data_end;\n\teth = data;\n\tif ((void *)(eth + 1) > data_end)\n\t\treturn XDP_DROP;\n\t__builtin_memcpy(eth, macs, 12);\n\teth->h_proto = inner;\n\treturn XDP_PASS;`, VLAN_HDR),
    hints: ['Save the MACs and the encapsulated protocol before moving the head.', 'After bpf_xdp_adjust_head, read ctx->data and ctx->data_end again and re-check the bounds.'],
    tests: [
      { name: 'VLAN 5 IPv4', packet: pkt({ vlans: [5] }), action: 'XDP_PASS', out: vlanPop(pkt({ vlans: [5] })) },
      { name: 'VLAN 4000 IPv6', packet: pkt({ vlans: [4000], l3: 'ipv6' }), action: 'XDP_PASS', out: vlanPop(pkt({ vlans: [4000], l3: 'ipv6' })) },
      { name: 'untagged', packet: pkt(), action: 'XDP_PASS', out: pkt() },
    ],
  },
  {
    kind: 'program', id: 'vlan-push', title: 'Push a VLAN tag', topic: 'rewriting',
    statement: 'Tag every untagged frame with VLAN 42 and pass it: grow the head by 4 bytes with bpf_xdp_adjust_head(ctx, -4), move the MAC addresses to the new start, and write the tag (TPID 0x8100, TCI 42) with the original EtherType after it. Frames already tagged pass unchanged.',
    starter: prog(`${ETH}\n${TODO}`, VLAN_HDR),
    solution: prog(`${ETH}\n\tif (eth->h_proto == bpf_htons(ETH_P_8021Q))\n\t\treturn XDP_PASS;\n\tstruct ethhdr copy;\n\n\t__builtin_memcpy(&copy, eth, sizeof(copy));\n\tif (bpf_xdp_adjust_head(ctx, -4))\n\t\treturn XDP_DROP;\n\tdata = (void *)(long)ctx->data;\n\tdata_end = (void *)(long)ctx->data_end;\n\teth = data;\n\tstruct vlan_hdr *vh = (void *)(eth + 1);\n\tif ((void *)(vh + 1) > data_end)\n\t\treturn XDP_DROP;\n\t__builtin_memcpy(eth->h_dest, copy.h_dest, ETH_ALEN);\n\t__builtin_memcpy(eth->h_source, copy.h_source, ETH_ALEN);\n\teth->h_proto = bpf_htons(ETH_P_8021Q);\n\tvh->h_vlan_TCI = bpf_htons(42);\n\tvh->h_vlan_encapsulated_proto = copy.h_proto;\n\treturn XDP_PASS;`, VLAN_HDR),
    hints: ['Copy the Ethernet header to the stack first.', 'A negative delta to bpf_xdp_adjust_head makes room in front of the frame.'],
    tests: [
      { name: 'IPv4 UDP', packet: pkt(), action: 'XDP_PASS', out: vlanPush(pkt(), 42) },
      { name: 'ARP', packet: pkt({ l3: 'arp' }), action: 'XDP_PASS', out: vlanPush(pkt({ l3: 'arp' }), 42) },
      { name: 'already tagged (VLAN 7)', packet: pkt({ vlans: [7] }), action: 'XDP_PASS', out: pkt({ vlans: [7] }) },
    ],
  },
  {
    kind: 'program', id: 'port-rewrite', title: 'Rewrite a UDP port', topic: 'rewriting',
    statement: 'Redirect a service: rewrite the destination port of IPv4 UDP datagrams to 8080 into 80, update the UDP checksum incrementally, and pass them. Other datagrams pass unchanged.',
    starter: prog(`${ETH_IP}\n${TODO}`, CSUM_REPLACE),
    solution: prog(`${ETH_IP}\n\tif (iph->protocol != IPPROTO_UDP)\n\t\treturn XDP_PASS;\n\tstruct udphdr *udp = (void *)iph + iph->ihl * 4;\n\tif ((void *)(udp + 1) > data_end)\n\t\treturn XDP_DROP;\n\tif (udp->dest != bpf_htons(8080))\n\t\treturn XDP_PASS;\n\tudp->check = csum_replace2(udp->check, udp->dest, bpf_htons(80));\n\tudp->dest = bpf_htons(80);\n\treturn XDP_PASS;`, CSUM_REPLACE),
    hints: ['csum_replace2(check, old, new) is given: call it with the old and new port, both in network order.', 'Update the checksum before you overwrite the port (you need the old value).'],
    tests: [
      { name: 'UDP to 8080', packet: pkt({ dport: 8080, sport: 40000 }), action: 'XDP_PASS', out: udpDport(pkt({ dport: 8080, sport: 40000 }), 80) },
      { name: 'UDP to 8080 from 10.9.8.7', packet: pkt({ dport: 8080, src: '10.9.8.7', frameLen: 200 }), action: 'XDP_PASS', out: udpDport(pkt({ dport: 8080, src: '10.9.8.7', frameLen: 200 }), 80) },
      { name: 'UDP to 8081', packet: pkt({ dport: 8081 }), action: 'XDP_PASS', out: pkt({ dport: 8081 }) },
    ],
  },
  {
    kind: 'program', id: 'tail-trim', title: 'Trim the tail', topic: 'rewriting',
    statement: 'Keep only the first 128 bytes of frames longer than that (a sampler that needs only the headers): shrink the frame with bpf_xdp_adjust_tail(ctx, 128 - length) and pass it. Shorter frames pass unchanged.',
    starter: prog(`\tvoid *data_end = (void *)(long)ctx->data_end;\n\tvoid *data = (void *)(long)ctx->data;\n\n${TODO}`),
    solution: prog(`\tvoid *data_end = (void *)(long)ctx->data_end;\n\tvoid *data = (void *)(long)ctx->data;\n\tint len = data_end - data;\n\n\tif (len > 128 && bpf_xdp_adjust_tail(ctx, 128 - len))\n\t\treturn XDP_DROP;\n\treturn XDP_PASS;`),
    hints: ['A negative delta to bpf_xdp_adjust_tail removes bytes from the end.', 'The delta is 128 - (data_end - data).'],
    tests: [
      { name: '1000-byte frame', packet: pkt({ frameLen: 1000 }), action: 'XDP_PASS', out: pkt({ frameLen: 1000 }).slice(0, 128) },
      { name: '129-byte frame', packet: pkt({ frameLen: 129 }), action: 'XDP_PASS', out: pkt({ frameLen: 129 }).slice(0, 128) },
      { name: '128-byte frame', packet: pkt({ frameLen: 128 }), action: 'XDP_PASS', out: pkt({ frameLen: 128 }) },
      { name: '60-byte frame', packet: pkt(), action: 'XDP_PASS', out: pkt() },
    ],
  },
  {
    kind: 'program', id: 'percpu-count', title: 'Per-CPU counters by protocol', topic: 'maps',
    statement: 'Count IPv4 packets per IP protocol in the per-CPU array `proto_count` (key: the protocol number, value: a __u64 count) and pass every packet. Per-CPU slots need no atomic operation: each CPU only ever touches its own.',
    starter: prog(`${ETH_IP}\n${TODO}`, `\nstruct {\n\t__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);\n\t__type(key, __u32);\n\t__type(value, __u64);\n\t__uint(max_entries, 256);\n} proto_count SEC(".maps");\n`),
    solution: prog(`${ETH_IP}\n\t__u32 key = iph->protocol;\n\t__u64 *count = bpf_map_lookup_elem(&proto_count, &key);\n\n\tif (count)\n\t\t*count += 1;\n\treturn XDP_PASS;`, `\nstruct {\n\t__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);\n\t__type(key, __u32);\n\t__type(value, __u64);\n\t__uint(max_entries, 256);\n} proto_count SEC(".maps");\n`),
    hints: ['bpf_map_lookup_elem(&proto_count, &key) returns a pointer to this CPU\'s slot, or NULL.', 'The key must live on the stack: `__u32 key = iph->protocol;`'],
    tests: [
      { name: 'UDP', packet: pkt(), action: 'XDP_PASS' },
      { name: 'UDP', packet: pkt({ sport: 7 }), action: 'XDP_PASS' },
      { name: 'TCP', packet: pkt({ l4: 'tcp' }), action: 'XDP_PASS' },
      { name: 'ICMP', packet: pkt({ l4: 'icmp' }), action: 'XDP_PASS' },
      { name: 'UDP', packet: pkt({ dport: 53 }), action: 'XDP_PASS' },
    ],
    mapChecks: [
      { name: 'UDP count (protocol 17)', map: 'proto_count', key: u32le(17), value: u64le(3) },
      { name: 'TCP count (protocol 6)', map: 'proto_count', key: u32le(6), value: u64le(1) },
      { name: 'ICMP count (protocol 1)', map: 'proto_count', key: u32le(1), value: u64le(1) },
    ],
  },
  {
    kind: 'program', id: 'hash-blocklist', title: 'A hash map blocklist', topic: 'maps',
    statement: 'User space fills the hash map `blocklist` (key: an IPv4 source address as it sits in the packet, __be32; value: a __u64 hit count). Drop IPv4 packets whose source is in it, adding 1 to its count, and pass the rest.',
    starter: prog(`${ETH_IP}\n${TODO}`, `\nstruct {\n\t__uint(type, BPF_MAP_TYPE_HASH);\n\t__type(key, __be32);\n\t__type(value, __u64);\n\t__uint(max_entries, 1024);\n} blocklist SEC(".maps");\n`),
    solution: prog(`${ETH_IP}\n\t__be32 src = iph->saddr;\n\t__u64 *hits = bpf_map_lookup_elem(&blocklist, &src);\n\n\tif (!hits)\n\t\treturn XDP_PASS;\n\t__sync_fetch_and_add(hits, 1);\n\treturn XDP_DROP;`, `\nstruct {\n\t__uint(type, BPF_MAP_TYPE_HASH);\n\t__type(key, __be32);\n\t__type(value, __u64);\n\t__uint(max_entries, 1024);\n} blocklist SEC(".maps");\n`),
    hints: ['Look up iph->saddr as it is (network order): user space stored it that way.', 'Hash map values are shared by all CPUs: use __sync_fetch_and_add for the count.'],
    setup: [{ map: 'blocklist', key: ip4('192.0.2.66'), value: u64le(0) }, { map: 'blocklist', key: ip4('198.51.100.7'), value: u64le(10) }],
    tests: [
      { name: 'from 192.0.2.66 (blocked)', packet: pkt({ src: '192.0.2.66' }), action: 'XDP_DROP' },
      { name: 'from 10.0.0.1', packet: pkt(), action: 'XDP_PASS' },
      { name: 'from 198.51.100.7 (blocked)', packet: pkt({ src: '198.51.100.7', l4: 'tcp' }), action: 'XDP_DROP' },
      { name: 'from 192.0.2.66 (blocked) again', packet: pkt({ src: '192.0.2.66', dport: 80 }), action: 'XDP_DROP' },
      { name: 'from 66.2.0.192 (byte order check)', packet: pkt({ src: '66.2.0.192' }), action: 'XDP_PASS' },
    ],
    mapChecks: [
      { name: 'hits of 192.0.2.66', map: 'blocklist', key: ip4('192.0.2.66'), value: u64le(2) },
      { name: 'hits of 198.51.100.7', map: 'blocklist', key: ip4('198.51.100.7'), value: u64le(11) },
    ],
  },
  {
    kind: 'program', id: 'lru-conntrack', title: 'LRU connection tracking', topic: 'maps',
    statement: 'A minimal stateful firewall for TCP: a SYN (without ACK) opens a flow: record it in the LRU hash `flows` (key: struct flow {saddr, daddr, sport, dport} as in the packet; value: a __u64 packet count, 1 for the SYN) and pass it. Pass later segments of a recorded flow, adding 1 to its count; drop TCP segments of flows never opened. Non-TCP traffic passes.',
    starter: prog(`${ETH_IP}\n${TODO}`, `\nstruct flow {\n\t__be32 saddr;\n\t__be32 daddr;\n\t__be16 sport;\n\t__be16 dport;\n};\n\nstruct {\n\t__uint(type, BPF_MAP_TYPE_LRU_HASH);\n\t__type(key, struct flow);\n\t__type(value, __u64);\n\t__uint(max_entries, 4096);\n} flows SEC(".maps");\n`),
    solution: prog(`${ETH_IP}\n\tif (iph->protocol != IPPROTO_TCP)\n\t\treturn XDP_PASS;\n\tstruct tcphdr *tcp = (void *)iph + iph->ihl * 4;\n\tif ((void *)(tcp + 1) > data_end)\n\t\treturn XDP_DROP;\n\tstruct flow f = {};\n\n\tf.saddr = iph->saddr;\n\tf.daddr = iph->daddr;\n\tf.sport = tcp->source;\n\tf.dport = tcp->dest;\n\t__u64 *n = bpf_map_lookup_elem(&flows, &f);\n\tif (n) {\n\t\t__sync_fetch_and_add(n, 1);\n\t\treturn XDP_PASS;\n\t}\n\tif (tcp->syn && !tcp->ack) {\n\t\t__u64 one = 1;\n\n\t\tbpf_map_update_elem(&flows, &f, &one, BPF_NOEXIST);\n\t\treturn XDP_PASS;\n\t}\n\treturn XDP_DROP;`, `\nstruct flow {\n\t__be32 saddr;\n\t__be32 daddr;\n\t__be16 sport;\n\t__be16 dport;\n};\n\nstruct {\n\t__uint(type, BPF_MAP_TYPE_LRU_HASH);\n\t__type(key, struct flow);\n\t__type(value, __u64);\n\t__uint(max_entries, 4096);\n} flows SEC(".maps");\n`),
    hints: ['Zero the key first (`struct flow f = {};`): padding bytes are part of a hash key.', 'bpf_map_update_elem(&flows, &f, &one, BPF_NOEXIST) records a new flow.'],
    tests: [
      { name: 'ACK of an unknown flow 10.0.0.1:1000 → :80', packet: pkt({ l4: 'tcp', sport: 1000, dport: 80, tcpFlags: tcpFlags.ACK }), action: 'XDP_DROP' },
      { name: 'SYN 10.0.0.1:1000 → :80', packet: pkt({ l4: 'tcp', sport: 1000, dport: 80, tcpFlags: tcpFlags.SYN }), action: 'XDP_PASS' },
      { name: 'ACK 10.0.0.1:1000 → :80', packet: pkt({ l4: 'tcp', sport: 1000, dport: 80, tcpFlags: tcpFlags.ACK }), action: 'XDP_PASS' },
      { name: 'ACK 10.0.0.1:1001 → :80 (another flow)', packet: pkt({ l4: 'tcp', sport: 1001, dport: 80, tcpFlags: tcpFlags.ACK }), action: 'XDP_DROP' },
      { name: 'UDP', packet: pkt(), action: 'XDP_PASS' },
    ],
    mapChecks: [{ name: 'packets of flow 10.0.0.1:1000 → 10.0.0.2:80', map: 'flows', key: Uint8Array.from([...ip4('10.0.0.1'), ...ip4('10.0.0.2'), 0x03, 0xe8, 0x00, 0x50]), value: u64le(2) }],
  },
  {
    kind: 'program', id: 'byte-count', title: 'Bytes per source', topic: 'maps',
    statement: 'Count bytes (the whole frame, data_end - data) per IPv4 source address in the hash map `bytes` (key __be32 as in the packet, value __u64), creating an entry on a source\'s first packet. Pass everything.',
    starter: prog(`${ETH_IP}\n${TODO}`, `\nstruct {\n\t__uint(type, BPF_MAP_TYPE_HASH);\n\t__type(key, __be32);\n\t__type(value, __u64);\n\t__uint(max_entries, 1024);\n} bytes SEC(".maps");\n`),
    solution: prog(`${ETH_IP}\n\t__be32 src = iph->saddr;\n\t__u64 len = data_end - data;\n\t__u64 *total = bpf_map_lookup_elem(&bytes, &src);\n\n\tif (total)\n\t\t__sync_fetch_and_add(total, len);\n\telse\n\t\tbpf_map_update_elem(&bytes, &src, &len, BPF_NOEXIST);\n\treturn XDP_PASS;`, `\nstruct {\n\t__uint(type, BPF_MAP_TYPE_HASH);\n\t__type(key, __be32);\n\t__type(value, __u64);\n\t__uint(max_entries, 1024);\n} bytes SEC(".maps");\n`),
    hints: ['On a miss, insert the first length with bpf_map_update_elem.', 'The frame length is data_end - data.'],
    tests: [
      { name: '100 bytes from 10.0.0.1', packet: pkt({ frameLen: 100 }), action: 'XDP_PASS' },
      { name: '60 bytes from 10.0.0.9', packet: pkt({ src: '10.0.0.9' }), action: 'XDP_PASS' },
      { name: '200 bytes from 10.0.0.1', packet: pkt({ frameLen: 200 }), action: 'XDP_PASS' },
    ],
    mapChecks: [
      { name: 'bytes from 10.0.0.1', map: 'bytes', key: ip4('10.0.0.1'), value: u64le(300) },
      { name: 'bytes from 10.0.0.9', map: 'bytes', key: ip4('10.0.0.9'), value: u64le(60) },
      { name: 'nothing from 10.0.0.2', map: 'bytes', key: ip4('10.0.0.2'), value: null },
    ],
  },
];

