/* Packets: any. Drops frames shorter than 60 bytes, passes the rest:
 * packet length from data_end - data. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

SEC("xdp")
int xdp_drop_short(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;
	__u64 len = data_end - data;

	return len < 60 ? XDP_DROP : XDP_PASS;
}
char _license[] SEC("license") = "GPL";
