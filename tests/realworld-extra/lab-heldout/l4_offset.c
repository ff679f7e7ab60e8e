/* A firewall's transport-header step in the style of the kernel's xdpwall.c: the header offset is
 * carried as a __u16 in a parse-info struct (plus an encapsulation's extra bytes from a config map,
 * so the verifier knows nothing of its range) and bounded (offset > 255) before the pointer is made.
 * The bound must come first: a packet pointer whose variable part may reach 0xffff gets no range
 * from a data_end check. */
#include "common.h"

struct pkt_info {
	__u16 l4_off;
	__u8 proto;
	__u16 dport;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 4);
	__type(key, __u32);
	__type(value, __u64);
} l4_verdicts SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u16);
} encap_extra SEC(".maps");

static __always_inline void *l4_header(__u16 offset, void *data, void *data_end)
{
	if (offset > 255 || data + offset > data_end)
		return NULL;
	return data + offset;
}

static __always_inline int parse_ports(struct pkt_info *info, void *data, void *data_end)
{
	struct udphdr *udp = l4_header(info->l4_off, data, data_end);

	if (!udp || (void *)(udp + 1) > data_end)
		return -1;
	info->dport = bpf_ntohs(udp->dest);
	return 0;
}

SEC("xdp")
int xdp_l4_offset(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;
	struct pkt_info info = {};
	struct ethhdr *eth = data;
	struct iphdr *ip;
	__u32 key = 0;
	__u16 *extra;
	__u64 *cnt;

	if ((void *)(eth + 1) > data_end)
		return XDP_DROP;
	if (eth->h_proto != bpf_htons(ETH_P_IP))
		return XDP_PASS;
	ip = (void *)(eth + 1);
	if ((void *)(ip + 1) > data_end)
		return XDP_DROP;
	info.proto = ip->protocol;
	extra = bpf_map_lookup_elem(&encap_extra, &key);
	if (!extra)
		return XDP_ABORTED;
	info.l4_off = sizeof(*eth) + ip->ihl * 4 + *extra;
	if (info.proto != IPPROTO_UDP && info.proto != IPPROTO_TCP)
		return XDP_PASS;
	key = parse_ports(&info, data, data_end) ? 3 : info.dport == 53 ? 1 : info.dport < 1024 ? 2 : 0;
	cnt = bpf_map_lookup_elem(&l4_verdicts, &key);
	if (cnt)
		__sync_fetch_and_add(cnt, 1);
	return key == 3 ? XDP_DROP : XDP_PASS;
}

char _license[] SEC("license") = "GPL";
