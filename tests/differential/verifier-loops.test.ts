/**
 * Bounded loops that walk headers of varying length (the shape of
 * xdp-tools' xdp-filter and xdp-forward, IPv6 extension headers after VLAN
 * tags): the verifier explores each iteration's paths and prunes later ones
 * against the states of earlier ones. Compiled here, verified by us and by
 * the kernel oracle: the same verdict and the same count of processed
 * instructions. Before the kernel's miss counting was followed (a checkpoint
 * counts a miss only when a new state is about to be added), we evicted the
 * first iterations' states and ran out of the 1M budget where the kernel
 * needs 13k-62k.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { compile, formatDiagnostic } from '../../src/cc';
import { parseSpec } from '../../src/isa';
import { verify } from '../../src/verifier';
import { Oracle, oracleAvailable } from './oracle';

const PRE = '#include <linux/bpf.h>\n#include <bpf/bpf_helpers.h>\n';
const oracle = oracleAvailable();

const CASES: { name: string; src: string }[] = [
  {
    name: 'a 16-step header walk whose stride is 8 or 4 bytes by the previous header',
    src: `${PRE}SEC("xdp") int prog(struct xdp_md *ctx)
{
	void *end = (void *)(long)ctx->data_end, *pos = (void *)(long)ctx->data;
	__u8 next = 0;
	for (int i = 0; i < 16; i++) {
		__u8 *h = pos;
		if (h + 2 > end) return XDP_DROP;
		switch (next) {
		case 0: case 60: pos += (h[1] + 1) * 8; break;
		case 51: pos += (h[1] + 2) * 4; break;
		default: return next;
		}
		next = h[0];
	}
	return XDP_PASS;
}`,
  },
  {
    name: 'VLAN tags, then IPv6 extension headers (hop-by-hop, routing, fragment, AH)',
    src: `${PRE}struct vlan { __u16 tci, proto; };
struct ext { __u8 nexthdr, hdrlen; };
SEC("xdp") int prog(struct xdp_md *ctx)
{
	void *end = (void *)(long)ctx->data_end, *pos = (void *)(long)ctx->data + 12;
	__u16 proto = 0x81; __u8 next;
	for (int i = 0; i < 4 && (proto == 0x81 || proto == 0xa888); i++) {
		struct vlan *v = pos; if (v + 1 > end) break;
		proto = v->proto; pos = v + 1;
	}
	if (proto != 0xdd86 || pos + 8 > end) return XDP_PASS;
	next = *(__u8 *)(pos + 6); pos += 40;
	for (int i = 0; i < 8; i++) {
		struct ext *h = pos;
		if (h + 1 > end) return XDP_DROP;
		switch (next) {
		case 0: case 60: case 43: case 135: pos += (h->hdrlen + 1) * 8; break;
		case 51: pos += (h->hdrlen + 2) * 4; break;
		case 44: pos += 8; break;
		default: return next;
		}
		next = h->nexthdr;
	}
	return XDP_PASS;
}`,
  },
];

describe.skipIf(!oracle.ok)('bounded header-walking loops: our verifier and the kernel process the same instructions', () => {
  const k = new Oracle();
  afterAll(() => k.close());
  for (const c of CASES) {
    it(c.name, async () => {
      const r = compile(c.src + '\nchar _license[] SEC("license") = "GPL";\n', { file: 'loop.c' });
      expect(r.diagnostics.filter((d) => d.severity === 'error').map((d) => formatDiagnostic(d, c.src))).toEqual([]);
      const parsed = parseSpec(JSON.parse(JSON.stringify(r.spec)));
      if ('error' in parsed) throw new Error(parsed.error);
      const ours = verify(parsed);
      const kernel = await k.ask({ insns: r.spec!.insns, log_level: 1 });
      expect(kernel.accepted, kernel.verifier_log.slice(-300)).toBe(true);
      expect(ours.accepted, ours.log.slice(-300)).toBe(true);
      expect(ours.insnsProcessed).toBe(kernel.insns_processed);
    });
  }
});
