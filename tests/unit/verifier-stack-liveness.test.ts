/**
 * Static stack-slot liveness (src/verifier/stack_liveness.ts): which slots
 * are live before each instruction (helpers read what their prototypes say), that pruning then ignores the dead ones
 * (and only those), and that an escaping frame pointer falls back to every
 * slot live.
 */
import { describe, expect, it } from 'vitest';
import { assemble } from '../../src/isa/asm';
import { bytesToHex, encodeProgram, type Insn } from '../../src/isa/insn';
import { parseSpec } from '../../src/isa/spec';
import { verify } from '../../src/verifier';
import { computeStackLiveness, slotLive, type StackLiveness } from '../../src/verifier/stack_liveness';
import { successors } from '../../src/verifier/cfg';

function insnsOf(text: string): Insn[] {
  const a = assemble(text);
  if (a.errors.length) throw new Error(a.errors[0]!.message);
  return a.insns;
}

/** The liveness of a one-function program, over the verifier's own CFG edges. */
function liveness(insns: Insn[]): StackLiveness {
  const out = { lo: new Int32Array(insns.length + 1), hi: new Int32Array(insns.length + 1) };
  computeStackLiveness(insns, [0], (t) => successors(insns, t), out);
  return out;
}

const liveSlots = (l: StackLiveness, t: number): number[] => Array.from({ length: 64 }, (_, spi) => spi).filter((spi) => slotLive(l, t, spi));

function verifyText(text: string) {
  const p = parseSpec({ prog_type: 'xdp', insns: bytesToHex(encodeProgram(insnsOf(text))) });
  if ('error' in p) throw new Error(p.error);
  return verify(p, { logLevel: 1 });
}

describe('stack slot liveness', () => {
  it('a slot is live from a store to its last read, dead before a full overwrite, through a copy of r10', () => {
    const l = liveness(
      insnsOf(`r2 = r10
r2 += -16
*(u64 *)(r10 -8) = 1
*(u64 *)(r2 +0) = 2
r0 = *(u64 *)(r10 -8)
*(u64 *)(r10 -8) = 3
r0 = *(u32 *)(r2 +4)
r0 = 0
exit`),
    );
    // fp-8 is slot 0, fp-16 slot 1.
    expect(liveSlots(l, 0)).toEqual([]); // slot 0 overwritten whole before any read; slot 1 too
    expect(liveSlots(l, 3)).toEqual([0]); // slot 1 about to be written whole through r2
    expect(liveSlots(l, 4)).toEqual([0, 1]);
    expect(liveSlots(l, 5)).toEqual([1]); // slot 0's value is overwritten before it is read again
    expect(liveSlots(l, 6)).toEqual([1]);
    expect(liveSlots(l, 7)).toEqual([]);
  });

  it('a narrower store does not kill a slot, a helper given a stack pointer may read from it to the frame top', () => {
    const l = liveness(
      insnsOf(`*(u32 *)(r10 -8) = 1
r2 = r10
r2 += -20
r1 = 0
call 14
r0 = 0
exit`),
    );
    // fp-20 up to fp-1: slots 0, 1 and 2; nothing below the pointer.
    expect(liveSlots(l, 0)).toEqual([0, 1, 2]);
    expect(liveSlots(l, 4)).toEqual([0, 1, 2]);
    expect(liveSlots(l, 5)).toEqual([]);
  });

  it('a map key is read for the map\'s key size; memory a helper only writes is not read', () => {
    const insns = insnsOf(`r1 = 0 ll
r2 = r10
r2 += -32
call 1
r1 = r6
r2 = 0
r3 = r10
r3 += -64
r4 = 8
call 189
r0 = 0
exit`);
    const out = { lo: new Int32Array(insns.length + 1), hi: new Int32Array(insns.length + 1) };
    computeStackLiveness(insns, [0], (t) => successors(insns, t), out, (slot) => (slot === 0 ? { key_size: 12, value_size: 8 } : undefined));
    // The 12-byte key at fp-32 covers slots 3 and 2 (fp-32..fp-21); the load_bytes buffer is written, not read.
    expect(liveSlots(out, 0)).toEqual([2, 3]);
    expect(liveSlots(out, 5)).toEqual([]);
  });

  it('a frame pointer stored to memory makes every slot live everywhere', () => {
    const l = liveness(
      insnsOf(`r2 = r10
r2 += -8
*(u64 *)(r10 -16) = r2
r3 = *(u64 *)(r10 -16)
r0 = *(u64 *)(r3 +0)
r0 = 0
exit`),
    );
    for (let t = 0; t < 7; t++) expect(liveSlots(l, t)).toHaveLength(64);
  });

  it('prunes paths that differ only in dead slots (the kernel processes 44 insns of selftests\' jump test 1)', () => {
    const r = verifyText(`r2 = r10
*(u64 *)(r2 -8) = r1
if r1 == 0x0 goto +1
*(u64 *)(r2 -8) = 0
if r1 == 0x1 goto +1
*(u64 *)(r2 -16) = 1
if r1 == 0x2 goto +1
*(u64 *)(r2 -8) = 2
if r1 == 0x3 goto +1
*(u64 *)(r2 -16) = 3
if r1 == 0x4 goto +1
*(u64 *)(r2 -8) = 4
if r1 == 0x5 goto +1
*(u64 *)(r2 -32) = 5
r0 = 0
exit`);
    expect(r.accepted).toBe(true);
    expect(r.insnsProcessed).toBe(44);
  });

  it('still tells apart paths where a live slot differs: the path that spilled a scalar where the other spilled ctx is refused', () => {
    // The fall-through (explored first) leaves ctx in fp-8 and, after 3 jumps and 10 insns, a checkpoint at insn 10 (the
    // kernel's heuristic); the branch reaches insn 10 with a scalar there, read next: it must not be pruned.
    const r = verifyText(`r5 = *(u32 *)(r1 +12)
r2 = *(u32 *)(r1 +16)
*(u64 *)(r10 -8) = r2
if r5 == 0x0 goto +1
*(u64 *)(r10 -8) = r1
r4 = 1
if r4 == 0x7 goto +0
r4 = 2
if r4 == 0x8 goto +0
r4 = 3
if r4 == 0x9 goto +0
r3 = *(u64 *)(r10 -8)
r0 = *(u32 *)(r3 +0)
r0 = 0
exit`);
    expect(r.accepted).toBe(false);
    expect(r.error).toBe("R3 invalid mem access 'scalar'");
  });
});
