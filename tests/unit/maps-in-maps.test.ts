/**
 * Map-in-map (BPF_MAP_TYPE_ARRAY_OF_MAPS 12, BPF_MAP_TYPE_HASH_OF_MAPS 13)
 * end to end: the verifier (tests/cases/verifier-no-oracle/*.cases, whose
 * expectations are the kernel's words from kernel/bpf/verifier.c:
 * check_map_func_compatibility, mark_ptr_or_null_reg, check_func_arg,
 * check_ptr_to_map_access), libbpf's BTF-defined outer maps in the
 * compiler and in clang's objects (bpf_elf.ts), the VM in both engines
 * (the inner lookup resolved at run time: no static map for the JIT, the
 * kernel's BPF_MAP_PTR_POISON), user space's updates (map_meta_equal) and
 * the engine's map view.
 *
 * No differential (oracle) test: bpf-oracle cannot create map-in-maps.
 */
import { describe, expect, it } from 'vitest';
import { compile } from '../../src/cc';
import { createEngine, landedToolchain } from '../../src/engine';
import { applyFix } from '../../src/explain';
import { checkSource, explainSource } from '../../src/explain/program';
import { parseSpec, type ProgramSpec } from '../../src/isa';
import { assemble } from '../../src/isa/asm';
import { bytesToHex } from '../../src/isa/insn';
import { createVm, testRunFrame, type XdpVm } from '../../src/vm';
import { verify } from '../../src/verifier';
import { EBADF, EINVAL } from '../../src/maps';
import { clangAvailable, clangCompile } from '../../src/cli/clang';
import { extractObject, extractProgram } from '../../src/cli/bpf_elf';
import { main } from '../../src/cli/main';
import { loadCases, normalizeErrorLine } from '../cases/verifier/load';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const XDP_ABORTED = 0;
const XDP_DROP = 1;
const XDP_PASS = 2;

const u32le = (n: number): Uint8Array => new Uint8Array([n & 0xff, (n >>> 8) & 0xff, (n >>> 16) & 0xff, n >>> 24]);
const u64le = (hex: string): bigint => BigInt(`0x${hex.match(/../g)!.reverse().join('')}`);

describe('verifier cases without the oracle (tests/cases/verifier-no-oracle)', () => {
  const dir = path.join(path.dirname(fileURLToPath(import.meta.url)), '../cases/verifier-no-oracle');
  const cases = loadCases(assemble, dir);
  it('has the map-in-map cases', () => {
    expect(cases.filter((c) => c.file === 'map_in_map.cases').length).toBeGreaterThanOrEqual(12);
  });
  for (const c of cases) {
    it(`${c.file}: ${c.name}`, () => {
      const p = parseSpec(c.spec);
      if ('error' in p) throw new Error(p.error);
      const v = verify(p, { logLevel: 1, states: false });
      expect(v.accepted ? 'accept' : `reject ${normalizeErrorLine(v.error)}`).toBe(c.expectAccept ? 'accept' : `reject ${normalizeErrorLine(c.expectError)}`.trimEnd());
    });
  }
});

/**
 * The packet's first byte picks the inner map (outer key 0 or 1); the
 * second is the key in it, whose u64 counts the packets; the inner value is
 * returned as the verdict when the third byte is 1 (so both the counting and
 * the reading go through the inner map found at run time).
 */
const PROGRAM = `#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct inner_map {
\t__uint(type, BPF_MAP_TYPE_ARRAY);
\t__uint(max_entries, 4);
\t__type(key, __u32);
\t__type(value, __u64);
} inner1 SEC(".maps"), inner2 SEC(".maps");

struct {
\t__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
\t__uint(max_entries, 2);
\t__type(key, __u32);
\t__array(values, struct inner_map);
} outer SEC(".maps") = { .values = { [0] = &inner1, [1] = &inner2 } };

SEC("xdp")
int prog(struct xdp_md *ctx)
{
\tvoid *data = (void *)(long)ctx->data, *end = (void *)(long)ctx->data_end;
\tunsigned char *p = data;
\tif (data + 3 > end)
\t\treturn XDP_ABORTED;
\t__u32 sel = p[0];
\tvoid *inner = bpf_map_lookup_elem(&outer, &sel);
\tif (!inner)
\t\treturn XDP_DROP;
\t__u32 k = p[1];
\t__u64 *v = bpf_map_lookup_elem(inner, &k);
\tif (!v)
\t\treturn XDP_ABORTED;
\t*v += 1;
\tif (p[2] == 1)
\t\treturn *v;
\treturn XDP_PASS;
}
char _license[] SEC("license") = "GPL";
`;

function build(source: string, file = 'mim.c'): ProgramSpec {
  const r = compile(source, { file });
  const err = r.diagnostics.find((d) => d.severity === 'error');
  if (!r.spec) throw new Error(err ? `${err.span.line}: ${err.message}` : 'no spec');
  return r.spec;
}

function vmOf(spec: ProgramSpec, engine: 'interp' | 'jit'): XdpVm {
  const parsed = parseSpec(spec);
  if ('error' in parsed) throw new Error(parsed.error);
  const vm = createVm(parsed, { engine });
  if ('error' in vm) throw new Error(vm.error);
  if (engine === 'jit') expect(vm.jitUnavailable).toBeUndefined();
  return vm;
}

const run = (vm: XdpVm, ...bytes: number[]): number => {
  const r = vm.runXdp(testRunFrame(new Uint8Array(bytes)));
  expect(r.fault).toBeUndefined();
  return r.retval;
};

/** inner1 and inner2 as user space would dump them: key index -> u64. */
const counts = (vm: XdpVm, name: string): Record<number, bigint> => {
  const m = vm.maps.find((x) => x.name === name)!;
  return Object.fromEntries(m.dump().entries.map((e) => [parseInt(e.key.slice(0, 2), 16), u64le(e.value as string)]));
};

/** The same traffic in either engine, checked packet by packet and in the maps afterwards. */
function checkTraffic(spec: ProgramSpec): void {
  for (const engine of ['interp', 'jit'] as const) {
    const vm = vmOf(spec, engine);
    expect(run(vm, 0, 0, 0), engine).toBe(XDP_PASS);
    expect(run(vm, 0, 0, 0), engine).toBe(XDP_PASS);
    expect(run(vm, 1, 0, 0), engine).toBe(XDP_PASS);
    expect(run(vm, 1, 3, 0), engine).toBe(XDP_PASS);
    // The third packet to inner2's key 3 (and its u64, 3, is the verdict): inner2, not inner1.
    expect(run(vm, 1, 3, 0), engine).toBe(XDP_PASS);
    expect(run(vm, 1, 3, 1), engine).toBe(3);
    expect(run(vm, 0, 0, 1), engine).toBe(3);
    // No such outer slot, and an inner key past the template's max_entries.
    expect(run(vm, 2, 0, 0), engine).toBe(XDP_DROP);
    expect(run(vm, 0, 4, 0), engine).toBe(XDP_ABORTED);
    expect(counts(vm, 'inner1'), engine).toEqual({ 0: 3n });
    expect(counts(vm, 'inner2'), engine).toEqual({ 0: 1n, 3: 3n });
  }
}

describe('a C program with an array of maps initialised with two inner arrays', () => {
  it('compiles as libbpf defines it: value_size 4, the inner template, the initial slots', () => {
    const spec = build(PROGRAM);
    expect(spec.maps).toEqual([
      { name: 'inner1', type: 'array', key_size: 4, value_size: 8, max_entries: 4 },
      { name: 'inner2', type: 'array', key_size: 4, value_size: 8, max_entries: 4 },
      { name: 'outer', type: 'array_of_maps', key_size: 4, value_size: 4, max_entries: 2, inner_map: 3, init: [{ key: '00000000', value: '00000000' }, { key: '01000000', value: '01000000' }] },
      { name: 'outer.inner', type: 'array', key_size: 4, value_size: 8, max_entries: 4 },
    ]);
  });

  it('is accepted, and runs in both engines through the inner map the key selects', () => {
    const spec = build(PROGRAM);
    const parsed = parseSpec(spec);
    if ('error' in parsed) throw new Error(parsed.error);
    expect(verify(parsed).accepted).toBe(true);
    checkTraffic(spec);
  });

  it('the proof names no static map for the inner lookup (BPF_MAP_PTR_POISON) and the outer map for the outer one', () => {
    const parsed = parseSpec(build(PROGRAM));
    if ('error' in parsed) throw new Error(parsed.error);
    const v = verify(parsed, { proof: true });
    const calls = parsed.insns.flatMap((insn, k) => (insn.code === 0x85 && insn.imm === 1 ? [v.proof!.callMap[k]] : []));
    expect(calls).toEqual([2, -1]);
  });

  it('the CLI runs it (xdp-lab run) and prints the inner maps as the oracle shapes them', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'xdp-lab-mim-'));
    const src = path.join(dir, 'mim.c');
    writeFileSync(src, PROGRAM);
    const pk = path.join(dir, 'pk.json');
    writeFileSync(pk, JSON.stringify(['000000', '010200', '010201']));
    let out = '';
    const code = await main(['run', src, '--packets', pk, '--json'], { out: (t) => void (out += t), err: () => undefined });
    expect(code).toBe(0);
    const j = JSON.parse(out) as { runs: { retval: number }[]; maps: { type: string; entries: { key: string; value: string }[] }[] };
    expect(j.runs.map((r) => r.retval)).toEqual([XDP_PASS, XDP_PASS, 2]);
    expect(j.maps[0]!.entries).toEqual([{ key: '00000000', value: '0100000000000000' }]);
    expect(j.maps[1]!.entries).toEqual([{ key: '02000000', value: '0200000000000000' }]);
    expect(j.maps[2]).toEqual({ type: 'array_of_maps', entries: [{ key: '00000000', value: '00000000' }, { key: '01000000', value: '01000000' }] });
  });

  it('an inner map that does not match the template is refused at load (map_meta_equal)', () => {
    const spec = build(PROGRAM.replace('} inner1 SEC(".maps"), inner2 SEC(".maps");', '} inner1 SEC(".maps");\nstruct { __uint(type, BPF_MAP_TYPE_ARRAY); __uint(max_entries, 8); __type(key, __u32); __type(value, __u64); } inner2 SEC(".maps");'));
    const parsed = parseSpec(spec);
    if ('error' in parsed) throw new Error(parsed.error);
    const vm = createVm(parsed);
    expect(vm).toEqual({ error: 'map outer: init[1]: map inner2 does not match the inner map template (type, key_size, value_size, flags, max_entries) (EINVAL)' });
    // With BPF_F_INNER_MAP on the template, an array of another size may stand in (its lookups stay nullable).
    const flexible = build(PROGRAM.replace('} inner1 SEC(".maps"), inner2 SEC(".maps");', '} inner1 SEC(".maps");\nstruct { __uint(type, BPF_MAP_TYPE_ARRAY); __uint(max_entries, 8); __type(key, __u32); __type(value, __u64); __uint(map_flags, BPF_F_INNER_MAP); } inner2 SEC(".maps");')
      .replace('__array(values, struct inner_map);', '__array(values, struct { __uint(type, BPF_MAP_TYPE_ARRAY); __uint(max_entries, 4); __type(key, __u32); __type(value, __u64); __uint(map_flags, BPF_F_INNER_MAP); });')
      .replace('[0] = &inner1, ', ''));
    const fp = parseSpec(flexible);
    if ('error' in fp) throw new Error(fp.error);
    expect(verify(fp).accepted).toBe(true);
    const fvm = createVm(fp);
    if ('error' in fvm) throw new Error(fvm.error);
    expect(run(fvm, 1, 7, 1)).toBe(1);
  });
});

describe('the spec', () => {
  it('a map-in-map names its template; no other map does', () => {
    const spec = (maps: object[]): unknown => parseSpec({ prog_type: 'xdp', insns: 'b7000000020000009500000000000000', maps });
    expect(spec([{ type: 'array_of_maps', key_size: 4, value_size: 4, max_entries: 1 }])).toEqual({ error: "spec.maps[0].inner_map: an array_of_maps or hash_of_maps needs the index of its inner map's template" });
    expect(spec([{ type: 'hash_of_maps', key_size: 4, value_size: 4, max_entries: 1, inner_map: 0 }])).toMatchObject({ error: expect.stringContaining('spec.maps[0].inner_map') });
    expect(spec([{ type: 'array', key_size: 4, value_size: 4, max_entries: 1, inner_map: 0 }])).toEqual({ error: 'spec.maps[0].inner_map: only an array_of_maps or hash_of_maps has one' });
    expect(spec([{ type: 'hash_of_maps', key_size: 4, value_size: 4, max_entries: 1, inner_map: 1 }, { type: 'hash', key_size: 4, value_size: 4, max_entries: 1 }])).not.toHaveProperty('error');
  });
});

describe('the verifier on compiled map-in-map programs', () => {
  const refusal = (body: string): string | undefined => {
    const parsed = parseSpec(build(PROGRAM.replace(/SEC\("xdp"\)[\s\S]*$/, `SEC("xdp") int prog(struct xdp_md *ctx) {\n\t__u32 k = 0, v = 0;\n\t${body}\n}\nchar _license[] SEC("license") = "GPL";\n`)));
    if ('error' in parsed) throw new Error(parsed.error);
    const v = verify(parsed);
    expect(v.accepted, body).toBe(false);
    return v.error;
  };
  it('only bpf_map_lookup_elem on the outer map (check_map_func_compatibility)', () => {
    expect(refusal('return bpf_map_update_elem(&outer, &k, &v, 0);')).toBe('cannot pass map_type 12 into func bpf_map_update_elem#2');
    expect(refusal('return bpf_map_delete_elem(&outer, &k);')).toBe('cannot pass map_type 12 into func bpf_map_delete_elem#3');
  });
  it('the inner map is a map, not memory, and may be NULL until checked', () => {
    // A struct bpf_array's fields are not modelled: reads through the pointer are refused (the kernel reads some through BTF).
    expect(refusal('__u32 *p = bpf_map_lookup_elem(&outer, &k); if (!p) return 1; return *p;')).toMatch(/^R\d invalid mem access 'map_ptr'$/);
    expect(refusal('__u32 *p = bpf_map_lookup_elem(&outer, &k); if (!p) return 1; *p = 1; return 2;')).toBe('only read from bpf_array is supported');
    expect(refusal('void *m = bpf_map_lookup_elem(&outer, &k); __u64 *x = bpf_map_lookup_elem(m, &k); return x ? 1 : 2;')).toBe('R1 type=map_value_or_null expected=map_ptr');
  });
  it('the explainer calls the unchecked outer lookup a NULL dereference, and its fix (the NULL test) is accepted', () => {
    const source = PROGRAM.replace('\tif (!inner)\n\t\treturn XDP_DROP;\n', '');
    const r = explainSource(source);
    if ('error' in r) throw new Error(r.error);
    expect(r.checked.result.error).toBe('R1 type=map_value_or_null expected=map_ptr');
    expect(r.explanation).toMatchObject({ kind: 'null-deref', line: 28 });
    const fixed = checkSource(applyFix(source, r.explanation!.fix!));
    if ('error' in fixed) throw new Error(fixed.error);
    expect(fixed.result.accepted, `after the fix: ${fixed.result.error}`).toBe(true);
  });
  it('the inner value is bounded by the template\'s value_size', () => {
    expect(refusal('void *m = bpf_map_lookup_elem(&outer, &k); if (!m) return 1; __u64 *x = bpf_map_lookup_elem(m, &k); if (!x) return 1; return x[1];')).toBe('invalid access to map value, value_size=8 off=8 size=8');
  });
});

/** HASH_OF_MAPS, its inner template an anonymous struct, no initial slots: user space fills it. */
const HASH_PROGRAM = `#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
struct {
\t__uint(type, BPF_MAP_TYPE_HASH);
\t__uint(max_entries, 16);
\t__type(key, __u32);
\t__type(value, __u32);
} per_port SEC(".maps");
struct {
\t__uint(type, BPF_MAP_TYPE_HASH);
\t__uint(max_entries, 16);
\t__type(key, __u64);
\t__type(value, __u32);
} wrong_key SEC(".maps");
struct {
\t__uint(type, BPF_MAP_TYPE_HASH_OF_MAPS);
\t__uint(max_entries, 8);
\t__type(key, __u32);
\t__array(values, struct {
\t\t__uint(type, BPF_MAP_TYPE_HASH);
\t\t__uint(max_entries, 16);
\t\t__type(key, __u32);
\t\t__type(value, __u32);
\t});
} tenants SEC(".maps");

SEC("xdp")
int prog(struct xdp_md *ctx)
{
\tvoid *data = (void *)(long)ctx->data, *end = (void *)(long)ctx->data_end;
\tunsigned char *p = data;
\tif (data + 2 > end)
\t\treturn XDP_ABORTED;
\t__u32 tenant = p[0], port = p[1], one = 1;
\tvoid *m = bpf_map_lookup_elem(&tenants, &tenant);
\tif (!m)
\t\treturn XDP_DROP;
\t__u32 *n = bpf_map_lookup_elem(m, &port);
\tif (n) {
\t\t*n += 1;
\t\treturn XDP_PASS;
\t}
\tbpf_map_update_elem(m, &port, &one, BPF_NOEXIST);
\treturn XDP_TX;
}
char _license[] SEC("license") = "GPL";
`;

describe('a hash of maps with an anonymous inner definition, filled by user space', () => {
  it('compiles with its template, and user space may only put in maps that match it', () => {
    const spec = build(HASH_PROGRAM, 'hom.c');
    expect(spec.maps![2]).toEqual({ name: 'tenants', type: 'hash_of_maps', key_size: 4, value_size: 4, max_entries: 8, inner_map: 3 });
    expect(spec.maps![3]).toEqual({ name: 'tenants.inner', type: 'hash', key_size: 4, value_size: 4, max_entries: 16 });
    for (const engine of ['interp', 'jit'] as const) {
      const vm = vmOf(spec, engine);
      expect(run(vm, 7, 80), engine).toBe(XDP_DROP);
      const tenants = vm.maps[2]!;
      expect(tenants.userUpdate(u32le(7), u32le(1)), engine).toBe(-EINVAL);
      expect(tenants.userUpdate(u32le(7), u32le(9)), engine).toBe(-EBADF);
      expect(tenants.userUpdate(u32le(7), u32le(0)), engine).toBe(0);
      expect(run(vm, 7, 80), engine).toBe(3);
      expect(run(vm, 7, 80), engine).toBe(XDP_PASS);
      expect(run(vm, 7, 80), engine).toBe(XDP_PASS);
      expect(vm.maps[0]!.dump().entries, engine).toEqual([{ key: '50000000', value: '03000000' }]);
    }
  });

  it('the engine\'s map view names the inner map each slot holds', () => {
    const e = createEngine(landedToolchain);
    expect(e.build(PROGRAM).verify).toMatchObject({ accepted: true });
    const r = e.mapsRead();
    if (!r.ok) throw new Error(r.reason);
    const outer = r.maps.find((m) => m.name === 'outer')!;
    expect(outer.entries.map((x) => [x.key, x.innerMap])).toEqual([['00000000', 'inner1'], ['01000000', 'inner2']]);
    const u = e.mapUpdate(outer.index, '00000000', '01000000');
    if (!u.ok) throw new Error(u.reason);
    expect(u.maps[outer.index]!.entries.map((x) => x.innerMap)).toEqual(['inner2', 'inner2']);
    expect(e.mapUpdate(outer.index, '00000000', '02000000')).toMatchObject({ ok: false });
  });
});

describe('clang-19\'s objects (the ELF reader)', () => {
  // Reported as skipped (not passed) where clang-19, the reference compiler, is not installed.
  it.skipIf(!clangAvailable())('an initialised array of maps reads back with its template and slots (.rel.maps), and runs the same', () => {
    const ours = build(PROGRAM);
    const obj = clangCompile(PROGRAM, 'mim.c');
    expect(obj.stderr.includes('error:') ? obj.stderr : '').toBe('');
    const ref = extractProgram(obj.obj!, ours.maps!.map((m) => m.name!));
    expect(ref.maps).toEqual(ours.maps);
    checkTraffic({ prog_type: 'xdp', insns: bytesToHex(ref.insns), maps: ref.maps, map_relocs: ref.map_relocs });
    const whole = extractObject(obj.obj!);
    expect(whole.spec.maps).toEqual(ours.maps);
    expect(whole.unsupported).toEqual(["map-in-map 'outer'"]);
  });

  it.skipIf(!clangAvailable())('a hash of maps with an anonymous inner definition reads back the same', () => {
    const ours = build(HASH_PROGRAM, 'hom.c');
    const obj = clangCompile(HASH_PROGRAM, 'hom.c');
    expect(obj.stderr.includes('error:') ? obj.stderr : '').toBe('');
    expect(extractProgram(obj.obj!, ours.maps!.map((m) => m.name!)).maps).toEqual(ours.maps);
  });
});
