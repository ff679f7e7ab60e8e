/**
 * Verifier precision features taken from the kernel, each with a case the
 * kernel accepts and a near twin that must still be rejected (so the
 * precision can never turn into an unsound accept):
 * - linked scalars with a constant delta (BPF_ADD_CONST / sync_linked_regs),
 * - forking a 0-or--1 register before AND/OR (maybe_fork_scalars),
 * - helper arguments now checked: bpf_spin_lock / bpf_timer need map BTF,
 *   bpf_strtol's result pointer (ARG_PTR_TO_LONG), bpf_snprintf's argument order.
 */
import { describe, expect, it } from 'vitest';
import { assemble } from '../../src/isa/asm';
import { bytesToHex, encodeProgram } from '../../src/isa/insn';
import { parseSpec, type ProgramSpec } from '../../src/isa/spec';
import { verify } from '../../src/verifier';

function run(text: string, extra: Partial<ProgramSpec> = {}) {
  const a = assemble(text);
  if (a.errors.length) throw new Error(a.errors[0]!.message);
  const p = parseSpec({ prog_type: 'xdp', insns: bytesToHex(encodeProgram(a.insns)), ...extra });
  if ('error' in p) throw new Error(p.error);
  return verify(p);
}

describe('linked scalars with a delta', () => {
  // r1 = r0 - 4 >= 0 means r0 >= 4: the r0 == 0 path (and its division by zero) is dead.
  const neg = (cond: string) => `call 7
r0 &= 0xff
r1 = r0
r1 += -4
if r1 s< 0 goto +2
${cond}
r0 /= 0
r0 = 0
exit`;
  it('carries a bound learned on the copy back to the original, shifted by the delta', () => {
    expect(run(neg('if r0 != 0 goto +1')).accepted).toBe(true);
  });
  it('still rejects the path where the original can be non-zero', () => {
    const r = run(neg('if r0 == 4 goto +1'));
    expect(r.accepted).toBe(false);
    expect(r.error).toContain('div by zero');
  });
  // r1 = r0 + 4 <= 4 means r0 == 0 (r0 is 0..255).
  const pos = (cond: string) => `call 7
r0 &= 0xff
r1 = r0
r1 += 4
if r1 > 4 goto +2
${cond}
r0 /= 0
r0 = 0
exit`;
  it('shifts in the right direction', () => {
    expect(run(pos('if r0 == 0 goto +1')).accepted).toBe(true);
    expect(run(pos('if r0 != 0 goto +1')).accepted).toBe(false);
  });
  it('a second delta breaks the link', () => {
    const r = run(`call 7
r0 &= 0xff
r1 = r0
r1 += -4
r1 += -4
if r1 s< 0 goto +2
if r0 != 0 goto +1
r0 /= 0
r0 = 0
exit`);
    expect(r.accepted).toBe(false);
  });
});

describe('maybe_fork_scalars', () => {
  const prog = (k: number) => `call 7
w2 = w0
w2 s>>= 31
w2 &= -134
if w2 s> -1 goto +2
if w2 != ${k} goto +1
w0 /= 0
w0 = 0
exit`;
  it('splits a 0-or--1 register before AND, so "0 or K" stays exact', () => {
    expect(run(prog(-136)).accepted).toBe(true);
  });
  it('the K side is still explored', () => {
    const r = run(prog(-134));
    expect(r.accepted).toBe(false);
    expect(r.error).toContain('div by zero');
  });
});

describe('helper arguments', () => {
  const lookup = `r1 = 0
*(u32 *)(r10 -4) = r1
r2 = r10
r2 += -4
r1 = 0 ll
call 1
if r0 == 0 goto +3
r1 = r0
call 93
r0 = 0
exit`;
  it('bpf_spin_lock needs the map to carry BTF, which XDP Lab maps never do', () => {
    const r = run(lookup, { maps: [{ type: 'array', key_size: 4, value_size: 8, max_entries: 1 }], map_relocs: [{ insn: 4, map: 0 }] });
    expect(r.accepted).toBe(false);
    expect(r.error).toBe("map '' has to have BTF in order to use bpf_spin_lock");
  });
  it('bpf_strtol writes 8 aligned bytes through its fourth argument', () => {
    const base = (off: number) => `r1 = 0x3834
*(u64 *)(r10 -8) = r1
r1 = r10
r1 += -8
r2 = 3
r3 = 0
r4 = r10
r4 += ${off}
call 105
r0 = 0
exit`;
    expect(run(base(-16)).accepted).toBe(true);
    expect(run(base(-4)).error).toBe('invalid write to stack R4 off=-4 size=8');
    expect(run(base(-20)).error).toBe('misaligned stack access off 0+-20+0 size 8');
  });
});

describe('socket references (bpf_sk_lookup_tcp / bpf_sk_release)', () => {
  // A tuple of 36 zero bytes on the stack, then the lookup; `tail` decides what happens to r0.
  const lookup = (tail: string) => `r6 = r1
r2 = 0
*(u64 *)(r10 -8) = r2
*(u64 *)(r10 -16) = r2
*(u64 *)(r10 -24) = r2
*(u64 *)(r10 -32) = r2
*(u64 *)(r10 -40) = r2
r2 = r10
r2 += -40
r3 = 36
r4 = 0
r5 = 0
call 84
${tail}`;
  it('accepts a checked lookup that is released', () => {
    const r = run(lookup(`if r0 == 0 goto +2
r1 = r0
call 86
r0 = 2
exit`));
    expect(r.error).toBeUndefined();
    expect(r.accepted).toBe(true);
  });
  it('rejects a reference that is never released', () => {
    const r = run(lookup(`r0 = 2
exit`));
    expect(r.accepted).toBe(false);
    expect(r.error).toBe('Unreleased reference id=2 alloc_insn=12');
  });
  it('rejects releasing before the null check, and releasing twice', () => {
    expect(run(lookup(`r1 = r0
call 86
r0 = 2
exit`)).error).toBe('R1 type=sock_or_null expected=sock_common, sock, tcp_sock, xdp_sock, ptr_, trusted_ptr_');
    expect(run(lookup(`if r0 == 0 goto +4
r7 = r0
r1 = r0
call 86
r1 = r7
call 86
r0 = 2
exit`)).error).toBe('R1 type=scalar expected=sock_common, sock, tcp_sock, xdp_sock, ptr_, trusted_ptr_');
  });
  it('reads socket fields but never writes them', () => {
    const read = run(lookup(`if r0 == 0 goto +4
r2 = *(u32 *)(r0 +4)
r1 = r0
call 86
r0 = 2
exit`));
    expect(read.accepted).toBe(true);
    expect(run(lookup(`if r0 == 0 goto +4
*(u32 *)(r0 +4) = r6
r1 = r0
call 86
r0 = 2
exit`)).error).toBe('R0 cannot write into sock');
    expect(run(lookup(`if r0 == 0 goto +4
r2 = *(u64 *)(r0 +0)
r1 = r0
call 86
r0 = 2
exit`)).error).toBe('R0 invalid sock access off=0 size=8');
  });
});

describe('xdp_sock reads', () => {
  const xsk = (load: string) => `r1 = 0
*(u32 *)(r10 -8) = r1
r2 = r10
r2 += -8
r1 = 0 ll
call 1
if r0 != 0 goto +1
exit
${load}
r0 = 0
exit`;
  const maps = { maps: [{ type: 'xskmap' as const, key_size: 4, value_size: 4, max_entries: 1 }], map_relocs: [{ insn: 4, map: 0 }] };
  it('reads queue_id, the one field of struct bpf_xdp_sock', () => {
    expect(run(xsk('r0 = *(u32 *)(r0 +0)'), maps).accepted).toBe(true);
  });
  it('refuses other offsets, sizes and writes', () => {
    expect(run(xsk('r0 = *(u32 *)(r0 +4)'), maps).error).toBe('R0 invalid xdp_sock access off=4 size=4');
    expect(run(xsk('r0 = *(u64 *)(r0 +0)'), maps).error).toBe('R0 invalid xdp_sock access off=0 size=8');
    expect(run(xsk('*(u32 *)(r0 +0) = 0'), maps).error).toBe('R0 cannot write into xdp_sock');
  });
});

describe('linked scalars with a 32-bit delta', () => {
  const prog = (first: string, add: string, cond: string) => `call 7
${first}
w1 = w0
${add}
if w1 s< 0 goto +2
${cond}
r0 /= 0
r0 = 0
exit`;
  it('w1 = w0; w1 += -4; w1 s>= 0 means w0 >= 4', () => {
    expect(run(prog('w0 &= 0xff', 'w1 += -4', 'if w0 != 0 goto +1')).accepted).toBe(true);
    expect(run(prog('w0 &= 0xff', 'w1 -= 4', 'if w0 != 0 goto +1')).accepted).toBe(true);
    expect(run(prog('w0 &= 0xff', 'w1 += -4', 'if w0 != 4 goto +1')).accepted).toBe(false);
  });
  it('no link when the base may not fit in 32 bits', () => {
    // r0 is 0..255 or 2^32 + 0..255: linking w1 to it would wrongly clear r0's upper half.
    const r = run(`call 7
r2 = 0x1000000ff ll
r0 &= r2
r1 = r0
w1 += -4
if w1 s< 0 goto +4
r3 = r0
r3 >>= 32
if r3 == 0 goto +1
r0 /= 0
r0 = 0
exit`);
    expect(r.accepted).toBe(false);
    expect(r.error).toContain('div by zero');
  });
});

describe('ringbuf references (bpf_ringbuf_reserve / submit / discard)', () => {
  const maps = { maps: [{ type: 'ringbuf' as const, key_size: 0, value_size: 0, max_entries: 4096 }], map_relocs: [{ insn: 0, map: 0 }] };
  const rb = (body: string) => `r1 = 0 ll
r2 = 8
r3 = 0
call 131
if r0 == 0 goto +${body.split('\n').length}
${body}
r0 = 2
exit`;
  it('writes inside the reserved size, then submits', () => {
    const r = run(rb(`r1 = 7
*(u64 *)(r0 +0) = r1
r1 = r0
r2 = 0
call 132`), maps);
    expect(r.error).toBeUndefined();
    expect(r.accepted).toBe(true);
  });
  it('refuses a write past the reserved size, a leak and a moved pointer', () => {
    expect(run(rb(`r1 = 7
*(u64 *)(r0 +8) = r1
r1 = r0
r2 = 0
call 133`), maps).error).toBe('invalid access to memory, mem_size=8 off=8 size=8');
    expect(run(rb(`r1 = 7
*(u64 *)(r0 +0) = r1`), maps).error).toBe('Unreleased reference id=2 alloc_insn=4');
    expect(run(rb(`r1 = r0
r1 += 8
r2 = 0
call 132`), maps).error).toBe('R1 must have zero offset when passed to release func or trusted arg to kfunc');
  });
});
