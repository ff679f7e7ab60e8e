/* A two-stage classifier in the style of xdp-tools' DNS programs: the first stage records where the
 * network header starts in a metadata struct before the packet (bpf_xdp_adjust_meta); the second reads
 * it back, bounds it (ip_off > 24: an Ethernet header and at most two VLAN tags) and advances its cursor
 * by it. The bound lives in the register of the first read of md->ip_off: clang reads the field once,
 * and reading it again gives a packet offset up to 0xffff that no data_end check can give a range.
 * The classifier's tag is decoded from a hex string at compile time (a constant index into a string
 * literal folds to a constant, so no .rodata is read). */
#include "common.h"

#define TAG_HEX "5A3C"
#define HEXNIB(c) ((c) >= 'A' ? (c) - 'A' + 10 : (c) - '0')
#define HEXBYTE(s, i) (HEXNIB((s)[i]) * 16 + HEXNIB((s)[(i) + 1]))

struct meta_info {
	__u16 proto;
	__u16 ip_off;
	__u32 tag;
};

struct cursor {
	void *pos;
	void *end;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 4);
	__type(key, __u32);
	__type(value, __u64);
} meta_counts SEC(".maps");

static __always_inline int classify(struct xdp_md *ctx)
{
	struct meta_info *md = (void *)(long)ctx->data_meta;
	struct cursor c = { .pos = (void *)(long)ctx->data, .end = (void *)(long)ctx->data_end };
	struct iphdr *ip;
	__u32 key;
	__u64 *cnt;

	if ((void *)(md + 1) > c.pos || md->ip_off > 24)
		return XDP_ABORTED;
	c.pos += md->ip_off;
	ip = c.pos;
	if ((void *)(ip + 1) > c.end)
		return XDP_PASS;
	key = ip->protocol == IPPROTO_UDP ? 1 : ip->protocol == IPPROTO_TCP ? 2 : 3;
	if (md->tag != (HEXBYTE(TAG_HEX, 0) << 8 | HEXBYTE(TAG_HEX, 2)))
		key = 0;
	cnt = bpf_map_lookup_elem(&meta_counts, &key);
	if (cnt)
		__sync_fetch_and_add(cnt, 1);
	return key == 3 ? XDP_DROP : XDP_PASS;
}

SEC("xdp")
int xdp_meta_offset(struct xdp_md *ctx)
{
	struct meta_info *md;
	struct ethhdr *eth;
	void *data, *data_end;
	__u16 off = sizeof(*eth);

	if (bpf_xdp_adjust_meta(ctx, -(int)sizeof(*md)))
		return XDP_PASS;
	data = (void *)(long)ctx->data;
	data_end = (void *)(long)ctx->data_end;
	md = (void *)(long)ctx->data_meta;
	eth = data;
	if ((void *)(md + 1) > data || (void *)(eth + 1) > data_end)
		return XDP_PASS;
	md->proto = eth->h_proto;
	md->tag = HEXBYTE(TAG_HEX, 0) << 8 | HEXBYTE(TAG_HEX, 2);
	if (md->proto == bpf_htons(ETH_P_8021Q)) {
		struct vlan_hdr { __be16 tci; __be16 proto; } *vlh = (void *)(eth + 1);

		if ((void *)(vlh + 1) > data_end)
			return XDP_PASS;
		md->proto = vlh->proto;
		off += sizeof(*vlh);
	}
	if (md->proto != bpf_htons(ETH_P_IP))
		return XDP_PASS;
	md->ip_off = off;
	return classify(ctx);
}

char _license[] SEC("license") = "GPL";
