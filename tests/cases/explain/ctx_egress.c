#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
SEC("xdp")
int xdp_eg(struct xdp_md *ctx)
{
	if (ctx->egress_ifindex == 3)
		return XDP_DROP;
	return XDP_PASS;
}
char _license[] SEC("license") = "GPL";
