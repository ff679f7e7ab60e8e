#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

SEC("xdp")
int prog(struct xdp_md *ctx)
{
	__u32 n = ctx->rx_queue_index;
	__u32 sum = 0;
	__u32 i = 0;

	while (1) {
		if (i >= n)
			break;
		sum += i * 7;
		i++;
	}
	return sum & 1 ? XDP_DROP : XDP_PASS;
}
char _license[] SEC("license") = "GPL";
