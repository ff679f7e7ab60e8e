/** Shared C text for exercise starters and solutions. */
export const INCLUDES = `#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/udp.h>
#include <linux/tcp.h>
#include <linux/icmp.h>
#include <linux/icmpv6.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>
`;

export const LICENSE = `\nchar _license[] SEC("license") = "GPL";\n`;

export const VLAN_HDR = `
struct vlan_hdr {
	__be16 h_vlan_TCI;
	__be16 h_vlan_encapsulated_proto;
};
`;

/** A whole program: includes, extra declarations, one SEC("xdp") function with this body. */
export function prog(body: string, decls = ''): string {
  return `${INCLUDES}${decls}
SEC("xdp")
int xdp_prog(struct xdp_md *ctx)
{
${body.replace(/^\n/, '').replace(/\s+$/, '')}
}
${LICENSE}`;
}

/** The usual start of a parser: data, data_end and the Ethernet header, checked. */
export const ETH = `	void *data_end = (void *)(long)ctx->data_end;
	void *data = (void *)(long)ctx->data;
	struct ethhdr *eth = data;

	if ((void *)(eth + 1) > data_end)
		return XDP_DROP;
`;

/** ETH, then an IPv4 header (no options) checked, else PASS. */
export const ETH_IP = `${ETH}	if (eth->h_proto != bpf_htons(ETH_P_IP))
		return XDP_PASS;
	struct iphdr *iph = (void *)(eth + 1);
	if ((void *)(iph + 1) > data_end)
		return XDP_DROP;
`;
