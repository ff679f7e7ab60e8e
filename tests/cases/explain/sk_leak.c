#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/tcp.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

SEC("xdp")
int xdp_sk(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;
	struct ethhdr *eth = data;
	struct iphdr *ip = data + sizeof(*eth);
	struct tcphdr *tcp = (void *)(ip + 1);
	struct bpf_sock_tuple t = {};
	struct bpf_sock *sk;

	if ((void *)(tcp + 1) > data_end)
		return XDP_PASS;
	if (eth->h_proto != bpf_htons(ETH_P_IP) || ip->protocol != IPPROTO_TCP)
		return XDP_PASS;
	t.ipv4.saddr = ip->saddr;
	t.ipv4.daddr = ip->daddr;
	t.ipv4.sport = tcp->source;
	t.ipv4.dport = tcp->dest;
	sk = (struct bpf_sock *)bpf_skc_lookup_tcp(ctx, &t, sizeof(t.ipv4), BPF_F_CURRENT_NETNS, 0);
	if (!sk)
		return XDP_PASS;
	if (sk->state == 10)
		return XDP_DROP;
	bpf_sk_release(sk);
	return XDP_PASS;
}
char _license[] SEC("license") = "GPL";
