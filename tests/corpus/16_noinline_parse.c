/* Packets: IPv4 and IPv6. Header parsing lives in a noinline function (a
 * bpf-to-bpf call taking the context); the verdict drops UDP to port 9000
 * and passes everything else. */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/ip.h>
#include <linux/in.h>
#include <linux/udp.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

static __noinline int udp_dport(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;
	struct ethhdr *eth = data;
	struct iphdr *iph = (void *)(eth + 1);
	struct udphdr *uh;

	if ((void *)(iph + 1) > data_end)
		return -1;
	if (eth->h_proto != bpf_htons(ETH_P_IP) || iph->protocol != IPPROTO_UDP)
		return -1;
	uh = (void *)iph + iph->ihl * 4;
	if ((void *)(uh + 1) > data_end)
		return -1;
	return bpf_ntohs(uh->dest);
}

SEC("xdp")
int xdp_noinline(struct xdp_md *ctx)
{
	int port = udp_dport(ctx);

	if (port == 9000)
		return XDP_DROP;
	return XDP_PASS;
}
char _license[] SEC("license") = "GPL";
