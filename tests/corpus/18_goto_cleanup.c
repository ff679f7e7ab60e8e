/* Packets: IPv4/IPv6/ARP/runts. A parser written with goto to a shared
 * exit: counts each outcome (0 runt, 1 ipv4, 2 ipv6, 3 other) and returns
 * PASS for IP, DROP otherwise. */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, __u64);
	__uint(max_entries, 4);
} outcome SEC(".maps");

SEC("xdp")
int xdp_goto(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;
	struct ethhdr *eth = data;
	__u32 key = 0;
	int action = XDP_DROP;
	__u64 *v;

	if ((void *)(eth + 1) > data_end)
		goto out;
	if (eth->h_proto == bpf_htons(ETH_P_IP)) {
		key = 1;
		goto pass;
	}
	if (eth->h_proto == bpf_htons(ETH_P_IPV6)) {
		key = 2;
		goto pass;
	}
	key = 3;
	goto out;
pass:
	action = XDP_PASS;
out:
	v = bpf_map_lookup_elem(&outcome, &key);
	if (v)
		*v += 1;
	return action;
}
char _license[] SEC("license") = "GPL";
