#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
SEC("xdp")
int xdp_var(struct xdp_md *ctx)
{
	char buf[64];
	__u32 len = ctx->data_end - ctx->data;
	if (len > 64)
		len = 64;
	if (bpf_xdp_load_bytes(ctx, 0, buf, len))
		return XDP_PASS;
	return buf[0] == 1 ? XDP_DROP : XDP_PASS;
}
char _license[] SEC("license") = "GPL";
