/* Header pointers that stay NULL until they are known to fit, in the style of small capture
 * programs: the parser sets `udp` only for an IPv4 UDP packet whose IP header fits, clears it
 * again when the UDP header does not (`if (udp && udp + 1 > end) udp = NULL`), counts on the
 * way (a helper call, so the pointer lives on the stack), and later reads the port behind a
 * single `if (!udp) return XDP_PASS`. The kernel cannot tell a packet pointer from NULL: left
 * as written, the second test is reached by the arm where the first found a non-NULL pointer
 * and skipped the check, and the port is read with no range. clang-19 threads both tests (each
 * edge into `if (!udp)` knows its answer), so the read is reached only past the check. */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/ip.h>
#include <linux/in.h>
#include <linux/udp.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 3);
	__type(key, __u32);
	__type(value, __u64);
} seen SEC(".maps");

static __always_inline void count(__u32 k)
{
	__u64 *v = bpf_map_lookup_elem(&seen, &k);

	if (v)
		*v += 1;
}

SEC("xdp")
int nullable_hdr(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;
	struct ethhdr *eth = NULL;
	struct iphdr *iph = NULL;
	struct udphdr *udp = NULL;

	if (data + sizeof(*eth) < data_end) {
		eth = data;
		count(0);
		if (eth->h_proto == bpf_htons(ETH_P_IP)) {
			iph = (void *)(eth + 1);
			if ((void *)(iph + 1) < data_end && iph->protocol == IPPROTO_UDP)
				udp = (void *)(iph + 1);
		}
		if (udp && (void *)(udp + 1) > data_end)
			udp = NULL;
	}
	if (!udp)
		return XDP_PASS;
	count(1);
	if (udp->dest != bpf_htons(4789))
		return XDP_PASS;
	count(2);
	return XDP_DROP;
}

char _license[] SEC("license") = "GPL";
