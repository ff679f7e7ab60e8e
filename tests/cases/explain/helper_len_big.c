#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

/* Copies the start of the frame to the stack: the length is capped, but above the buffer's size. */
SEC("xdp")
int xdp_copy(struct xdp_md *ctx)
{
	char buf[64];
	__u32 len = ctx->data_end - ctx->data;

	if (len < 1 || len > 128)
		return XDP_PASS;
	if (bpf_xdp_load_bytes(ctx, 0, buf, len))
		return XDP_PASS;
	return buf[0] == 1 ? XDP_DROP : XDP_PASS;
}
char _license[] SEC("license") = "GPL";
