#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/ip.h>
#include <linux/in.h>
#include <linux/ipv6.h>
#include <linux/udp.h>
#include <linux/tcp.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>
SEC("xdp")
int prog(struct xdp_md *ctx)
{
	__u64 queue = *(__u64 *)&ctx->rx_queue_index;

	return queue ? XDP_DROP : XDP_PASS;
}
char _license[] SEC("license") = "GPL";
