#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
struct {
	__uint(type, BPF_MAP_TYPE_PERF_EVENT_ARRAY);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(__u32));
} events SEC(".maps");
SEC("xdp")
int xdp_p(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;
	__u64 len = data_end - data;
	if (data + 64 > data_end)
		return XDP_PASS;
	bpf_perf_event_output(ctx, &events, BPF_F_CURRENT_CPU, data, len);
	return XDP_PASS;
}
char _license[] SEC("license") = "GPL";
