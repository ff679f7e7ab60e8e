/* Packets: IPv6 (UDP, TCP, ICMPv6) and others. Drops IPv6 packets whose
 * hop limit is 1, counts IPv6 next headers in a hash map, passes others. */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/ipv6.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, __u8);
	__type(value, __u64);
	__uint(max_entries, 64);
} nexthdrs SEC(".maps");

SEC("xdp")
int xdp_ipv6(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;
	struct ethhdr *eth = data;
	struct ipv6hdr *ip6;
	__u64 one = 1, *cnt;
	__u8 nh;

	if ((void *)(eth + 1) > data_end || eth->h_proto != bpf_htons(ETH_P_IPV6))
		return XDP_PASS;
	ip6 = (void *)(eth + 1);
	if ((void *)(ip6 + 1) > data_end)
		return XDP_ABORTED;
	if (ip6->hop_limit <= 1)
		return XDP_DROP;
	nh = ip6->nexthdr;
	cnt = bpf_map_lookup_elem(&nexthdrs, &nh);
	if (cnt)
		*cnt += 1;
	else
		bpf_map_update_elem(&nexthdrs, &nh, &one, BPF_NOEXIST);
	return XDP_PASS;
}
char _license[] SEC("license") = "GPL";
