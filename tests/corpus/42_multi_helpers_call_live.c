/* Packets: any Ethernet. Values live across several helper calls (kept in
 * callee-saved registers): two lookups, an update and a delete in one
 * program; counts, then clears every 4th packet's entry; passes. */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <bpf/bpf_helpers.h>

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, __u32);
	__type(value, __u64);
	__uint(max_entries, 32);
} seen SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, __u64);
	__uint(max_entries, 1);
} total SEC(".maps");

SEC("xdp")
int xdp_call_live(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;
	struct ethhdr *eth = data;
	__u32 key, zero = 0;
	__u64 len = data_end - data, init = 0, *v, *t;

	if ((void *)(eth + 1) > data_end)
		return XDP_PASS;
	key = eth->h_dest[5] | (eth->h_source[5] << 8);
	v = bpf_map_lookup_elem(&seen, &key);
	if (!v) {
		bpf_map_update_elem(&seen, &key, &init, BPF_ANY);
		v = bpf_map_lookup_elem(&seen, &key);
		if (!v)
			return XDP_ABORTED;
	}
	*v += len;
	t = bpf_map_lookup_elem(&total, &zero);
	if (t) {
		*t += 1;
		if ((*t & 3) == 0)
			bpf_map_delete_elem(&seen, &key);
	}
	return XDP_PASS;
}
char _license[] SEC("license") = "GPL";
