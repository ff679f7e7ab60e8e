/* Header helpers in the style of small NAT and capture projects: get_header() bounds-checks
 * `ctx->data + size` in integer arithmetic and returns `(void *)(unsigned long)ctx->data`,
 * push_header() moves the head and copies a header built on the stack to the new front with
 * memcpy, and the UDP port is read at `l4 + 2` after a check of `l4 + 8` where l4 is the IP
 * header's start plus its variable length. clang-19 reads ctx->data once per check (GVN), keeps
 * the loaded 32-bit value whole (the load zero-extends it), and computes `data + 14 + ihl` once
 * for the check and the read; each of the three, done twice or narrowed, leaves the kernel a
 * packet pointer without a range or a scalar where it needs a pointer. */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/ip.h>
#include <linux/in.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 4);
	__type(key, __u32);
	__type(value, __u64);
} hdr_stats SEC(".maps");

static __always_inline void bump(__u32 k)
{
	__u64 *v = bpf_map_lookup_elem(&hdr_stats, &k);

	if (v)
		*v += 1;
}

static __always_inline void *get_header(struct xdp_md *ctx, unsigned long size)
{
	if (ctx->data + size > ctx->data_end)
		return NULL;
	return (void *)(unsigned long)ctx->data;
}

static __always_inline int push_header(struct xdp_md *ctx, void *hdr, unsigned long size)
{
	if (bpf_xdp_adjust_head(ctx, -(int)size) < 0)
		return -1;
	if (ctx->data + size > ctx->data_end)
		return -1;
	__builtin_memcpy((void *)(unsigned long)ctx->data, hdr, size);
	return 0;
}

static __always_inline int udp_dport(unsigned char *m, void *end)
{
	__u32 ihl;

	if (m + sizeof(struct ethhdr) + sizeof(struct iphdr) > (unsigned char *)end)
		return -1;
	ihl = (m[sizeof(struct ethhdr)] & 0xf) * 4;
	if (m + sizeof(struct ethhdr) + ihl + 8 > (unsigned char *)end)
		return -1;
	return bpf_ntohs(*(__u16 *)(m + sizeof(struct ethhdr) + ihl + 2));
}

SEC("xdp")
int xdp_hdr_helpers(struct xdp_md *ctx)
{
	struct ethhdr *eth, copy;
	int port;

	eth = get_header(ctx, sizeof(*eth));
	if (!eth)
		return XDP_PASS;
	if (eth->h_proto != bpf_htons(ETH_P_IP)) {
		bump(0);
		return XDP_PASS;
	}
	port = udp_dport((void *)eth, (void *)(long)ctx->data_end);
	if (port < 0)
		return XDP_DROP;
	bump(port == 53 ? 1 : 2);
	if (port != 4789)
		return XDP_PASS;
	/* re-frame: a copy of the Ethernet header in front of the packet, addresses swapped */
	__builtin_memcpy(copy.h_dest, eth->h_source, ETH_ALEN);
	__builtin_memcpy(copy.h_source, eth->h_dest, ETH_ALEN);
	copy.h_proto = eth->h_proto;
	if (push_header(ctx, &copy, sizeof(copy)) < 0)
		return XDP_ABORTED;
	bump(3);
	return XDP_TX;
}

char _license[] SEC("license") = "GPL";
