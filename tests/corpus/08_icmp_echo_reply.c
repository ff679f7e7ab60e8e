/* Packets: IPv4 ICMP echo requests among other traffic. Turns an echo
 * request into an echo reply in place: swaps MACs and IP addresses,
 * changes the type and patches the ICMP checksum incrementally, XDP_TX.
 * Everything else passes. */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/ip.h>
#include <linux/in.h>
#include <linux/icmp.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

static __always_inline __u16 csum_fold_helper(__u32 csum)
{
	csum = (csum & 0xffff) + (csum >> 16);
	csum = (csum & 0xffff) + (csum >> 16);
	return ~csum;
}

SEC("xdp")
int xdp_icmp_echo(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;
	struct ethhdr *eth = data;
	struct iphdr *iph;
	struct icmphdr *icmp;
	unsigned char mac[ETH_ALEN];
	__be32 addr;
	__u32 csum;

	if ((void *)(eth + 1) > data_end || eth->h_proto != bpf_htons(ETH_P_IP))
		return XDP_PASS;
	iph = (void *)(eth + 1);
	if ((void *)(iph + 1) > data_end || iph->protocol != IPPROTO_ICMP || iph->ihl != 5)
		return XDP_PASS;
	icmp = (void *)(iph + 1);
	if ((void *)(icmp + 1) > data_end || icmp->type != ICMP_ECHO)
		return XDP_PASS;

	__builtin_memcpy(mac, eth->h_dest, ETH_ALEN);
	__builtin_memcpy(eth->h_dest, eth->h_source, ETH_ALEN);
	__builtin_memcpy(eth->h_source, mac, ETH_ALEN);
	addr = iph->saddr;
	iph->saddr = iph->daddr;
	iph->daddr = addr;

	icmp->type = ICMP_ECHOREPLY;
	/* Type 8 -> 0 lowers the first 16-bit word by 0x0800. */
	csum = (__u16)~icmp->checksum;
	csum += (__u16)~bpf_htons(ICMP_ECHO << 8);
	csum += bpf_htons(ICMP_ECHOREPLY << 8);
	icmp->checksum = csum_fold_helper(csum);
	return XDP_TX;
}
char _license[] SEC("license") = "GPL";
