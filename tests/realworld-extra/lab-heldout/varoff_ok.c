#include "common.h"

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 128);
	__type(key, __u16);
	__type(value, __u32);
} port_action SEC(".maps");

SEC("xdp")
int xdp_varoff(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;
	struct ethhdr *eth = data;
	struct iphdr *ip;
	struct udphdr *udp;
	__u32 ihl, *act;
	__u16 dport;

	if ((void *)(eth + 1) > data_end)
		return XDP_DROP;
	if (eth->h_proto != bpf_htons(ETH_P_IP))
		return XDP_PASS;
	ip = (void *)(eth + 1);
	if ((void *)(ip + 1) > data_end)
		return XDP_DROP;
	ihl = ip->ihl;
	if (ihl < 5 || ihl > 15)
		return XDP_DROP;
	if (ip->protocol != IPPROTO_UDP)
		return XDP_PASS;
	udp = (void *)ip + ihl * 4;
	if ((void *)(udp + 1) > data_end)
		return XDP_DROP;
	dport = bpf_ntohs(udp->dest);
	act = bpf_map_lookup_elem(&port_action, &dport);
	if (!act)
		return XDP_PASS;
	return *act <= XDP_REDIRECT ? *act : XDP_ABORTED;
}

char _license[] SEC("license") = "GPL";
