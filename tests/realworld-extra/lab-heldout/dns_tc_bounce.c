/* A DNS front end in the style of dnsdist's and xdp-dnsrrl's XDP filters: a cursor struct walks
 * Ethernet, IPv4/IPv6, UDP and the DNS header through small inline parsers; a source listed in a
 * map gets its query bounced with the TC bit set (ports and addresses swapped, the UDP checksum
 * patched incrementally by a helper that inlines three levels down, where many values are live at
 * once), or dropped. */
#include "common.h"

struct dns_hdr {
	__be16 id;
	union {
		struct {
			__u8 rd:1, tc:1, aa:1, opcode:4, qr:1;
			__u8 rcode:4, cd:1, ad:1, z:1, ra:1;
		} bits;
		__be16 value;
	} flags;
	__be16 qdcount, ancount, nscount, arcount;
};

struct verdict {
	__u64 hits;
	__u32 action; /* 1 drop, 2 truncate */
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 64);
	__type(key, __u32);
	__type(value, struct verdict);
} v4_sources SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 64);
	__type(key, struct in6_addr);
	__type(value, struct verdict);
} v6_sources SEC(".maps");

struct cur {
	void *pos;
	void *end;
};

#define TAKE(T) \
static inline struct T *take_##T(struct cur *c) \
{ \
	struct T *h = c->pos; \
	if (c->pos + sizeof(struct T) > c->end) \
		return 0; \
	c->pos += sizeof(struct T); \
	return h; \
}
TAKE(ethhdr)
TAKE(iphdr)
TAKE(ipv6hdr)
TAKE(udphdr)
TAKE(dns_hdr)

static inline void csum_replace(__u16 *csum, __u16 old_val, __u16 new_val)
{
	__u32 undo, sum, folded;

	undo = ~((__u32)*csum) + ~((__u32)old_val);
	sum = undo + (undo < ~((__u32)old_val)) + (__u32)new_val;
	folded = sum + (sum < ((__u32)new_val));
	folded = (folded & 0xffff) + (folded >> 16);
	folded = (folded & 0xffff) + (folded >> 16);
	*csum = (__u16)~folded;
}

static inline void truncate_reply(struct udphdr *udp, struct dns_hdr *dns)
{
	__u16 old = dns->flags.value;
	__u16 port = udp->dest;

	dns->flags.bits.ad = 0;
	dns->flags.bits.qr = 1;
	dns->flags.bits.tc = 1;
	udp->dest = udp->source;
	udp->source = port;
	csum_replace(&udp->check, old, dns->flags.value);
}

static inline int on_v4(struct cur *c)
{
	struct udphdr *udp;
	struct dns_hdr *dns;
	struct iphdr *ip;
	struct verdict *v;
	__u32 src, tmp;

	if (!(ip = take_iphdr(c)) || ip->protocol != IPPROTO_UDP)
		return XDP_PASS;
	if (!(udp = take_udphdr(c)) || udp->dest != bpf_htons(53))
		return XDP_PASS;
	if (!(dns = take_dns_hdr(c)))
		return XDP_DROP;
	src = ip->saddr;
	v = bpf_map_lookup_elem(&v4_sources, &src);
	if (!v)
		return XDP_PASS;
	__sync_fetch_and_add(&v->hits, 1);
	if (v->action == 2) {
		truncate_reply(udp, dns);
		tmp = ip->daddr;
		ip->daddr = ip->saddr;
		ip->saddr = tmp;
		return XDP_TX;
	}
	return v->action == 1 ? XDP_DROP : XDP_PASS;
}

static inline int on_v6(struct cur *c)
{
	struct in6_addr src, tmp;
	struct ipv6hdr *ip6;
	struct udphdr *udp;
	struct dns_hdr *dns;
	struct verdict *v;

	if (!(ip6 = take_ipv6hdr(c)) || ip6->nexthdr != IPPROTO_UDP)
		return XDP_PASS;
	if (!(udp = take_udphdr(c)) || udp->dest != bpf_htons(53))
		return XDP_PASS;
	if (!(dns = take_dns_hdr(c)))
		return XDP_DROP;
	__builtin_memcpy(&src, &ip6->saddr, sizeof(src));
	v = bpf_map_lookup_elem(&v6_sources, &src);
	if (!v)
		return XDP_PASS;
	__sync_fetch_and_add(&v->hits, 1);
	if (v->action == 2) {
		truncate_reply(udp, dns);
		__builtin_memcpy(&tmp, &ip6->daddr, sizeof(tmp));
		__builtin_memcpy(&ip6->daddr, &ip6->saddr, sizeof(tmp));
		__builtin_memcpy(&ip6->saddr, &tmp, sizeof(tmp));
		return XDP_TX;
	}
	return v->action == 1 ? XDP_DROP : XDP_PASS;
}

SEC("xdp")
int xdp_dns_tc_bounce(struct xdp_md *ctx)
{
	struct cur c = { .pos = (void *)(long)ctx->data, .end = (void *)(long)ctx->data_end };
	struct ethhdr *eth;
	__u8 mac[ETH_ALEN];
	int r;

	if (!(eth = take_ethhdr(&c)))
		return XDP_PASS;
	if (eth->h_proto == bpf_htons(ETH_P_IP))
		r = on_v4(&c);
	else if (eth->h_proto == bpf_htons(ETH_P_IPV6))
		r = on_v6(&c);
	else
		return XDP_PASS;
	if (r == XDP_TX) {
		__builtin_memcpy(mac, eth->h_dest, ETH_ALEN);
		__builtin_memcpy(eth->h_dest, eth->h_source, ETH_ALEN);
		__builtin_memcpy(eth->h_source, mac, ETH_ALEN);
	}
	return r;
}

char _license[] SEC("license") = "GPL";
