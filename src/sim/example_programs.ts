/**
 * The scenarios' programs as real bytecode: the seed samples from
 * src/examples compiled by src/cc and run in src/vm, plus the seed 001/002
 * samples' programs written here (xdpsock: redirect into the XSKMAP slot of
 * the rx queue; xdp_redirect_map: swap MACs, count, redirect to devmap slot
 * 0), with the map entries user space would install. (The seed 004
 * samples, xdp_rxq_info and xdp_redirect_cpu, are not compiled yet: their
 * native references stand in, marked [native].)
 */
import { compile, formatDiagnostic } from '../cc';
import { EXAMPLES } from '../examples';
import { parseSpec, type ParsedSpec } from '../isa/spec';
import { nativePrograms, type ProgramResolver } from './scenarios';
import { vmHook } from './vm_hook';
import type { XdpHook } from './program';

/** Compile C to a parsed spec; a one-line error otherwise. */
export function compileToSpec(source: string, file: string): ParsedSpec | { error: string } {
  const c = compile(source, { file });
  if (!c.spec) {
    const first = c.diagnostics.find((d) => d.severity === 'error') ?? c.diagnostics[0];
    return { error: first ? formatDiagnostic(first, source).split('\n')[0]! : `${file}: does not compile` };
  }
  const p = parseSpec(JSON.parse(JSON.stringify(c.spec)));
  return 'error' in p ? { error: `${file}: ${p.error}` } : p;
}

const cache = new Map<string, ParsedSpec>();

export function exampleSpec(id: string): ParsedSpec {
  let p = cache.get(id);
  if (!p) {
    const ex = EXAMPLES.find((e) => e.id === id);
    if (!ex) throw new Error(`no example program '${id}'`);
    const r = compileToSpec(ex.source, `${id}.c`);
    if ('error' in r) throw new Error(r.error);
    cache.set(id, (p = r));
  }
  return p;
}

/** What xdpsock loads: the socket's XSKMAP slot is its rx queue index. */
const XDPSOCK_C = `#include <linux/bpf.h>
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

/** What xdp_redirect_map loads on the ingress port: swap MACs, count, send to devmap slot 0. */
const XDP_REDIRECT_MAP_C = `#include <linux/bpf.h>
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
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(long));
	__uint(max_entries, 1);
} rxcnt SEC(".maps");

SEC("xdp")
int xdp_redirect_map_prog(struct xdp_md *ctx)
{
	void *data_end = (void *)(long)ctx->data_end;
	void *data = (void *)(long)ctx->data;
	__u16 *p = data;
	__u16 d0, d1, d2;
	__u32 key = 0;
	long *value;

	if (data + sizeof(struct ethhdr) > data_end)
		return XDP_DROP;
	/* Three 16-bit words each way: the destination becomes the source. */
	d0 = p[0];
	d1 = p[1];
	d2 = p[2];
	p[0] = p[3];
	p[1] = p[4];
	p[2] = p[5];
	p[3] = d0;
	p[4] = d1;
	p[5] = d2;
	value = bpf_map_lookup_elem(&rxcnt, &key);
	if (value)
		*value += 1;
	return bpf_redirect_map(&tx_port, 0, 0);
}
char _license[] SEC("license") = "GPL";
`;

/** Compile one of the programs above and install slot 0 of its redirect map (as the sample's loader does). */
function sampleHook(name: string, source: string, mapName: string): XdpHook {
  const p = compileToSpec(source, `${name}.c`);
  if ('error' in p) throw new Error(p.error);
  const h = vmHook(p, { name });
  if ('error' in h) throw new Error(h.error);
  const i = (p.spec.maps ?? []).findIndex((m) => m.name === mapName);
  const rc = h.maps[i]!.userUpdate(new Uint8Array(4), new Uint8Array([1, 0, 0, 0]));
  if (rc !== 0) throw new Error(`${name}: cannot install ${mapName}[0] (${rc})`);
  return h;
}

function hook(id: string): XdpHook {
  const h = vmHook(exampleSpec(id), { name: id });
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
      return sampleHook('xdpsock', XDPSOCK_C, 'xsks_map');
    case 'xdp_redirect_map':
      return sampleHook('xdp_redirect_map', XDP_REDIRECT_MAP_C, 'tx_port');
    default:
      return nativePrograms(name);
  }
};
