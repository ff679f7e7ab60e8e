/* Packets: Ethernet with zero, one (802.1Q) or two (802.1ad + 802.1Q) VLAN
 * tags. Counts by number of tags (index 0..2, 3 = truncated inside a tag)
 * and drops tagged frames, passes untagged ones. */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

struct vlan_hdr {
	__be16 h_vlan_TCI;
	__be16 h_vlan_encapsulated_proto;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, __u64);
	__uint(max_entries, 4);
} tags SEC(".maps");

static __always_inline int is_vlan(__be16 proto)
{
	return proto == bpf_htons(ETH_P_8021Q) || proto == bpf_htons(ETH_P_8021AD);
}

SEC("xdp")
int xdp_vlan(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;
	struct ethhdr *eth = data;
	struct vlan_hdr *vh;
	__u32 depth = 0;
	__be16 proto;
	__u64 *cnt;

	if ((void *)(eth + 1) > data_end)
		return XDP_PASS;
	proto = eth->h_proto;
	vh = (void *)(eth + 1);
	if (is_vlan(proto)) {
		if ((void *)(vh + 1) > data_end) {
			depth = 3;
			goto count;
		}
		proto = vh->h_vlan_encapsulated_proto;
		vh++;
		depth = 1;
		if (is_vlan(proto)) {
			if ((void *)(vh + 1) > data_end) {
				depth = 3;
				goto count;
			}
			depth = 2;
		}
	}
count:
	cnt = bpf_map_lookup_elem(&tags, &depth);
	if (cnt)
		__sync_fetch_and_add(cnt, 1);
	return depth ? XDP_DROP : XDP_PASS;
}
char _license[] SEC("license") = "GPL";
