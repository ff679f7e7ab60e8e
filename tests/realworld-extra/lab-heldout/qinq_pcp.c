/* A QinQ priority mapper: the outer (802.1ad or 802.1Q) tag's VLAN ID picks, from an array map, the
 * priority bits written into the innermost tag's TCI. The parser fills a small result struct through a
 * pointer, as test_xdp_vlan.c's parse_eth_frame does: two one-byte tag offsets next to each other, and
 * the caller then indexes the packet with an offset it never checks again (the parser checked room
 * for both tags up front). clang-19's SROA keeps the struct's members apart (registers), so the
 * verifier knows each offset is 14 or 18; in one 8-byte stack word the store to the second offset
 * makes the first unknown, and the kernel refuses the access ("offset is outside of the packet"). */
#include "common.h"

#define VID_MASK 0x0fff
#define PCP_SHIFT 13

struct tag_info {
	__u16 proto;     /* host order, after the tags */
	__u16 outer_vid;
	__u16 inner_vid;
	__u8 outer_off;  /* 0: no tag */
	__u8 inner_off;
	__u8 ntags;
};

struct vlan_tag {
	__be16 tci;
	__be16 next;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 16);
	__type(key, __u32);
	__type(value, __u32);
} pcp_of_vid SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 3);
	__type(key, __u32);
	__type(value, __u64);
} tagged_seen SEC(".maps");

static __always_inline int is_tag(__be16 p)
{
	return p == bpf_htons(ETH_P_8021Q) || p == bpf_htons(ETH_P_8021AD);
}

static __always_inline int read_tags(struct ethhdr *eth, void *data_end, struct tag_info *ti)
{
	struct vlan_tag *t;
	__be16 p;
	__u8 off = sizeof(*eth);

	if ((void *)eth + off + 2 * sizeof(*t) > data_end)
		return -1;
	p = eth->h_proto;
	if (is_tag(p)) {
		t = (void *)eth + off;
		ti->outer_off = off;
		ti->outer_vid = bpf_ntohs(t->tci) & VID_MASK;
		p = t->next;
		off += sizeof(*t);
		ti->ntags++;
	}
	if (is_tag(p)) {
		t = (void *)eth + off;
		ti->inner_off = off;
		ti->inner_vid = bpf_ntohs(t->tci) & VID_MASK;
		p = t->next;
		off += sizeof(*t);
		ti->ntags++;
	}
	ti->proto = bpf_ntohs(p);
	return off;
}

SEC("xdp")
int xdp_qinq_pcp(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;
	struct tag_info ti = {};
	struct vlan_tag *t;
	__u32 key, *pcp;
	__u64 *seen;

	if (read_tags(data, data_end, &ti) < 0)
		return XDP_PASS;
	key = ti.ntags;
	seen = bpf_map_lookup_elem(&tagged_seen, &key);
	if (seen)
		*seen += 1;
	if (ti.outer_off == 0)
		return XDP_PASS;
	key = ti.outer_vid & 15;
	pcp = bpf_map_lookup_elem(&pcp_of_vid, &key);
	if (!pcp)
		return XDP_ABORTED;
	/* the innermost tag: the inner one when there are two */
	t = data + (ti.inner_off ? ti.inner_off : ti.outer_off);
	t->tci = bpf_htons((bpf_ntohs(t->tci) & ~(7 << PCP_SHIFT)) | ((*pcp & 7) << PCP_SHIFT));
	return ti.proto == ETH_P_ARP ? XDP_DROP : XDP_PASS;
}

char _license[] SEC("license") = "GPL";
