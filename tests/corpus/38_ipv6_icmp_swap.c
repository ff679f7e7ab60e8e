/* Packets: IPv6 ICMPv6 echo requests and others. Answers echo requests:
 * swaps IPv6 addresses (16-byte copies through a stack in6_addr) and MACs,
 * sets the type to echo reply and fixes the checksum incrementally;
 * XDP_TX. Others pass. */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/ipv6.h>
#include <linux/icmpv6.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

SEC("xdp")
int xdp_icmp6(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;
	struct ethhdr *eth = data;
	struct ipv6hdr *ip6 = (void *)(eth + 1);
	struct icmp6hdr *icmp6 = (void *)(ip6 + 1);
	struct in6_addr tmp;
	__u8 mac[ETH_ALEN];
	__u32 sum;

	if ((void *)(icmp6 + 1) > data_end)
		return XDP_PASS;
	if (eth->h_proto != bpf_htons(ETH_P_IPV6) || ip6->nexthdr != IPPROTO_ICMPV6)
		return XDP_PASS;
	if (icmp6->icmp6_type != ICMPV6_ECHO_REQUEST)
		return XDP_PASS;
	tmp = ip6->saddr;
	ip6->saddr = ip6->daddr;
	ip6->daddr = tmp;
	__builtin_memcpy(mac, eth->h_source, ETH_ALEN);
	__builtin_memcpy(eth->h_source, eth->h_dest, ETH_ALEN);
	__builtin_memcpy(eth->h_dest, mac, ETH_ALEN);
	icmp6->icmp6_type = ICMPV6_ECHO_REPLY;
	sum = (__u16)~icmp6->icmp6_cksum;
	sum += (__u16)~bpf_htons(ICMPV6_ECHO_REQUEST << 8);
	sum += bpf_htons(ICMPV6_ECHO_REPLY << 8);
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	icmp6->icmp6_cksum = ~sum;
	return XDP_TX;
}
char _license[] SEC("license") = "GPL";
