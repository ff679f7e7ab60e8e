#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
struct {
	__uint(type, BPF_MAP_TYPE_PROG_ARRAY);
	__uint(max_entries, 4);
	__type(key, __u32);
	__type(value, __u32);
} jmp SEC(".maps");
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4096);
} events SEC(".maps");
SEC("xdp")
int xdp_tc(struct xdp_md *ctx)
{
	__u32 *e = bpf_ringbuf_reserve(&events, 4, 0);
	if (!e)
		return XDP_PASS;
	*e = ctx->rx_queue_index;
	bpf_tail_call(ctx, &jmp, 0);
	bpf_ringbuf_submit(e, 0);
	return XDP_PASS;
}
char _license[] SEC("license") = "GPL";
