/* Packets: IPv4 of several protocols and others. A switch on the IP
 * protocol with fall-through, default and a nested switch on the ICMP
 * type; returns a verdict and a score stored in an array. */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/ip.h>
#include <linux/in.h>
#include <linux/icmp.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, __u32);
	__uint(max_entries, 256);
} score SEC(".maps");

SEC("xdp")
int xdp_switch(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;
	struct ethhdr *eth = data;
	struct iphdr *iph = (void *)(eth + 1);
	struct icmphdr *icmp = (void *)(iph + 1);
	__u32 s = 0, key;
	__u32 *v;
	int verdict = XDP_PASS;

	if ((void *)(icmp + 1) > data_end || eth->h_proto != bpf_htons(ETH_P_IP))
		return XDP_PASS;
	switch (iph->protocol) {
	case IPPROTO_ICMP:
		switch (icmp->type) {
		case ICMP_ECHO:
			s += 100;
			break;
		case ICMP_ECHOREPLY:
			s += 50;
			/* fall through */
		default:
			s += 1;
		}
		break;
	case IPPROTO_TCP:
		s += 10;
		/* fall through */
	case IPPROTO_UDP:
		s += 20;
		break;
	case IPPROTO_GRE:
		verdict = XDP_DROP;
		break;
	default:
		s = 7;
	}
	key = iph->protocol;
	v = bpf_map_lookup_elem(&score, &key);
	if (v)
		*v += s;
	return verdict;
}
char _license[] SEC("license") = "GPL";
