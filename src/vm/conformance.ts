/**
 * bpf_conformance / uBPF `.data` tests: parse one file's sections
 * (-- asm, -- raw, -- mem, -- result, -- error / -- error pattern) and run it in the VM the
 * way those suites' runners do (r1 = memory, r2 = its length, r0's 64 bits
 * compared with the expected result). The suites' test helpers (uBPF's
 * gather_bytes, memfrob, no_op, sqrti, strcmp_ext, unwind) are bound here,
 * since their .data files call them by id.
 */
import { assemble } from '../isa/asm';
import type { Insn } from '../isa/insn';
import { validateProgram } from '../isa/validate';
import type { HelperFn, Machine } from './interp';
import { runRaw } from './raw';

export interface ConformanceCase {
  asm?: string;
  raw?: Insn[];
  mem: Uint8Array;
  result?: bigint;
  error?: string;
}

export function parseConformance(text: string): ConformanceCase | { parseError: string } {
  const sections = new Map<string, string>();
  let cur: string | undefined;
  for (const line of text.split(/\r?\n/)) {
    const h = /^-- (.+?)\s*$/.exec(line);
    if (h) {
      cur = h[1]!;
      sections.set(cur, '');
    } else if (cur) sections.set(cur, sections.get(cur)! + line + '\n');
  }
  const strip = (s: string): string => s.split('\n').map((l) => l.replace(/#.*$/, '').trim()).filter(Boolean).join('\n');
  const c: ConformanceCase = { mem: new Uint8Array(0) };
  if (sections.has('asm')) c.asm = sections.get('asm')!;
  if (sections.has('raw')) {
    c.raw = [];
    // Two spellings: one 64-bit word per slot ("0x0000000100000007") or the
    // slot's 8 bytes in memory order ("07 00 01 00 01 00 00 00").
    const words: bigint[] = [];
    for (const line of strip(sections.get('raw')!).split('\n')) {
      const toks = line.split(/\s+/).filter(Boolean);
      if (toks.length === 8 && toks.every((t) => /^[0-9a-fA-F]{2}$/.test(t))) {
        words.push(toks.reduceRight((acc, t) => (acc << 8n) | BigInt(parseInt(t, 16)), 0n));
        continue;
      }
      for (const w of toks) {
        if (!/^(0x[0-9a-fA-F]{1,16}|[0-9]+)$/.test(w)) return { parseError: `bad -- raw word '${w}'` };
        words.push(BigInt.asUintN(64, BigInt(w)));
      }
    }
    for (const v of words) {
      c.raw.push({ code: Number(v & 0xffn), dst: Number((v >> 8n) & 0xfn), src: Number((v >> 12n) & 0xfn), off: Number(BigInt.asIntN(16, v >> 16n)), imm: Number(BigInt.asIntN(32, v >> 32n)) });
    }
  }
  if (sections.has('mem')) {
    const hex = strip(sections.get('mem')!).replace(/\s+/g, '');
    if (!/^([0-9a-fA-F]{2})*$/.test(hex)) return { parseError: 'bad -- mem section' };
    c.mem = new Uint8Array(hex.length / 2);
    for (let i = 0; i < c.mem.length; i++) c.mem[i] = parseInt(hex.substr(2 * i, 2), 16);
  }
  if (sections.has('result')) {
    const r = strip(sections.get('result')!);
    try {
      c.result = BigInt.asUintN(64, BigInt(r));
    } catch {
      return { parseError: `bad -- result '${r}'` };
    }
  }
  if (sections.has('error')) c.error = strip(sections.get('error')!);
  else if (sections.has('error pattern')) c.error = strip(sections.get('error pattern')!);
  if (c.asm === undefined && c.raw === undefined) return { parseError: 'no -- asm or -- raw section' };
  return c;
}

/** The uBPF / bpf_conformance test helpers, by the ids their tests use. */
export function conformanceHelpers(): Map<number, HelperFn> {
  const h = new Map<number, HelperFn>();
  h.set(0, (m: Machine) => {
    let v = 0n;
    for (let r = 1; r <= 5; r++) v = (v << 8n) | (m.regU64(r) & 0xffn);
    m.setReg(0, v);
  });
  h.set(1, (m, pc) => {
    const b = m.bytesAt(pc, 1, m.regNum(2), true);
    for (let i = 0; i < b.length; i++) b[i]! ^= 42;
    m.setReg(0, 0);
  });
  h.set(2, (m) => m.setReg(0, 0));
  h.set(3, (m) => {
    const x = m.regU64(1);
    let r = BigInt(Math.floor(Math.sqrt(Number(x))));
    while (r * r > x) r--;
    while ((r + 1n) * (r + 1n) <= x) r++;
    m.setReg(0, r);
  });
  h.set(4, (m, pc) => {
    const str = (reg: number): number[] => {
      const out: number[] = [];
      for (let i = 0; ; i++) {
        const b = m.bytesAt(pc, reg, i + 1, false)[i]!;
        if (b === 0) return out;
        out.push(b);
      }
    };
    const a = str(1);
    const b = str(2);
    let r = 0;
    for (let i = 0; i <= Math.min(a.length, b.length); i++) {
      const x = a[i] ?? 0;
      const y = b[i] ?? 0;
      if (x !== y) {
        r = x - y;
        break;
      }
    }
    m.setReg(0, r);
  });
  // unwind: returns its argument; a zero ends the program (uBPF's unwind index).
  h.set(5, (m) => {
    m.setReg(0, m.regU64(1));
    if (m.regU64(1) === 0n) m.unwound = true;
  });
  return h;
}

export interface ConformanceOutcome {
  pass: boolean;
  detail: string;
}

export function runConformance(c: ConformanceCase, engine: 'jit' | 'interp' = 'jit'): ConformanceOutcome {
  let insns: Insn[];
  if (c.asm !== undefined) {
    const a = assemble(c.asm);
    if (a.errors.length) {
      const e = a.errors[0]!;
      return c.error !== undefined ? { pass: true, detail: 'rejected as expected' } : { pass: false, detail: `assembly error at line ${e.line}: ${e.message}` };
    }
    insns = a.insns;
    // An assembler test: "-- asm" must encode to exactly "-- raw".
    if (c.raw) {
      const same = insns.length === c.raw.length && insns.every((x, k) => x.code === c.raw![k]!.code && x.dst === c.raw![k]!.dst && x.src === c.raw![k]!.src && x.off === c.raw![k]!.off && x.imm === c.raw![k]!.imm);
      if (!same) return { pass: false, detail: 'assembled bytes differ from the -- raw section' };
      if (c.result === undefined && c.error === undefined) return { pass: true, detail: 'assembles to -- raw' };
    }
  } else insns = c.raw!;
  const problems = validateProgram(insns);
  if (problems.length) {
    return c.error !== undefined ? { pass: true, detail: 'rejected as expected' } : { pass: false, detail: `invalid program: insn ${problems[0]!.slot}: ${problems[0]!.reason}` };
  }
  const r = runRaw(insns, c.mem.slice(), conformanceHelpers(), 1_000_000, engine);
  if (r.fault) return c.error !== undefined ? { pass: true, detail: 'faulted as expected' } : { pass: false, detail: r.fault.message };
  if (c.error !== undefined) return { pass: false, detail: `expected an error (${c.error}), got 0x${r.r0.toString(16)}` };
  if (c.result === undefined) return { pass: false, detail: 'no -- result section' };
  if (r.r0 !== c.result) return { pass: false, detail: `expected 0x${c.result.toString(16)}, got 0x${r.r0.toString(16)}` };
  return { pass: true, detail: '' };
}
