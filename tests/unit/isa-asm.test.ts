import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { assemble, bytesToHex, disasmInsn, disasmProgram, encodeProgram, OPCODE_TABLE, validateProgram, type Insn, type OpInfo } from '../../src/isa';

/** xorshift32: tests are seeded, never Math.random. */
function rng(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>>= 0);
  };
}

/** A random valid instruction for a table row (slot-indexed: lddw yields two slots). */
function randomInsn(r: OpInfo, next: () => number): Insn[] {
  const reg = (): number => next() % 11;
  const imm = (): number => [0, 1, -1, 0x7fffffff, -0x80000000, next() | 0, (next() % 200) - 100][next() % 7]!;
  const off = (): number => [0, 1, -1, 32767, -32768, (next() % 64) - 32][next() % 6]!;
  const i: Insn = { code: r.code, dst: reg(), src: 0, off: 0, imm: 0 };
  switch (r.kind) {
    case 'alu':
    case 'mov':
      if (r.source === 'reg') i.src = reg();
      else i.imm = imm();
      i.off = r.requireOff ?? 0;
      break;
    case 'movsx':
      i.src = reg();
      i.off = r.requireOff!;
      break;
    case 'end':
      i.imm = r.requireImm!;
      break;
    case 'jmp':
      if (r.source === 'reg') i.src = reg();
      else i.imm = imm();
      i.off = off();
      break;
    case 'may_goto':
      i.dst = 0;
      i.off = off() || 1;
      break;
    case 'ja':
      i.dst = 0;
      if (r.is64) i.off = off();
      else i.imm = imm();
      break;
    case 'call':
      i.dst = r.source === 'reg' ? reg() : 0;
      i.imm = r.source === 'reg' ? 0 : next() % 212;
      break;
    case 'exit':
      i.dst = 0;
      break;
    case 'lddw': {
      i.imm = imm();
      const hi = imm();
      return [{ ...i, imm2: hi }, { code: 0, dst: 0, src: 0, off: 0, imm: hi }];
    }
    case 'ldx':
    case 'stx':
      i.src = reg();
      i.off = off();
      break;
    case 'st':
      i.off = off();
      i.imm = imm();
      break;
    case 'atomic':
      i.src = reg();
      i.off = off();
      i.imm = r.requireImm!;
      break;
    case 'ld_legacy':
      i.dst = 0;
      if (r.source === 'reg') i.src = reg();
      i.imm = imm();
      break;
  }
  return [i];
}

const hexOf = (slots: Insn[]): string => bytesToHex(encodeProgram(slots));

describe('assembler/disassembler round trip', () => {
  // Forms whose text does not determine the bytes in that dialect.
  const ambiguous: Record<'kernel' | 'llvm', (r: OpInfo) => boolean> = {
    kernel: (r) => r.kind === 'call' && r.source === 'reg', // callx prints like a helper call
    llvm: (r) => r.kind === 'ld_legacy', // objdump drops ld_ind's imm
  };
  for (const style of ['kernel', 'llvm'] as const) {
    it(`random valid instructions survive disasm → asm in ${style} style`, () => {
      const next = rng(style === 'kernel' ? 1234 : 5678);
      let n = 0;
      for (let k = 0; k < 20000; k++) {
        const r = OPCODE_TABLE[next() % OPCODE_TABLE.length]!;
        if (ambiguous[style](r)) continue;
        const slots = randomInsn(r, next);
        // Valid encodings (jump targets aside: a lone instruction has none).
        expect(validateProgram(slots).filter((p) => !/jump|jmp/.test(p.reason))).toEqual([]);
        const text = disasmInsn(slots[0]!, { style });
        const back = assemble(text);
        expect(back.errors, `${style}: ${text}`).toEqual([]);
        expect(hexOf(back.insns), `${style}: ${text}`).toBe(hexOf(slots));
        n++;
      }
      expect(n).toBeGreaterThan(15000);
    });
  }

  it('pseudo calls round-trip in kernel style ("call pc+N")', () => {
    const slots: Insn[] = [{ code: 0x85, dst: 0, src: 1, off: 0, imm: -7 }];
    expect(disasmInsn(slots[0]!, { style: 'kernel' })).toBe('(85) call pc-7');
    expect(hexOf(assemble(disasmInsn(slots[0]!, { style: 'kernel' })).insns)).toBe(hexOf(slots));
  });
});

describe('assembler', () => {
  it('reads uBPF syntax with labels, local calls and the implicit exit label', () => {
    const r = assemble(`
      mov32 %r0, 1
      ldxw %r1, [%r1+2]
      lock fetch add32 [%r10-8], %r1
      jne %r1, 0x5, out   # comment
      call local func1
      ja exit
    out:
      exit
    func1:
      lddw %r0, 0x123456789abcdef0
      exit`);
    expect(r.errors).toEqual([]);
    expect(disasmProgram(r.insns, { style: 'kernel' })).toEqual([
      '0: (b4) w0 = 1',
      '1: (61) r1 = *(u32 *)(r1 +2)',
      '2: (c3) r1 = atomic_fetch_add((u32 *)(r10 -8), r1)',
      '3: (55) if r1 != 0x5 goto pc+2',
      '4: (85) call pc+2',
      '5: (05) goto pc+0',
      '6: (95) exit',
      '7: (18) r0 = 0x123456789abcdef0',
      '9: (95) exit',
    ]);
  });

  it('reads kernel verifier log lines, slot numbers and state annotations included', () => {
    const r = assemble(`
0: R1=ctx() R10=fp0
0: (b7) r0 = 2                        ; R0=2
1: (61) r2 = *(u32 *)(r1 +4)          ; R1=ctx() R2=pkt_end()
2: (85) call bpf_map_lookup_elem#1
3: (95) exit`.replace('0: R1=ctx() R10=fp0\n', ''));
    expect(r.errors).toEqual([]);
    expect(hexOf(r.insns)).toBe('b7000000020000006112040000000000850000000100000095000000' + '00000000');
  });

  it('takes pointer casts spaced as clang does, *(u32*) and *( u32 * ) as *(u32 *)', () => {
    // The kernel selftests' inline asm writes them so; bytes as llvm-objdump shows clang-19's build of the same lines.
    const r = assemble('r2 = *(u32*)(r1 + 0)\nr3 = *( u32 * )(r1+4)\n*(u64*)(r10 - 8) = r2\nr0 = *(s16*)(r10 -8)\nexit');
    expect(r.errors).toEqual([]);
    expect(hexOf(r.insns)).toBe('6112000000000000' + '6113040000000000' + '7b2af8ff00000000' + '89a0f8ff00000000' + '9500000000000000');
  });

  it('reports errors with line and column, never throws', () => {
    const r = assemble('mov %r0, 1\n  frob %r1\nmov32 %r11, 1\nja nowhere\nmov %r0, 0x100000000\nr1 = *(u32 *)(r1 +99999)');
    expect(r.errors).toEqual([
      { line: 2, col: 3, message: "unknown instruction 'frob'" },
      { line: 3, col: 1, message: 'invalid register r11' },
      { line: 5, col: 1, message: 'immediate 0x100000000 does not fit in 32 bits' },
      { line: 6, col: 1, message: 'offset +99999 does not fit in 16 bits' },
      { line: 4, col: 1, message: "unknown label 'nowhere'" },
    ]);
  });

  it('assembles every bpf_conformance and uBPF test program', () => {
    const root = path.resolve(__dirname, '../../../shared/conformance');
    let files = 0;
    for (const dir of ['bpf_conformance', 'ubpf']) {
      for (const f of readdirSync(path.join(root, dir)).filter((x) => x.endsWith('.data'))) {
        const text = readFileSync(path.join(root, dir, f), 'utf8');
        const asm = /^-- asm\s*$([\s\S]*?)(?=^-- |$(?![\s\S]))/m.exec(text)?.[1];
        if (asm === undefined) continue;
        expect(assemble(asm).errors, `${dir}/${f}`).toEqual([]);
        files++;
      }
    }
    expect(files).toBeGreaterThan(340);
  });
});

describe('validateProgram', () => {
  it('names invalid encodings by slot', () => {
    const I = (code: number, dst = 0, src = 0, off = 0, imm = 0): Insn => ({ code, dst, src, off, imm });
    expect(
      validateProgram([I(0xff), I(0xb7, 11), I(0xb7, 1, 3), I(0x05, 0, 0, 10), I(0x18, 1, 0, 0, 5), I(0x18, 0, 0, 0, 0), I(0x05, 0, 0, -2), I(0x95)]),
    ).toEqual([
      { slot: 0, reason: 'unknown opcode ff' },
      { slot: 1, reason: 'R11 is invalid' },
      { slot: 2, reason: 'BPF_ALU64 uses reserved fields' },
      { slot: 3, reason: 'jump out of range from insn 3 to 14' },
      { slot: 4, reason: 'invalid bpf_ld_imm64 insn' },
      { slot: 6, reason: 'jump into the middle of ldimm64 insn 4' },
    ]);
  });
});

describe('llvm style matches llvm-objdump-19', () => {
  it('prints what llvm-objdump-19 -d prints for the same bytes', () => {
    const next = rng(99);
    const slots: Insn[] = [];
    for (const r of OPCODE_TABLE) {
      // (load-acquire / store-release came after LLVM 19: its objdump prints them as plain atomics or <unknown>)
      if (r.kind === 'ld_legacy' || (r.kind === 'atomic' && (r.size === 4 || r.op === 0x100 || r.op === 0x110)) || r.kind === 'call') continue;
      for (let k = 0; k < 3; k++) slots.push(...randomInsn(r, next));
    }
    const dir = mkdtempSync(path.join(tmpdir(), 'xdp-lab-objdump-'));
    const bytes = encodeProgram(slots);
    writeFileSync(path.join(dir, 'p.s'), `.text\n${Array.from(bytes, (b) => `.byte ${b}`).join('\n')}\n`);
    const mc = spawnSync('llvm-mc-19', ['-triple=bpfel', '-filetype=obj', path.join(dir, 'p.s'), '-o', path.join(dir, 'p.o')], { encoding: 'utf8' });
    expect(mc.status, mc.stderr).toBe(0);
    const od = spawnSync('llvm-objdump-19', ['-d', path.join(dir, 'p.o')], { encoding: 'utf8' });
    expect(od.status, od.stderr).toBe(0);
    const theirs = new Map<number, string>();
    for (const line of od.stdout.split('\n')) {
      const m = /^\s*(\d+):\t(?:[0-9a-f]{2} ?)+\t(.*)$/.exec(line);
      if (m) theirs.set(Number(m[1]), m[2]!.replace(/ <[^<>]*>$/, '').trim());
    }
    const ours = disasmProgram(slots, { style: 'llvm' });
    let compared = 0;
    for (const line of ours) {
      const [slot, text] = [Number(line.slice(0, line.indexOf(':'))), line.slice(line.indexOf(':') + 2)];
      const t = theirs.get(slot);
      if (t === undefined || t === '<unknown>') continue;
      // Without +alu32, objdump names 32-bit load/store data registers rN; so do we.
      expect(text, `slot ${slot}`).toBe(t);
      compared++;
    }
    expect(compared).toBeGreaterThan(300);
  });
});
