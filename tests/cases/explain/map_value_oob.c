#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/ip.h>
#include <linux/in.h>
#include <linux/ipv6.h>
#include <linux/udp.h>
#include <linux/tcp.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, __u64[4]);
	__uint(max_entries, 1);
} slots SEC(".maps");

SEC("xdp")
int prog(struct xdp_md *ctx)
{
	__u32 key = 0;
	__u64 *value = bpf_map_lookup_elem(&slots, &key);
	__u32 i = ctx->rx_queue_index;

	if (!value)
		return XDP_PASS;
	value[i] += 1;
	return XDP_PASS;
}
char _license[] SEC("license") = "GPL";
