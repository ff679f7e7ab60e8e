#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4096);
} events SEC(".maps");

struct event { __u32 len; __u32 proto; };

SEC("xdp")
int xdp_log(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;
	struct event *e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
	if (!e)
		return XDP_PASS;
	if (data + 14 > data_end)
		return XDP_PASS;
	e->len = data_end - data;
	e->proto = 0;
	bpf_ringbuf_submit(e, 0);
	return XDP_PASS;
}

char _license[] SEC("license") = "GPL";
