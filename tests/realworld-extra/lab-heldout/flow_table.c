#include "common.h"

struct flow_key {
	__u32 saddr;
	__u32 daddr;
	__u16 sport;
	__u16 dport;
	__u8 proto;
	__u8 pad[3];
};

struct flow_val {
	__u64 packets;
	__u64 bytes;
	__u64 first_seen;
	__u32 flags;
	__u32 pad;
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 1024);
	__type(key, struct flow_key);
	__type(value, struct flow_val);
} flows SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 4);
	__type(key, __u32);
	__type(value, __u64);
} events SEC(".maps");

static __always_inline int fill_ports(struct flow_key *k, void *l4, void *data_end)
{
	switch (k->proto) {
	case IPPROTO_TCP: {
		struct tcphdr *th = l4;
		if ((void *)(th + 1) > data_end)
			return -1;
		k->sport = th->source;
		k->dport = th->dest;
		return th->syn ? 1 : 0;
	}
	case IPPROTO_UDP: {
		struct udphdr *uh = l4;
		if ((void *)(uh + 1) > data_end)
			return -1;
		k->sport = uh->source;
		k->dport = uh->dest;
		return 0;
	}
	default:
		return 0;
	}
}

SEC("xdp")
int xdp_flow_table(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;
	struct hdr_cursor nh = { .pos = data };
	struct flow_key key = {};
	struct flow_val *val, init = {};
	struct ethhdr *eth;
	struct iphdr *ip;
	__u32 ev;
	__u64 *evc;
	int syn;

	if (parse_eth(&nh, data_end, &eth) != bpf_htons(ETH_P_IP))
		return XDP_PASS;
	if (parse_ip4(&nh, data_end, &ip) < 0)
		return XDP_DROP;
	key.saddr = ip->saddr;
	key.daddr = ip->daddr;
	key.proto = ip->protocol;
	syn = fill_ports(&key, nh.pos, data_end);
	if (syn < 0)
		return XDP_DROP;

	val = bpf_map_lookup_elem(&flows, &key);
	if (!val) {
		init.first_seen = 1;
		init.flags = syn ? 1 : 0;
		if (bpf_map_update_elem(&flows, &key, &init, BPF_NOEXIST))
			return XDP_PASS;
		val = bpf_map_lookup_elem(&flows, &key);
		if (!val)
			return XDP_PASS;
		ev = 0;
	} else {
		ev = syn ? 2 : 1;
	}
	__sync_fetch_and_add(&val->packets, 1);
	__sync_fetch_and_add(&val->bytes, (__u64)(data_end - data));
	if (val->packets > 3 && (val->flags & 1))
		ev = 3;
	evc = bpf_map_lookup_elem(&events, &ev);
	if (evc)
		*evc += 1;
	return XDP_PASS;
}

char _license[] SEC("license") = "GPL";
