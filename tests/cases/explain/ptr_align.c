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
	struct iphdr *iph = data + sizeof(struct ethhdr);
	__u32 *word;

	if ((void *)(iph + 1) > data_end)
		return XDP_PASS;
	/* read the addresses as 32-bit words only when the header is aligned */
	if ((long)iph & 3)
		return XDP_PASS;
	word = (__u32 *)iph;
	return word[3] == word[4] ? XDP_DROP : XDP_PASS;
}
char _license[] SEC("license") = "GPL";
