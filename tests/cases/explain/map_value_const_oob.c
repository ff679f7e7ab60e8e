#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
struct stats { __u64 pkts[4]; };
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct stats);
} st SEC(".maps");
SEC("xdp")
int xdp_mv(struct xdp_md *ctx)
{
	__u32 k = 0;
	struct stats *s = bpf_map_lookup_elem(&st, &k);
	if (!s)
		return XDP_PASS;
	s->pkts[4]++;
	return XDP_PASS;
}
char _license[] SEC("license") = "GPL";
