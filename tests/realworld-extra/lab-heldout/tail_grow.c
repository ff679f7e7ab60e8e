#include "common.h"

#define TRAILER 8

struct {
	__uint(type, BPF_MAP_TYPE_PERF_EVENT_ARRAY);
	__uint(key_size, sizeof(int));
	__uint(value_size, sizeof(__u32));
} events SEC(".maps");

SEC("xdp")
int xdp_tail_grow(struct xdp_md *ctx)
{
	void *data, *data_end;
	__u64 len;
	__u32 i;
	__u8 *t;
	__u64 meta;

	data = (void *)(long)ctx->data;
	data_end = (void *)(long)ctx->data_end;
	len = data_end - data;
	if (len < 14 || len > 1500)
		return XDP_PASS;
	if (bpf_xdp_adjust_tail(ctx, TRAILER))
		return XDP_PASS;
	data = (void *)(long)ctx->data;
	data_end = (void *)(long)ctx->data_end;
	if (data + len + TRAILER > data_end)
		return XDP_ABORTED;
	t = data + len;
	if ((void *)(t + TRAILER) > data_end)
		return XDP_ABORTED;
	for (i = 0; i < TRAILER; i++)
		t[i] = (__u8)(0xa0 + i + (len & 0xf));
	meta = len;
	bpf_perf_event_output(ctx, &events, BPF_F_CURRENT_CPU | ((__u64)14 << 32), &meta, sizeof(meta));
	return XDP_TX;
}

char _license[] SEC("license") = "GPL";
