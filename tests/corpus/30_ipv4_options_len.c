/* Packets: IPv4 with and without options, UDP and TCP. Uses the variable
 * header length (ihl * 4) to find the L4 header, drops IPv4 packets that
 * carry options or are fragments, passes the rest. */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/ip.h>
#include <linux/udp.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

/* The kernel's include/net/ip.h flags; the uapi header does not export them. */
#define IP_MF 0x2000
#define IP_OFFSET 0x1FFF

SEC("xdp")
int xdp_ip_opts(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;
	struct ethhdr *eth = data;
	struct iphdr *iph = (void *)(eth + 1);
	__u32 hlen;

	if ((void *)(iph + 1) > data_end || eth->h_proto != bpf_htons(ETH_P_IP))
		return XDP_PASS;
	hlen = iph->ihl * 4;
	if (hlen < sizeof(*iph))
		return XDP_DROP;
	if ((void *)iph + hlen + sizeof(struct udphdr) > data_end)
		return XDP_DROP;
	if (hlen > sizeof(*iph))
		return XDP_DROP;
	if (iph->frag_off & bpf_htons(IP_MF | IP_OFFSET))
		return XDP_DROP;
	return XDP_PASS;
}
char _license[] SEC("license") = "GPL";
