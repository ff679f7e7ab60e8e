/* Packets: IPv4/IPv6 UDP and TCP, VLAN tagged or not. A port blocklist:
 * drops UDP to ports 53 and 9000 and TCP to port 23 over IPv4 and IPv6,
 * passes everything else. */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/in.h>
#include <linux/udp.h>
#include <linux/tcp.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

struct hdr_cursor {
	void *pos;
};

static __always_inline int parse_ethhdr(struct hdr_cursor *nh, void *data_end, __u16 *proto)
{
	struct ethhdr *eth = nh->pos;

	if ((void *)(eth + 1) > data_end)
		return -1;
	nh->pos = eth + 1;
	*proto = eth->h_proto;
	if (*proto == bpf_htons(ETH_P_8021Q)) {
		__be16 *inner = nh->pos;
		if ((void *)(inner + 2) > data_end)
			return -1;
		*proto = inner[1];
		nh->pos = inner + 2;
	}
	return 0;
}

static __always_inline int blocked(__u8 l4, void *l4h, void *data_end)
{
	if (l4 == IPPROTO_UDP) {
		struct udphdr *uh = l4h;
		if ((void *)(uh + 1) > data_end)
			return 0;
		return uh->dest == bpf_htons(53) || uh->dest == bpf_htons(9000);
	}
	if (l4 == IPPROTO_TCP) {
		struct tcphdr *th = l4h;
		if ((void *)(th + 1) > data_end)
			return 0;
		return th->dest == bpf_htons(23);
	}
	return 0;
}

SEC("xdp")
int xdp_port_filter(struct xdp_md *ctx)
{
	void *data_end = (void *)(long)ctx->data_end;
	struct hdr_cursor nh = { .pos = (void *)(long)ctx->data };
	__u16 proto;

	if (parse_ethhdr(&nh, data_end, &proto) < 0)
		return XDP_PASS;
	if (proto == bpf_htons(ETH_P_IP)) {
		struct iphdr *iph = nh.pos;
		if ((void *)(iph + 1) > data_end)
			return XDP_PASS;
		if (blocked(iph->protocol, (void *)iph + iph->ihl * 4, data_end))
			return XDP_DROP;
	} else if (proto == bpf_htons(ETH_P_IPV6)) {
		struct ipv6hdr *ip6 = nh.pos;
		if ((void *)(ip6 + 1) > data_end)
			return XDP_PASS;
		if (blocked(ip6->nexthdr, ip6 + 1, data_end))
			return XDP_DROP;
	}
	return XDP_PASS;
}
char _license[] SEC("license") = "GPL";
