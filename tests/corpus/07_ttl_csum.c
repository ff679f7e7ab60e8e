/* Packets: IPv4 of any protocol. Decrements the TTL with an incremental
 * checksum update (RFC 1624), drops packets whose TTL would reach zero,
 * passes the rest (with the rewritten header). */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/ip.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

static __always_inline int ip_decrease_ttl(struct iphdr *iph)
{
	__u32 check = iph->check;

	check += bpf_htons(0x0100);
	iph->check = (__sum16)(check + (check >= 0xFFFF));
	return --iph->ttl;
}

SEC("xdp")
int xdp_ttl(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;
	struct ethhdr *eth = data;
	struct iphdr *iph = data + sizeof(*eth);

	if ((void *)(iph + 1) > data_end)
		return XDP_PASS;
	if (eth->h_proto != bpf_htons(ETH_P_IP))
		return XDP_PASS;
	if (iph->ttl <= 1)
		return XDP_DROP;
	ip_decrease_ttl(iph);
	return XDP_PASS;
}
char _license[] SEC("license") = "GPL";
