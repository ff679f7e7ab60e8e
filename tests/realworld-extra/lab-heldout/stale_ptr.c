#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

/* Rejected: the packet pointers are used again after bpf_xdp_adjust_head without being reloaded. */
SEC("xdp")
int xdp_stale(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;
	struct ethhdr *eth = data;

	if ((void *)(eth + 1) > data_end)
		return XDP_DROP;
	if (bpf_xdp_adjust_head(ctx, -4))
		return XDP_DROP;
	return eth->h_proto == bpf_htons(ETH_P_IP) ? XDP_PASS : XDP_DROP;
}
char _license[] SEC("license") = "GPL";
