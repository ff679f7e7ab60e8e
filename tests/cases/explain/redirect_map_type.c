#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16);
	__type(key, __u32);
	__type(value, __u32);
} ports SEC(".maps");
SEC("xdp")
int xdp_r(struct xdp_md *ctx)
{
	return bpf_redirect_map(&ports, ctx->rx_queue_index, 0);
}
char _license[] SEC("license") = "GPL";
