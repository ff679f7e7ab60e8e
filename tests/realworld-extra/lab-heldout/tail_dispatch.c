#include "common.h"

enum { PROG_V4 = 0, PROG_V6 = 1, PROG_MAX };

struct {
	__uint(type, BPF_MAP_TYPE_PROG_ARRAY);
	__uint(max_entries, PROG_MAX);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(__u32));
} jmp_table SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 4);
	__type(key, __u32);
	__type(value, __u64);
} hits SEC(".maps");

static __always_inline void hit(__u32 i)
{
	__u64 *v = bpf_map_lookup_elem(&hits, &i);
	if (v)
		(*v)++;
}

SEC("xdp")
int xdp_v4(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;
	struct iphdr *ip = data + sizeof(struct ethhdr);
	hit(1);
	if ((void *)(ip + 1) > data_end)
		return XDP_DROP;
	return ip->ttl < 2 ? XDP_DROP : XDP_PASS;
}

SEC("xdp")
int xdp_v6(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;
	struct ipv6hdr *ip6 = data + sizeof(struct ethhdr);
	hit(2);
	if ((void *)(ip6 + 1) > data_end)
		return XDP_DROP;
	return ip6->hop_limit < 2 ? XDP_DROP : XDP_PASS;
}

SEC("xdp")
int xdp_dispatch(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;
	struct ethhdr *eth = data;
	if ((void *)(eth + 1) > data_end)
		return XDP_DROP;
	hit(0);
	switch (bpf_ntohs(eth->h_proto)) {
	case ETH_P_IP:
		bpf_tail_call(ctx, &jmp_table, PROG_V4);
		break;
	case ETH_P_IPV6:
		bpf_tail_call(ctx, &jmp_table, PROG_V6);
		break;
	}
	hit(3);
	return XDP_PASS;
}

char _license[] SEC("license") = "GPL";
