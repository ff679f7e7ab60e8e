/* Packets: any. Exercises the __sync builtins on a map value: fetch_and_add
 * (result used and unused), fetch_and_or/and/xor, add_and_fetch,
 * compare-and-swap and test_and_set; passes. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct stats {
	__u64 packets;
	__u64 bytes;
	__u64 bits;
	__u64 last_len;
	__u64 swapped;
	__u64 seen;
	__u64 xchg;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, struct stats);
	__uint(max_entries, 1);
} st SEC(".maps");

SEC("xdp")
int xdp_atomics(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;
	__u32 key = 0;
	__u64 len = data_end - data;
	struct stats *s = bpf_map_lookup_elem(&st, &key);
	__u64 before;

	if (!s)
		return XDP_ABORTED;
	before = __sync_fetch_and_add(&s->packets, 1);
	__sync_fetch_and_add(&s->bytes, len);
	__sync_fetch_and_or(&s->bits, 1ULL << (len & 63));
	__sync_fetch_and_and(&s->bits, ~(1ULL << 5));
	__sync_fetch_and_xor(&s->bits, 0x100);
	__sync_val_compare_and_swap(&s->last_len, 0, len);
	if (__sync_bool_compare_and_swap(&s->swapped, before, before + 1))
		__sync_add_and_fetch(&s->seen, 2);
	__sync_lock_test_and_set(&s->xchg, before);
	return XDP_PASS;
}
char _license[] SEC("license") = "GPL";
