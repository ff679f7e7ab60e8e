/* SPDX-License-Identifier: GPL-2.0 */
/* Redirect through a devmap by the frame's last destination byte, in the style of the
 * kernel's samples/bpf xdp_redirect_map: swaps MACs, counts per CPU, XDP_TX for
 * broadcast. Includes its project's header from a sibling folder. */
#include "common/xdp_helpers.h"
#include "common/xdp_helpers.h" /* #pragma once makes the second one a no-op */

#define NR_PORTS 8

struct {
	__uint(type, BPF_MAP_TYPE_DEVMAP);
	__uint(max_entries, NR_PORTS);
	__type(key, __u32);
	__type(value, __u32);
} tx_port SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} CONCAT(rx, _cnt) SEC(".maps");

static const __u8 broadcast[ETH_ALEN] __maybe_unused = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };

SEC("xdp")
int xdp_redirect_map_prog(struct xdp_md *ctx)
{
	void *data_end = (void *)(long)ctx->data_end;
	void *data = (void *)(long)ctx->data;
	struct ethhdr *eth = data;
	__u32 key = 0, port;
	__u64 *value;
	int i, bcast = 1;

	if (data + sizeof(*eth) > data_end)
		return XDP_DROP;
	value = bpf_map_lookup_elem(&rx_cnt, &key);
	if (value)
		*value += 1;
	DEBUG_PRINT("frame of %d bytes", (int)(data_end - data));
	for (i = 0; i < ETH_ALEN; i++)
		if (eth->h_dest[i] != 0xff)
			bcast = 0;
	swap_src_dst_mac(eth);
	if (bcast)
		return XDP_TX;
	port = eth->h_source[ETH_ALEN - 1] % NR_PORTS;
	return bpf_redirect_map(&tx_port, port, XDP_PASS);
}

char _license[] SEC("license") = "GPL";
