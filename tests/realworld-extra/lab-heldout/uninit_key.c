#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct key { __u8 proto; __u32 addr; };

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16);
	__type(key, struct key);
	__type(value, __u64);
} m SEC(".maps");

/* The key's padding bytes are never written and the helper reads all eight: a privileged loader may read uninitialized stack (allow_uninit_stack), so the kernel accepts it. */
SEC("xdp")
int xdp_uninit(struct xdp_md *ctx)
{
	struct key k;
	__u64 *v;
	k.proto = 17;
	k.addr = ctx->rx_queue_index;
	v = bpf_map_lookup_elem(&m, &k);
	return v ? XDP_DROP : XDP_PASS;
}
char _license[] SEC("license") = "GPL";
