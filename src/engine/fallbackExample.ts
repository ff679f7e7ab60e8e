/**
 * The program the editor opens with until src/examples lands: the kernel's
 * samples/bpf/xdp1 idea (count packets per IP protocol, then drop), written
 * in the restricted C the compiler accepts. Once src/examples is present the
 * engine offers its EXAMPLES instead.
 */
export const FALLBACK_EXAMPLE = {
  name: 'xdp1',
  title: 'xdp1: count by IP protocol, drop',
  source: `#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/ip.h>
#include <bpf/bpf_helpers.h>

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, long);
	__uint(max_entries, 256);
} rxcnt SEC(".maps");

SEC("xdp")
int xdp_prog1(struct xdp_md *ctx)
{
	void *data_end = (void *)(long)ctx->data_end;
	void *data = (void *)(long)ctx->data;
	struct ethhdr *eth = data;
	struct iphdr *iph = data + sizeof(*eth);
	__u32 ipproto;
	long *value;

	if ((void *)(iph + 1) > data_end)
		return XDP_DROP;
	if (eth->h_proto != __constant_htons(ETH_P_IP))
		return XDP_DROP;
	ipproto = iph->protocol;

	value = bpf_map_lookup_elem(&rxcnt, &ipproto);
	if (value)
		*value += 1;

	return XDP_DROP;
}

char _license[] SEC("license") = "GPL";
`,
};
