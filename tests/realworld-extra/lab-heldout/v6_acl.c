#include "common.h"

struct acl_rule {
	struct in6_addr prefix;
	__u8 plen;
	__u8 action;
	__u16 port_lo;
	__u16 port_hi;
};

#define MAX_RULES 8

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct acl_rule[MAX_RULES]);
} acl SEC(".maps");

static __always_inline int prefix_match(const struct in6_addr *a, const struct in6_addr *p, __u8 plen)
{
	int w;
	for (w = 0; w < 4; w++) {
		__u32 bits = plen > w * 32 ? plen - w * 32 : 0;
		__u32 mask;
		if (bits == 0)
			return 1;
		mask = bits >= 32 ? 0xffffffff : bpf_htonl(~((1U << (32 - bits)) - 1));
		if ((a->in6_u.u6_addr32[w] ^ p->in6_u.u6_addr32[w]) & mask)
			return 0;
	}
	return 1;
}

SEC("xdp")
int xdp_v6_acl(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;
	struct ethhdr *eth = data;
	struct ipv6hdr *ip6;
	struct udphdr *udp;
	struct acl_rule *rules;
	__u32 zero = 0;
	__u16 dport;
	int i;

	if ((void *)(eth + 1) > data_end)
		return XDP_DROP;
	if (eth->h_proto != bpf_htons(ETH_P_IPV6))
		return XDP_PASS;
	ip6 = (void *)(eth + 1);
	if ((void *)(ip6 + 1) > data_end)
		return XDP_DROP;
	if (ip6->nexthdr != IPPROTO_UDP)
		return XDP_PASS;
	udp = (void *)(ip6 + 1);
	if ((void *)(udp + 1) > data_end)
		return XDP_DROP;
	dport = bpf_ntohs(udp->dest);
	rules = bpf_map_lookup_elem(&acl, &zero);
	if (!rules)
		return XDP_ABORTED;
	for (i = 0; i < MAX_RULES; i++) {
		struct acl_rule *r = &rules[i];
		if (r->plen == 0 && r->action == 0)
			break;
		if (dport < r->port_lo || dport > r->port_hi)
			continue;
		if (prefix_match(&ip6->saddr, &r->prefix, r->plen))
			return r->action;
	}
	return XDP_PASS;
}

char _license[] SEC("license") = "GPL";
