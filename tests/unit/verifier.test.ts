/**
 * Verifier unit tests: tnum arithmetic against brute force, the API shape
 * the CLI and UI rely on (log format, states, error path, line info), and
 * fuzzing — random bytes and random instruction streams never crash it.
 */
import { describe, expect, it } from 'vitest';
import { assemble } from '../../src/isa/asm';
import { bytesToHex, encodeProgram } from '../../src/isa/insn';
import { parseSpec, type ProgramSpec } from '../../src/isa/spec';
import { verify } from '../../src/verifier';
import { tnumAdd, tnumAnd, tnumIn, tnumMul, tnumOr, tnumRange, tnumSub, tnumXor, type Tnum } from '../../src/verifier/tnum';
import { rng } from '../cases/verifier/random';

function prog(text: string, extra: Partial<ProgramSpec> = {}) {
  const a = assemble(text);
  if (a.errors.length) throw new Error(a.errors[0]!.message);
  const p = parseSpec({ prog_type: 'xdp', insns: bytesToHex(encodeProgram(a.insns)), ...extra });
  if ('error' in p) throw new Error(p.error);
  return p;
}

/** Every value a small tnum (within the low 4 bits) can take. */
function members(t: Tnum): bigint[] {
  const out: bigint[] = [];
  for (let v = 0n; v < 16n; v++) if ((v & ~t.mask) === t.value && (t.value | t.mask) < 16n) out.push(v);
  return out;
}

describe('tnum', () => {
  const small: Tnum[] = [];
  for (let m = 0n; m < 16n; m++) for (let v = 0n; v < 16n; v++) if ((v & m) === 0n) small.push({ value: v, mask: m });
  const ops: [string, (a: Tnum, b: Tnum) => Tnum, (x: bigint, y: bigint) => bigint][] = [
    ['add', tnumAdd, (x, y) => x + y],
    ['sub', tnumSub, (x, y) => BigInt.asUintN(64, x - y)],
    ['and', tnumAnd, (x, y) => x & y],
    ['or', tnumOr, (x, y) => x | y],
    ['xor', tnumXor, (x, y) => x ^ y],
    ['mul', tnumMul, (x, y) => x * y],
  ];
  for (const [name, f, g] of ops) {
    it(`${name} contains every concrete result (sound)`, () => {
      const missed: string[] = [];
      for (const a of small) {
        for (const b of small) {
          const t = f(a, b);
          for (const x of members(a)) for (const y of members(b)) if (!tnumIn(t, { value: g(x, y), mask: 0n })) missed.push(`${x} ${y}`);
        }
      }
      expect(missed).toEqual([]);
    });
  }
  it('range is the smallest tnum over [min, max]', () => {
    expect(tnumRange(0n, 255n)).toEqual({ value: 0n, mask: 255n });
    expect(tnumRange(16n, 31n)).toEqual({ value: 16n, mask: 15n });
    expect(tnumRange(5n, 5n)).toEqual({ value: 5n, mask: 0n });
  });
});

describe('verify API', () => {
  const pktProg = `r2 = *(u32 *)(r1 +0)
r3 = *(u32 *)(r1 +4)
r1 = r2
r1 += 14
if r1 > r3 goto pc+1
r0 = *(u8 *)(r2 +13)
r0 = 2
exit`;

  it('accepts, with the kernel log format and the final stats line', () => {
    const r = verify(prog(pktProg), { logLevel: 2 });
    expect(r.accepted).toBe(true);
    expect(r.log).toContain('4: (2d) if r1 > r3 goto pc+1          ; R1=pkt(off=14,r=14) R3=pkt_end()');
    expect(r.log).toMatch(/processed 10 insns \(limit 1000000\) max_states_per_insn \d+ total_states \d+ peak_states \d+ mark_read 0\n$/);
    expect(r.insnsProcessed).toBe(10);
  });

  it('level 1 keeps only the stats line for an accepted program', () => {
    const r = verify(prog(pktProg), { logLevel: 1 });
    expect(r.log.split('\n').filter(Boolean)).toHaveLength(1);
  });

  it('rejects with the first error line, the error pc and the path to it', () => {
    const r = verify(prog(pktProg.replace('r2 +13', 'r2 +14')), { logLevel: 1 });
    expect(r.accepted).toBe(false);
    expect(r.error).toBe('invalid access to packet, off=14 size=1, R2(id=0,off=14,r=14)');
    expect(r.errorPc).toBe(5);
    expect(r.errorPath).toEqual([0, 1, 2, 3, 4, 5]);
    expect(r.log).toContain('R2 offset is outside of the packet');
  });

  it('records register states before and after each instruction', () => {
    const r = verify(prog(pktProg));
    const at4 = r.states.find((s) => s.idx === 4)!;
    const r1After = at4.visits[0]!.after!.regs.find((x) => x.regno === 1)!;
    expect(r1After.type).toBe('pkt');
    expect(r1After.range).toBe(14);
    expect(r1After.off).toBe(14);
    const at5 = r.states.find((s) => s.idx === 5)!;
    const r0 = at5.visits[0]!.after!.regs.find((x) => x.regno === 0)!;
    expect(r0.umax).toBe('255');
  });

  it('prints C source lines from line info', () => {
    const source = 'int xdp(struct xdp_md *ctx) {\n  void *data = (void *)(long)ctx->data;\n  return 2;\n}\n';
    const r = verify(prog('r2 = *(u32 *)(r1 +0)\nr0 = 2\nexit', { source, line_info: [{ insn: 0, line: 2, col: 3, file: 'xdp1.c' }, { insn: 1, line: 3, col: 3, file: 'xdp1.c' }] }), { logLevel: 2 });
    expect(r.log).toContain('; void *data = (void *)(long)ctx->data; @ xdp1.c:2\n0: (61) r2 = *(u32 *)(r1 +0)');
    expect(r.log).toContain('; return 2; @ xdp1.c:3\n1: (b7) r0 = 2');
  });

  it('rejects the unbounded loop with the complexity message', () => {
    const r = verify(prog('r1 = 0\nr1 += 1\nif r1 != 0x0 goto pc-2\nr0 = 0\nexit'), { states: false, insnLimit: 20000 });
    expect(r.accepted).toBe(false);
    expect(r.error).toBe('BPF program is too large. Processed 20001 insn');
  });

  it('accepts a bounded loop', () => {
    const r = verify(prog('r1 = 0\nr1 += 1\nif r1 < 0x10 goto pc-2\nr0 = 0\nexit'));
    expect(r.accepted).toBe(true);
    expect(r.insnsProcessed).toBeGreaterThan(32);
  });

  it('detects an infinite loop whose state repeats', () => {
    const r = verify(prog('r1 = 0\nr0 = 0\nif r1 == 0x0 goto pc-1\nexit'), { logLevel: 1 });
    expect(r.accepted).toBe(false);
    expect(r.error).toBe('infinite loop detected at insn 2');
  });

  it('applies unprivileged rules when asked', () => {
    const leak = prog('r0 = r1\nexit');
    expect(verify(leak).accepted).toBe(true);
    const r = verify(leak, { unprivileged: true });
    expect(r.accepted).toBe(false);
    expect(r.error).toBe('R0 leaks addr as return value');
  });

  it('checks packet alignment only with strict alignment', () => {
    const p = prog(pktProg.replace('r0 = *(u8 *)(r2 +13)', 'r0 = *(u32 *)(r2 +1)'));
    expect(verify(p).accepted).toBe(true);
    const r = verify(p, { strictAlignment: true });
    expect(r.accepted).toBe(false);
    expect(r.error).toBe('misaligned packet access off 2+0+0+1 size 4');
  });
});

describe('fuzz: the verifier never crashes', () => {
  it('survives random bytes', () => {
    const next = rng(12345);
    for (let n = 0; n < 3000; n++) {
      const len = 8 * (1 + Math.floor(next() * 24));
      const bytes = new Uint8Array(len);
      for (let i = 0; i < len; i++) bytes[i] = Math.floor(next() * 256);
      const p = parseSpec({ prog_type: 'xdp', insns: bytesToHex(bytes) });
      if ('error' in p) continue;
      const r = verify(p, { states: false, insnLimit: 50_000 });
      expect(typeof r.accepted).toBe('boolean');
      if (!r.accepted) expect(r.error).toBeTruthy();
    }
  });

  it('survives random instruction streams built from valid opcodes', () => {
    const next = rng(777);
    const codes = [0x07, 0x0f, 0x17, 0x1f, 0x27, 0x2f, 0x37, 0x3f, 0x47, 0x4f, 0x57, 0x5f, 0x67, 0x6f, 0x77, 0x7f, 0x87, 0x97, 0x9f, 0xa7, 0xaf, 0xb7, 0xbf, 0xc7, 0xcf, 0xd4, 0xdc, 0x04, 0x0c, 0x14, 0x1c, 0x24, 0x2c, 0x34, 0x3c, 0xb4, 0xbc, 0x61, 0x69, 0x71, 0x79, 0x91, 0x62, 0x6a, 0x72, 0x7a, 0x63, 0x6b, 0x73, 0x7b, 0xc3, 0xdb, 0x05, 0x15, 0x1d, 0x25, 0x2d, 0x35, 0x3d, 0x45, 0x4d, 0x55, 0x5d, 0x65, 0x6d, 0x75, 0x7d, 0xa5, 0xad, 0xb5, 0xbd, 0xc5, 0xcd, 0xd5, 0xdd, 0x16, 0x1e, 0x26, 0x2e, 0x56, 0x5e, 0x85, 0x95, 0x18];
    for (let n = 0; n < 3000; n++) {
      const len = 2 + Math.floor(next() * 30);
      const slots = [];
      for (let i = 0; i < len; i++) {
        const code = codes[Math.floor(next() * codes.length)]!;
        const pickImm = [0, 1, 4, 8, 14, -8, -1, 12, 16, 64, 0x7fffffff][Math.floor(next() * 11)]!;
        slots.push({ code, dst: Math.floor(next() * 11), src: code === 0x85 ? (next() < 0.2 ? 1 : 0) : Math.floor(next() * 11), off: Math.floor(next() * 7) - 3, imm: code === 0x85 ? Math.floor(next() * 220) : pickImm });
        if (code === 0x18) slots.push({ code: 0, dst: 0, src: 0, off: 0, imm: 0 });
      }
      slots.push({ code: 0x95, dst: 0, src: 0, off: 0, imm: 0 });
      const p = parseSpec({ prog_type: 'xdp', insns: bytesToHex(encodeProgram(slots)) });
      if ('error' in p) continue;
      const r = verify(p, { states: n % 10 === 0, insnLimit: 50_000, logLevel: n % 3 === 0 ? 2 : 0 });
      expect(typeof r.accepted).toBe('boolean');
    }
  });
});
