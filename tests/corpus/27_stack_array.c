/* Packets: any. Copies the first 12 bytes into a stack array, rotates
 * them in an unrolled loop, writes the array back over the MAC addresses
 * (so both addresses change) and returns XDP_TX for even lengths, PASS
 * for odd ones. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

SEC("xdp")
int xdp_stack_array(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;
	__u8 *p = data;
	__u8 buf[12];
	__u8 tmp;

	if ((void *)(p + 12) > data_end)
		return XDP_PASS;
	__builtin_memcpy(buf, p, 12);
	tmp = buf[0];
#pragma unroll
	for (int i = 0; i < 11; i++)
		buf[i] = buf[i + 1];
	buf[11] = tmp;
	__builtin_memcpy(p, buf, sizeof(buf));
	return ((data_end - data) & 1) ? XDP_PASS : XDP_TX;
}
char _license[] SEC("license") = "GPL";
