#include "common.h"

struct sample {
	__u32 ifindex;
	__u16 len;
	__u8 proto;
	__u8 flags : 3, dir : 1, spare : 4;
	__u8 head[32];
};

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4096);
} samples SEC(".maps");

static const __u8 proto_class[16] = { 0, 1, 1, 2, 2, 2, 3, 3, 3, 3, 0, 0, 1, 1, 2, 3 };

__u32 sample_every = 2;
__u64 seen_packets;

SEC("xdp")
int xdp_ring_sample(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;
	struct sample *s;
	__u8 *p = data;
	__u64 n;
	int i;

	n = __sync_fetch_and_add(&seen_packets, 1);
	if (sample_every == 0 || n % sample_every)
		return XDP_PASS;
	if ((void *)(p + 32) > data_end)
		return XDP_PASS;
	s = bpf_ringbuf_reserve(&samples, sizeof(*s), 0);
	if (!s)
		return XDP_PASS;
	s->ifindex = ctx->ingress_ifindex;
	s->len = data_end - data;
	s->proto = p[23];
	s->flags = proto_class[p[23] & 15];
	s->dir = p[0] & 1;
	s->spare = 0;
#pragma unroll
	for (i = 0; i < 32; i++)
		s->head[i] = p[i];
	/* Rejected by the kernel: s is read after bpf_ringbuf_submit released it. */
	bpf_ringbuf_submit(s, 0);
	return s->flags == 3 ? XDP_DROP : XDP_PASS;
}

char _license[] SEC("license") = "GPL";
