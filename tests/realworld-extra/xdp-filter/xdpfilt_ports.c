/* SPDX-License-Identifier: MIT */
/* A port filter in the style of xdp-tools' xdp-filter: drop frames whose TCP or UDP
 * destination port is in a deny map, count verdicts per CPU. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <xdp/parse.h>

#define FILT_MODE_DENY 1
#ifndef FILT_MODE
#define FILT_MODE FILT_MODE_DENY
#endif

#define STATS_ENTRY(name, ...) __u64 name;
struct filter_stats {
	STATS_ENTRY(passed)
	STATS_ENTRY(dropped, "with a comment argument that is ignored")
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 64);
	__type(key, __u16);
	__type(value, __u8);
} filter_ports SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct filter_stats);
} xdp_stats SEC(".maps");

#define log_debug(fmt, args...) do { if (0) bpf_printk(fmt, ##args); } while (0)

static __always_inline int verdict(int action)
{
	__u32 key = 0;
	struct filter_stats *s = bpf_map_lookup_elem(&xdp_stats, &key);

	if (s) {
		if (action == XDP_DROP)
			s->dropped++;
		else
			s->passed++;
	}
	return action;
}

SEC("xdp")
int xdpfilt_ports(struct xdp_md *ctx)
{
	void *data_end = (void *)(long)ctx->data_end;
	void *data = (void *)(long)ctx->data;
	struct hdr_cursor nh = { .pos = data };
	struct ethhdr *eth;
	struct iphdr *iph;
	struct ipv6hdr *ip6h;
	struct udphdr *udph;
	struct tcphdr *tcph;
	__u16 dport = 0;
	int proto, l4;

	proto = parse_ethhdr(&nh, data_end, &eth);
	if (proto == bpf_htons(ETH_P_IP))
		l4 = parse_iphdr(&nh, data_end, &iph);
	else if (proto == bpf_htons(ETH_P_IPV6))
		l4 = parse_ip6hdr(&nh, data_end, &ip6h);
	else
		return verdict(XDP_PASS);

	if (l4 == IPPROTO_UDP) {
		if (parse_udphdr(&nh, data_end, &udph) < 0)
			return verdict(XDP_PASS);
		dport = udph->dest;
	} else if (l4 == IPPROTO_TCP) {
		if (parse_tcphdr(&nh, data_end, &tcph) < 0)
			return verdict(XDP_PASS);
		dport = tcph->dest;
	} else {
		return verdict(XDP_PASS);
	}
	log_debug("port %d", bpf_ntohs(dport));
	if (bpf_map_lookup_elem(&filter_ports, &dport))
		return verdict(FILT_MODE == FILT_MODE_DENY ? XDP_DROP : XDP_PASS);
	return verdict(XDP_PASS);
}

char _license[] SEC("license") = "GPL";
