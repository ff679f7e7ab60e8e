/**
 * The scenarios' programs as real bytecode, through the one pipeline
 * (./pipeline.ts: compiled, loaded into the VM with the map entries the
 * sample's loader installs): the seed samples from src/examples, plus the seed 001/002
 * samples' programs written here (xdpsock: redirect into the XSKMAP slot of
 * the rx queue; xdp_redirect_map: swap MACs, count, redirect to devmap slot
 * 0) and the seed 002 devmap-entry and veth-peer programs, and the seed
 * 004 samples' programs (xdp_rxq_info with -a DROP/PASS/TX, and
 * xdp_redirect_cpu -c 0 into a cpumap), with the map entries user space
 * would install. Every scenario program runs as compiled bytecode. The
 * simulator receives the loaded hooks (a ProgramResolver); it never compiles.
 */
import { EXAMPLES } from '../examples';
import type { ParsedSpec } from '../isa/spec';
import type { ProgramResolver, ScenarioProgram, XdpHook } from '../sim';
import { compileSource, loadProgram } from './pipeline';

const cache = new Map<string, ParsedSpec>();

export function exampleSpec(id: string): ParsedSpec {
  let p = cache.get(id);
  if (!p) {
    const ex = EXAMPLES.find((e) => e.id === id);
    if (!ex) throw new Error(`no example program '${id}'`);
    const r = compileSource(ex.source, `${id}.c`);
    if ('error' in r) throw new Error(r.error);
    cache.set(id, (p = r));
  }
  return p;
}

// The samples below share their boilerplate through these fragments, so each
// program's text is only what makes it that sample. The fragments expand to
// the same tokens the samples had written out, so the bytecode is the same.

/** The headers: every sample includes the BPF ones; those reading the Ethernet header include linux/if_ether.h too. */
const includes = (ether = false): string =>
  `#include <linux/bpf.h>\n${ether ? '#include <linux/if_ether.h>\n' : ''}#include <bpf/bpf_helpers.h>\n`;

/** A map in the BTF style libbpf reads from the ".maps" section. */
const mapDef = (name: string, type: string, keySize: string, valueSize: string | number, maxEntries: string | number): string => `struct {
	__uint(type, BPF_MAP_TYPE_${type});
	__uint(key_size, ${keySize});
	__uint(value_size, ${valueSize});
	__uint(max_entries, ${maxEntries});
} ${name} SEC(".maps");
`;

/** The packet pointers, as every sample that reads the packet opens. */
const XDP_DATA = `	void *data_end = (void *)(long)ctx->data_end;
	void *data = (void *)(long)ctx->data;
`;

/** C statements, one a line, each indented by `indent` (tabs: the nesting where they go). */
const stmts = (indent: string, ...lines: string[]): string => lines.map((l) => `${indent}${l}\n`).join('');

/** The Ethernet header's bounds check (what the verifier asks before the header is read); `verdict` when it is short. */
const ethCheck = (indent: string, verdict: string): string => stmts(indent, 'if (data + sizeof(struct ethhdr) > data_end)', `\treturn ${verdict};`);

/** Swap the Ethernet addresses (p: the frame as __u16 *; d0..d2 declared by the program). */
const swapMacs = (indent: string): string =>
  stmts(indent, '/* Three 16-bit words each way: the destination becomes the source. */', 'd0 = p[0];', 'd1 = p[1];', 'd2 = p[2];', 'p[0] = p[3];', 'p[1] = p[4];', 'p[2] = p[5];', 'p[3] = d0;', 'p[4] = d1;', 'p[5] = d2;');

const LICENSE = 'char _license[] SEC("license") = "GPL";\n';

/** What xdpsock loads: the socket's XSKMAP slot is its rx queue index. */
const XDPSOCK_C = `${includes()}
${mapDef('xsks_map', 'XSKMAP', 'sizeof(int)', 'sizeof(int)', 4)}
SEC("xdp")
int xdp_sock_prog(struct xdp_md *ctx)
{
	int index = ctx->rx_queue_index;

	/* Only queues with a socket bound go to user space. */
	if (bpf_map_lookup_elem(&xsks_map, &index))
		return bpf_redirect_map(&xsks_map, index, 0);
	return XDP_PASS;
}
${LICENSE}`;

/** What xdp_redirect_map loads on the ingress port: swap MACs, count, send to devmap slot 0. */
const XDP_REDIRECT_MAP_C = `${includes(true)}
${mapDef('tx_port', 'DEVMAP', 'sizeof(int)', 'sizeof(int)', 1)}
${mapDef('rxcnt', 'PERCPU_ARRAY', 'sizeof(__u32)', 'sizeof(long)', 1)}
SEC("xdp")
int xdp_redirect_map_prog(struct xdp_md *ctx)
{
${XDP_DATA}	__u16 *p = data;
	__u16 d0, d1, d2;
	__u32 key = 0;
	long *value;

${ethCheck('\t', 'XDP_DROP')}${swapMacs('\t')}	value = bpf_map_lookup_elem(&rxcnt, &key);
	if (value)
		*value += 1;
	return bpf_redirect_map(&tx_port, 0, 0);
}
${LICENSE}`;

/**
 * What xdp_rxq_info loads: count per CPU and per rx queue, then return the
 * action user space put in config_map (-a), swapping MACs for XDP_TX.
 */
const XDP_RXQ_INFO_C = `${includes(true)}
/* What user space sets with -a ACTION (and --swapmac for XDP_TX). */
struct config {
	__u32 action;
	int ifindex;
	__u32 options;
};
#define SWAP_MAC 1

${mapDef('config_map', 'ARRAY', 'sizeof(int)', 'sizeof(struct config)', 1)}
${mapDef('stats_global_map', 'PERCPU_ARRAY', 'sizeof(__u32)', 'sizeof(long)', 1)}
#define MAX_RXQs 64
${mapDef('rx_queue_index_map', 'PERCPU_ARRAY', 'sizeof(__u32)', 'sizeof(long)', 'MAX_RXQs + 1')}
SEC("xdp")
int xdp_prognum0(struct xdp_md *ctx)
{
${XDP_DATA}	struct config *config;
	__u32 key = 0;
	long *cnt;
	__u16 *p = data;
	__u16 d0, d1, d2;

	config = bpf_map_lookup_elem(&config_map, &key);
	if (!config)
		return XDP_ABORTED;
	cnt = bpf_map_lookup_elem(&stats_global_map, &key);
	if (!cnt)
		return XDP_ABORTED;
	*cnt += 1;
	/* Count per rx queue; out-of-range queues share the last slot. */
	key = ctx->rx_queue_index;
	if (key >= MAX_RXQs)
		key = MAX_RXQs;
	cnt = bpf_map_lookup_elem(&rx_queue_index_map, &key);
	if (!cnt)
		return XDP_ABORTED;
	*cnt += 1;
	if (config->action == XDP_TX && (config->options & SWAP_MAC)) {
${ethCheck('\t\t', 'XDP_ABORTED')}${swapMacs('\t\t')}	}
	return config->action;
}
${LICENSE}`;

/** What xdp_redirect_cpu loads (the no-touch program): count, then redirect into the cpumap slot of the first available CPU. */
const XDP_REDIRECT_CPU_C = `${includes()}
#define MAX_CPUS 64

${mapDef('cpu_map', 'CPUMAP', 'sizeof(__u32)', 'sizeof(__u32)', 'MAX_CPUS')}
/* Which CPUs user space made available (-c): slot 0 is the one used. */
${mapDef('cpus_available', 'ARRAY', 'sizeof(__u32)', 'sizeof(__u32)', 'MAX_CPUS')}
${mapDef('rx_cnt', 'PERCPU_ARRAY', 'sizeof(__u32)', 'sizeof(long)', 1)}
SEC("xdp")
int xdp_prognum0_no_touch(struct xdp_md *ctx)
{
	__u32 key = 0;
	__u32 *cpu_selected;
	__u32 cpu_dest;
	long *rec;

	rec = bpf_map_lookup_elem(&rx_cnt, &key);
	if (!rec)
		return XDP_ABORTED;
	*rec += 1;
	cpu_selected = bpf_map_lookup_elem(&cpus_available, &key);
	if (!cpu_selected)
		return XDP_ABORTED;
	cpu_dest = *cpu_selected;
	if (cpu_dest >= MAX_CPUS)
		return XDP_ABORTED;
	return bpf_redirect_map(&cpu_map, cpu_dest, 0);
}
${LICENSE}`;

/** What xdp_redirect_map loads on the devmap entry: the egress port's MAC becomes the source, XDP_PASS. */
const XDP_REDIRECT_MAP_EGRESS_C = `${includes(true)}
/* The egress port's MAC, installed by user space. */
${mapDef('tx_mac', 'ARRAY', 'sizeof(__u32)', 8, 1)}
SEC("xdp")
int xdp_redirect_map_egress(struct xdp_md *ctx)
{
${XDP_DATA}	__u16 *p = data;
	__u16 *mac;
	__u32 key = 0;

${ethCheck('\t', 'XDP_DROP')}	mac = bpf_map_lookup_elem(&tx_mac, &key);
	if (mac) {
		/* The source becomes the egress port's address. */
		p[3] = mac[0];
		p[4] = mac[1];
		p[5] = mac[2];
	}
	return XDP_PASS;
}
${LICENSE}`;

/** What seed 002 loads on the veth peer: drop everything (the frames only need a program to arrive). */
const XDP_DROP_C = `${includes()}
SEC("xdp")
int xdp_drop(struct xdp_md *ctx)
{
	return XDP_DROP;
}
${LICENSE}`;

const sampleCache = new Map<string, ParsedSpec>();

/** A 32-bit little-endian key or value. */
function u32s(...v: number[]): Uint8Array {
  const b = new Uint8Array(4 * v.length);
  v.forEach((x, i) => new DataView(b.buffer).setUint32(4 * i, x, true));
  return b;
}

/**
 * Compile one of the programs above (once) and load it in a fresh VM hook
 * with the map entries the sample's loader installs: [map, key, value].
 */
function sampleSpec(name: string, source: string): ParsedSpec {
  let p = sampleCache.get(source);
  if (!p) {
    const r = compileSource(source, `${name}.c`);
    if ('error' in r) throw new Error(r.error);
    sampleCache.set(source, (p = r));
  }
  return p;
}

/** The compiled program behind a scenario program name (what xdp-lab sim --verify judges). */
export function scenarioProgramSpec(name: Exclude<ScenarioProgram, null>): ParsedSpec {
  switch (name) {
    case 'xdp1':
    case 'xdp2':
      return exampleSpec(name);
    case 'xdp_pass':
      return exampleSpec('xdp-pass-count');
    case 'xdpsock':
      return sampleSpec(name, XDPSOCK_C);
    case 'xdp_redirect_map':
      return sampleSpec(name, XDP_REDIRECT_MAP_C);
    case 'xdp_redirect_map_egress':
      return sampleSpec(name, XDP_REDIRECT_MAP_EGRESS_C);
    case 'xdp_drop':
      return sampleSpec(name, XDP_DROP_C);
    case 'xdp_rxq_info_drop':
    case 'xdp_rxq_info_pass':
    case 'xdp_rxq_info_tx':
      return sampleSpec('xdp_rxq_info', XDP_RXQ_INFO_C);
    case 'xdp_redirect_cpu':
      return sampleSpec(name, XDP_REDIRECT_CPU_C);
  }
}

function sampleHook(name: string, source: string, entries: [string, Uint8Array, Uint8Array][] = []): XdpHook {
  const h = loadProgram(sampleSpec(name, source), { name }, entries);
  if ('error' in h) throw new Error(h.error);
  return h;
}

/** xdp_rxq_info -a ACTION (--swapmac with XDP_TX): config_map[0] = { action, ifindex, options }. */
const rxqInfo = (action: number, label: string, swapMac = false): XdpHook =>
  sampleHook(`xdp_rxq_info -a ${label}`, XDP_RXQ_INFO_C, [['config_map', u32s(0), u32s(action, 1, swapMac ? 1 : 0)]]);

function hook(id: string): XdpHook {
  const h = loadProgram(exampleSpec(id), { name: id });
  if ('error' in h) throw new Error(h.error);
  return h;
}

export const examplePrograms: ProgramResolver = (name) => {
  switch (name) {
    case 'xdp1':
      return hook('xdp1');
    case 'xdp2':
      return hook('xdp2');
    case 'xdp_pass':
      return hook('xdp-pass-count');
    case 'xdpsock':
      return sampleHook('xdpsock', XDPSOCK_C, [['xsks_map', u32s(0), u32s(1)]]);
    case 'xdp_redirect_map':
      return sampleHook('xdp_redirect_map', XDP_REDIRECT_MAP_C, [['tx_port', u32s(0), u32s(1)]]);
    case 'xdp_redirect_map_egress':
      return sampleHook('xdp_redirect_map_egress', XDP_REDIRECT_MAP_EGRESS_C, [['tx_mac', u32s(0), new Uint8Array([0x02, 0, 0, 0, 0, 0x02, 0, 0])]]);
    case 'xdp_drop':
      return sampleHook('xdp_drop on the veth peer', XDP_DROP_C);
    case 'xdp_rxq_info_drop':
      return rxqInfo(1, 'XDP_DROP');
    case 'xdp_rxq_info_pass':
      return rxqInfo(2, 'XDP_PASS');
    case 'xdp_rxq_info_tx':
      return rxqInfo(3, 'XDP_TX', true);
    case 'xdp_redirect_cpu':
      // cpu_map[0] = a 192-frame queue (the sample's default -q), cpus_available[0] = CPU 0.
      return sampleHook('xdp_redirect_cpu -c 0', XDP_REDIRECT_CPU_C, [
        ['cpu_map', u32s(0), u32s(192)],
        ['cpus_available', u32s(0), u32s(0)],
      ]);
  }
};
