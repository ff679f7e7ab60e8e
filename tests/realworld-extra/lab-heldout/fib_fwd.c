#include "common.h"

#ifndef AF_INET
#define AF_INET 2
#endif

struct {
	__uint(type, BPF_MAP_TYPE_DEVMAP);
	__uint(max_entries, 64);
	__type(key, __u32);
	__type(value, __u32);
} tx_ports SEC(".maps");

static __always_inline int ip_decrease_ttl(struct iphdr *iph)
{
	__u32 check = iph->check;
	check += bpf_htons(0x0100);
	iph->check = (__u16)(check + (check >= 0xFFFF));
	return --iph->ttl;
}

SEC("xdp")
int xdp_fib_fwd(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;
	struct bpf_fib_lookup fib = {};
	struct ethhdr *eth = data;
	struct iphdr *iph;
	long rc;

	if ((void *)(eth + 1) > data_end)
		return XDP_DROP;
	if (eth->h_proto != bpf_htons(ETH_P_IP))
		return XDP_PASS;
	iph = (void *)(eth + 1);
	if ((void *)(iph + 1) > data_end)
		return XDP_DROP;
	if (iph->ttl <= 1)
		return XDP_PASS;
	fib.family = AF_INET;
	fib.tos = iph->tos;
	fib.l4_protocol = iph->protocol;
	fib.tot_len = bpf_ntohs(iph->tot_len);
	fib.ipv4_src = iph->saddr;
	fib.ipv4_dst = iph->daddr;
	fib.ifindex = ctx->ingress_ifindex;
	rc = bpf_fib_lookup(ctx, &fib, sizeof(fib), 0);
	switch (rc) {
	case BPF_FIB_LKUP_RET_SUCCESS:
		ip_decrease_ttl(iph);
		__builtin_memcpy(eth->h_dest, fib.dmac, ETH_ALEN);
		__builtin_memcpy(eth->h_source, fib.smac, ETH_ALEN);
		return bpf_redirect_map(&tx_ports, fib.ifindex, 0);
	case BPF_FIB_LKUP_RET_BLACKHOLE:
	case BPF_FIB_LKUP_RET_UNREACHABLE:
	case BPF_FIB_LKUP_RET_PROHIBIT:
		return XDP_DROP;
	default:
		return XDP_PASS;
	}
}

char _license[] SEC("license") = "GPL";
