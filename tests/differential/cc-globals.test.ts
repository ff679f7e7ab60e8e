/**
 * Global data in the real kernel: programs using .data, .bss, .rodata
 * (`const volatile` knobs), static locals and string literals are compiled
 * by us, loaded by the kernel oracle with the internal maps and value
 * relocations the compiler describes (as libbpf would load clang's object),
 * run on a few packets, and must be accepted and leave the values C says
 * in the sections. (clang's objects are not loaded here: src/cli/bpf_elf.ts
 * does not yet relocate global data.)
 */
import { afterAll, describe, expect, it } from 'vitest';
import { compile, formatDiagnostic } from '../../src/cc';
import { Oracle, oracleAvailable, type OracleSpec } from './oracle';

const PRE = '#include <linux/bpf.h>\n#include <bpf/bpf_helpers.h>\n';
const oracle = oracleAvailable();

interface Case { name: string; src: string; runs: number; retvals: number[]; sections: Record<string, string>; packet?: string; dataOut?: string }

const CASES: Case[] = [
  {
    name: '.data, .bss, .rodata knob and a static local',
    src: `${PRE}int counter = 7;
unsigned long long zeros;
const volatile int knob = 3;
struct pair { int a; short b; } pr = { 1, 2 };
SEC("xdp") int p(struct xdp_md *ctx)
{
\tstatic int calls;
\tcalls++;
\tcounter += knob;
\tzeros += 2;
\tpr.b += calls;
\treturn counter + pr.b > 14 ? XDP_PASS : XDP_DROP;
}
char _license[] SEC("license") = "GPL";
`,
    runs: 2,
    retvals: [1, 2],
    // After two runs: counter = 7 + 3 + 3, pr = { 1, 2 + 1 + 2 }; the knob keeps its value.
    sections: { '.data': '0d00000001000000050000', '.rodata': '03000000' },
  },
  {
    name: 'string literal and a const array in .rodata, read back',
    src: `${PRE}static const unsigned char table[4] = { 10, 20, 30, 40 };
SEC("xdp") int p(struct xdp_md *ctx)
{
\tconst char *s = "XDP";
\tvolatile unsigned int i = 2;
\treturn table[i] + s[1];
}
char _license[] SEC("license") = "GPL";
`,
    runs: 1,
    retvals: [30 + 0x44],
    // Variables first, in declaration order (as clang lays out .data/.bss), then string literals as codegen meets them.
    sections: { '.rodata': '0a141e2858445000' },
  },
  {
    name: 'memcmp expanded inline gives the sign of the first difference',
    src: `${PRE}SEC("xdp") int p(struct xdp_md *ctx)
{
\tchar a[4] = { 1, 2, 3, 4 }, b[4] = { 1, 2, 5, 4 };
\treturn (__builtin_memcmp(a, b, 4) < 0) + 10 * (__builtin_memcmp(a, a, 4) == 0) + 100 * (__builtin_memcmp(b, a, 3) > 0);
}
char _license[] SEC("license") = "GPL";
`,
    runs: 1,
    retvals: [111],
    sections: {},
  },
  {
    // xdp-tutorial experiment01-tailgrow: the pointer checked against data_end is the one written
    // through (the kernel rejected our recomputed copy: "invalid access to packet").
    name: 'the bounds-checked pointer is reused, not recomputed',
    src: `${PRE}struct stamp { unsigned short magic; };
SEC("xdp") int p(struct xdp_md *ctx)
{
\tvoid *data = (void *)(long)ctx->data, *data_end = (void *)(long)ctx->data_end;
\tstruct stamp *ts;
\tunsigned short len;
\tif (data + 2 > data_end) return XDP_ABORTED;
\tlen = *(unsigned short *)data;
\tif (len < 2) goto out;
\tlen &= 0xfff;
\tif (data + len + 2 > data_end) {
\t\tgoto out;
\t}
\tts = data + len;
\tts->magic = 0x5354;
out:
\treturn XDP_PASS;
}
char _license[] SEC("license") = "GPL";
`,
    runs: 1,
    retvals: [2],
    sections: {},
    packet: '0a00' + '00'.repeat(14),
    dataOut: '0a00' + '00'.repeat(8) + '5453' + '00'.repeat(4),
  },
];

describe.skipIf(!oracle.ok)('global data in the kernel', () => {
  const o = oracle.ok ? new Oracle() : undefined;
  afterAll(() => o?.close());
  for (const c of CASES) {
    it(c.name, async () => {
      const r = compile(c.src, { file: 'g.c' });
      expect(r.diagnostics.filter((d) => d.severity === 'error').map((d) => formatDiagnostic(d, c.src))).toEqual([]);
      const spec = r.spec!;
      const ask: OracleSpec & Record<string, unknown> = {
        insns: spec.insns,
        maps: spec.maps,
        map_relocs: spec.map_relocs,
        runs: Array.from({ length: c.runs }, () => ({ data: c.packet ?? '00'.repeat(64) })),
        dump_maps: true,
      };
      const res = await o!.ask(ask);
      expect(res.error + (res.accepted ? '' : res.verifier_log.slice(-800))).toBe('');
      expect(res.accepted).toBe(true);
      expect(res.runs.map((x) => x.retval)).toEqual(c.retvals);
      if (c.dataOut) expect(res.runs[0]!.data_out).toBe(c.dataOut);
      for (const [sec, prefix] of Object.entries(c.sections)) {
        const idx = spec.maps!.findIndex((m) => m.internal === sec);
        expect(idx, sec).toBeGreaterThanOrEqual(0);
        const v = res.maps![idx]!.entries[0]!.value as string;
        expect(v.startsWith(prefix), `${sec} = ${v}`).toBe(true);
      }
    });
  }
});
