#include "common.h"

struct meta {
	__u32 mark;
	__u16 l3_off;
	__u16 l4_proto;
};

SEC("xdp")
int xdp_meta_mark(struct xdp_md *ctx)
{
	void *data, *data_end, *data_meta;
	struct meta *m;
	struct ethhdr *eth;
	struct iphdr *ip;
	__u32 h = 0;

	if (bpf_xdp_adjust_meta(ctx, -(int)sizeof(struct meta)))
		return XDP_PASS;
	data = (void *)(long)ctx->data;
	data_end = (void *)(long)ctx->data_end;
	data_meta = (void *)(long)ctx->data_meta;
	m = data_meta;
	if ((void *)(m + 1) > data)
		return XDP_ABORTED;
	eth = data;
	if ((void *)(eth + 1) > data_end)
		return XDP_DROP;
	m->l3_off = sizeof(*eth);
	m->l4_proto = 0;
	m->mark = 0;
	if (eth->h_proto != bpf_htons(ETH_P_IP))
		return XDP_PASS;
	ip = (void *)(eth + 1);
	if ((void *)(ip + 1) > data_end)
		return XDP_DROP;
	m->l4_proto = ip->protocol;
	h = ip->saddr ^ ip->daddr;
	h ^= h >> 16;
	h *= 0x45d9f3b;
	h ^= h >> 16;
	m->mark = (h % 7) + 1;
	if ((__s32)m->mark - 4 < 0)
		return XDP_PASS;
	return bpf_redirect(ctx->ingress_ifindex, 0) == XDP_REDIRECT ? XDP_PASS : XDP_ABORTED;
}

char _license[] SEC("license") = "GPL";
