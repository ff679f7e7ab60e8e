/* Packets: any Ethernet. Struct assignment (a whole ethhdr copied through
 * a stack struct), member access through nested structs, and writing it
 * back with source and destination exchanged; XDP_TX. */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <bpf/bpf_helpers.h>

struct pair {
	struct ethhdr hdr;
	__u16 spare;
};

SEC("xdp")
int xdp_struct_copy(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;
	struct ethhdr *eth = data;
	struct pair p;

	if ((void *)(eth + 1) > data_end)
		return XDP_DROP;
	p.hdr = *eth;
	p.spare = 0;
	__builtin_memcpy(eth->h_dest, p.hdr.h_source, ETH_ALEN);
	__builtin_memcpy(eth->h_source, p.hdr.h_dest, ETH_ALEN);
	return XDP_TX;
}
char _license[] SEC("license") = "GPL";
