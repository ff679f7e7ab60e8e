/* Packets: any. Trims every frame longer than 64 bytes down to 64 with
 * bpf_xdp_adjust_tail, passes it; shorter frames pass unchanged. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#define MAX_LEN 64

SEC("xdp")
int xdp_trim(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;
	int len = data_end - data;

	if (len > MAX_LEN) {
		if (bpf_xdp_adjust_tail(ctx, MAX_LEN - len))
			return XDP_ABORTED;
	}
	return XDP_PASS;
}
char _license[] SEC("license") = "GPL";
