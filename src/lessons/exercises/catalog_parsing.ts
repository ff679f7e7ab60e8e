/** Exercises 1–12: a first program, then parsing headers from Ethernet to TCP. */
import { ETH, ETH_IP, prog, VLAN_HDR } from './c';
import { pkt, tcpFlags, withIpOptions, withIpv6Ext } from './packets';
import type { ProgramExercise } from './types';

const TODO = '\t/* TODO */\n\treturn XDP_PASS;';

export const PARSING: ProgramExercise[] = [
  {
    kind: 'program', id: 'first-pass', title: 'A first program: let everything through', topic: 'basics',
    statement: 'An XDP program returns an action for every frame. Return XDP_PASS so each frame continues into the kernel\'s network stack as if no program were attached.',
    starter: prog('\t/* Which action hands the frame to the stack? */\n\treturn XDP_ABORTED;'),
    solution: prog('\treturn XDP_PASS;'),
    hints: ['The actions are XDP_ABORTED, XDP_DROP, XDP_PASS, XDP_TX and XDP_REDIRECT.', 'XDP_ABORTED is for program errors: it drops the frame and fires a trace point.'],
    tests: [{ name: 'IPv4 UDP', packet: pkt(), action: 'XDP_PASS' }, { name: 'IPv6 TCP', packet: pkt({ l3: 'ipv6', l4: 'tcp' }), action: 'XDP_PASS' }, { name: 'ARP request', packet: pkt({ l3: 'arp' }), action: 'XDP_PASS' }],
  },
  {
    kind: 'program', id: 'drop-all', title: 'Drop everything', topic: 'basics',
    statement: 'Drop every frame. XDP_DROP is the cheapest way to discard a packet in Linux: the driver recycles the page before any socket buffer exists.',
    starter: prog(TODO),
    solution: prog('\treturn XDP_DROP;'),
    hints: ['One return statement is enough.'],
    tests: [{ name: 'IPv4 UDP', packet: pkt(), action: 'XDP_DROP' }, { name: 'ARP request', packet: pkt({ l3: 'arp' }), action: 'XDP_DROP' }],
  },
  {
    kind: 'program', id: 'size-filter', title: 'Drop large frames', topic: 'basics',
    statement: 'Drop frames longer than 1000 bytes and pass the rest. The frame\'s length is data_end - data (the two pointers in struct xdp_md).',
    starter: prog(`\tvoid *data_end = (void *)(long)ctx->data_end;\n\tvoid *data = (void *)(long)ctx->data;\n\n${TODO}`),
    solution: prog(`\tvoid *data_end = (void *)(long)ctx->data_end;\n\tvoid *data = (void *)(long)ctx->data;\n\n\tif (data_end - data > 1000)\n\t\treturn XDP_DROP;\n\treturn XDP_PASS;`),
    hints: ['Subtracting two packet pointers gives a number the verifier accepts.', 'Exactly 1000 bytes is allowed through: use >, not >=.'],
    tests: [
      { name: '60-byte frame', packet: pkt(), action: 'XDP_PASS' },
      { name: '1000-byte frame', packet: pkt({ frameLen: 1000 }), action: 'XDP_PASS' },
      { name: '1001-byte frame', packet: pkt({ frameLen: 1001 }), action: 'XDP_DROP' },
      { name: '1500-byte frame', packet: pkt({ frameLen: 1500 }), action: 'XDP_DROP' },
    ],
  },
  {
    kind: 'program', id: 'ipv4-only', title: 'Ethernet: only IPv4', topic: 'parsing',
    statement: 'Read the Ethernet header\'s h_proto and pass only IPv4 frames (ETH_P_IP); drop ARP, IPv6 and everything else. Remember that h_proto is in network byte order, and that the verifier wants proof the header is inside the packet before you read it.',
    starter: prog(`\tvoid *data_end = (void *)(long)ctx->data_end;\n\tvoid *data = (void *)(long)ctx->data;\n\tstruct ethhdr *eth = data;\n\n${TODO}`),
    solution: prog(`${ETH}\n\tif (eth->h_proto == bpf_htons(ETH_P_IP))\n\t\treturn XDP_PASS;\n\treturn XDP_DROP;`),
    hints: ['Check `if ((void *)(eth + 1) > data_end) return XDP_DROP;` first.', 'Compare with bpf_htons(ETH_P_IP): the field is big-endian.'],
    tests: [
      { name: 'IPv4 UDP', packet: pkt(), action: 'XDP_PASS' },
      { name: 'ARP request', packet: pkt({ l3: 'arp' }), action: 'XDP_DROP' },
      { name: 'IPv6 UDP', packet: pkt({ l3: 'ipv6' }), action: 'XDP_DROP' },
      { name: 'IPv4 TCP', packet: pkt({ l4: 'tcp' }), action: 'XDP_PASS' },
    ],
  },
  {
    kind: 'program', id: 'vlan-filter', title: 'VLAN: drop VLAN 100', topic: 'parsing',
    statement: 'Frames may carry one 802.1Q tag (h_proto 0x8100) followed by a struct vlan_hdr. Drop frames tagged with VLAN id 100 (the low 12 bits of h_vlan_TCI); pass untagged frames and other VLANs.',
    starter: prog(`${ETH}\n${TODO}`, VLAN_HDR),
    solution: prog(`${ETH}\n\tif (eth->h_proto == bpf_htons(ETH_P_8021Q)) {\n\t\tstruct vlan_hdr *vh = (void *)(eth + 1);\n\n\t\tif ((void *)(vh + 1) > data_end)\n\t\t\treturn XDP_DROP;\n\t\tif ((bpf_ntohs(vh->h_vlan_TCI) & 0x0fff) == 100)\n\t\t\treturn XDP_DROP;\n\t}\n\treturn XDP_PASS;`, VLAN_HDR),
    hints: ['The tag starts right after the Ethernet header: `struct vlan_hdr *vh = (void *)(eth + 1);`', 'Convert the TCI with bpf_ntohs before masking with 0x0fff: the priority bits sit above the id.'],
    tests: [
      { name: 'untagged IPv4', packet: pkt(), action: 'XDP_PASS' },
      { name: 'VLAN 100', packet: pkt({ vlans: [100] }), action: 'XDP_DROP' },
      { name: 'VLAN 200', packet: pkt({ vlans: [200] }), action: 'XDP_PASS' },
      { name: 'VLAN 356 (100 + 256: byte order check)', packet: pkt({ vlans: [356] }), action: 'XDP_PASS' },
      { name: 'VLAN 101', packet: pkt({ vlans: [101] }), action: 'XDP_PASS' },
    ],
  },
  {
    kind: 'program', id: 'qinq', title: 'QinQ: the inner VLAN', topic: 'parsing',
    statement: 'A QinQ frame has two tags: an outer 802.1ad tag (0x88a8) and an inner 802.1Q tag (0x8100). Drop frames whose innermost VLAN id is 200, whether they carry one tag or two; pass the rest.',
    starter: prog(`${ETH}\n${TODO}`, VLAN_HDR),
    solution: prog(`${ETH}\n\t__u16 proto = eth->h_proto;\n\tvoid *cur = (void *)(eth + 1);\n\tint vid = -1;\n\n#pragma unroll\n\tfor (int i = 0; i < 2; i++) {\n\t\tstruct vlan_hdr *vh = cur;\n\n\t\tif (proto != bpf_htons(ETH_P_8021Q) && proto != bpf_htons(ETH_P_8021AD))\n\t\t\tbreak;\n\t\tif ((void *)(vh + 1) > data_end)\n\t\t\treturn XDP_DROP;\n\t\tvid = bpf_ntohs(vh->h_vlan_TCI) & 0x0fff;\n\t\tproto = vh->h_vlan_encapsulated_proto;\n\t\tcur = vh + 1;\n\t}\n\treturn vid == 200 ? XDP_DROP : XDP_PASS;`, VLAN_HDR),
    hints: ['Walk up to two tags in a loop with a constant bound, keeping the last id you saw.', 'Each tag\'s h_vlan_encapsulated_proto says what follows it.'],
    tests: [
      { name: 'untagged', packet: pkt(), action: 'XDP_PASS' },
      { name: 'single tag 200', packet: pkt({ vlans: [200] }), action: 'XDP_DROP' },
      { name: 'QinQ outer 10, inner 200', packet: pkt({ vlans: [10, 200] }), action: 'XDP_DROP' },
      { name: 'QinQ outer 200, inner 10', packet: pkt({ vlans: [200, 10] }), action: 'XDP_PASS' },
    ],
  },
  {
    kind: 'program', id: 'ipv4-options', title: 'IPv4 with options: find UDP port 53', topic: 'parsing',
    statement: 'Drop IPv4 UDP datagrams to port 53. The IPv4 header is ihl * 4 bytes long (20 without options, up to 60): find the UDP header after the options, not at a fixed 20 bytes.',
    starter: prog(`${ETH_IP}\n${TODO}`),
    solution: prog(`${ETH_IP}\n\tif (iph->protocol != IPPROTO_UDP)\n\t\treturn XDP_PASS;\n\tif (iph->ihl < 5)\n\t\treturn XDP_DROP;\n\tstruct udphdr *udp = (void *)iph + iph->ihl * 4;\n\tif ((void *)(udp + 1) > data_end)\n\t\treturn XDP_DROP;\n\tif (udp->dest == bpf_htons(53))\n\t\treturn XDP_DROP;\n\treturn XDP_PASS;`),
    hints: ['`struct udphdr *udp = (void *)iph + iph->ihl * 4;` (ihl is at most 15, so the verifier can bound it).', 'Check `(void *)(udp + 1) > data_end` before reading udp->dest.'],
    tests: [
      { name: 'UDP to 53', packet: pkt({ dport: 53 }), action: 'XDP_DROP' },
      { name: 'UDP to 53, 4 bytes of IP options', packet: withIpOptions(pkt({ dport: 53 })), action: 'XDP_DROP' },
      { name: 'UDP to 54, 8 bytes of IP options', packet: withIpOptions(pkt({ dport: 54, sport: 53 }), 2), action: 'XDP_PASS' },
      { name: 'UDP to 80', packet: pkt({ dport: 80 }), action: 'XDP_PASS' },
      { name: 'TCP to 53', packet: pkt({ l4: 'tcp', dport: 53 }), action: 'XDP_PASS' },
    ],
  },
  {
    kind: 'program', id: 'ipv6-ext', title: 'IPv6 extension headers', topic: 'parsing',
    statement: 'Drop IPv6 UDP datagrams to port 53, also when a hop-by-hop (0) or destination options (60) extension header sits between the IPv6 header and UDP. An extension header starts with its next header byte and its length in 8-byte units, not counting the first 8.',
    starter: prog(`${ETH}\n\tif (eth->h_proto != bpf_htons(ETH_P_IPV6))\n\t\treturn XDP_PASS;\n\tstruct ipv6hdr *ip6 = (void *)(eth + 1);\n\tif ((void *)(ip6 + 1) > data_end)\n\t\treturn XDP_DROP;\n${TODO}`),
    solution: prog(`${ETH}\n\tif (eth->h_proto != bpf_htons(ETH_P_IPV6))\n\t\treturn XDP_PASS;\n\tstruct ipv6hdr *ip6 = (void *)(eth + 1);\n\tif ((void *)(ip6 + 1) > data_end)\n\t\treturn XDP_DROP;\n\t__u8 next = ip6->nexthdr;\n\t__u8 *cur = (void *)(ip6 + 1);\n\n#pragma unroll\n\tfor (int i = 0; i < 4; i++) {\n\t\tif (next != 0 && next != 60)\n\t\t\tbreak;\n\t\tif ((void *)(cur + 2) > data_end)\n\t\t\treturn XDP_DROP;\n\t\tnext = cur[0];\n\t\tcur += (cur[1] + 1) * 8;\n\t}\n\tif (next != IPPROTO_UDP)\n\t\treturn XDP_PASS;\n\tstruct udphdr *udp = (void *)cur;\n\tif ((void *)(udp + 1) > data_end)\n\t\treturn XDP_DROP;\n\treturn udp->dest == bpf_htons(53) ? XDP_DROP : XDP_PASS;`),
    hints: ['Loop a constant number of times over extension headers while nexthdr is 0 or 60.', 'The header length is (hdr[1] + 1) * 8 bytes.'],
    tests: [
      { name: 'IPv6 UDP to 53', packet: pkt({ l3: 'ipv6', dport: 53 }), action: 'XDP_DROP' },
      { name: 'IPv6 hop-by-hop, UDP to 53', packet: withIpv6Ext(pkt({ l3: 'ipv6', dport: 53 }), 0), action: 'XDP_DROP' },
      { name: 'IPv6 destination options, UDP to 53', packet: withIpv6Ext(pkt({ l3: 'ipv6', dport: 53 }), 60), action: 'XDP_DROP' },
      { name: 'IPv6 hop-by-hop, UDP to 80', packet: withIpv6Ext(pkt({ l3: 'ipv6', dport: 80 }), 0), action: 'XDP_PASS' },
      { name: 'IPv4 UDP to 53', packet: pkt({ dport: 53 }), action: 'XDP_PASS' },
    ],
  },
  {
    kind: 'program', id: 'icmp-echo', title: 'ICMP: drop pings', topic: 'parsing',
    statement: 'Drop IPv4 ICMP echo requests (type 8). Pass echo replies (type 0), other ICMP and everything else.',
    starter: prog(`${ETH_IP}\n${TODO}`),
    solution: prog(`${ETH_IP}\n\tif (iph->protocol != IPPROTO_ICMP)\n\t\treturn XDP_PASS;\n\tstruct icmphdr *icmp = (void *)iph + iph->ihl * 4;\n\tif ((void *)(icmp + 1) > data_end)\n\t\treturn XDP_DROP;\n\treturn icmp->type == ICMP_ECHO ? XDP_DROP : XDP_PASS;`),
    hints: ['ICMP follows the IPv4 header; protocol is IPPROTO_ICMP (1).', 'ICMP_ECHO is 8, ICMP_ECHOREPLY is 0.'],
    tests: [
      { name: 'ICMP echo request', packet: pkt({ l4: 'icmp' }), action: 'XDP_DROP' },
      { name: 'ICMP echo reply', packet: (() => { const b = pkt({ l4: 'icmp' }); b[34] = 0; return b; })(), action: 'XDP_PASS' },
      { name: 'UDP', packet: pkt(), action: 'XDP_PASS' },
    ],
  },
  {
    kind: 'program', id: 'icmpv6', title: 'ICMPv6: drop pings, keep neighbour discovery', topic: 'parsing',
    statement: 'Drop ICMPv6 echo requests (type 128) and pass every other ICMPv6 message: neighbour solicitations (135) must get through or IPv6 stops working.',
    starter: prog(`${ETH}\n\tif (eth->h_proto != bpf_htons(ETH_P_IPV6))\n\t\treturn XDP_PASS;\n${TODO}`),
    solution: prog(`${ETH}\n\tif (eth->h_proto != bpf_htons(ETH_P_IPV6))\n\t\treturn XDP_PASS;\n\tstruct ipv6hdr *ip6 = (void *)(eth + 1);\n\tif ((void *)(ip6 + 1) > data_end)\n\t\treturn XDP_DROP;\n\tif (ip6->nexthdr != IPPROTO_ICMPV6)\n\t\treturn XDP_PASS;\n\tstruct icmp6hdr *icmp6 = (void *)(ip6 + 1);\n\tif ((void *)(icmp6 + 1) > data_end)\n\t\treturn XDP_DROP;\n\treturn icmp6->icmp6_type == 128 ? XDP_DROP : XDP_PASS;`),
    hints: ['The ICMPv6 header follows the 40-byte IPv6 header when nexthdr is IPPROTO_ICMPV6 (58).'],
    tests: [
      { name: 'ICMPv6 echo request', packet: pkt({ l3: 'ipv6', l4: 'icmp' }), action: 'XDP_DROP' },
      { name: 'ICMPv6 neighbour solicitation', packet: (() => { const b = pkt({ l3: 'ipv6', l4: 'icmp' }); b[54] = 135; return b; })(), action: 'XDP_PASS' },
      { name: 'IPv6 UDP', packet: pkt({ l3: 'ipv6' }), action: 'XDP_PASS' },
    ],
  },
  {
    kind: 'program', id: 'tcp-syn', title: 'TCP: drop new connections to port 22', topic: 'parsing',
    statement: 'Drop TCP segments to port 22 that open a connection (SYN set, ACK clear). Pass the rest of those connections and all other traffic.',
    starter: prog(`${ETH_IP}\n${TODO}`),
    solution: prog(`${ETH_IP}\n\tif (iph->protocol != IPPROTO_TCP)\n\t\treturn XDP_PASS;\n\tstruct tcphdr *tcp = (void *)iph + iph->ihl * 4;\n\tif ((void *)(tcp + 1) > data_end)\n\t\treturn XDP_DROP;\n\tif (tcp->dest == bpf_htons(22) && tcp->syn && !tcp->ack)\n\t\treturn XDP_DROP;\n\treturn XDP_PASS;`),
    hints: ['struct tcphdr has bit fields syn and ack.', 'A SYN-ACK (both set) is a reply, not a new connection.'],
    tests: [
      { name: 'TCP SYN to 22', packet: pkt({ l4: 'tcp', dport: 22, tcpFlags: tcpFlags.SYN }), action: 'XDP_DROP' },
      { name: 'TCP ACK to 22', packet: pkt({ l4: 'tcp', dport: 22, tcpFlags: tcpFlags.ACK }), action: 'XDP_PASS' },
      { name: 'TCP SYN-ACK to 22', packet: pkt({ l4: 'tcp', dport: 22, tcpFlags: tcpFlags.SYN | tcpFlags.ACK }), action: 'XDP_PASS' },
      { name: 'TCP SYN to 80', packet: pkt({ l4: 'tcp', dport: 80, tcpFlags: tcpFlags.SYN }), action: 'XDP_PASS' },
      { name: 'TCP SYN from 22 to 5632 (byte order check)', packet: pkt({ l4: 'tcp', sport: 22, dport: 5632, tcpFlags: tcpFlags.SYN }), action: 'XDP_PASS' },
    ],
  },
  {
    kind: 'program', id: 'udp-port', title: 'UDP: a port filter', topic: 'parsing',
    statement: 'Drop UDP datagrams to ports 5000 to 5010 inclusive; pass everything else.',
    starter: prog(`${ETH_IP}\n${TODO}`),
    solution: prog(`${ETH_IP}\n\tif (iph->protocol != IPPROTO_UDP)\n\t\treturn XDP_PASS;\n\tstruct udphdr *udp = (void *)iph + iph->ihl * 4;\n\tif ((void *)(udp + 1) > data_end)\n\t\treturn XDP_DROP;\n\t__u16 port = bpf_ntohs(udp->dest);\n\tif (port >= 5000 && port <= 5010)\n\t\treturn XDP_DROP;\n\treturn XDP_PASS;`),
    hints: ['Convert the port with bpf_ntohs before comparing ranges.', 'Both ends are included.'],
    tests: [
      { name: 'UDP to 5000', packet: pkt({ dport: 5000 }), action: 'XDP_DROP' },
      { name: 'UDP to 5010', packet: pkt({ dport: 5010 }), action: 'XDP_DROP' },
      { name: 'UDP to 5011', packet: pkt({ dport: 5011 }), action: 'XDP_PASS' },
      { name: 'UDP to 4999', packet: pkt({ dport: 4999 }), action: 'XDP_PASS' },
      { name: 'TCP to 5005', packet: pkt({ l4: 'tcp', dport: 5005 }), action: 'XDP_PASS' },
    ],
  },
];
