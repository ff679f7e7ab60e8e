#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/ip.h>
#include <bpf/bpf_helpers.h>
SEC("xdp")
int xdp_s(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;
	struct iphdr *ip = data + sizeof(struct ethhdr);
	__u32 weight[8] = {1, 2, 3, 4, 5, 6, 7, 8};
	if ((void *)(ip + 1) > data_end)
		return XDP_PASS;
	return weight[ip->tos] > 4 ? XDP_DROP : XDP_PASS;
}
char _license[] SEC("license") = "GPL";
