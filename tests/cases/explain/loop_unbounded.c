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
	__u32 n = ctx->rx_queue_index;
	__u32 sum = 0;
	__u32 i;

	for (i = 0; i < n; i++)
		sum += i * 7;
	return sum & 1 ? XDP_DROP : XDP_PASS;
}
char _license[] SEC("license") = "GPL";
