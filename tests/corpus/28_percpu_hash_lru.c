/* Packets: IPv4 and others. Counts packets per destination address in an
 * LRU hash and bytes per protocol in a per-CPU hash; passes. */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/ip.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__type(key, __u32);
	__type(value, __u64);
	__uint(max_entries, 16);
} per_dst SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__type(key, __u32);
	__type(value, __u64);
	__uint(max_entries, 16);
} bytes SEC(".maps");

static __always_inline void add(void *map, __u32 key, __u64 n)
{
	__u64 *v = bpf_map_lookup_elem(map, &key);

	if (v)
		*v += n;
	else
		bpf_map_update_elem(map, &key, &n, BPF_NOEXIST);
}

SEC("xdp")
int xdp_lru(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;
	struct ethhdr *eth = data;
	struct iphdr *iph = (void *)(eth + 1);

	if ((void *)(iph + 1) > data_end || eth->h_proto != bpf_htons(ETH_P_IP))
		return XDP_PASS;
	add(&per_dst, iph->daddr, 1);
	add(&bytes, iph->protocol, data_end - data);
	return XDP_PASS;
}
char _license[] SEC("license") = "GPL";
