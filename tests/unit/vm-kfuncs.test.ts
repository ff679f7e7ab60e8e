/**
 * kfuncs in the VM (src/vm/kfuncs.ts): a BPF_PSEUDO_KFUNC_CALL slot calls
 * the kernel function ProgramSpec.kfunc_relocs names; conntrack lookups find
 * nothing (NULL, opts->error = -ENOENT) after the kernel's argument checks
 * (-EINVAL); a kfunc the VM lacks faults.
 */
import { describe, expect, it } from 'vitest';
import { bytesToHex, encodeProgram, insn, type Insn } from '../../src/isa/insn';
import * as O from '../../src/isa/opcodes';
import { parseSpec } from '../../src/isa/spec';
import { createVm, testRunFrame } from '../../src/vm';
import { compile } from '../../src/cc';
import { verify } from '../../src/verifier';
import { explain } from '../../src/explain';

const MOV = (d: number, imm: number): Insn => insn(O.BPF_ALU64 | O.BPF_MOV | O.BPF_K, d, 0, 0, imm);
const MOVX = (d: number, s: number): Insn => insn(O.BPF_ALU64 | O.BPF_MOV | O.BPF_X, d, s);
const ADD = (d: number, imm: number): Insn => insn(O.BPF_ALU64 | O.BPF_ADD | O.BPF_K, d, 0, 0, imm);
const ST = (d: number, off: number, imm: number, size = O.BPF_DW): Insn => insn(O.BPF_ST | O.BPF_MEM | size, d, 0, off, imm);
const KCALL = insn(O.BPF_JMP | O.BPF_CALL, 0, O.BPF_PSEUDO_KFUNC_CALL, 0, 0);

/**
 * tuple (36 bytes at fp-40, zero) and opts (12 bytes at fp-56: netns_id -1, error 0x55, l4proto TCP);
 * ct = bpf_xdp_ct_lookup(ctx, &tuple, tupleSize, &opts, optsSize); if (ct) bpf_ct_release(ct);
 * return (ct != 0) * 1000 + 100 - opts.error (opts.error is -ENOENT = -2 when the lookup ran).
 */
function program(tupleSize: number, optsSize: number, netns = -1): Insn[] {
  return [
    ...Array.from({ length: 5 }, (_, i) => ST(10, -40 + 8 * i, 0)),
    ST(10, -56, netns, O.BPF_W), ST(10, -52, 0x55, O.BPF_W), ST(10, -48, 6, O.BPF_W),
    MOVX(2, 10), ADD(2, -40), MOV(3, tupleSize), MOVX(4, 10), ADD(4, -56), MOV(5, optsSize),
    KCALL, // slot 14
    MOVX(6, 0),
    insn(O.BPF_JMP | O.BPF_JEQ | O.BPF_K, 0, 0, 2, 0),
    MOVX(1, 0), KCALL, // slot 18
    MOV(0, 100),
    insn(O.BPF_LDX | O.BPF_MEM | O.BPF_W, 1, 10, -52),
    insn(O.BPF_ALU | O.BPF_SUB | O.BPF_X, 0, 1),
    insn(O.BPF_JMP | O.BPF_JEQ | O.BPF_K, 6, 0, 1, 0),
    ADD(0, 1000),
    insn(O.BPF_JMP | O.BPF_EXIT),
  ];
}

function run(insns: Insn[], names: string[]): { retval: number; fault?: string } {
  const parsed = parseSpec({ prog_type: 'xdp', insns: bytesToHex(encodeProgram(insns)), kfunc_relocs: [{ insn: 14, name: names[0] }, { insn: 18, name: names[1] }] });
  if ('error' in parsed) throw new Error(parsed.error);
  const vm = createVm(parsed);
  if ('error' in vm) throw new Error(vm.error);
  const r = vm.runXdp(testRunFrame(new Uint8Array(64)));
  return { retval: r.retval, fault: r.fault?.message };
}

const CT = ['bpf_xdp_ct_lookup', 'bpf_ct_release'];

describe('kfuncs', () => {
  it('a conntrack lookup finds nothing: NULL, opts->error = -ENOENT', () => {
    expect(run(program(36, 12), CT)).toEqual({ retval: 102, fault: undefined });
    expect(run(program(12, 12), CT).retval).toBe(102);
  });
  it('checks its arguments as the kernel does first: -EINVAL', () => {
    expect(run(program(20, 12), CT).retval).toBe(122); // tuple neither IPv4 nor IPv6 sized
    expect(run(program(36, 8), CT).retval).toBe(122); // opts of a size the kernel does not know (error is still written)
    expect(run(program(36, 12, -2), CT).retval).toBe(122); // netns_id below BPF_F_CURRENT_NETNS
  });
  it('faults on a kfunc the VM does not provide', () => {
    expect(run(program(36, 12), ['bpf_no_such_kfunc', 'bpf_ct_release']).fault).toMatch(/kfunc the VM does not provide/);
  });
});

/**
 * bpf_xdp_pull_data (Linux 6.18, as tools/testing/selftests/net/lib/
 * xdp_native.bpf.c calls it): the verifier invalidates every packet pointer
 * after the call (is_kfunc_pkt_changing), so a program must load data and
 * data_end again; in the VM a frame is linear, so a length within it is
 * already there (0) and a longer one is -EINVAL.
 */
describe('bpf_xdp_pull_data', () => {
  const source = (stale: boolean) => `#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <bpf/bpf_helpers.h>
extern int bpf_xdp_pull_data(struct xdp_md *xdp, __u32 len) __ksym __weak;
SEC("xdp") int p(struct xdp_md *ctx) {
  void *data = (void *)(long)ctx->data, *end = (void *)(long)ctx->data_end;
  struct ethhdr *eth = data;
  if ((void *)(eth + 1) > end) return XDP_DROP;
  int err = bpf_xdp_pull_data(ctx, ctx->ingress_ifindex == 1 ? 60 : 5000);
  if (err) return 100 - err;
  ${stale ? '' : 'eth = (void *)(long)ctx->data; end = (void *)(long)ctx->data_end; if ((void *)(eth + 1) > end) return XDP_DROP;'}
  return eth->h_proto == 0x0008 ? 3 : 4;
}
char _license[] SEC("license") = "GPL";
`;
  const build = (stale: boolean) => {
    const r = compile(source(stale), { file: 'pull.c' });
    if (!r.spec) throw new Error(r.diagnostics.map((d) => d.message).join('; '));
    const parsed = parseSpec(r.spec);
    if ('error' in parsed) throw new Error(parsed.error);
    return parsed;
  };
  it('packet pointers checked before the call are invalid after it', () => {
    const v = verify(build(true), { states: false });
    expect(v.accepted).toBe(false);
    expect(v.error).toMatch(/R\d invalid mem access 'scalar'/);
    // The explanation names the cause: the pointer was a packet pointer until the kfunc call.
    const e = explain({ parsed: build(true), result: verify(build(true), { logLevel: 2 }) });
    expect(e?.summary).toMatch(/packet pointer taken before a call that moved the packet/);
  });
  it('reloaded after the call, they are accepted; 0 within the frame, -EINVAL beyond it', () => {
    const parsed = build(false);
    expect(verify(parsed, { states: false }).accepted).toBe(true);
    const frame = new Uint8Array(64);
    frame[12] = 0x08;
    for (const [ifindex, want] of [[1, 3], [2, 122]] as const) {
      const vm = createVm(parsed);
      if ('error' in vm) throw new Error(vm.error);
      const f = testRunFrame(frame);
      f.ingressIfindex = ifindex;
      expect(vm.runXdp(f)).toMatchObject({ retval: want, fault: undefined });
    }
  });
});
