/* Packets: IPv4 UDP and others. Byte-order conversions: bpf_ntohs,
 * bpf_ntohl, __builtin_bswap64 and bpf_htonl on constants; stores the
 * host-order source port, address and a swapped 64-bit word per
 * packet (last one wins), passes. */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/ip.h>
#include <linux/udp.h>
#include <linux/in.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

struct rec {
	__u32 saddr;
	__u16 sport;
	__u16 magic;
	__u64 swapped;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, struct rec);
	__uint(max_entries, 1);
} last SEC(".maps");

SEC("xdp")
int xdp_endian(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;
	struct ethhdr *eth = data;
	struct iphdr *iph = (void *)(eth + 1);
	struct udphdr *uh = (void *)(iph + 1);
	__u32 zero = 0;
	struct rec *r;
	__u64 w;

	if ((void *)(uh + 1) > data_end || eth->h_proto != bpf_htons(ETH_P_IP) || iph->protocol != IPPROTO_UDP)
		return XDP_PASS;
	r = bpf_map_lookup_elem(&last, &zero);
	if (!r)
		return XDP_PASS;
	__builtin_memcpy(&w, eth, 8);
	r->saddr = bpf_ntohl(iph->saddr);
	r->sport = bpf_ntohs(uh->source);
	r->magic = bpf_htons(0x1234) == 0x3412 ? 1 : 0;
	r->swapped = __builtin_bswap64(w) ^ bpf_htonl(0xdeadbeef);
	return XDP_PASS;
}
char _license[] SEC("license") = "GPL";
