/* A program on the running kernel's vmlinux.h (scripts/setup.sh writes it to generated/), with CO-RE field checks. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_core_read.h>

#define ETH_P_IP 0x0800

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 256);
	__type(key, __u32);
	__type(value, __u64);
} proto_cnt SEC(".maps");

SEC("xdp")
int xdp_core(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;
	struct ethhdr *eth = data;
	struct iphdr *ip;
	__u32 key;
	__u64 *v;

	if ((void *)(eth + 1) > data_end)
		return XDP_DROP;
	if (eth->h_proto != bpf_htons(ETH_P_IP))
		return XDP_PASS;
	ip = (void *)(eth + 1);
	if ((void *)(ip + 1) > data_end)
		return XDP_DROP;
	key = ip->protocol;
	if (bpf_core_field_exists(ip->tos))
		key ^= 0;
	v = bpf_map_lookup_elem(&proto_cnt, &key);
	if (v)
		*v += bpf_core_field_size(ip->saddr);
	return XDP_PASS;
}
char _license[] SEC("license") = "GPL";
