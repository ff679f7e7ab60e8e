/* Packets: untagged Ethernet and others. Pushes an 802.1Q tag (VLAN 42)
 * onto untagged IPv4 frames with bpf_xdp_adjust_head(-4), moving the MAC
 * addresses to the new head; XDP_TX for tagged results, PASS otherwise. */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

struct vlan_hdr {
	__be16 h_vlan_TCI;
	__be16 h_vlan_encapsulated_proto;
};

SEC("xdp")
int xdp_push_vlan(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;
	struct ethhdr *eth = data;
	struct ethhdr orig;
	struct vlan_hdr *vh;

	if ((void *)(eth + 1) > data_end || eth->h_proto != bpf_htons(ETH_P_IP))
		return XDP_PASS;
	orig = *eth;
	if (bpf_xdp_adjust_head(ctx, -(int)sizeof(struct vlan_hdr)))
		return XDP_ABORTED;
	data = (void *)(long)ctx->data;
	data_end = (void *)(long)ctx->data_end;
	eth = data;
	vh = (void *)(eth + 1);
	if ((void *)(vh + 1) > data_end)
		return XDP_ABORTED;
	__builtin_memcpy(eth->h_dest, orig.h_dest, ETH_ALEN);
	__builtin_memcpy(eth->h_source, orig.h_source, ETH_ALEN);
	eth->h_proto = bpf_htons(ETH_P_8021Q);
	vh->h_vlan_TCI = bpf_htons(42);
	vh->h_vlan_encapsulated_proto = orig.h_proto;
	return XDP_TX;
}
char _license[] SEC("license") = "GPL";
