/**
 * Enumerator types: an enumerator whose value int does not hold has the
 * enum's type once the enum is complete (C23 6.7.2.2; clang's rule), so
 * the uapi's BPF_F_CURRENT_CPU (0xffffffffULL in an enum that also holds
 * BPF_F_CTXLEN_MASK) is an unsigned long 0xffffffff, and a helper's u64
 * flags get 0xffffffff, not -1 sign-extended to 64 bits (which asks
 * bpf_perf_event_output for 0xffffffff bytes of packet). Each program is
 * compiled by us and by clang-19 (when installed) and both run in our VM.
 */
import { describe, expect, it } from 'vitest';
import { compile, formatDiagnostic } from '../../src/cc';
import { bytesToHex, decodeProgram, hexToBytes, parseSpec } from '../../src/isa';
import { createVm, testRunFrame } from '../../src/vm';
import { clangAvailable, clangCompile } from '../../src/cli/clang';
import { extractProgram } from '../../src/cli/bpf_elf';

const PRE = '#include <linux/bpf.h>\n#include <bpf/bpf_helpers.h>\n';
const POST = '\nchar _license[] SEC("license") = "GPL";\n';
const PACKET = '02000000000202000000000108004500001c00004000401126790a0000010a000002d4294eab00080000';

function ours(src: string): { insns: string; maps?: { name?: string }[] } {
  const r = compile(src, { file: 'enum.c' });
  expect(r.diagnostics.filter((d) => d.severity === 'error').map((d) => formatDiagnostic(d, src))).toEqual([]);
  return r.spec as { insns: string; maps?: { name?: string }[] };
}

function run(spec: unknown): { ret: number; events: string[] } {
  const parsed = parseSpec(spec);
  if ('error' in parsed) throw new Error(parsed.error);
  const vm = createVm(parsed, {});
  if ('error' in vm) throw new Error(vm.error);
  const r = vm.runXdp(testRunFrame(Buffer.from(PACKET, 'hex')));
  expect(r.fault?.message ?? '').toBe('');
  return { ret: r.retval, events: vm.log.events.map((e) => Buffer.from(e.data).toString('hex')) };
}

/** Ours, and clang's when clang is installed: the same return value and events. */
function both(body: string, maps = ''): { ret: number; events: string[]; spec: { insns: string } } {
  const src = `${PRE}${maps}SEC("xdp") int prog(struct xdp_md *ctx)\n{\n${body}\n}${POST}`;
  const spec = ours(src);
  const mine = run(spec);
  if (clangAvailable()) {
    const obj = clangCompile(src, 'enum.c');
    expect(obj.stderr.includes('error:') ? obj.stderr : '').toBe('');
    const ref = extractProgram(obj.obj!, (spec.maps ?? []).map((m) => m.name!));
    expect(run({ prog_type: 'xdp', insns: bytesToHex(ref.insns), maps: ref.maps, map_relocs: ref.map_relocs })).toEqual(mine);
  }
  return { ...mine, spec };
}

describe('enumerators int does not hold', () => {
  it('BPF_F_CURRENT_CPU is an unsigned long 0xffffffff', () => {
    const r = both('\treturn (sizeof(BPF_F_CURRENT_CPU) == 8) | ((BPF_F_CURRENT_CPU >> 32) == 0) << 1 | (BPF_F_CURRENT_CPU > 0) << 2 | ((__u64)BPF_F_CURRENT_CPU == 0xffffffffULL) << 3;');
    expect(r.ret).toBe(15);
  });

  it('bpf_perf_event_output gets flags 0xffffffff and emits its event', () => {
    const maps = 'struct { __uint(type, BPF_MAP_TYPE_PERF_EVENT_ARRAY); __uint(key_size, 4); __uint(value_size, 4); __uint(max_entries, 4); } ev SEC(".maps");\n';
    const r = both('\t__u64 v = 0x1122334455667788ULL;\n\treturn bpf_perf_event_output(ctx, &ev, BPF_F_CURRENT_CPU, &v, sizeof(v)) == 0 ? XDP_PASS : XDP_DROP;', maps);
    expect(r).toMatchObject({ ret: 2, events: ['8877665544332211'] });
    // r3 holds exactly 0xffffffff at the call: a 32-bit move (zero-extending) or a 64-bit load of it.
    const insns = decodeProgram(hexToBytes(r.spec.insns) as Uint8Array).insns;
    const setR3 = insns.filter((i) => i.dst === 3 && (i.code & 0x07) <= 0x07 && (i.code & 0xf0) === 0xb0 && (i.code & 0x08) === 0);
    expect(setR3.map((i) => ({ cls: i.code & 0x07, imm: i.imm }))).toEqual([{ cls: 0x04, imm: -1 }]);
  });

  it('an enum with a negative enumerator and one past int makes the big one a long', () => {
    const r = both('\tenum e { N = -1, BIG = 0x80000000 };\n\tenum u { U = 0x80000000 };\n\treturn (sizeof(BIG) == 8) | (BIG > 0) << 1 | (sizeof(U) == 4) << 2 | (U > 0) << 3 | (sizeof(N) == 4) << 4 | (-U > 0) << 5;');
    expect(r.ret).toBe(63);
  });
});
