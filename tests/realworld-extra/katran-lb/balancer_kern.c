/* SPDX-License-Identifier: GPL-2.0 */
/* An L4 load balancer's fast path in the style of katran's balancer_kern.c: look the
 * VIP up, hash the flow onto a consistent-hashing ring, pick a real, count, and send
 * the packet back out with the real's address (IPIP encapsulation is left out). */
#include <stddef.h>
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

#include "balancer_consts.h"
#include "balancer_structs.h"
#include "balancer_maps.h"
#include "pckt_parsing.h"

#define ROL32(v, s) (((v) << (s)) | ((v) >> (32 - (s))))

__INLINE__ static inline __u32 jhash_2words(__u32 a, __u32 b, __u32 initval)
{
	__u32 c = initval + 0xdeadbeef + (2 << 2);

	a += 0xdeadbeef + (2 << 2);
	b += 0xdeadbeef + (2 << 2);
	c ^= b; c -= ROL32(b, 14);
	a ^= c; a -= ROL32(c, 11);
	b ^= a; b -= ROL32(a, 25);
	c ^= b; c -= ROL32(b, 16);
	return c;
}

__INLINE__ static inline __u32 get_packet_hash(struct packet_description *pckt)
{
	return jhash_2words(pckt->flow.src, pckt->flow.ports, MAX_VIPS);
}

__INLINE__ static inline int process_l3_headers(struct packet_description *pckt, __u8 *protocol, __u64 off, void *data, void *data_end)
{
	struct iphdr *iph = data + off;

	if ((void *)(iph + 1) > data_end)
		return XDP_DROP;
	if (iph->ihl != 5)
		return XDP_DROP;
	if (iph->frag_off & bpf_htons(PCKT_FRAGMENTED))
		return XDP_DROP;
	*protocol = iph->protocol;
	pckt->flow.proto = *protocol;
	pckt->tos = iph->tos;
	pckt->flow.src = iph->saddr;
	pckt->flow.dst = iph->daddr;
	return FURTHER_PROCESSING;
}

__INLINE__ static inline int process_packet(void *data, __u64 off, void *data_end, struct xdp_md *xdp)
{
	struct packet_description pckt = {};
	struct vip_definition vip = {};
	struct vip_meta *vip_info;
	struct real_definition *dst;
	struct lb_stats *st;
	__u32 key, *real_pos, hash, stats_key;
	__u8 protocol;
	int action;

	action = process_l3_headers(&pckt, &protocol, off, data, data_end);
	if (action >= 0)
		return action;
	off += sizeof(struct iphdr);
	if (protocol == IPPROTO_TCP) {
		if (!parse_tcp(data, data_end, off, &pckt))
			return XDP_DROP;
	} else if (protocol == IPPROTO_UDP) {
		if (!parse_udp(data, data_end, off, &pckt))
			return XDP_DROP;
	} else {
		return XDP_PASS;
	}
	vip.vip = pckt.flow.dst;
	vip.port = pckt.flow.port16[1];
	vip.proto = pckt.flow.proto;
	vip_info = bpf_map_lookup_elem(&vip_map, &vip);
	if (!vip_info)
		return XDP_PASS;
	hash = get_packet_hash(&pckt) % RING_SIZE;
	key = RING_SIZE * vip_info->vip_num + hash;
	real_pos = bpf_map_lookup_elem(&ch_rings, &key);
	if (!real_pos)
		return XDP_DROP;
	key = *real_pos;
	dst = bpf_map_lookup_elem(&reals, &key);
	if (!dst)
		return XDP_DROP;
	stats_key = vip_info->vip_num;
	st = bpf_map_lookup_elem(&stats, &stats_key);
	if (st) {
		st->v1 += 1;
		st->v2 += data_end - data;
	}
	return XDP_TX;
}

SEC("xdp")
int balancer_ingress(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;
	struct ethhdr *eth = data;
	__u32 nh_off = sizeof(struct ethhdr);

	if (data + nh_off > data_end)
		return XDP_DROP;
	if (eth->h_proto == bpf_htons(ETH_P_IP))
		return process_packet(data, nh_off, data_end, ctx);
	return XDP_PASS;
}

char _license[] SEC("license") = "GPL";
