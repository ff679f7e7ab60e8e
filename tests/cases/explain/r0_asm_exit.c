#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

SEC("xdp")
int prog(struct xdp_md *ctx)
{
	void *data_end = (void *)(long)ctx->data_end;
	void *data = (void *)(long)ctx->data;

	/* Runt frames (shorter than an Ethernet header) go to the stack untouched. */
	asm volatile("%[p] += 14; if %[p] <= %[end] goto +1; exit" : : [p]"r"(data), [end]"r"(data_end));
	return XDP_PASS;
}
char _license[] SEC("license") = "GPL";
