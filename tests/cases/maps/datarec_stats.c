/* xdp-tutorial basic03's shape: a per-action struct datarec, for the maps pane's C initializers (e2e/maps-typed.spec.ts, tests/unit/engine-map-input.test.ts). */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
struct datarec { __u64 rx_packets; __u64 rx_bytes; };
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, struct datarec);
	__uint(max_entries, 5);
} xdp_stats_map SEC(".maps");
SEC("xdp")
int xdp_stats1(struct xdp_md *ctx)
{
	__u32 key = XDP_PASS;
	struct datarec *rec = bpf_map_lookup_elem(&xdp_stats_map, &key);
	if (!rec)
		return XDP_ABORTED;
	__sync_fetch_and_add(&rec->rx_packets, 1);
	return XDP_PASS;
}
char _license[] SEC("license") = "GPL";
