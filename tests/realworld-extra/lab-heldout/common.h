/* Parsing helpers shared by the lab-heldout programs (written for XDP Lab in the style of xdp-tutorial's parsing_helpers.h). */
#pragma once
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/udp.h>
#include <linux/tcp.h>
#include <linux/in.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

struct hdr_cursor { void *pos; };

static __always_inline int parse_eth(struct hdr_cursor *nh, void *data_end, struct ethhdr **eth)
{
	struct ethhdr *e = nh->pos;
	if ((void *)(e + 1) > data_end)
		return -1;
	nh->pos = e + 1;
	*eth = e;
	return e->h_proto;
}

static __always_inline int parse_ip4(struct hdr_cursor *nh, void *data_end, struct iphdr **iph)
{
	struct iphdr *ip = nh->pos;
	int len;
	if ((void *)(ip + 1) > data_end)
		return -1;
	len = ip->ihl * 4;
	if (len < (int)sizeof(*ip))
		return -1;
	if (nh->pos + len > data_end)
		return -1;
	nh->pos += len;
	*iph = ip;
	return ip->protocol;
}
