/* Packets: any. Nested structs with arrays of structs as a map value,
 * indexed by values derived from the packet (bounded by masks the
 * verifier can follow), multi-level member access and pointer-to-member;
 * passes. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct slot {
	__u32 hits;
	__u16 last_len;
	__u8 first_byte;
	__u8 pad;
};

struct table {
	struct {
		__u64 packets;
		__u64 bytes;
	} totals;
	struct slot slots[8];
	__u8 hist[16];
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, struct table);
	__uint(max_entries, 1);
} tbl SEC(".maps");

SEC("xdp")
int xdp_nested(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;
	__u8 *p = data;
	__u32 zero = 0, len = data_end - data;
	struct table *t;
	struct slot *s;

	if ((void *)(p + 1) > data_end)
		return XDP_PASS;
	t = bpf_map_lookup_elem(&tbl, &zero);
	if (!t)
		return XDP_PASS;
	t->totals.packets++;
	t->totals.bytes += len;
	s = &t->slots[p[0] & 7];
	s->hits++;
	s->last_len = len;
	s->first_byte = p[0];
	t->hist[len & 15] += 1;
	return XDP_PASS;
}
char _license[] SEC("license") = "GPL";
