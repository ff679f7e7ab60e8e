/**
 * Unsafe C compiles faithfully: the compiler adds no check the source does
 * not have, so a missing bounds check or an unchecked map value reaches
 * the kernel as written — and the kernel verifier rejects it, with the
 * message a student should learn to read. The same programs with the check
 * added are accepted.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { compile } from '../../src/cc';
import { exampleById } from '../../src/examples';
import { Oracle, oracleAvailable } from './oracle';

const oracle = oracleAvailable();

const HEAD = '#include <linux/bpf.h>\n#include <linux/if_ether.h>\n#include <bpf/bpf_helpers.h>\n';

const CASES: { name: string; src: string; accepted: boolean; log?: RegExp }[] = [
  { name: 'example: missing bounds check', src: exampleById('missing-bounds-check')!.source, accepted: false, log: /invalid access to packet, off=12 size=2/ },
  { name: 'example: unchecked map value', src: exampleById('unchecked-map-value')!.source, accepted: false, log: /invalid mem access 'map_value_or_null'/ },
  {
    name: 'bounds check one byte short',
    src: `${HEAD}SEC("xdp") int p(struct xdp_md *ctx)\n{\n\tvoid *data = (void *)(long)ctx->data;\n\tvoid *data_end = (void *)(long)ctx->data_end;\n\tstruct ethhdr *eth = data;\n\tif (data + 13 > data_end)\n\t\treturn XDP_DROP;\n\treturn eth->h_proto == 8 ? XDP_PASS : XDP_DROP;\n}\n`,
    accepted: false,
    log: /invalid access to packet, off=12 size=2, R\d\(id=0,off=12,r=13\)/,
  },
  {
    name: 'bounds check exactly right',
    src: `${HEAD}SEC("xdp") int p(struct xdp_md *ctx)\n{\n\tvoid *data = (void *)(long)ctx->data;\n\tvoid *data_end = (void *)(long)ctx->data_end;\n\tstruct ethhdr *eth = data;\n\tif (data + 14 > data_end)\n\t\treturn XDP_DROP;\n\treturn eth->h_proto == 8 ? XDP_PASS : XDP_DROP;\n}\n`,
    accepted: true,
  },
  {
    name: 'map value checked',
    src: `${HEAD}struct { __uint(type, BPF_MAP_TYPE_HASH); __type(key, __u32); __type(value, __u64); __uint(max_entries, 4); } m SEC(".maps");\nSEC("xdp") int p(struct xdp_md *ctx)\n{\n\t__u32 k = ctx->rx_queue_index;\n\t__u64 *v = bpf_map_lookup_elem(&m, &k);\n\tif (v)\n\t\t*v += 1;\n\treturn XDP_PASS;\n}\n`,
    accepted: true,
  },
  {
    name: 'packet pointer used after bpf_xdp_adjust_head without reloading',
    src: `${HEAD}SEC("xdp") int p(struct xdp_md *ctx)\n{\n\tvoid *data = (void *)(long)ctx->data;\n\tvoid *data_end = (void *)(long)ctx->data_end;\n\tstruct ethhdr *eth = data;\n\tif ((void *)(eth + 1) > data_end)\n\t\treturn XDP_DROP;\n\tif (bpf_xdp_adjust_head(ctx, 0))\n\t\treturn XDP_DROP;\n\treturn eth->h_proto == 8 ? XDP_PASS : XDP_DROP;\n}\n`,
    accepted: false,
    log: /invalid mem access 'scalar'/,
  },
];

describe.skipIf(!oracle.ok)('unsafe C reaches the kernel unsafe', () => {
  const o = oracle.ok ? new Oracle() : undefined;
  afterAll(() => o?.close());
  for (const c of CASES) {
    it(c.name, async () => {
      const r = compile(c.src, { file: 't.c' });
      expect(r.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
      const s = r.spec!;
      const res = await o!.ask({ insns: s.insns, maps: s.maps as never, map_relocs: s.map_relocs, log_level: 1 });
      expect({ accepted: res.accepted, matches: c.log ? c.log.test(res.verifier_log) : true }).toEqual({ accepted: c.accepted, matches: true });
    });
  }
});
