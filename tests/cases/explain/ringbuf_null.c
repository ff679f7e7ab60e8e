#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4096);
} events SEC(".maps");

struct event {
	__u32 len;
	__u32 ifindex;
};

SEC("xdp")
int xdp_log(struct xdp_md *ctx)
{
	struct event *e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);

	e->len = ctx->data_end - ctx->data;
	e->ifindex = ctx->ingress_ifindex;
	bpf_ringbuf_submit(e, 0);
	return XDP_PASS;
}
char _license[] SEC("license") = "GPL";
