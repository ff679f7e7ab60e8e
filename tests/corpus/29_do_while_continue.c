/* Packets: any. Walks the first bytes with a do/while loop using continue
 * and break, counting zero bytes among the first 8 (bounded: the kernel
 * verifies the loop), stores the count, drops if more than half are
 * zero. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, __u32);
	__uint(max_entries, 1);
} zeros SEC(".maps");

SEC("xdp")
int xdp_dowhile(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;
	unsigned char *p = data;
	__u32 n = 0, i = 0, key = 0;
	__u32 *v;

	do {
		if ((void *)(p + i + 1) > data_end)
			break;
		if (p[i] != 0) {
			i++;
			continue;
		}
		n++;
		i++;
	} while (i < 8);
	v = bpf_map_lookup_elem(&zeros, &key);
	if (v)
		*v = n;
	return n > 4 ? XDP_DROP : XDP_PASS;
}
char _license[] SEC("license") = "GPL";
