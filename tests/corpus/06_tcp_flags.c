/* Packets: IPv4 TCP with various flags, other traffic. Counts SYN, SYN+ACK,
 * RST and FIN in an array using the tcphdr bitfields; drops bare SYNs to
 * port 22, passes the rest. */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/ip.h>
#include <linux/in.h>
#include <linux/tcp.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, __u64);
	__uint(max_entries, 4);
} flags SEC(".maps");

static __always_inline void bump(__u32 key)
{
	__u64 *v = bpf_map_lookup_elem(&flags, &key);
	if (v)
		*v += 1;
}

SEC("xdp")
int xdp_tcp_flags(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;
	struct ethhdr *eth = data;
	struct iphdr *iph;
	struct tcphdr *th;

	if ((void *)(eth + 1) > data_end || eth->h_proto != bpf_htons(ETH_P_IP))
		return XDP_PASS;
	iph = (void *)(eth + 1);
	if ((void *)(iph + 1) > data_end || iph->protocol != IPPROTO_TCP)
		return XDP_PASS;
	th = (void *)iph + iph->ihl * 4;
	if ((void *)(th + 1) > data_end)
		return XDP_PASS;
	if (th->syn && th->ack)
		bump(1);
	else if (th->syn)
		bump(0);
	if (th->rst)
		bump(2);
	if (th->fin)
		bump(3);
	if (th->syn && !th->ack && th->dest == bpf_htons(22))
		return XDP_DROP;
	return XDP_PASS;
}
char _license[] SEC("license") = "GPL";
