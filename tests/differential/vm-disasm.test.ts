/**
 * Kernel-style disassembly against the kernel itself: load programs that
 * touch every instruction form with log_level 2 and compare each "N: (xx) ..."
 * line of the real verifier log with disasmInsn(…, {style: 'kernel'}).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { assemble, bytesToHex, disasmInsn, encodeProgram } from '../../src/isa';
import { Oracle, oracleAvailable } from './oracle';

const avail = oracleAvailable();
const PROGRAM = `
  mov %r9, %r1
  mov %r0, 0
  mov %r2, %r10
  add %r2, -8
  stdw [%r10-8], 5
  stdw [%r10-16], -5
  mov %r3, 1
  lock add [%r2+0], %r3
  lock fetch add [%r2+0], %r3
  lock or [%r2+0], %r3
  lock fetch and [%r2+0], %r3
  lock fetch xor [%r2+0], %r3
  lock xchg [%r2+0], %r3
  lock cmpxchg [%r2+0], %r3
  lock and32 [%r2+0], %r3
  lock fetch or32 [%r2+0], %r3
  lock xchg32 [%r2+0], %r3
  lock cmpxchg32 [%r2+0], %r3
  ldxsb %r4, [%r10-8]
  ldxsh %r4, [%r10-8]
  ldxsw %r4, [%r10-8]
  movsx864 %r5, %r4
  movsx1664 %r5, %r4
  movsx3264 %r5, %r4
  movsx832 %r5, %r4
  movsx1632 %r5, %r4
  sdiv %r5, %r4
  smod %r5, %r4
  sdiv %r5, -3
  sdiv32 %r5, 3
  mod32 %r5, -7
  bswap16 %r5
  bswap32 %r5
  bswap64 %r5
  be16 %r5
  le64 %r5
  neg32 %r5
  neg %r5
  lddw %r6, 0xfffffffe12345678
  lddw %r6, 0xffffffff
  lsh %r6, 3
  rsh32 %r6, %r5
  arsh %r6, 63
  xor32 %r6, -1
  mul %r6, %r6
  jeq %r5, -5, +1
  jeq32 %r5, -5, +0
  jsgt32 %r5, %r4, +0
  jset %r5, 0x10, +0
  ja32 +0
  ja +0
  stw [%r10-24], -9
  stxb [%r10-25], %r5
  stxh [%r10-28], %r5
  ldxh %r7, [%r10-8]
  ldxdw %r7, [%r10-8]
  arsh %r5, 3
  arsh32 %r5, %r4
  call 7
  call 5
  mov %r1, 1
  call local sub
  ldxw %r2, [%r9+4]
  mov %r0, 2
  exit
sub:
  mov %r0, 2
  exit
`;

describe.skipIf(!avail.ok)('kernel-style disassembly matches the kernel verifier log', () => {
  const oracle = avail.ok ? new Oracle() : undefined;
  afterAll(() => oracle?.close());

  it('prints every instruction exactly as the log does', async () => {
    const asm = assemble(PROGRAM);
    expect(asm.errors).toEqual([]);
    const res = await oracle!.ask({ insns: bytesToHex(encodeProgram(asm.insns)), log_level: 2 });
    expect(res.accepted, res.verifier_log).toBe(true);
    const seen = new Map<number, string>();
    for (const line of res.verifier_log.split('\n')) {
      const m = /^(\d+): (\([0-9a-f]{2}\) .*?)(?:\s+;.*)?$/.exec(line);
      if (m && !seen.has(Number(m[1]))) seen.set(Number(m[1]), m[2]!);
    }
    let compared = 0;
    for (let k = 0; k < asm.insns.length; k++) {
      const i = asm.insns[k]!;
      const theirs = seen.get(k);
      if (i.code === 0x18) k++;
      if (theirs === undefined) continue;
      expect(disasmInsn(i, { style: 'kernel' }), `slot ${k}`).toBe(theirs);
      compared++;
    }
    expect(compared).toBeGreaterThan(55);
  });
});
