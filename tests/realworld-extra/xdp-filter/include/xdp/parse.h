/* SPDX-License-Identifier: MIT */
/* Header parsing in the style of xdp-tools' parsing helpers (written for XDP Lab's generality tests). */
#ifndef XDP_LAB_EXTRA_PARSE_H
#define XDP_LAB_EXTRA_PARSE_H

#include <stddef.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/tcp.h>
#include <linux/udp.h>
#include <bpf/bpf_endian.h>

#ifndef VLAN_MAX_DEPTH
#define VLAN_MAX_DEPTH 2
#endif

struct hdr_cursor {
	void *pos;
};

struct vlan_hdr {
	__be16 h_vlan_TCI;
	__be16 h_vlan_encapsulated_proto;
};

#define proto_is_vlan(p) ((p) == bpf_htons(ETH_P_8021Q) || (p) == bpf_htons(ETH_P_8021AD))

static __always_inline int parse_ethhdr(struct hdr_cursor *nh, void *data_end, struct ethhdr **ethhdr)
{
	struct ethhdr *eth = nh->pos;
	struct vlan_hdr *vlh;
	__u16 h_proto;
	int i;

	if ((void *)(eth + 1) > data_end)
		return -1;
	nh->pos = eth + 1;
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
	if (hdrsize < (int)sizeof(*iph))
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

#define PARSE_L4(name, type)									\
static __always_inline int parse_##name(struct hdr_cursor *nh, void *data_end, struct type **hdr)	\
{												\
	struct type *h = nh->pos;								\
	if ((void *)(h + 1) > data_end)								\
		return -1;									\
	nh->pos = h + 1;									\
	*hdr = h;										\
	return 0;										\
}
PARSE_L4(udphdr, udphdr)
PARSE_L4(tcphdr, tcphdr)

#endif
