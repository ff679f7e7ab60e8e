#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/ip.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

SEC("xdp")
int prog(struct xdp_md *ctx)
{
	void *data_end = (void *)(long)ctx->data_end;
	void *data = (void *)(long)ctx->data;
	__u8 *p = data;
	__u32 zeros = 0;
	__u32 i = 0;

	while (i < 8) {
		if ((void *)(p + i + 1) > data_end)
			break;
		if (p[i] != 0)
			continue;
		zeros++;
		i++;
	}
	return zeros > 4 ? XDP_DROP : XDP_PASS;
}
char _license[] SEC("license") = "GPL";
