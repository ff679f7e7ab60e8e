#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
const volatile __u32 limit = 100;
__u32 seen;
SEC("xdp")
int xdp_ro(struct xdp_md *ctx)
{
	seen++;
	if (seen > limit) {
		*(volatile __u32 *)&limit = 0;
		return XDP_DROP;
	}
	return XDP_PASS;
}
char _license[] SEC("license") = "GPL";
