#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4096);
} events SEC(".maps");
SEC("xdp")
int xdp_rb(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;
	__u64 len = data_end - data;
	__u8 *e = bpf_ringbuf_reserve(&events, len, 0);
	if (!e)
		return XDP_PASS;
	e[0] = 1;
	bpf_ringbuf_submit(e, 0);
	return XDP_PASS;
}
char _license[] SEC("license") = "GPL";
