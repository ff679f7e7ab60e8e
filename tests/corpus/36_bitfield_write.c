/* Packets: IPv4 TCP and others. Writes tcphdr bitfields: clears PSH and
 * URG, sets ECE on TCP packets (the checksum is left stale on purpose,
 * the test only compares bytes); passes. */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/ip.h>
#include <linux/in.h>
#include <linux/tcp.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

SEC("xdp")
int xdp_tcp_rewrite(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;
	struct ethhdr *eth = data;
	struct iphdr *iph = (void *)(eth + 1);
	struct tcphdr *th = (void *)(iph + 1);

	if ((void *)(th + 1) > data_end || eth->h_proto != bpf_htons(ETH_P_IP) || iph->protocol != IPPROTO_TCP)
		return XDP_PASS;
	th->psh = 0;
	th->urg = 0;
	th->ece = 1;
	th->res1 = th->doff > 5;
	return XDP_PASS;
}
char _license[] SEC("license") = "GPL";
