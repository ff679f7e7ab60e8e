/* SPDX-License-Identifier: GPL-2.0 */
/*
 * In the style of the kernel's older samples/bpf programs and many blog
 * posts: the C library's network headers (net/ethernet.h, netinet/ip.h,
 * netinet/ip6.h, netinet/udp.h, netinet/tcp.h, arpa/inet.h) and its
 * string.h, errno.h and endian.h, where newer code includes the linux/ ones.
 * Counts packets per protocol, answers UDP echo (port 7) back out of the
 * port, drops telnet, SYN+FIN and IPv6 packets whose hop limit ran out.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <net/ethernet.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <netinet/ip6.h>
#include <netinet/udp.h>
#include <netinet/tcp.h>
#include <arpa/inet.h>
#include <sys/socket.h>
#include <string.h>
#include <errno.h>
#include <endian.h>

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 8);
	__type(key, __u32);
	__type(value, __u64);
} proto_count SEC(".maps");

static __always_inline void count(__u32 slot)
{
	__u64 *v = bpf_map_lookup_elem(&proto_count, &slot);

	if (v)
		__sync_fetch_and_add(v, 1);
}

static __always_inline int udp_echo(struct ether_header *eth, struct iphdr *iph, struct udphdr *udp)
{
	__u8 mac[ETH_ALEN];
	__u32 addr;
	__u16 port;

	memcpy(mac, eth->ether_shost, ETH_ALEN);
	memcpy(eth->ether_shost, eth->ether_dhost, ETH_ALEN);
	memcpy(eth->ether_dhost, mac, ETH_ALEN);
	addr = iph->saddr;
	iph->saddr = iph->daddr;
	iph->daddr = addr;
	port = udp->source;
	udp->source = udp->dest;
	udp->dest = port;
	return XDP_TX;
}

SEC("xdp")
int xdp_libc_parse(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;
	struct ether_header *eth = data;
	struct iphdr *iph;
	__u16 type;

	if ((void *)(eth + 1) > data_end)
		return XDP_DROP;
	type = ntohs(eth->ether_type);
	if (type == ETHERTYPE_IPV6) {
		struct ip6_hdr *ip6 = (void *)(eth + 1);

		if ((void *)(ip6 + 1) > data_end)
			return XDP_DROP;
		count(AF_INET6 & 7);
		return ip6->ip6_hops <= 1 ? XDP_DROP : XDP_PASS;
	}
	if (type != ETHERTYPE_IP) {
		count(0);
		return XDP_PASS;
	}
	iph = (void *)(eth + 1);
	if ((void *)(iph + 1) > data_end)
		return XDP_DROP;
	if (iph->ihl != 5 || (iph->frag_off & htons(IP_MF | IP_OFFMASK)))
		return XDP_PASS;
	if (iph->protocol == IPPROTO_UDP) {
		struct udphdr *udp = (void *)(iph + 1);

		if ((void *)(udp + 1) > data_end)
			return XDP_DROP;
		count(IPPROTO_UDP & 7);
		if (udp->uh_dport == htons(7))
			return udp_echo(eth, iph, udp);
		return be16toh(udp->len) < sizeof(*udp) ? -EINVAL : XDP_PASS;
	}
	if (iph->protocol == IPPROTO_TCP) {
		struct tcphdr *tcp = (void *)(iph + 1);

		if ((void *)(tcp + 1) > data_end)
			return XDP_DROP;
		count(IPPROTO_TCP & 7);
		if ((tcp->th_flags & (TH_SYN | TH_FIN)) == (TH_SYN | TH_FIN))
			return XDP_DROP;
		return tcp->th_dport == htons(23) ? XDP_DROP : XDP_PASS;
	}
	count(1);
	return XDP_PASS;
}

char _license[] SEC("license") = "GPL";
