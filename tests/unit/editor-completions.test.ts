/**
 * The editor's completion list comes from the built-in headers the compiler
 * uses: every helper they declare, with its prototype as the header spells
 * it, the XDP actions and map types, the macros, and struct fields.
 */
import { describe, expect, it } from 'vitest';
import { HEADERS } from '../../src/cc';
import { helperByName } from '../../src/helpers/table';
import { headerNames, structFields } from '../../src/ui/editor/headerNames';
import { declaredStruct } from '../../src/ui/editor/declaredStruct';

const named = (label: string) => headerNames().filter((n) => n.label === label);

describe('completion for the built-in headers', () => {
  it('offers bpf_map_lookup_elem with its prototype and helper id', () => {
    const [h] = named('bpf_map_lookup_elem');
    expect(h).toMatchObject({ kind: 'helper', detail: 'void *bpf_map_lookup_elem(void *map, const void *key)' });
    expect(h!.documentation).toContain('#1');
  });

  it('offers every helper the compiler declares, each one the verifier knows by that id', () => {
    // Read independently of the list's own parsing: the declarations' names in the header text.
    const declared = [...HEADERS['bpf/bpf_helper_defs.h']!.matchAll(/\(\*(\w+)\)\(.*\) = \(void \*\) (\d+);/g)].map((m) => [m[1]!, Number(m[2])] as const);
    expect(declared.length).toBeGreaterThanOrEqual(15);
    const helpers = headerNames().filter((n) => n.kind === 'helper');
    expect(helpers.map((h) => h.label).sort()).toEqual(declared.map(([n]) => n).sort());
    for (const [name, id] of declared) {
      expect(helperByName(name)?.id, name).toBe(id);
      const h = helpers.find((x) => x.label === name)!;
      expect(h.detail).toMatch(new RegExp(`\\b${name}\\(`));
      expect(h.documentation).toContain(`#${id}`);
    }
  });

  it('offers the XDP actions, map types, protocol numbers and the libbpf macros', () => {
    expect(named('XDP_PASS')[0]).toMatchObject({ kind: 'enum', detail: 'enum xdp_action = 2' });
    expect(named('XDP_TX')[0]!.detail).toBe('enum xdp_action = 3');
    expect(named('BPF_MAP_TYPE_PERCPU_ARRAY')[0]).toMatchObject({ kind: 'enum' });
    expect(named('IPPROTO_UDP')[0]!.detail).toMatch(/= 17$/);
    expect(named('ETH_P_IPV6')[0]).toMatchObject({ kind: 'macro', detail: '#define ETH_P_IPV6 0x86DD' });
    for (const m of ['SEC', '__uint', '__type', 'bpf_htons', 'bpf_ntohs']) expect(named(m)[0]?.kind, m).toBe('macro');
    expect(named('SEC')[0]!.detail).toMatch(/^#define SEC\(name\)/);
    // Include guards are not names a program uses.
    expect(named('_LINUX_TYPES_H')).toEqual([]);
  });

  it('knows the fields of xdp_md and the packet headers, as the headers declare them', () => {
    expect(structFields('xdp_md').map((f) => f.detail)).toEqual([
      '__u32 data', '__u32 data_end', '__u32 data_meta', '__u32 ingress_ifindex', '__u32 rx_queue_index', '__u32 egress_ifindex',
    ]);
    expect(structFields('ethhdr').map((f) => f.label)).toEqual(['h_dest', 'h_source', 'h_proto']);
    for (const s of ['iphdr', 'ipv6hdr', 'udphdr', 'tcphdr']) expect(named(s)[0]?.kind, s).toBe('struct');
    expect(structFields('iphdr').map((f) => f.label)).toEqual(expect.arrayContaining(['ihl', 'version', 'protocol', 'saddr', 'daddr']));
    expect(structFields('udphdr').map((f) => f.label)).toEqual(['source', 'dest', 'len', 'check']);
    expect(structFields('no_such_struct')).toEqual([]);
  });

  it('finds the struct a variable is declared as, for completion after -> and .', () => {
    const src = 'int f(struct xdp_md *ctx)\n{\n\tstruct ethhdr *eth = data;\n\tstruct iphdr *iph;\n\tstruct udphdr u;\n';
    expect(declaredStruct(src, 'ctx')).toBe('xdp_md');
    expect(declaredStruct(src, 'eth')).toBe('ethhdr');
    expect(declaredStruct(src, 'iph')).toBe('iphdr');
    expect(declaredStruct(src, 'u')).toBe('udphdr');
    expect(declaredStruct(src, 'data')).toBeNull();
  });
});
