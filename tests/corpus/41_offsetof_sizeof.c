/* Packets: IPv4 UDP and others. Uses offsetof and sizeof to address
 * fields through byte offsets from the packet start (as load-balancer
 * code often does), zeroes the UDP checksum for IPv4 UDP packets; passes. */
#include <stddef.h>
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/ip.h>
#include <linux/udp.h>
#include <linux/in.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

#define IP_OFF sizeof(struct ethhdr)
#define UDP_OFF (IP_OFF + sizeof(struct iphdr))

SEC("xdp")
int xdp_offsetof(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;
	__u8 *proto = data + IP_OFF + offsetof(struct iphdr, protocol);
	__be16 *eth_type = data + offsetof(struct ethhdr, h_proto);
	__sum16 *check = data + UDP_OFF + offsetof(struct udphdr, check);

	if ((void *)(check + 1) > data_end)
		return XDP_PASS;
	if (*eth_type != bpf_htons(ETH_P_IP) || *proto != IPPROTO_UDP)
		return XDP_PASS;
	*check = 0;
	return XDP_PASS;
}
char _license[] SEC("license") = "GPL";
