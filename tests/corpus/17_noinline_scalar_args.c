/* Packets: any. Computes a small hash of the first bytes with a noinline
 * function taking 5 scalar arguments (r1-r5), counts into 8 buckets,
 * passes. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, __u64);
	__uint(max_entries, 8);
} buckets SEC(".maps");

static __attribute__((noinline)) __u32 mix(__u32 a, __u32 b, __u32 c, __u32 d, __u32 e)
{
	__u32 h = a * 31 + b;

	h ^= c << 3;
	h += d >> 1;
	h ^= e * 7;
	return h & 7;
}

SEC("xdp")
int xdp_mix(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;
	__u8 *p = data;
	__u32 key;
	__u64 *v;

	if ((void *)(p + 5) > data_end)
		return XDP_PASS;
	key = mix(p[0], p[1], p[2], p[3], p[4]);
	v = bpf_map_lookup_elem(&buckets, &key);
	if (v)
		*v += 1;
	return XDP_PASS;
}
char _license[] SEC("license") = "GPL";
