#include "common.h"

struct lpm_v4 {
	__u32 prefixlen;
	__u32 addr;
};

struct {
	__uint(type, BPF_MAP_TYPE_LPM_TRIE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 256);
	__type(key, struct lpm_v4);
	__type(value, __u64);
} blocklist SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 3);
	__type(key, __u32);
	__type(value, __u64);
} verdicts SEC(".maps");

const volatile __u32 block_udp_only = 0;

static __always_inline void count(__u32 idx)
{
	__u64 *v = bpf_map_lookup_elem(&verdicts, &idx);
	if (v)
		*v += 1;
}

SEC("xdp")
int xdp_lpm_block(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;
	struct hdr_cursor nh = { .pos = data };
	struct ethhdr *eth;
	struct iphdr *ip;
	struct lpm_v4 key;
	__u64 *hits;
	int proto;

	if (parse_eth(&nh, data_end, &eth) != bpf_htons(ETH_P_IP)) {
		count(0);
		return XDP_PASS;
	}
	proto = parse_ip4(&nh, data_end, &ip);
	if (proto < 0) {
		count(2);
		return XDP_ABORTED;
	}
	if (block_udp_only && proto != IPPROTO_UDP) {
		count(0);
		return XDP_PASS;
	}
	key.prefixlen = 32;
	key.addr = ip->saddr;
	hits = bpf_map_lookup_elem(&blocklist, &key);
	if (hits) {
		__sync_fetch_and_add(hits, 1);
		count(1);
		return XDP_DROP;
	}
	count(0);
	return XDP_PASS;
}

char _license[] SEC("license") = "GPL";
