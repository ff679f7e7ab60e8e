/* Packets: any Ethernet. Learns source MACs in a hash map (value: packet
 * count and the ingress ifindex) and counts frames whose destination MAC
 * was already learned; passes all. */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <bpf/bpf_helpers.h>

struct mac_key {
	__u8 addr[ETH_ALEN];
	__u16 pad;
};

struct mac_info {
	__u64 packets;
	__u32 ifindex;
	__u32 flags;
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, struct mac_key);
	__type(value, struct mac_info);
	__uint(max_entries, 128);
} fdb SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, __u64);
	__uint(max_entries, 1);
} known_dst SEC(".maps");

SEC("xdp")
int xdp_learn(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;
	struct ethhdr *eth = data;
	struct mac_key key = {};
	struct mac_info *info;
	__u32 zero = 0;

	if ((void *)(eth + 1) > data_end)
		return XDP_PASS;

	__builtin_memcpy(key.addr, eth->h_source, ETH_ALEN);
	info = bpf_map_lookup_elem(&fdb, &key);
	if (info) {
		info->packets++;
		info->ifindex = ctx->ingress_ifindex;
	} else {
		struct mac_info fresh = { .packets = 1, .ifindex = ctx->ingress_ifindex };
		bpf_map_update_elem(&fdb, &key, &fresh, BPF_ANY);
	}

	__builtin_memcpy(key.addr, eth->h_dest, ETH_ALEN);
	if (bpf_map_lookup_elem(&fdb, &key)) {
		__u64 *n = bpf_map_lookup_elem(&known_dst, &zero);
		if (n)
			*n += 1;
	}
	return XDP_PASS;
}
char _license[] SEC("license") = "GPL";
