/* Packets: any Ethernet. Drops broadcast/multicast destinations (bit 0 of
 * the first byte) and frames whose source MAC is all zeros, checked with
 * a #pragma unroll loop over the 6 address bytes; passes the rest. */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <bpf/bpf_helpers.h>

SEC("xdp")
int xdp_mac_check(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;
	struct ethhdr *eth = data;
	__u8 acc = 0;

	if ((void *)(eth + 1) > data_end)
		return XDP_DROP;
	if (eth->h_dest[0] & 1)
		return XDP_DROP;
#pragma unroll
	for (int i = 0; i < ETH_ALEN; i++)
		acc |= eth->h_source[i];
	return acc ? XDP_PASS : XDP_DROP;
}
char _license[] SEC("license") = "GPL";
