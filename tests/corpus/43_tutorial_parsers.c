/* Packets: Ethernet with up to two VLAN tags, IPv4/IPv6, ICMP/ICMPv6/UDP/TCP.
 * xdp-tutorial style parsing helpers: a header cursor, out-pointers to
 * headers (struct ethhdr **), a VLAN loop under #pragma unroll with break,
 * and a verdict that drops ICMP echo with an odd sequence number. */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/icmp.h>
#include <linux/icmpv6.h>
#include <linux/in.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

#define VLAN_MAX_DEPTH 2

struct hdr_cursor {
	void *pos;
};

struct vlan_hdr {
	__be16 h_vlan_TCI;
	__be16 h_vlan_encapsulated_proto;
};

static __always_inline int proto_is_vlan(__u16 h_proto)
{
	return !!(h_proto == bpf_htons(ETH_P_8021Q) || h_proto == bpf_htons(ETH_P_8021AD));
}

static __always_inline int parse_ethhdr(struct hdr_cursor *nh, void *data_end, struct ethhdr **ethhdr)
{
	struct ethhdr *eth = nh->pos;
	int hdrsize = sizeof(*eth);
	struct vlan_hdr *vlh;
	__u16 h_proto;
	int i;

	if (nh->pos + hdrsize > data_end)
		return -1;
	nh->pos += hdrsize;
	*ethhdr = eth;
	vlh = nh->pos;
	h_proto = eth->h_proto;

#pragma unroll
	for (i = 0; i < VLAN_MAX_DEPTH; i++) {
		if (!proto_is_vlan(h_proto))
			break;
		if ((void *)(vlh + 1) > data_end)
			break;
		h_proto = vlh->h_vlan_encapsulated_proto;
		vlh++;
	}
	nh->pos = vlh;
	return h_proto;
}

static __always_inline int parse_iphdr(struct hdr_cursor *nh, void *data_end, struct iphdr **iphdr)
{
	struct iphdr *iph = nh->pos;
	int hdrsize;

	if ((void *)(iph + 1) > data_end)
		return -1;
	hdrsize = iph->ihl * 4;
	if (hdrsize < sizeof(*iph))
		return -1;
	if (nh->pos + hdrsize > data_end)
		return -1;
	nh->pos += hdrsize;
	*iphdr = iph;
	return iph->protocol;
}

static __always_inline int parse_ip6hdr(struct hdr_cursor *nh, void *data_end, struct ipv6hdr **ip6hdr)
{
	struct ipv6hdr *ip6h = nh->pos;

	if ((void *)(ip6h + 1) > data_end)
		return -1;
	nh->pos = ip6h + 1;
	*ip6hdr = ip6h;
	return ip6h->nexthdr;
}

static __always_inline int parse_icmphdr(struct hdr_cursor *nh, void *data_end, struct icmphdr **icmphdr)
{
	struct icmphdr *icmph = nh->pos;

	if ((void *)(icmph + 1) > data_end)
		return -1;
	nh->pos = icmph + 1;
	*icmphdr = icmph;
	return icmph->type;
}

SEC("xdp")
int xdp_parser_func(struct xdp_md *ctx)
{
	void *data_end = (void *)(long)ctx->data_end;
	void *data = (void *)(long)ctx->data;
	struct ethhdr *eth;
	struct iphdr *iph;
	struct ipv6hdr *ip6h;
	struct icmphdr *icmph;
	struct hdr_cursor nh;
	int nh_type, ip_type, icmp_type;
	__u32 action = XDP_PASS;

	nh.pos = data;
	nh_type = parse_ethhdr(&nh, data_end, &eth);
	if (nh_type == bpf_htons(ETH_P_IP)) {
		ip_type = parse_iphdr(&nh, data_end, &iph);
		if (ip_type != IPPROTO_ICMP)
			goto out;
	} else if (nh_type == bpf_htons(ETH_P_IPV6)) {
		ip_type = parse_ip6hdr(&nh, data_end, &ip6h);
		if (ip_type != IPPROTO_ICMPV6)
			goto out;
	} else {
		goto out;
	}
	icmp_type = parse_icmphdr(&nh, data_end, &icmph);
	if (icmp_type != ICMP_ECHO && icmp_type != ICMPV6_ECHO_REQUEST)
		goto out;
	if (bpf_ntohs(icmph->un.echo.sequence) % 2)
		action = XDP_DROP;
out:
	return action;
}
char _license[] SEC("license") = "GPL";
