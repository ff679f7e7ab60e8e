#include "common.h"

#define ENCAP_SRC 0x0a000001
#define ENCAP_DST 0x0a000002

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} encapped SEC(".maps");

static __always_inline __u16 csum_fold(__u32 csum)
{
	csum = (csum & 0xffff) + (csum >> 16);
	csum = (csum & 0xffff) + (csum >> 16);
	return (__u16)~csum;
}

static __always_inline __u16 ip_csum(struct iphdr *ip)
{
	__u16 *p = (__u16 *)ip;
	__u32 sum = 0;
#pragma unroll
	for (int i = 0; i < (int)sizeof(*ip) / 2; i++)
		sum += p[i];
	return csum_fold(sum);
}

SEC("xdp")
int xdp_ipip_encap(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;
	struct ethhdr *eth = data, eth_copy;
	struct iphdr *inner, *outer;
	__u16 inner_len;
	__u32 zero = 0;
	__u64 *cnt;

	if ((void *)(eth + 1) > data_end)
		return XDP_DROP;
	if (eth->h_proto != bpf_htons(ETH_P_IP))
		return XDP_PASS;
	inner = (void *)(eth + 1);
	if ((void *)(inner + 1) > data_end)
		return XDP_DROP;
	if (inner->ttl <= 1)
		return XDP_PASS;
	inner_len = bpf_ntohs(inner->tot_len);
	__builtin_memcpy(&eth_copy, eth, sizeof(eth_copy));

	if (bpf_xdp_adjust_head(ctx, 0 - (int)sizeof(struct iphdr)))
		return XDP_ABORTED;
	data = (void *)(long)ctx->data;
	data_end = (void *)(long)ctx->data_end;
	eth = data;
	outer = (void *)(eth + 1);
	if ((void *)(outer + 1) > data_end)
		return XDP_ABORTED;
	__builtin_memcpy(eth, &eth_copy, sizeof(*eth));
	outer->version = 4;
	outer->ihl = 5;
	outer->tos = 0;
	outer->tot_len = bpf_htons(inner_len + sizeof(*outer));
	outer->id = 0;
	outer->frag_off = bpf_htons(0x4000);
	outer->ttl = 64;
	outer->protocol = IPPROTO_IPIP;
	outer->check = 0;
	outer->saddr = bpf_htonl(ENCAP_SRC);
	outer->daddr = bpf_htonl(ENCAP_DST);
	outer->check = ip_csum(outer);
	cnt = bpf_map_lookup_elem(&encapped, &zero);
	if (cnt)
		*cnt += inner_len;
	return XDP_TX;
}

char _license[] SEC("license") = "GPL";
