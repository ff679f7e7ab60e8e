/* Packets: any Ethernet. Conditional and comma expressions, compound
 * assignments (+= -= *= <<= >>= &= |= ^=) and pre/post increment on a
 * small state machine; the final value selects PASS or DROP. */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <bpf/bpf_helpers.h>

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, __u32);
	__uint(max_entries, 2);
} result SEC(".maps");

SEC("xdp")
int xdp_exprs(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;
	struct ethhdr *eth = data;
	__u32 x, y, k0 = 0, k1 = 1;
	__u32 *r;

	if ((void *)(eth + 1) > data_end)
		return XDP_PASS;
	x = eth->h_source[5];
	y = (x & 1) ? x * 3 : (x >> 1, x + 7);
	x += 5;
	x -= 2;
	x *= 3;
	x <<= 2;
	x >>= 1;
	x &= 0xfff;
	x |= 0x10000;
	x ^= y;
	y = x++ + ++y;
	r = bpf_map_lookup_elem(&result, &k0);
	if (r)
		*r = x;
	r = bpf_map_lookup_elem(&result, &k1);
	if (r)
		*r = y--;
	return (x & 4) ? XDP_PASS : XDP_DROP;
}
char _license[] SEC("license") = "GPL";
