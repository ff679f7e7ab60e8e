#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16);
	__type(key, __u32);
	__type(value, __u64);
} cnt SEC(".maps");

/* Rejected: the lookup may return NULL and the value is used unchecked. */
SEC("xdp")
int xdp_null(struct xdp_md *ctx)
{
	__u32 k = ctx->rx_queue_index;
	__u64 *v = bpf_map_lookup_elem(&cnt, &k);
	*v += 1;
	return XDP_PASS;
}
char _license[] SEC("license") = "GPL";
