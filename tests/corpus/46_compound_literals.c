/* Packets: any. Compound literals (C11 6.5.2.5): a map key and value built
 * in place and passed by address, a struct assigned whole from one, a member
 * read off one, and an array literal handed to an inline function; the
 * packet length decides the verdict. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
struct key { __u32 ifindex; __u16 proto; __u16 pad; };
struct val { __u64 packets; __u64 bytes; };
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 64);
	__type(key, struct key);
	__type(value, struct val);
} stats SEC(".maps");
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 4);
	__type(key, __u32);
	__type(value, __u64);
} hits SEC(".maps");

static __always_inline int sum(const int *v, int n) { int s = 0; for (int i = 0; i < n; i++) s += v[i]; return s; }

SEC("xdp")
int prog(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data, *end = (void *)(long)ctx->data_end;
	__u32 len = end - data;
	struct val *v = bpf_map_lookup_elem(&stats, &(struct key){ .ifindex = ctx->ingress_ifindex, .proto = len & 0xffff });
	if (!v) {
		bpf_map_update_elem(&stats, &(struct key){ .ifindex = ctx->ingress_ifindex, .proto = len & 0xffff }, &(struct val){ 1, len }, BPF_NOEXIST);
	} else {
		*v = (struct val){ .packets = v->packets + 1, .bytes = v->bytes + len };
	}
	__u64 *h = bpf_map_lookup_elem(&hits, &(__u32){ len & 3 });
	if (h)
		*h += (struct val){ .bytes = 7 }.bytes + sum((int[]){ 1, 2, 3, (int)(len & 1) }, 4);
	return len > 100 ? XDP_PASS : XDP_DROP;
}
char _license[] SEC("license") = "GPL";
