/** Exercises 25–31: XDP_TX replies, redirect through devmap and cpumap, AF_XDP, a rate limiter, metadata. */
import { ETH, ETH_IP, prog } from './c';
import { icmpEchoReply, macSwap, pkt, u32le } from './packets';
import type { ProgramExercise } from './types';

const TODO = '\t/* TODO */\n\treturn XDP_PASS;';
const map = (type: string, key: string, value: string, n: number, name: string) =>
  `\nstruct {\n\t__uint(type, ${type});\n\t__type(key, ${key});\n\t__type(value, ${value});\n\t__uint(max_entries, ${n});\n} ${name} SEC(".maps");\n`;

const DEVMAP = map('BPF_MAP_TYPE_DEVMAP', '__u32', '__u32', 8, 'tx_port');
const CPUMAP = map('BPF_MAP_TYPE_CPUMAP', '__u32', '__u32', 4, 'cpus');
const XSKMAP = map('BPF_MAP_TYPE_XSKMAP', '__u32', '__u32', 4, 'xsks');
const BUCKET = `
struct bucket {
	__u64 tokens;
	__u64 last_ns;
};
${map('BPF_MAP_TYPE_ARRAY', '__u32', 'struct bucket', 1, 'bucket')}
#define BURST 4
#define NS_PER_TOKEN 100000 /* 10,000 packets a second */
`;

/** A burst of 8 UDP frames: the VM's clock advances 1 µs per bpf_ktime_get_ns call, so no token comes back within it. */
const burst = Array.from({ length: 8 }, (_, i) => ({ name: `burst frame ${i + 1}`, packet: pkt({ sport: 1000 + i }), action: (i < 4 ? 'XDP_PASS' : 'XDP_DROP') as 'XDP_PASS' | 'XDP_DROP' }));

const echo = pkt({ l4: 'icmp', src: '192.0.2.1', dst: '198.51.100.2', srcMac: '02:aa:00:00:00:01', dstMac: '02:bb:00:00:00:02', frameLen: 98 });

export const ACTIONS: ProgramExercise[] = [
  {
    kind: 'program', id: 'icmp-reply', title: 'XDP_TX: answer pings', topic: 'actions',
    statement: 'Answer IPv4 ICMP echo requests from XDP: swap the MAC addresses and the IP addresses, turn the type into echo reply (0), fix the ICMP checksum, and return XDP_TX. (Swapping the addresses leaves the IP header checksum unchanged: the sum of the same words.) Pass everything else.',
    starter: prog(`${ETH_IP}\n${TODO}`),
    solution: prog(`${ETH_IP}\n\tif (iph->protocol != IPPROTO_ICMP || iph->ihl != 5)\n\t\treturn XDP_PASS;\n\tstruct icmphdr *icmp = (void *)(iph + 1);\n\tif ((void *)(icmp + 1) > data_end)\n\t\treturn XDP_DROP;\n\tif (icmp->type != ICMP_ECHO)\n\t\treturn XDP_PASS;\n\tunsigned char mac[ETH_ALEN];\n\t__be32 addr = iph->saddr;\n\n\t__builtin_memcpy(mac, eth->h_dest, ETH_ALEN);\n\t__builtin_memcpy(eth->h_dest, eth->h_source, ETH_ALEN);\n\t__builtin_memcpy(eth->h_source, mac, ETH_ALEN);\n\tiph->saddr = iph->daddr;\n\tiph->daddr = addr;\n\t/* type 8 → 0 lowers the first word by 0x0800: the checksum rises by it. */\n\t__u32 c = icmp->checksum + bpf_htons(0x0800);\n\ticmp->checksum = (__u16)(c + (c >> 16));\n\ticmp->type = ICMP_ECHOREPLY;\n\treturn XDP_TX;`),
    hints: ['The ICMP type is the high byte of the first 16-bit word: 8 → 0 changes that word by 0x0800.', 'Add the change to the checksum and fold the carry back in.'],
    tests: [
      { name: 'echo request 192.0.2.1 → 198.51.100.2', packet: echo, action: 'XDP_TX', out: icmpEchoReply(echo) },
      { name: 'echo reply', packet: (() => { const b = pkt({ l4: 'icmp' }); b[34] = 0; return b; })(), action: 'XDP_PASS' },
      { name: 'UDP', packet: pkt(), action: 'XDP_PASS' },
    ],
  },
  {
    kind: 'program', id: 'redirect-ifindex', title: 'XDP_REDIRECT to another port', topic: 'redirect',
    statement: 'Send every IPv4 frame out of interface 3 with bpf_redirect(3, 0) (it returns XDP_REDIRECT when the flags are valid); drop everything else.',
    starter: prog(`${ETH}\n${TODO}`),
    solution: prog(`${ETH}\n\tif (eth->h_proto != bpf_htons(ETH_P_IP))\n\t\treturn XDP_DROP;\n\treturn bpf_redirect(3, 0);`),
    hints: ['Return what bpf_redirect returns.'],
    tests: [
      { name: 'IPv4 UDP', packet: pkt(), action: 'XDP_REDIRECT', redirect: { ifindex: 3 } },
      { name: 'IPv6', packet: pkt({ l3: 'ipv6' }), action: 'XDP_DROP' },
    ],
  },
  {
    kind: 'program', id: 'devmap', title: 'Redirect through a devmap', topic: 'redirect',
    statement: 'xdp_redirect_map: swap the MACs of every frame and redirect it through slot 0 of the devmap `tx_port` (user space put the egress interface there). Frames wait in a per-CPU bulk queue and go out at the end of the NAPI poll. If the slot is empty, drop the frame instead of aborting.',
    starter: prog(`${ETH}\n${TODO}`, DEVMAP),
    solution: prog(`${ETH}\n\tunsigned char tmp[ETH_ALEN];\n\n\t__builtin_memcpy(tmp, eth->h_dest, ETH_ALEN);\n\t__builtin_memcpy(eth->h_dest, eth->h_source, ETH_ALEN);\n\t__builtin_memcpy(eth->h_source, tmp, ETH_ALEN);\n\treturn bpf_redirect_map(&tx_port, 0, XDP_DROP);`, DEVMAP),
    hints: ['bpf_redirect_map(&tx_port, key, flags): the low bits of flags are the action when the key has no entry.'],
    setup: [{ map: 'tx_port', key: u32le(0), value: u32le(2) }],
    tests: [
      { name: 'IPv4 UDP', packet: pkt({ srcMac: '02:00:00:00:00:0a' }), action: 'XDP_REDIRECT', redirect: { map: 'tx_port', key: 0 }, out: macSwap(pkt({ srcMac: '02:00:00:00:00:0a' })) },
      { name: 'ARP', packet: pkt({ l3: 'arp' }), action: 'XDP_REDIRECT', redirect: { map: 'tx_port', key: 0 }, out: macSwap(pkt({ l3: 'arp' })) },
    ],
  },
  {
    kind: 'program', id: 'cpumap', title: 'Spread work over CPUs with a cpumap', topic: 'redirect',
    statement: 'Hand frames to other CPUs: redirect TCP to CPU 1 and UDP to CPU 2 through the cpumap `cpus`; pass everything else on this CPU. The remote CPU builds the socket buffer, so this CPU only pays for the redirect.',
    starter: prog(`${ETH_IP}\n${TODO}`, CPUMAP),
    solution: prog(`${ETH_IP}\n\tif (iph->protocol == IPPROTO_TCP)\n\t\treturn bpf_redirect_map(&cpus, 1, XDP_PASS);\n\tif (iph->protocol == IPPROTO_UDP)\n\t\treturn bpf_redirect_map(&cpus, 2, XDP_PASS);\n\treturn XDP_PASS;`, CPUMAP),
    hints: ['The cpumap key is the CPU number.'],
    setup: [{ map: 'cpus', key: u32le(1), value: u32le(192) }, { map: 'cpus', key: u32le(2), value: u32le(192) }],
    tests: [
      { name: 'TCP', packet: pkt({ l4: 'tcp' }), action: 'XDP_REDIRECT', redirect: { map: 'cpus', key: 1 } },
      { name: 'UDP', packet: pkt(), action: 'XDP_REDIRECT', redirect: { map: 'cpus', key: 2 } },
      { name: 'ICMP', packet: pkt({ l4: 'icmp' }), action: 'XDP_PASS' },
      { name: 'IPv6', packet: pkt({ l3: 'ipv6' }), action: 'XDP_PASS' },
    ],
  },
  {
    kind: 'program', id: 'af-xdp', title: 'AF_XDP: UDP port 4242 to user space', topic: 'af_xdp',
    statement: 'Deliver IPv4 UDP datagrams to port 4242 to the AF_XDP socket bound to the queue they arrived on: redirect through the xskmap `xsks` with key ctx->rx_queue_index, falling back to XDP_PASS when no socket is there. Everything else goes to the kernel stack.',
    starter: prog(`${ETH_IP}\n${TODO}`, XSKMAP),
    solution: prog(`${ETH_IP}\n\tif (iph->protocol != IPPROTO_UDP)\n\t\treturn XDP_PASS;\n\tstruct udphdr *udp = (void *)iph + iph->ihl * 4;\n\tif ((void *)(udp + 1) > data_end)\n\t\treturn XDP_DROP;\n\tif (udp->dest != bpf_htons(4242))\n\t\treturn XDP_PASS;\n\treturn bpf_redirect_map(&xsks, ctx->rx_queue_index, XDP_PASS);`, XSKMAP),
    setup: [{ map: 'xsks', key: u32le(0), value: u32le(100) }, { map: 'xsks', key: u32le(3), value: u32le(103) }],
    hints: ['Key the xskmap with ctx->rx_queue_index: a socket is bound to one queue.', 'The flags argument XDP_PASS is the fallback when that slot has no socket.'],
    tests: [
      { name: 'UDP to 4242 on queue 0', packet: pkt({ dport: 4242 }), action: 'XDP_REDIRECT', redirect: { map: 'xsks', key: 0 } },
      { name: 'UDP to 4242 on queue 3', packet: pkt({ dport: 4242, sport: 99 }), rxQueue: 3, action: 'XDP_REDIRECT', redirect: { map: 'xsks', key: 3 } },
      { name: 'UDP to 53', packet: pkt({ dport: 53 }), action: 'XDP_PASS' },
      { name: 'TCP to 4242', packet: pkt({ l4: 'tcp', dport: 4242 }), action: 'XDP_PASS' },
    ],
  },
  {
    kind: 'program', id: 'token-bucket', title: 'A token-bucket rate limiter', topic: 'advanced',
    statement: 'Police traffic with a token bucket in the array map `bucket` (one struct bucket: tokens and the time they were last topped up). On each packet add one token per NS_PER_TOKEN nanoseconds elapsed since last_ns (bpf_ktime_get_ns), capped at BURST; then pass the packet and spend a token if there is one, else drop it. The bucket starts full only because the first top-up sees a long elapsed time: start with last_ns = 0.',
    starter: prog(`${TODO}`, BUCKET),
    solution: prog(`\t__u32 key = 0;\n\tstruct bucket *b = bpf_map_lookup_elem(&bucket, &key);\n\n\tif (!b)\n\t\treturn XDP_ABORTED;\n\t__u64 now = bpf_ktime_get_ns();\n\t__u64 add = (now - b->last_ns) / NS_PER_TOKEN;\n\n\tif (add) {\n\t\tb->tokens += add;\n\t\tif (b->tokens > BURST)\n\t\t\tb->tokens = BURST;\n\t\tb->last_ns += add * NS_PER_TOKEN;\n\t}\n\tif (b->tokens == 0)\n\t\treturn XDP_DROP;\n\tb->tokens--;\n\treturn XDP_PASS;`, BUCKET),
    hints: ['Only advance last_ns by whole tokens (add * NS_PER_TOKEN), or slow trickles never earn a token.', 'Cap tokens at BURST before spending one.'],
    tests: burst,
  },
  {
    kind: 'program', id: 'metadata', title: 'Metadata for the stack', topic: 'advanced',
    statement: 'Leave a note for the kernel: reserve 4 bytes of metadata in front of the frame with bpf_xdp_adjust_meta(ctx, -4), write the IPv4 protocol number there as a __u32 (0 for non-IPv4), and pass the frame. A TC program or the stack can read it from data_meta.',
    starter: prog(`${TODO}`),
    solution: prog(`\tif (bpf_xdp_adjust_meta(ctx, -4))\n\t\treturn XDP_PASS;\n\tvoid *data_end = (void *)(long)ctx->data_end;\n\tvoid *data = (void *)(long)ctx->data;\n\t__u32 *meta = (void *)(long)ctx->data_meta;\n\tstruct ethhdr *eth = data;\n\n\tif ((void *)(meta + 1) > data)\n\t\treturn XDP_PASS;\n\t*meta = 0;\n\tif ((void *)(eth + 1) > data_end || eth->h_proto != bpf_htons(ETH_P_IP))\n\t\treturn XDP_PASS;\n\tstruct iphdr *iph = (void *)(eth + 1);\n\tif ((void *)(iph + 1) > data_end)\n\t\treturn XDP_PASS;\n\t*meta = iph->protocol;\n\treturn XDP_PASS;`),
    hints: ['After bpf_xdp_adjust_meta, read ctx->data_meta, ctx->data and ctx->data_end again.', 'The verifier checks metadata accesses against data: `if ((void *)(meta + 1) > data) ...`'],
    tests: [
      { name: 'IPv4 UDP', packet: pkt(), action: 'XDP_PASS', out: Uint8Array.from([...u32le(17), ...pkt()]) },
      { name: 'IPv4 TCP', packet: pkt({ l4: 'tcp' }), action: 'XDP_PASS', out: Uint8Array.from([...u32le(6), ...pkt({ l4: 'tcp' })]) },
      { name: 'IPv6', packet: pkt({ l3: 'ipv6' }), action: 'XDP_PASS', out: Uint8Array.from([...u32le(0), ...pkt({ l3: 'ipv6' })]) },
    ],
  },
];
