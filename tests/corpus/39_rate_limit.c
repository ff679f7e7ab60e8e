/* Packets: any Ethernet. A token bucket per source MAC byte in an array of
 * structs: each packet costs one token from a budget of 5 refilled never
 * (deterministic); once empty, packets drop. Uses a pointer to a struct
 * map value and several fields. */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <bpf/bpf_helpers.h>

struct bucket {
	__u32 tokens;
	__u32 initialised;
	__u64 dropped;
	__u64 passed;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, struct bucket);
	__uint(max_entries, 256);
} buckets SEC(".maps");

#define BUDGET 5

SEC("xdp")
int xdp_rate_limit(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;
	struct ethhdr *eth = data;
	struct bucket *b;
	__u32 key;

	if ((void *)(eth + 1) > data_end)
		return XDP_DROP;
	key = eth->h_source[5];
	b = bpf_map_lookup_elem(&buckets, &key);
	if (!b)
		return XDP_ABORTED;
	if (!b->initialised) {
		b->initialised = 1;
		b->tokens = BUDGET;
	}
	if (b->tokens == 0) {
		b->dropped++;
		return XDP_DROP;
	}
	b->tokens--;
	b->passed++;
	return XDP_PASS;
}
char _license[] SEC("license") = "GPL";
