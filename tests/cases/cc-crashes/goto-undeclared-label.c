/* issue 17: "Cannot read properties of undefined (reading 'insn')" for a goto with no label */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
SEC("xdp") int p(struct xdp_md *ctx)
{
	goto out;
	return 1;
}
