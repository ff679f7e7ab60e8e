#include "common.h"

struct bucket {
	__u64 tokens;
	__u64 last;
	__u32 drops;
	__u32 gen;
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 64);
	__type(key, __u32);
	__type(value, struct bucket);
} buckets SEC(".maps");

SEC("xdp")
int xdp_cas_limit(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;
	struct ethhdr *eth = data;
	struct iphdr *ip;
	struct bucket *b, nb = {};
	__u32 key;
	__u64 old, want;
	int tries;

	if ((void *)(eth + 1) > data_end)
		return XDP_DROP;
	if (eth->h_proto != bpf_htons(ETH_P_IP))
		return XDP_PASS;
	ip = (void *)(eth + 1);
	if ((void *)(ip + 1) > data_end)
		return XDP_DROP;
	key = ip->saddr & bpf_htonl(0xffffff00);
	b = bpf_map_lookup_elem(&buckets, &key);
	if (!b) {
		nb.tokens = 3;
		nb.gen = 1;
		bpf_map_update_elem(&buckets, &key, &nb, BPF_ANY);
		return XDP_PASS;
	}
	for (tries = 0; tries < 4; tries++) {
		old = b->tokens;
		if (old == 0) {
			__sync_fetch_and_add(&b->drops, 1);
			return XDP_DROP;
		}
		want = old - 1;
		if (__sync_val_compare_and_swap(&b->tokens, old, want) == old)
			break;
	}
	__sync_lock_test_and_set(&b->gen, b->gen + 1);
	return XDP_PASS;
}

char _license[] SEC("license") = "GPL";
