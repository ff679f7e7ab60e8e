/* Packets: IPv4 and IPv6. Builds a flow key whose address is a union of
 * an IPv4 word and an IPv6 address, counts packets per source address in
 * a hash map, passes. */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

struct addr_key {
	__u8 family;
	__u8 pad[3];
	union {
		__be32 v4;
		__be32 v6[4];
	} u;
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, struct addr_key);
	__type(value, __u64);
	__uint(max_entries, 64);
} srcs SEC(".maps");

SEC("xdp")
int xdp_union(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;
	struct ethhdr *eth = data;
	struct addr_key key;
	__u64 *v, one = 1;

	__builtin_memset(&key, 0, sizeof(key));
	if ((void *)(eth + 1) > data_end)
		return XDP_PASS;
	if (eth->h_proto == bpf_htons(ETH_P_IP)) {
		struct iphdr *iph = (void *)(eth + 1);
		if ((void *)(iph + 1) > data_end)
			return XDP_PASS;
		key.family = 4;
		key.u.v4 = iph->saddr;
	} else if (eth->h_proto == bpf_htons(ETH_P_IPV6)) {
		struct ipv6hdr *ip6 = (void *)(eth + 1);
		if ((void *)(ip6 + 1) > data_end)
			return XDP_PASS;
		key.family = 6;
		__builtin_memcpy(key.u.v6, &ip6->saddr, 16);
	} else {
		return XDP_PASS;
	}
	v = bpf_map_lookup_elem(&srcs, &key);
	if (v)
		__sync_fetch_and_add(v, 1);
	else
		bpf_map_update_elem(&srcs, &key, &one, BPF_ANY);
	return XDP_PASS;
}
char _license[] SEC("license") = "GPL";
