/* Packets: IPv4 and others. Classifies packets into an enum through typedef'd
 * structs and a function-like classifier; counts per class in a
 * percpu array; drops class BAD, passes others. */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/ip.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

typedef enum { CLS_NONIP = 0, CLS_SMALL = 1, CLS_BIG = 2, CLS_BAD = 3, CLS_MAX } cls_t;
typedef struct iphdr ip_t;
typedef unsigned long long counter_t;

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, counter_t);
	__uint(max_entries, CLS_MAX);
} per_class SEC(".maps");

static __always_inline cls_t classify(const ip_t *iph)
{
	__u16 tot = bpf_ntohs(iph->tot_len);

	if (iph->version != 4 || iph->ihl < 5)
		return CLS_BAD;
	return tot < 60 ? CLS_SMALL : CLS_BIG;
}

SEC("xdp")
int xdp_enum(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;
	struct ethhdr *eth = data;
	ip_t *iph = (ip_t *)(eth + 1);
	cls_t c = CLS_NONIP;
	counter_t *v;
	__u32 key;

	if ((void *)(iph + 1) <= data_end && eth->h_proto == bpf_htons(ETH_P_IP))
		c = classify(iph);
	key = c;
	v = bpf_map_lookup_elem(&per_class, &key);
	if (v)
		(*v)++;
	return c == CLS_BAD ? XDP_DROP : XDP_PASS;
}
char _license[] SEC("license") = "GPL";
