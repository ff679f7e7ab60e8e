/* Packets: any. Sums the first 16 payload bytes after the Ethernet header
 * with a bounded loop (no unrolling: the kernel's loop support verifies
 * it), stores the sum per packet-length class, passes. */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <bpf/bpf_helpers.h>

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, __u64);
	__uint(max_entries, 2);
} sums SEC(".maps");

SEC("xdp")
int xdp_loop(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;
	__u8 *p = data + sizeof(struct ethhdr);
	__u64 sum = 0;
	__u32 key;
	__u64 *v;
	int i;

	for (i = 0; i < 16; i++) {
		if ((void *)(p + i + 1) > data_end)
			break;
		sum += p[i];
	}
	key = (data_end - data) > 64;
	v = bpf_map_lookup_elem(&sums, &key);
	if (v)
		*v += sum;
	return XDP_PASS;
}
char _license[] SEC("license") = "GPL";
