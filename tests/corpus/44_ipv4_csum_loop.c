/* Packets: IPv4 of any protocol and others. Recomputes the IPv4 header
 * checksum from scratch over the 10 16-bit words of an option-less header
 * (an unrolled loop), counts packets whose stored checksum was wrong,
 * rewrites it, and redirects good ones with bpf_redirect (ifindex 1). */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/ip.h>
#include <bpf/bpf_helpers.h>

/* libbpf 1.x dropped the legacy map definition; programs that keep SEC("maps") carry it themselves. */
struct bpf_map_def {
	unsigned int type;
	unsigned int key_size;
	unsigned int value_size;
	unsigned int max_entries;
	unsigned int map_flags;
};
#include <bpf/bpf_endian.h>

struct bpf_map_def SEC("maps") bad_csum = {
	.type = BPF_MAP_TYPE_ARRAY,
	.key_size = sizeof(__u32),
	.value_size = sizeof(__u64),
	.max_entries = 1,
};

static __always_inline __u16 ip_csum(struct iphdr *iph)
{
	__u16 *w = (__u16 *)iph;
	__u32 sum = 0;

#pragma unroll
	for (int i = 0; i < (int)(sizeof(*iph) / 2); i++) {
		if (i != 5)
			sum += w[i];
	}
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	return ~sum;
}

SEC("xdp")
int xdp_csum(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;
	struct ethhdr *eth = data;
	struct iphdr *iph = (void *)(eth + 1);
	__u32 zero = 0;
	__u16 want;

	if ((void *)(iph + 1) > data_end || eth->h_proto != bpf_htons(ETH_P_IP) || iph->ihl != 5)
		return XDP_PASS;
	want = ip_csum(iph);
	if (want != iph->check) {
		__u64 *n = bpf_map_lookup_elem(&bad_csum, &zero);
		if (n)
			*n += 1;
		iph->check = want;
		return XDP_DROP;
	}
	return bpf_redirect(1, 0);
}
char _license[] SEC("license") = "GPL";
