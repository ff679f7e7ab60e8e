/* Packets: any Ethernet. Writes a stats record built with a designated
 * initializer (nested struct, array member) into a hash map keyed by
 * EtherType; passes. */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

struct counters {
	__u32 first_len;
	__u16 proto;
	__u8 dst0;
	__u8 flags;
	struct {
		__u32 lo;
		__u32 hi;
	} range;
	__u8 tag[4];
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, __u16);
	__type(value, struct counters);
	__uint(max_entries, 32);
} by_proto SEC(".maps");

SEC("xdp")
int xdp_designated(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;
	struct ethhdr *eth = data;
	__u16 proto;

	if ((void *)(eth + 1) > data_end)
		return XDP_PASS;
	proto = bpf_ntohs(eth->h_proto);
	struct counters c = {
		.first_len = data_end - data,
		.proto = proto,
		.range = { .lo = 64, .hi = 1500 },
		.tag = { 'x', 'd', 'p' },
		.dst0 = eth->h_dest[0],
	};
	bpf_map_update_elem(&by_proto, &proto, &c, BPF_NOEXIST);
	return XDP_PASS;
}
char _license[] SEC("license") = "GPL";
