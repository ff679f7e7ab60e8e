/* Packets: any. Logs the packet length with bpf_printk (format string on
 * the stack) for frames shorter than 40 bytes; passes everything. */
/* libbpf keeps the format string on the stack only without global data. */
#define BPF_NO_GLOBAL_DATA
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

SEC("xdp")
int xdp_printk(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;
	long len = data_end - data;

	if (len < 40)
		bpf_printk("short frame: %ld bytes", len);
	return XDP_PASS;
}
char _license[] SEC("license") = "GPL";
