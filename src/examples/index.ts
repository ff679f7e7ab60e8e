/**
 * The example programs shipped in the app (and part of the compiler's
 * corpus). Sources are template literals so Vite and Node import them
 * alike. Each states what it expects of the traffic in its header comment.
 */

/**
 * The machine an example is meant for, applied when it is chosen from the
 * menu (fields as in the engine's SimSettings.driver). A field left out, or
 * no setup at all, means the default machine's value (mlx4, one queue,
 * native XDP, no redirect target, no AF_XDP socket): choosing an example
 * always gives the machine it was written for, whatever ran before.
 */
export interface ExampleSetup {
  model?: string;
  nic?: 'mlx4' | 'vmxnet3' | 'i40e';
  queues?: number;
  xdpMode?: 'native' | 'generic';
  redirect?: 'none' | 'cpumap-drop' | 'devmap-port' | 'devmap-i40e' | 'devmap-veth';
  xsk?: 'off' | 'zc' | 'copy' | 'skb';
}

export interface Example {
  id: string;
  title: string;
  description: string;
  source: string;
  setup?: ExampleSetup;
}

const xdp1 = `/* xdp1: count packets per IP protocol, then drop them.
 *
 * Packets: Ethernet, optionally one or two VLAN tags (802.1Q / 802.1ad),
 * then IPv4 or IPv6. The counter index is the IPv4 protocol or the IPv6
 * next header; anything else counts under 0. Every packet is dropped.
 */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

struct vlan_hdr {
	__be16 h_vlan_TCI;
	__be16 h_vlan_encapsulated_proto;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, long);
	__uint(max_entries, 256);
} rxcnt SEC(".maps");

static __always_inline int parse_ipv4(void *data, __u64 nh_off, void *data_end)
{
	struct iphdr *iph = data + nh_off;

	if ((void *)(iph + 1) > data_end)
		return 0;
	return iph->protocol;
}

static __always_inline int parse_ipv6(void *data, __u64 nh_off, void *data_end)
{
	struct ipv6hdr *ip6h = data + nh_off;

	if ((void *)(ip6h + 1) > data_end)
		return 0;
	return ip6h->nexthdr;
}

SEC("xdp")
int xdp_prog1(struct xdp_md *ctx)
{
	void *data_end = (void *)(long)ctx->data_end;
	void *data = (void *)(long)ctx->data;
	struct ethhdr *eth = data;
	int rc = XDP_DROP;
	long *value;
	__u16 h_proto;
	__u64 nh_off;
	__u32 ipproto;

	nh_off = sizeof(*eth);
	if (data + nh_off > data_end)
		return rc;

	h_proto = eth->h_proto;

	/* Up to two VLAN tags (QinQ). */
	if (h_proto == bpf_htons(ETH_P_8021Q) || h_proto == bpf_htons(ETH_P_8021AD)) {
		struct vlan_hdr *vhdr = data + nh_off;

		nh_off += sizeof(struct vlan_hdr);
		if (data + nh_off > data_end)
			return rc;
		h_proto = vhdr->h_vlan_encapsulated_proto;
	}
	if (h_proto == bpf_htons(ETH_P_8021Q) || h_proto == bpf_htons(ETH_P_8021AD)) {
		struct vlan_hdr *vhdr = data + nh_off;

		nh_off += sizeof(struct vlan_hdr);
		if (data + nh_off > data_end)
			return rc;
		h_proto = vhdr->h_vlan_encapsulated_proto;
	}

	if (h_proto == bpf_htons(ETH_P_IP))
		ipproto = parse_ipv4(data, nh_off, data_end);
	else if (h_proto == bpf_htons(ETH_P_IPV6))
		ipproto = parse_ipv6(data, nh_off, data_end);
	else
		ipproto = 0;

	value = bpf_map_lookup_elem(&rxcnt, &ipproto);
	if (value)
		*value += 1;

	return rc;
}

char _license[] SEC("license") = "GPL";
`;

const xdp2 = `/* xdp2: bounce UDP back where it came from.
 *
 * Packets: Ethernet (+ up to two VLAN tags), IPv4 or IPv6. For UDP the
 * source and destination MAC addresses are swapped and the frame is sent
 * back out of the port it came in on (XDP_TX); everything else is dropped.
 * Per-protocol counters as in xdp1.
 */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

struct vlan_hdr {
	__be16 h_vlan_TCI;
	__be16 h_vlan_encapsulated_proto;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, long);
	__uint(max_entries, 256);
} rxcnt SEC(".maps");

/* Swap the two 6-byte MAC addresses, 16 bits at a time. */
static __always_inline void swap_src_dst_mac(void *data)
{
	unsigned short *p = data;
	unsigned short dst[3];

	dst[0] = p[0];
	dst[1] = p[1];
	dst[2] = p[2];
	p[0] = p[3];
	p[1] = p[4];
	p[2] = p[5];
	p[3] = dst[0];
	p[4] = dst[1];
	p[5] = dst[2];
}

static __always_inline int parse_ipv4(void *data, __u64 nh_off, void *data_end)
{
	struct iphdr *iph = data + nh_off;

	if ((void *)(iph + 1) > data_end)
		return 0;
	return iph->protocol;
}

static __always_inline int parse_ipv6(void *data, __u64 nh_off, void *data_end)
{
	struct ipv6hdr *ip6h = data + nh_off;

	if ((void *)(ip6h + 1) > data_end)
		return 0;
	return ip6h->nexthdr;
}

SEC("xdp")
int xdp_prog2(struct xdp_md *ctx)
{
	void *data_end = (void *)(long)ctx->data_end;
	void *data = (void *)(long)ctx->data;
	struct ethhdr *eth = data;
	int rc = XDP_DROP;
	long *value;
	__u16 h_proto;
	__u64 nh_off;
	__u32 ipproto;

	nh_off = sizeof(*eth);
	if (data + nh_off > data_end)
		return rc;

	h_proto = eth->h_proto;

	if (h_proto == bpf_htons(ETH_P_8021Q) || h_proto == bpf_htons(ETH_P_8021AD)) {
		struct vlan_hdr *vhdr = data + nh_off;

		nh_off += sizeof(struct vlan_hdr);
		if (data + nh_off > data_end)
			return rc;
		h_proto = vhdr->h_vlan_encapsulated_proto;
	}
	if (h_proto == bpf_htons(ETH_P_8021Q) || h_proto == bpf_htons(ETH_P_8021AD)) {
		struct vlan_hdr *vhdr = data + nh_off;

		nh_off += sizeof(struct vlan_hdr);
		if (data + nh_off > data_end)
			return rc;
		h_proto = vhdr->h_vlan_encapsulated_proto;
	}

	if (h_proto == bpf_htons(ETH_P_IP))
		ipproto = parse_ipv4(data, nh_off, data_end);
	else if (h_proto == bpf_htons(ETH_P_IPV6))
		ipproto = parse_ipv6(data, nh_off, data_end);
	else
		ipproto = 0;

	value = bpf_map_lookup_elem(&rxcnt, &ipproto);
	if (value)
		*value += 1;

	if (ipproto == IPPROTO_UDP) {
		swap_src_dst_mac(data);
		rc = XDP_TX;
	}

	return rc;
}

char _license[] SEC("license") = "GPL";
`;

const xdpRedirectMap = `/* xdp_redirect_map: forward every frame out of another port.
 *
 * Swap the MAC addresses, count the frame, and redirect it through slot 0
 * of a DEVMAP. User space (samples/bpf's loader; here the lab) puts the
 * egress port's ifindex in tx_port[0]. Redirected frames wait in a per-CPU
 * bulk queue (16 frames) until xdp_do_flush, at the end of the NAPI poll,
 * hands each bulk to the target with one ndo_xdp_xmit.
 * Machine: i40e, redirect target a second i40e port.
 */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <bpf/bpf_helpers.h>

struct {
	__uint(type, BPF_MAP_TYPE_DEVMAP);
	__uint(key_size, sizeof(int));
	__uint(value_size, sizeof(int));
	__uint(max_entries, 1);
} tx_port SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, long);
	__uint(max_entries, 1);
} rxcnt SEC(".maps");

/* Swap the two 6-byte MAC addresses, 16 bits at a time. */
static __always_inline void swap_src_dst_mac(void *data)
{
	unsigned short *p = data;
	unsigned short dst[3];

	dst[0] = p[0];
	dst[1] = p[1];
	dst[2] = p[2];
	p[0] = p[3];
	p[1] = p[4];
	p[2] = p[5];
	p[3] = dst[0];
	p[4] = dst[1];
	p[5] = dst[2];
}

SEC("xdp")
int xdp_redirect_map_prog(struct xdp_md *ctx)
{
	void *data_end = (void *)(long)ctx->data_end;
	void *data = (void *)(long)ctx->data;
	struct ethhdr *eth = data;
	__u32 key = 0;
	long *value;

	if ((void *)(eth + 1) > data_end)
		return XDP_DROP;
	swap_src_dst_mac(data);
	value = bpf_map_lookup_elem(&rxcnt, &key);
	if (value)
		*value += 1;
	/* An empty slot makes this return the flags' action: 0, XDP_ABORTED. */
	return bpf_redirect_map(&tx_port, 0, 0);
}

char _license[] SEC("license") = "GPL";
`;

const xdpRedirectCpu = `/* xdp_redirect_cpu: hand every frame to another CPU.
 *
 * Count the frame, then redirect it into a CPUMAP entry: the frame waits
 * in this CPU's bulk queue (8 frames) until xdp_do_flush moves the bulk
 * onto the remote CPU's ptr_ring, where its kthread builds the skb (here,
 * as with xdp_redirect_cpu -e drop, it drops them). User space (the lab)
 * gives every CPU an entry with a 192-frame queue (--qsize).
 * Machine: vmxnet3, redirect target a cpumap whose CPU drops.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#define MAX_CPUS 64
/* The CPU whose kthread receives the frames (xdp_redirect_cpu -c). */
#define DEST_CPU 1

struct {
	__uint(type, BPF_MAP_TYPE_CPUMAP);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(__u32));
	__uint(max_entries, MAX_CPUS);
} cpu_map SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, long);
	__uint(max_entries, 1);
} rx_cnt SEC(".maps");

SEC("xdp")
int xdp_redirect_cpu_prog(struct xdp_md *ctx)
{
	__u32 key = 0;
	long *rec;

	rec = bpf_map_lookup_elem(&rx_cnt, &key);
	if (rec)
		*rec += 1;
	return bpf_redirect_map(&cpu_map, DEST_CPU, 0);
}

char _license[] SEC("license") = "GPL";
`;

const missingBoundsCheck = `/* A verifier error, on purpose: the Ethernet header is read without
 * first checking that the packet is long enough to hold it.
 *
 * The kernel rejects this program: every packet access must be proven
 * in bounds by a comparison against data_end. Add
 *
 *     if (data + sizeof(*eth) > data_end)
 *         return XDP_DROP;
 *
 * before reading eth->h_proto, and it loads.
 */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

SEC("xdp")
int xdp_no_bounds_check(struct xdp_md *ctx)
{
	void *data_end = (void *)(long)ctx->data_end;
	void *data = (void *)(long)ctx->data;
	struct ethhdr *eth = data;

	(void)data_end; /* the check that should use it is missing */
	if (eth->h_proto == bpf_htons(ETH_P_IP))
		return XDP_PASS;
	return XDP_DROP;
}

char _license[] SEC("license") = "GPL";
`;

const uncheckedMapValue = `/* A verifier error, on purpose: the value pointer returned by
 * bpf_map_lookup_elem() is NULL when the key is not in the hash map, and
 * it is used without a check.
 *
 * The kernel rejects this program ("invalid mem access
 * 'map_value_or_null'"). Wrap the increment in if (value) { ... }.
 * (For an array map and a constant key in range, recent kernels know the
 * lookup cannot fail; a hash map lookup always can.)
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, __u32);
	__type(value, __u64);
	__uint(max_entries, 16);
} pkt_count SEC(".maps");

SEC("xdp")
int xdp_unchecked_value(struct xdp_md *ctx)
{
	__u32 key = ctx->ingress_ifindex;
	__u64 *value = bpf_map_lookup_elem(&pkt_count, &key);

	*value += 1;
	return XDP_PASS;
}

char _license[] SEC("license") = "GPL";
`;

const passCount = `/* The smallest useful XDP program: count every packet, let it pass.
 *
 * Packets: any. Counter 0 of the array map counts them.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, __u64);
	__uint(max_entries, 1);
} pkt_count SEC(".maps");

SEC("xdp")
int xdp_count_pass(struct xdp_md *ctx)
{
	__u32 key = 0;
	__u64 *value = bpf_map_lookup_elem(&pkt_count, &key);

	if (value)
		__sync_fetch_and_add(value, 1);
	return XDP_PASS;
}

char _license[] SEC("license") = "GPL";
`;

const xdpsock = `/* xdpsock: hand every frame of a queue to its AF_XDP socket
 * (samples/bpf xdpsock_kern.c).
 *
 * Packets: any. User space (xdpsock) creates the socket, binds it to rx
 * queue 0 and puts it in xsks_map at index 0. Frames of a queue with a
 * socket are redirected into its UMEM; the socket's rings show where each
 * chunk is: fill -> NIC rx -> rx -> xdpsock -> tx -> completion -> fill.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct {
	__uint(type, BPF_MAP_TYPE_XSKMAP);
	__uint(key_size, sizeof(int));
	__uint(value_size, sizeof(int));
	__uint(max_entries, 4);
} xsks_map SEC(".maps");

SEC("xdp")
int xdp_sock_prog(struct xdp_md *ctx)
{
	int index = ctx->rx_queue_index;

	/* Only queues with a socket bound go to user space. */
	if (bpf_map_lookup_elem(&xsks_map, &index))
		return bpf_redirect_map(&xsks_map, index, 0);
	return XDP_PASS;
}

char _license[] SEC("license") = "GPL";
`;

export const EXAMPLES: Example[] = [
  { id: 'xdp1', title: 'xdp1: per-protocol drop counter', description: 'Parse Ethernet (+VLAN/QinQ), IPv4/IPv6; count packets per IP protocol in a per-CPU array; drop everything.', source: xdp1 },
  { id: 'xdp2', title: 'xdp2: swap MACs and XDP_TX UDP', description: 'Like xdp1, but UDP packets get their MAC addresses swapped and are bounced back out with XDP_TX.', source: xdp2 },
  { id: 'xdp_redirect_map', title: 'xdp_redirect_map: forward through a DEVMAP', description: 'Swap MACs, count, and XDP_REDIRECT through a devmap slot to a second i40e port; frames travel in bulks of 16 flushed at xdp_do_flush.', source: xdpRedirectMap, setup: { nic: 'i40e', model: 'seed2021-i40e-10g', redirect: 'devmap-i40e' } },
  { id: 'xdp_redirect_cpu', title: 'xdp_redirect_cpu: hand frames to another CPU', description: 'Count and XDP_REDIRECT into a CPUMAP entry; bulks of 8 go to the remote CPU, whose kthread drops them (vmxnet3).', source: xdpRedirectCpu, setup: { nic: 'vmxnet3', model: 'seed2023-esxi-vmxnet3', redirect: 'cpumap-drop' } },
  { id: 'xdp-pass-count', title: 'Count and pass', description: 'The smallest useful program: an array map counter and XDP_PASS.', source: passCount },
  { id: 'missing-bounds-check', title: 'Verifier error: missing bounds check', description: 'Reads the Ethernet header without checking data_end; the verifier rejects it. Fix it!', source: missingBoundsCheck },
  { id: 'unchecked-map-value', title: 'Verifier error: unchecked map value', description: 'Dereferences a map lookup result without a NULL check; the verifier rejects it.', source: uncheckedMapValue },
  { id: 'xdpsock', title: 'xdpsock: AF_XDP zero-copy', description: 'Redirect every frame into the AF_XDP socket bound to its rx queue (XSKMAP); watch the UMEM chunks go round the fill, rx, tx and completion rings.', source: xdpsock, setup: { nic: 'i40e', model: 'seed2019-gold6140-i40e-25g', queues: 1, xdpMode: 'native', xsk: 'zc' } },
];

export function exampleById(id: string): Example | undefined {
  return EXAMPLES.find((e) => e.id === id);
}
