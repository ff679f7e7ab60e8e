#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/ip.h>
#include <linux/in.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, __u8[8]);
	__type(value, __u64);
	__uint(max_entries, 1024);
} flows SEC(".maps");

SEC("xdp")
int prog(struct xdp_md *ctx)
{
	void *data_end = (void *)(long)ctx->data_end;
	void *data = (void *)(long)ctx->data;
	struct ethhdr *eth = data;
	struct iphdr *iph = data + sizeof(*eth);
	__u8 key[8] = {};
	__u64 *count;

	if ((void *)(iph + 1) > data_end)
		return XDP_PASS;
	key[0] = iph->protocol;
	*(__u32 *)(key + 2) = iph->saddr;
	count = bpf_map_lookup_elem(&flows, key);
	if (count)
		*count += 1;
	return XDP_PASS;
}
char _license[] SEC("license") = "GPL";
