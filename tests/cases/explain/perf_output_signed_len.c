#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct {
	__uint(type, BPF_MAP_TYPE_PERF_EVENT_ARRAY);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(__u32));
} events SEC(".maps");

/* Sends the first bytes of the frame, copied to the stack; the length is a signed difference. */
SEC("xdp")
int xdp_sample(struct xdp_md *ctx)
{
	char buf[64] = {};
	long len = ctx->data_end - ctx->data;

	if (bpf_xdp_load_bytes(ctx, 0, buf, 32))
		return XDP_PASS;
	bpf_perf_event_output(ctx, &events, BPF_F_CURRENT_CPU, buf, len);
	return XDP_PASS;
}
char _license[] SEC("license") = "GPL";
