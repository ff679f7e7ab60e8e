/**
 * The compiler's output contract: a spec the rest of XDP Lab (and the
 * kernel oracle) can take unchanged, with line info for every slot,
 * function boundaries and map types; and the code shapes the verifier
 * depends on (32-bit ctx loads, packet bounds checks as pointer compares,
 * map references as lddw + relocation, bpf-to-bpf calls for noinline).
 */
import { describe, expect, it } from 'vitest';
import { compile, HEADERS } from '../../src/cc';
import { EXAMPLES, exampleById } from '../../src/examples';
import { decodeProgram, hexToBytes, type Insn } from '../../src/isa/insn';
import * as O from '../../src/isa/opcodes';
import { parseSpec } from '../../src/isa/spec';

function insnsOf(hex: string): Insn[] {
  return decodeProgram(hexToBytes(hex) as Uint8Array).insns;
}

describe('compile() output', () => {
  const xdp1 = compile(exampleById('xdp1')!.source, { file: 'xdp1.c' });
  const spec = xdp1.spec!;
  const insns = insnsOf(spec.insns);

  it('every example compiles without errors', () => {
    for (const e of EXAMPLES) expect(compile(e.source).diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  });

  it('is a valid program spec', () => {
    const p = parseSpec(JSON.parse(JSON.stringify(spec)));
    expect('error' in p ? p.error : '').toBe('');
    expect(spec.maps).toEqual([{ name: 'rxcnt', type: 'percpu_array', key_size: 4, value_size: 8, max_entries: 256 }]);
  });

  it('has line info for every slot, inside the source', () => {
    expect(spec.line_info!.length).toBe(insns.length);
    const lines = spec.source!.split('\n').length;
    for (const li of spec.line_info!) {
      expect(li.line).toBeGreaterThan(0);
      expect(li.line).toBeLessThanOrEqual(lines);
    }
    // The first instruction reads ctx->data_end or ctx->data: its line says so.
    const first = spec.line_info![0]!;
    expect(spec.source!.split('\n')[first.line - 1]).toMatch(/ctx->data/);
  });

  it('reads xdp_md.data and data_end with 32-bit loads from the ctx register', () => {
    const ctxLoads = insns.filter((i) => i.code === (O.BPF_LDX | O.BPF_MEM | O.BPF_W) && i.src === 1);
    expect(ctxLoads.map((i) => i.off).sort()).toEqual([0, 4]);
  });

  it('keeps packet bounds checks as register-register pointer compares', () => {
    const cmp = insns.filter((i) => O.BPF_CLASS(i.code) === O.BPF_JMP && O.BPF_SRC(i.code) === O.BPF_X && [O.BPF_JGT, O.BPF_JLE, O.BPF_JLT, O.BPF_JGE].includes(O.BPF_OP(i.code)));
    expect(cmp.length).toBeGreaterThanOrEqual(3);
  });

  it('references maps with lddw + relocation', () => {
    expect(spec.map_relocs!.length).toBe(1);
    const r = spec.map_relocs![0]!;
    expect(insns[r.insn]).toMatchObject({ code: 0x18, src: O.BPF_PSEUDO_MAP_FD });
  });

  it('describes map key and value types for pretty printing', () => {
    expect(spec.btf!.maps[0]).toEqual({ name: 'rxcnt', key: { kind: 'int', name: 'unsigned int', size: 4, signed: false }, value: { kind: 'int', name: 'long', size: 8, signed: true } });
  });

  it('emits noinline functions as bpf-to-bpf subprograms', () => {
    const src = `#include <linux/bpf.h>\n#include <bpf/bpf_helpers.h>\nstatic __noinline int twice(int x) { return x * 2; }\nSEC("xdp") int p(struct xdp_md *ctx) { return twice(ctx->rx_queue_index) > 4 ? XDP_DROP : XDP_PASS; }\n`;
    const r = compile(src);
    const s = r.spec!;
    expect(s.funcs!.map((f) => f.name)).toEqual(['p', 'twice']);
    const code = insnsOf(s.insns);
    const call = code.findIndex((i) => i.code === (O.BPF_JMP | O.BPF_CALL) && i.src === O.BPF_PSEUDO_CALL);
    expect(call).toBeGreaterThanOrEqual(0);
    expect(call + 1 + code[call]!.imm).toBe(s.funcs![1]!.insn);
  });

  it('inlines static __always_inline functions', () => {
    expect(spec.funcs).toEqual([{ name: 'xdp_prog1', insn: 0 }]);
  });

  it('is deterministic', () => {
    const again = compile(exampleById('xdp1')!.source, { file: 'xdp1.c' });
    expect(again.spec).toEqual(spec);
  });

  it('folds constants: bpf_htons(ETH_P_IP) compiles to an immediate compare', () => {
    const src = `#include <linux/bpf.h>\n#include <linux/if_ether.h>\n#include <bpf/bpf_helpers.h>\n#include <bpf/bpf_endian.h>\nSEC("xdp") int p(struct xdp_md *ctx) { return ctx->rx_queue_index == bpf_htons(ETH_P_IP) ? XDP_DROP : XDP_PASS; }\n`;
    const code = insnsOf(compile(src).spec!.insns);
    expect(code.some((i) => O.BPF_CLASS(i.code) === O.BPF_JMP32 && i.imm === 8)).toBe(true);
    expect(code.some((i) => O.BPF_OP(i.code) === O.BPF_END)).toBe(false);
  });

  it('every built-in header compiles on its own', () => {
    for (const h of Object.keys(HEADERS)) {
      const r = compile(`#include <linux/types.h>\n#include <${h}>\n`);
      expect(r.diagnostics.filter((d) => d.severity === 'error' && d.code !== 'cc-no-entry')).toEqual([]);
    }
  });
});
