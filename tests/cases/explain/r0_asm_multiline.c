#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

SEC("xdp")
int prog(struct xdp_md *ctx)
{
	void *data_end = (void *)(long)ctx->data_end;
	void *data = (void *)(long)ctx->data;

	/* Frames without a full Ethernet + IPv4 header leave here. */
	asm volatile("r3 = %[p]\n\t"
		     "r3 += 34\n\t"
		     "if r3 <= %[end] goto +1\n\t"
		     "exit"
		     : : [p]"r"(data), [end]"r"(data_end)
		     : "r3");
	return XDP_PASS;
}
char _license[] SEC("license") = "GPL";
