/* A GRE terminator in the style of suricata's XDP load balancer (ebpf/xdp_lb.c): transparent Ethernet
 * over GRE is stripped with bpf_xdp_adjust_head and the inner IPv4 flow is hashed into a bucket counter.
 * Twice the code reads a field before the check that makes the read safe, as xdp_lb.c does: the inner
 * Ethernet type right after the head moved (`proto = eth->h_proto;` then `if (data + off > data_end)`)
 * and the inner total length before the inner header's bounds check. Where the source puts them the
 * kernel refuses those reads ("invalid access to packet"); clang-19 moves each load below the checks
 * that return early, since only the path that passes them uses the value and nothing stores to memory
 * in between, and the kernel accepts its build. */
#include "common.h"

#define GRE_FLAG_CSUM 0x8000
#define GRE_FLAG_KEY 0x2000
#define GRE_FLAG_SEQ 0x1000
#define GRE_FLAG_ROUTING_VER 0x4007
#ifndef ETH_P_TEB
#define ETH_P_TEB 0x6558
#endif
#define NBUCKETS 8

struct gre_base {
	__be16 flags;
	__be16 proto;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, NBUCKETS + 1);
	__type(key, __u32);
	__type(value, __u64);
} gre_buckets SEC(".maps");

static __always_inline int bucket_of(void *l3, void *data_end)
{
	struct iphdr *iph = l3;
	__u16 tot = bpf_ntohs(iph->tot_len);
	__u32 a, b, h;

	if ((void *)(iph + 1) > data_end)
		return -1;
	if (iph->version != 4)
		return -1;
	a = iph->saddr;
	b = iph->daddr;
	/* symmetric: both directions of a flow land in one bucket */
	h = a > b ? a ^ (b << 1) : b ^ (a << 1);
	h += tot;
	h ^= h >> 16;
	return h & (NBUCKETS - 1);
}

static __always_inline void count(__u32 key)
{
	__u64 *c = bpf_map_lookup_elem(&gre_buckets, &key);

	if (c)
		__sync_fetch_and_add(c, 1);
}

SEC("xdp")
int xdp_gre_term(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;
	struct ethhdr *eth = data;
	struct iphdr *iph = data + sizeof(*eth);
	struct gre_base *gre = (void *)(iph + 1);
	__u64 off = sizeof(*eth) + sizeof(*iph) + sizeof(*gre);
	__be16 proto;
	int b;

	if ((void *)(gre + 1) > data_end)
		return XDP_PASS;
	if (eth->h_proto != bpf_htons(ETH_P_IP) || iph->protocol != IPPROTO_GRE || iph->ihl != 5)
		return XDP_PASS;
	if (gre->flags & bpf_htons(GRE_FLAG_ROUTING_VER))
		return XDP_PASS;
	if (gre->flags & bpf_htons(GRE_FLAG_CSUM))
		off += 4;
	if (gre->flags & bpf_htons(GRE_FLAG_KEY))
		off += 4;
	if (gre->flags & bpf_htons(GRE_FLAG_SEQ))
		off += 4;
	if (gre->proto != bpf_htons(ETH_P_TEB))
		return XDP_PASS;
	if (data + off > data_end)
		return XDP_PASS;
	if (bpf_xdp_adjust_head(ctx, (int)off))
		return XDP_ABORTED;

	data = (void *)(long)ctx->data;
	data_end = (void *)(long)ctx->data_end;
	eth = data;
	proto = eth->h_proto;
	off = sizeof(*eth);
	if (data + off > data_end) {
		count(NBUCKETS);
		return XDP_DROP;
	}
	if (proto != bpf_htons(ETH_P_IP))
		return XDP_PASS;
	b = bucket_of(data + off, data_end);
	if (b < 0)
		return XDP_DROP;
	count(b);
	return XDP_PASS;
}

char _license[] SEC("license") = "GPL";
