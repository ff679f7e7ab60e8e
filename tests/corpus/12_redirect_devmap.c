/* Packets: any Ethernet. Looks up the egress port for the source MAC's
 * last byte in a devmap and redirects there with bpf_redirect_map; the
 * fallback action (flags) is XDP_PASS when the slot is empty. */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <bpf/bpf_helpers.h>

struct {
	__uint(type, BPF_MAP_TYPE_DEVMAP);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(__u32));
	__uint(max_entries, 8);
} tx_port SEC(".maps");

SEC("xdp")
int xdp_redirect_map(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;
	struct ethhdr *eth = data;

	if ((void *)(eth + 1) > data_end)
		return XDP_DROP;
	return bpf_redirect_map(&tx_port, eth->h_source[5] & 7, XDP_PASS);
}
char _license[] SEC("license") = "GPL";
