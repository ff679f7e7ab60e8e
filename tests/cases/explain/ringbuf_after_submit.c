#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4096);
} events SEC(".maps");
SEC("xdp")
int xdp_rb(struct xdp_md *ctx)
{
	__u32 *e = bpf_ringbuf_reserve(&events, 8, 0);
	if (!e)
		return XDP_PASS;
	e[0] = 1;
	bpf_ringbuf_submit(e, 0);
	e[1] = 2;
	return XDP_PASS;
}
char _license[] SEC("license") = "GPL";
