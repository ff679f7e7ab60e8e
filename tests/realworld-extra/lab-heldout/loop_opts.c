#include "common.h"

struct loop_ctx {
	void *data_end;
	__u8 *opt;
	__u32 found;
	__u32 len;
};

static long scan_one(__u32 i, void *arg)
{
	struct loop_ctx *c = arg;
	__u8 *p = c->opt;
	__u8 kind, olen;

	if ((void *)(p + 2) > c->data_end)
		return 1;
	kind = p[0];
	if (kind == 0)
		return 1;
	if (kind == 1) {
		c->opt = p + 1;
		return 0;
	}
	olen = p[1];
	if (olen < 2)
		return 1;
	if (kind == 2)
		c->found |= 1;
	if (kind == 8)
		c->found |= 2;
	c->len += olen;
	c->opt = p + olen;
	return 0;
}

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 4);
	__type(key, __u32);
	__type(value, __u64);
} seen SEC(".maps");

__u64 total_syns = 0;

SEC("xdp")
int xdp_tcp_opts(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;
	struct hdr_cursor nh = { .pos = data };
	struct ethhdr *eth;
	struct iphdr *ip;
	struct tcphdr *th;
	struct loop_ctx lc;
	__u64 *v;

	if (parse_eth(&nh, data_end, &eth) != bpf_htons(ETH_P_IP))
		return XDP_PASS;
	if (parse_ip4(&nh, data_end, &ip) != IPPROTO_TCP)
		return XDP_PASS;
	th = nh.pos;
	if ((void *)(th + 1) > data_end)
		return XDP_PASS;
	if (!th->syn)
		return XDP_PASS;
	__sync_fetch_and_add(&total_syns, 1);
	lc.data_end = data_end;
	lc.opt = (__u8 *)(th + 1);
	lc.found = 0;
	lc.len = 0;
	bpf_loop(10, scan_one, &lc, 0);
	v = bpf_map_lookup_elem(&seen, &lc.found);
	if (v)
		*v += 1;
	return lc.found == 3 ? XDP_PASS : XDP_DROP;
}

char _license[] SEC("license") = "GPL";
