/* Packets: 802.1Q-tagged and untagged Ethernet. Pops one VLAN tag: moves
 * the MAC addresses forward by 4 bytes and shrinks the head with
 * bpf_xdp_adjust_head; untagged frames pass unchanged. */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

struct vlan_hdr {
	__be16 h_vlan_TCI;
	__be16 h_vlan_encapsulated_proto;
};

SEC("xdp")
int xdp_pop_vlan(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;
	struct ethhdr *eth = data;
	struct vlan_hdr *vh = (void *)(eth + 1);
	struct ethhdr copy;

	if ((void *)(vh + 1) > data_end)
		return XDP_PASS;
	if (eth->h_proto != bpf_htons(ETH_P_8021Q))
		return XDP_PASS;
	__builtin_memcpy(&copy, eth, sizeof(copy));
	copy.h_proto = vh->h_vlan_encapsulated_proto;
	if (bpf_xdp_adjust_head(ctx, (int)sizeof(*vh)))
		return XDP_ABORTED;
	data = (void *)(long)ctx->data;
	data_end = (void *)(long)ctx->data_end;
	eth = data;
	if ((void *)(eth + 1) > data_end)
		return XDP_ABORTED;
	__builtin_memcpy(eth, &copy, sizeof(*eth));
	return XDP_PASS;
}
char _license[] SEC("license") = "GPL";
