#include "common.h"

/* Rejected by the kernel: the offset read from the packet is not bounded before use. */
SEC("xdp")
int xdp_bad_varoff(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;
	__u8 *p = data;
	__u8 off;

	if ((void *)(p + 16) > data_end)
		return XDP_DROP;
	off = p[14];
	if (p[off] == 0x45)
		return XDP_PASS;
	return XDP_DROP;
}

char _license[] SEC("license") = "GPL";
