/* Packets: any Ethernet. A samples/bpf-era program: the map is a legacy
 * struct bpf_map_def in SEC("maps"); counts frames per first destination
 * MAC byte (mod 16) and passes. */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <bpf/bpf_helpers.h>

/* libbpf 1.x dropped the legacy map definition; programs that keep SEC("maps") carry it themselves. */
struct bpf_map_def {
	unsigned int type;
	unsigned int key_size;
	unsigned int value_size;
	unsigned int max_entries;
	unsigned int map_flags;
};

struct bpf_map_def SEC("maps") dst_count = {
	.type = BPF_MAP_TYPE_ARRAY,
	.key_size = sizeof(__u32),
	.value_size = sizeof(long),
	.max_entries = 16,
};

SEC("xdp")
int xdp_legacy(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;
	struct ethhdr *eth = data;
	__u32 key;
	long *v;

	if (data + sizeof(*eth) > data_end)
		return XDP_PASS;
	key = eth->h_dest[5] & 15;
	v = bpf_map_lookup_elem(&dst_count, &key);
	if (v)
		*v += 1;
	return XDP_PASS;
}
char _license[] SEC("license") = "GPL";
