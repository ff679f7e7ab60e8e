/* Packets: any. Signed and unsigned integer arithmetic, promotions,
 * shifts (arithmetic and logical), narrowing casts and sign extension,
 * checked against the packet length; the result lands in an array. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, __s64);
	__uint(max_entries, 8);
} out SEC(".maps");

static __always_inline void put(__u32 k, __s64 v)
{
	__s64 *p = bpf_map_lookup_elem(&out, &k);
	if (p)
		*p = v;
}

SEC("xdp")
int xdp_signed(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;
	int len = data_end - data;
	signed char sc = (signed char)(len * 3);
	short sh = -len;
	unsigned char uc = len * 5;
	int neg = -len;
	long wide = neg;
	unsigned int u = neg;

	put(0, sc);
	put(1, sh >> 2);
	put(2, uc + sc);
	put(3, wide * 1000000000L);
	put(4, u >> 3);
	put(5, neg >> 3);
	put(6, (__s64)(__s32)(u << 4) + ((unsigned)len % 7) - ((unsigned)len / 3));
	put(7, (len & 1) ? -1 : 1);
	return XDP_PASS;
}
char _license[] SEC("license") = "GPL";
