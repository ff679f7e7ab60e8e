/* Packets: any with at least 18 bytes. Reads a packed custom header with
 * bitfields laid over bytes 14..17 (after the MACs and EtherType): a
 * 3-bit priority, a 1-bit flag and a 12-bit id like an 802.1Q TCI; counts
 * per priority, stores the last id, passes. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct tci_le {
	__u16 id:12;
	__u16 dei:1;
	__u16 prio:3;
} __attribute__((packed));

struct custom {
	__u8 macs[12];
	__u16 type;
	struct tci_le tci;
	__u16 rest;
} __attribute__((packed));

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, __u64);
	__uint(max_entries, 9);
} prio SEC(".maps");

SEC("xdp")
int xdp_bitfields(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;
	struct custom *c = data;
	__u32 key, last = 8;
	__u64 *v;

	if ((void *)(c + 1) > data_end)
		return XDP_PASS;
	key = c->tci.prio;
	v = bpf_map_lookup_elem(&prio, &key);
	if (v)
		*v += 1 + c->tci.dei;
	v = bpf_map_lookup_elem(&prio, &last);
	if (v)
		*v = c->tci.id;
	return XDP_PASS;
}
char _license[] SEC("license") = "GPL";
