#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/ip.h>
#include <linux/in.h>
#include <linux/ipv6.h>
#include <linux/udp.h>
#include <linux/tcp.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

static __attribute__((noinline)) int fill(struct xdp_md *ctx)
{
	volatile char buf[400];

	buf[0] = ctx->rx_queue_index;
	return buf[0];
}

SEC("xdp")
int prog(struct xdp_md *ctx)
{
	volatile char big[300];

	big[0] = fill(ctx);
	return big[0] ? XDP_DROP : XDP_PASS;
}
char _license[] SEC("license") = "GPL";
