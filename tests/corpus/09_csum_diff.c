/* Packets: IPv4 UDP and others. Rewrites the destination address of UDP
 * packets to 10.0.0.99 and recomputes the IP checksum with bpf_csum_diff
 * over the old and new addresses; passes everything. */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/ip.h>
#include <linux/in.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

static __always_inline __u16 csum_fold(__u64 csum)
{
	int i;

#pragma unroll
	for (i = 0; i < 4; i++) {
		if (csum >> 16)
			csum = (csum & 0xffff) + (csum >> 16);
	}
	return ~csum;
}

SEC("xdp")
int xdp_csum_diff(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;
	struct ethhdr *eth = data;
	struct iphdr *iph = (void *)(eth + 1);
	__be32 old_addr, new_addr;
	__s64 sum;

	if ((void *)(iph + 1) > data_end)
		return XDP_PASS;
	if (eth->h_proto != bpf_htons(ETH_P_IP) || iph->protocol != IPPROTO_UDP)
		return XDP_PASS;
	old_addr = iph->daddr;
	new_addr = bpf_htonl(0x0a000063);
	sum = bpf_csum_diff(&old_addr, 4, &new_addr, 4, ~((__u32)iph->check) & 0xffff);
	if (sum < 0)
		return XDP_ABORTED;
	iph->daddr = new_addr;
	iph->check = csum_fold(sum);
	return XDP_PASS;
}
char _license[] SEC("license") = "GPL";
