/* Packets: Ethernet of any type. Counts packets per EtherType class in an
 * array (0 IPv4, 1 IPv6, 2 ARP, 3 VLAN, 4 other, 5 runt) and passes. */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, __u64);
	__uint(max_entries, 8);
} classes SEC(".maps");

SEC("xdp")
int xdp_ethertype(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;
	struct ethhdr *eth = data;
	__u32 key;
	__u64 *cnt;

	if ((void *)(eth + 1) > data_end) {
		key = 5;
	} else {
		switch (bpf_ntohs(eth->h_proto)) {
		case ETH_P_IP:
			key = 0;
			break;
		case ETH_P_IPV6:
			key = 1;
			break;
		case ETH_P_ARP:
			key = 2;
			break;
		case ETH_P_8021Q:
		case ETH_P_8021AD:
			key = 3;
			break;
		default:
			key = 4;
		}
	}
	cnt = bpf_map_lookup_elem(&classes, &key);
	if (cnt)
		*cnt += 1;
	return XDP_PASS;
}
char _license[] SEC("license") = "GPL";
