/** Exercise: dispatch to per-protocol programs with bpf_tail_call over a PROG_ARRAY. */
import { ETH_IP, INCLUDES, LICENSE } from './c';
import { pkt, tcpFlags } from './packets';
import type { ProgramExercise } from './types';

const MAP = `
int handle_udp(struct xdp_md *ctx);
int handle_tcp(struct xdp_md *ctx);

struct {
	__uint(type, BPF_MAP_TYPE_PROG_ARRAY);
	__uint(max_entries, 2);
	__type(key, __u32);
	__array(values, int (void *));
} jmp SEC(".maps") = {
	.values = {
		[0] = (void *)&handle_udp,
		[1] = (void *)&handle_tcp,
	},
};
`;

const HANDLERS = `
SEC("xdp")
int handle_udp(struct xdp_md *ctx)
{
	return XDP_DROP;
}

SEC("xdp")
int handle_tcp(struct xdp_md *ctx)
{
	void *data_end = (void *)(long)ctx->data_end;
	void *data = (void *)(long)ctx->data;
	struct tcphdr *tcp = data + sizeof(struct ethhdr) + sizeof(struct iphdr);

	if ((void *)(tcp + 1) > data_end)
		return XDP_DROP;
	return tcp->dest == bpf_htons(22) ? XDP_DROP : XDP_PASS;
}
`;

/** The entry program comes first in the file (the object's first XDP program is the one attached). */
const withMain = (body: string) => `${INCLUDES}
#define SLOT_UDP 0
#define SLOT_TCP 1
${MAP}
SEC("xdp")
int xdp_dispatch(struct xdp_md *ctx)
{
${body.trimEnd()}
}
${HANDLERS}${LICENSE}`;

export const TAIL_CALLS: ProgramExercise[] = [
  {
    kind: 'program', id: 'tail-call', title: 'Tail calls: one program per protocol', topic: 'advanced',
    statement: 'xdp_dispatch is the program attached to the NIC; handle_udp and handle_tcp sit in the PROG_ARRAY `jmp` (slots SLOT_UDP and SLOT_TCP). Make xdp_dispatch jump to the right one for IPv4 UDP and TCP with bpf_tail_call(ctx, &jmp, slot); a tail call that succeeds never returns. Everything else (and a failed tail call) is passed.',
    starter: withMain(`${ETH_IP}\n\t/* TODO */\n\treturn XDP_PASS;`),
    solution: withMain(`${ETH_IP}\n\tif (iph->protocol == IPPROTO_UDP)\n\t\tbpf_tail_call(ctx, &jmp, SLOT_UDP);\n\telse if (iph->protocol == IPPROTO_TCP)\n\t\tbpf_tail_call(ctx, &jmp, SLOT_TCP);\n\treturn XDP_PASS;`),
    hints: ['bpf_tail_call(ctx, &jmp, SLOT_UDP) jumps into handle_udp and does not come back.', 'Code after the call runs only when the slot is empty or the chain is too long.'],
    tests: [
      { name: 'UDP', packet: pkt(), action: 'XDP_DROP' },
      { name: 'TCP SYN to 22', packet: pkt({ l4: 'tcp', dport: 22, tcpFlags: tcpFlags.SYN }), action: 'XDP_DROP' },
      { name: 'TCP to 80', packet: pkt({ l4: 'tcp', dport: 80 }), action: 'XDP_PASS' },
      { name: 'ICMP', packet: pkt({ l4: 'icmp' }), action: 'XDP_PASS' },
    ],
  },
];
