/**
 * The assembler. One line is one instruction, in any of three dialects,
 * mixed freely:
 *
 *  - kernel verifier log text: "(61) r2 = *(u32 *)(r1 +0)", "if r1 > 0x5 goto pc+3",
 *    "call bpf_map_lookup_elem#1" (a leading "12:" slot number and a trailing
 *    "; R0=..." state annotation are ignored, so log lines paste straight in);
 *  - llvm-objdump / llvm-mc text: "r0 = *(u8 *)(r1 + 0xc)", "r1 = 0x1234 ll",
 *    "if w1 s> -0x3 goto +0x2", "r3 = atomic_fetch_add((u64 *)(r2 + 0x0), r3)";
 *  - uBPF / bpf_conformance text: "mov32 %r0, 1", "ldxw %r0, [%r1+2]",
 *    "lock fetch add32 [%r10-8], %r1", "jne %r1, 0x5, label", "call local func1".
 *
 * Labels ("name:") may stand before any instruction; jump targets and local
 * calls may name them. The result is slot-indexed like decodeProgram (lddw
 * fills two slots). Errors come back as {line, col, message}; never thrown.
 */
import * as O from './opcodes';
import type { Insn } from './insn';
import { lookupMnemonic, OPCODE_TABLE, type OpInfo } from './table';
import { DISASM_ALU_OPS, DISASM_JMP_OPS } from './disasm';
import { KERNEL_HELPER_NAMES } from './helper_names';

export interface AsmError {
  /** 1-based line. */
  line: number;
  /** 1-based column where the offending instruction (or token) starts. */
  col: number;
  message: string;
}

export interface AsmResult {
  /** Slot-indexed program (the second slot of an lddw is its own entry). */
  insns: Insn[];
  errors: AsmError[];
  /** Label name → slot. */
  labels: Map<string, number>;
}

interface Fixup {
  slot: number;
  label: string;
  field: 'off' | 'imm';
  line: number;
  col: number;
}

class AsmFail extends Error {}
const fail = (msg: string): never => {
  throw new AsmFail(msg);
};

const MNEMONICS = new Set(OPCODE_TABLE.map((r) => r.mnemonic));
const ALU_BY_SYM = new Map<string, number>(Object.entries(DISASM_ALU_OPS).map(([k, v]) => [v, Number(k)]));
const JMP_BY_SYM = new Map<string, number>(Object.entries(DISASM_JMP_OPS).map(([k, v]) => [v, Number(k)]));
const HELPER_ID = new Map<string, number>(KERNEL_HELPER_NAMES.map((n, id) => [`bpf_${n}`, id]));
const ATOMIC_OP: Record<string, number> = { add: O.BPF_ADD, and: O.BPF_AND, or: O.BPF_OR, xor: O.BPF_XOR };
const ATOMIC_SYM: Record<string, number> = { '+=': O.BPF_ADD, '&=': O.BPF_AND, '|=': O.BPF_OR, '^=': O.BPF_XOR };
const SIZE_CODE: Record<number, number> = { 1: O.BPF_B, 2: O.BPF_H, 4: O.BPF_W, 8: O.BPF_DW };

const NUM = String.raw`[+-]?(?:0x[0-9a-fA-F]+|\d+)`;
const MEM = String.raw`\(r(\d+)\s*([+-])\s*(0x[0-9a-fA-F]+|\d+)\)`;

export function assemble(text: string): AsmResult {
  const insns: Insn[] = [];
  const errors: AsmError[] = [];
  const labels = new Map<string, number>();
  const fixups: Fixup[] = [];
  // bpf_conformance's convention: "exit", unless defined, names the first exit.
  let firstExit = -1;
  const lines = text.split(/\r?\n/);
  lines.forEach((raw, idx) => {
    const line = idx + 1;
    let s = stripComment(raw);
    let col = 1 + (s.length - s.trimStart().length);
    s = s.trim();
    // A slot number as printed by the kernel log or disasmProgram.
    const num = /^\d+:\s*/.exec(s);
    if (num) {
      s = s.slice(num[0].length);
      col += num[0].length;
    }
    for (;;) {
      const lab = /^([A-Za-z_.$][\w.$]*):\s*/.exec(s);
      if (!lab) break;
      if (labels.has(lab[1]!)) errors.push({ line, col, message: `duplicate label '${lab[1]}'` });
      labels.set(lab[1]!, insns.length);
      s = s.slice(lab[0].length);
      col += lab[0].length;
    }
    if (!s) return;
    try {
      const slot = insns.length;
      const got = parseLine(s, slot);
      if (got.insn.code === 0x95 && firstExit < 0) firstExit = slot;
      insns.push(got.insn);
      if (got.insn.code === 0x18) insns.push({ code: 0, dst: 0, src: 0, off: 0, imm: got.insn.imm2 ?? 0 });
      if (got.label) fixups.push({ slot, label: got.label.name, field: got.label.field, line, col });
    } catch (e) {
      if (!(e instanceof AsmFail)) throw e;
      errors.push({ line, col, message: e.message });
    }
  });
  for (const f of fixups) {
    const target = labels.get(f.label) ?? (f.label === 'exit' && firstExit >= 0 ? firstExit : undefined);
    if (target === undefined) {
      errors.push({ line: f.line, col: f.col, message: `unknown label '${f.label}'` });
      continue;
    }
    const rel = target - (f.slot + 1);
    const i = insns[f.slot]!;
    if (f.field === 'off') {
      if (rel < -32768 || rel > 32767) errors.push({ line: f.line, col: f.col, message: `jump to '${f.label}' does not fit in 16 bits` });
      i.off = rel;
    } else i.imm = rel;
  }
  return { insns, errors, labels };
}

function stripComment(s: string): string {
  // ';' starts the kernel log's state annotation; '#' a uBPF/llvm comment,
  // except the one in "call bpf_foo#12" (not preceded by a space).
  let cut = s.length;
  const semi = s.indexOf(';');
  if (semi >= 0) cut = semi;
  const slash = s.indexOf('//');
  if (slash >= 0 && slash < cut) cut = slash;
  const hash = /(^|\s)#/.exec(s);
  if (hash && hash.index < cut) cut = hash.index;
  return s.slice(0, cut);
}

interface Parsed {
  insn: Insn;
  label?: { name: string; field: 'off' | 'imm' };
}

function parseLine(s0: string, slot: number): Parsed {
  // One space per run of blanks, and pointer casts as the kernel prints them: clang's assembler also takes
  // *(u32*)(r1 + 8) and *( u32 * )(r1+8), which inline asm in the kernel's selftests writes.
  let s = s0.replace(/\s+/g, ' ').replace(/\( ?([us](?:8|16|32|64)) ?\* ?\)/g, '($1 *)').trim();
  let prefix: number | undefined;
  const pre = /^\(([0-9a-fA-F]{2})\) ?/.exec(s);
  if (pre) {
    prefix = parseInt(pre[1]!, 16);
    s = s.slice(pre[0].length);
  }
  const word = /^[a-z][a-z0-9]*/.exec(s)?.[0] ?? '';
  const ubpf = /%r\d/.test(s) || /^call (local|helper|runtime) /.test(s) || (word === 'lock' && s.includes('[')) || (word !== 'lock' && word !== 'call' && word !== 'callx' && word !== 'exit' && mnemonicRow(word) !== undefined);
  const p = ubpf ? parseUbpf(s, slot) : parseKernel(s);
  if (prefix !== undefined && prefix !== p.insn.code) {
    // "(18) r1 = 0x5" is an lddw whose value happens to be small.
    if (prefix === 0x18 && p.insn.code === (O.BPF_ALU64 | O.BPF_MOV | O.BPF_K)) {
      p.insn = { code: 0x18, dst: p.insn.dst, src: 0, off: 0, imm: p.insn.imm, imm2: p.insn.imm < 0 ? -1 : 0 };
    } else fail(`opcode prefix (${pre![1]}) does not match the instruction (${p.insn.code.toString(16).padStart(2, '0')})`);
  }
  return p;
}

function mnemonicRow(m: string): boolean | undefined {
  return MNEMONICS.has(m) || MNEMONICS.has(ubpfAlias(m)) ? true : undefined;
}

function ubpfAlias(m: string): string {
  if (/^swap(16|32|64)$/.test(m)) return 'b' + m;
  if (!MNEMONICS.has(m) && m.endsWith('64') && MNEMONICS.has(m.slice(0, -2))) return m.slice(0, -2);
  return m;
}

// ---- numbers and registers --------------------------------------------------

function parseBig(t: string): bigint | undefined {
  const m = /^([+-]?)(0x[0-9a-fA-F]+|\d+)$/.exec(t.trim());
  if (!m) return undefined;
  const v = BigInt(m[2]!);
  return m[1] === '-' ? -v : v;
}

function imm32(t: string, what = 'immediate'): number {
  const v = parseBig(t);
  if (v === undefined) return fail(`invalid ${what} '${t}'`);
  if (v < -(1n << 31n) || v > 0xffffffffn) return fail(`${what} ${t} does not fit in 32 bits`);
  return Number(BigInt.asIntN(32, v));
}

function off16(t: string): number {
  const v = parseBig(t);
  if (v === undefined) return fail(`invalid offset '${t}'`);
  if (v < -32768n || v > 32767n) return fail(`offset ${t} does not fit in 16 bits`);
  return Number(v);
}

function reg(t: string): number {
  const m = /^%?[rw](\d+)$/.exec(t.trim());
  if (!m) return fail(`expected a register, got '${t}'`);
  const n = Number(m[1]);
  if (n > 10) return fail(`invalid register r${n}`);
  return n;
}

function lddw(dst: number, v: bigint | undefined, t: string): Insn {
  if (v === undefined) return fail(`invalid immediate '${t}'`);
  if (v < -(1n << 63n) || v > 0xffffffffffffffffn) return fail(`immediate ${t} does not fit in 64 bits`);
  const u = BigInt.asUintN(64, v);
  return { code: 0x18, dst, src: 0, off: 0, imm: Number(BigInt.asIntN(32, u)), imm2: Number(BigInt.asIntN(32, u >> 32n)) };
}

/** A jump target: a relative number ("+3", "pc-2", "0x4") or a label. */
function target(t: string, field: 'off' | 'imm', i: Insn): Parsed {
  const u = t.trim().replace(/^pc(?=[+-])/, '');
  if (/^[+-]?(0x[0-9a-fA-F]+|\d+)$/.test(u)) {
    if (field === 'off') i.off = off16(u);
    else i.imm = imm32(u, 'jump offset');
    return { insn: i };
  }
  if (!/^[A-Za-z_.$][\w.$]*$/.test(u)) return fail(`invalid jump target '${t}'`);
  return { insn: i, label: { name: u, field } };
}

// ---- uBPF / bpf_conformance syntax -----------------------------------------

function splitOperands(s: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let cur = '';
  for (const ch of s) {
    if (ch === '[') depth++;
    if (ch === ']') depth--;
    if (ch === ',' && depth === 0) {
      out.push(cur.trim());
      cur = '';
    } else cur += ch;
  }
  if (cur.trim()) out.push(cur.trim());
  return out;
}

function memOperand(t: string): { reg: number; off: number } {
  const m = /^\[\s*(%?r\d+)\s*(?:([+-])\s*(0x[0-9a-fA-F]+|\d+))?\s*\]$/.exec(t);
  if (!m) return fail(`expected a memory operand like [%r1+4], got '${t}'`);
  const off = m[2] ? off16(`${m[2]}${m[3]}`) : 0;
  return { reg: reg(m[1]!), off };
}

function parseUbpf(s: string, slot: number): Parsed {
  let mnem: string;
  let rest: string;
  const lock = /^lock (fetch )?([a-z0-9]+) ?(.*)$/.exec(s);
  if (lock) {
    mnem = `lock ${lock[1] ?? ''}${lock[2]}`;
    rest = lock[3]!;
  } else {
    const m = /^([a-z][a-z0-9]*) ?(.*)$/.exec(s);
    if (!m) return fail(`cannot parse '${s}'`);
    mnem = ubpfAlias(m[1]!);
    rest = m[2]!;
  }
  const ops = splitOperands(rest);
  const isReg = (t: string | undefined): boolean => t !== undefined && /^%?r\d+$/.test(t);
  const need = (n: number): void => {
    if (ops.length !== n) fail(`${mnem} takes ${n} operand${n === 1 ? '' : 's'}, got ${ops.length}`);
  };
  // call: helper id, "local label", or a register (callx).
  if (mnem === 'call') {
    if (ops.length === 1 && isReg(ops[0])) return { insn: { code: 0x8d, dst: reg(ops[0]!), src: 0, off: 0, imm: 0 } };
    const local = /^local (.+)$/.exec(rest.trim());
    if (local) return target(local[1]!, 'imm', { code: 0x85, dst: 0, src: O.BPF_PSEUDO_CALL, off: 0, imm: 0 });
    const mode = /^(helper|runtime) (.+)$/.exec(rest.trim());
    if (mode) return { insn: { code: 0x85, dst: 0, src: mode[1] === 'runtime' ? O.BPF_PSEUDO_KFUNC_CALL : 0, off: 0, imm: helperOperand(mode[2]!) } };
    need(1);
    return { insn: { code: 0x85, dst: 0, src: 0, off: 0, imm: helperOperand(ops[0]!) } };
  }
  const candidates = OPCODE_TABLE.filter((r) => r.mnemonic === mnem);
  if (candidates.length === 0) return fail(`unknown instruction '${mnem}'`);
  const kind = candidates[0]!.kind;
  const pick = (source: 'reg' | 'imm' | 'none'): OpInfo => lookupMnemonic(mnem, source) ?? fail(`${mnem} does not take ${source === 'reg' ? 'a register' : 'an immediate'} operand`);
  const i: Insn = { code: 0, dst: 0, src: 0, off: 0, imm: 0 };
  const fill = (r: OpInfo): Insn => {
    i.code = r.code;
    if (r.requireOff !== undefined && (r.kind === 'alu' || r.kind === 'movsx' || r.kind === 'mov')) i.off = r.requireOff;
    if (r.requireImm !== undefined && (r.kind === 'end' || r.kind === 'atomic')) i.imm = r.requireImm;
    return i;
  };
  switch (kind) {
    case 'alu':
    case 'mov': {
      need(2);
      i.dst = reg(ops[0]!);
      if (isReg(ops[1])) {
        fill(pick('reg'));
        i.src = reg(ops[1]!);
      } else {
        fill(pick('imm'));
        i.imm = imm32(ops[1]!);
      }
      return { insn: i };
    }
    case 'movsx':
      need(2);
      fill(pick('reg'));
      i.dst = reg(ops[0]!);
      i.src = reg(ops[1]!);
      return { insn: i };
    case 'neg':
    case 'end':
      need(1);
      fill(pick('none'));
      i.dst = reg(ops[0]!);
      return { insn: i };
    case 'exit':
      need(0);
      return { insn: fill(pick('none')) };
    case 'may_goto':
      need(1);
      fill(pick('none'));
      return target(ops[0]!, 'off', i);
    case 'ja':
      need(1);
      fill(pick('none'));
      return target(ops[0]!, mnem === 'ja32' ? 'imm' : 'off', i);
    case 'jmp':
      need(3);
      i.dst = reg(ops[0]!);
      if (isReg(ops[1])) {
        fill(pick('reg'));
        i.src = reg(ops[1]!);
      } else {
        fill(pick('imm'));
        i.imm = imm32(ops[1]!);
      }
      return target(ops[2]!, 'off', i);
    case 'lddw': {
      need(2);
      const r = reg(ops[0]!);
      return { insn: lddw(r, parseBig(ops[1]!), ops[1]!) };
    }
    case 'ldx': {
      need(2);
      fill(pick('reg'));
      i.dst = reg(ops[0]!);
      const m = memOperand(ops[1]!);
      i.src = m.reg;
      i.off = m.off;
      return { insn: i };
    }
    case 'st': {
      need(2);
      fill(pick('imm'));
      const m = memOperand(ops[0]!);
      i.dst = m.reg;
      i.off = m.off;
      i.imm = imm32(ops[1]!);
      return { insn: i };
    }
    case 'stx':
    case 'atomic': {
      need(2);
      fill(pick('reg'));
      const m = memOperand(ops[0]!);
      i.dst = m.reg;
      i.off = m.off;
      i.src = reg(ops[1]!);
      return { insn: i };
    }
    case 'ld_legacy':
      if (mnem.startsWith('ldabs')) {
        need(1);
        fill(pick('imm'));
        i.imm = imm32(ops[0]!);
      } else {
        need(2);
        fill(pick('reg'));
        i.src = reg(ops[0]!);
        i.imm = imm32(ops[1]!);
      }
      return { insn: i };
    default:
      void slot;
      return fail(`cannot assemble '${s}'`);
  }
}

function helperOperand(t: string): number {
  const byName = HELPER_ID.get(t.startsWith('bpf_') ? t : `bpf_${t}`);
  if (byName !== undefined) return byName;
  return imm32(t, 'helper id');
}

// ---- kernel log and llvm syntax ---------------------------------------------

function memFrom(m: RegExpExecArray, at: number): { reg: number; off: number } {
  const r = Number(m[at]);
  if (r > 10) fail(`invalid register r${r}`);
  return { reg: r, off: off16(`${m[at + 1]}${m[at + 2]}`) };
}

function sizeOf(bits: string): 1 | 2 | 4 | 8 {
  return (Number(bits) / 8) as 1 | 2 | 4 | 8;
}

function parseKernel(s: string): Parsed {
  let m: RegExpExecArray | null;
  const i: Insn = { code: 0, dst: 0, src: 0, off: 0, imm: 0 };
  if (s === 'exit') return { insn: { ...i, code: 0x95 } };

  // Calls.
  if ((m = /^call (.+)$/.exec(s))) {
    const arg = m[1]!.trim();
    let c: RegExpExecArray | null;
    if ((c = /^pc([+-]\d+)$/.exec(arg))) return { insn: { ...i, code: 0x85, src: O.BPF_PSEUDO_CALL, imm: imm32(c[1]!) } };
    if ((c = /^[\w]+#(-?\d+)$/.exec(arg))) return { insn: { ...i, code: 0x85, imm: imm32(c[1]!) } };
    if (/^[+-]?(0x[0-9a-fA-F]+|\d+)$/.test(arg)) return { insn: { ...i, code: 0x85, imm: imm32(arg, 'helper id') } };
    const id = HELPER_ID.get(arg.startsWith('bpf_') ? arg : `bpf_${arg}`);
    if (id !== undefined) return { insn: { ...i, code: 0x85, imm: id } };
    return target(arg, 'imm', { ...i, code: 0x85, src: O.BPF_PSEUDO_CALL });
  }
  if ((m = /^callx [rw](\d+)$/.exec(s))) return { insn: { ...i, code: 0x8d, dst: reg(`r${m[1]}`) } };

  // Jumps.
  if ((m = /^goto (.+)$/.exec(s))) return target(m[1]!, 'off', { ...i, code: 0x05 });
  if ((m = /^may_goto (.+)$/.exec(s))) return target(m[1]!, 'off', { ...i, code: 0xe5 });
  if ((m = /^gotol (.+)$/.exec(s))) return target(m[1]!, 'imm', { ...i, code: 0x06 });
  if ((m = new RegExp(String.raw`^if ([rw])(\d+) (\S+) (?:([rw])(\d+)|(${NUM})) goto (.+)$`).exec(s))) {
    const op = JMP_BY_SYM.get(m[3]!);
    if (op === undefined) return fail(`unknown comparison '${m[3]}'`);
    const cls = m[1] === 'w' ? O.BPF_JMP32 : O.BPF_JMP;
    i.dst = reg(`r${m[2]}`);
    if (m[4]) {
      if (m[4] !== m[1]) fail('both operands of a comparison must be the same width (r or w)');
      i.code = cls | op | O.BPF_X;
      i.src = reg(`r${m[5]}`);
    } else {
      i.code = cls | op | O.BPF_K;
      i.imm = imm32(m[6]!);
    }
    return target(m[7]!, 'off', i);
  }

  // Load-acquire / store-release, both styles: "r0 = load_acquire((u64 *)(r1 +0))", "store_release((u8 *)(r0 + 0x10), w9)".
  if ((m = new RegExp(String.raw`^[rw](\d+) = load_acquire\(\(u(8|16|32|64) \*\)${MEM}\)$`).exec(s))) {
    const mm = memFrom(m, 3);
    return { insn: { code: O.BPF_STX | O.BPF_ATOMIC | SIZE_CODE[sizeOf(m[2]!)]!, dst: reg(`r${m[1]}`), src: mm.reg, off: mm.off, imm: O.BPF_LOAD_ACQ } };
  }
  if ((m = new RegExp(String.raw`^store_release\(\(u(8|16|32|64) \*\)${MEM}, [rw](\d+)\)$`).exec(s))) {
    const mm = memFrom(m, 2);
    return { insn: { code: O.BPF_STX | O.BPF_ATOMIC | SIZE_CODE[sizeOf(m[1]!)]!, dst: mm.reg, src: reg(`r${m[5]}`), off: mm.off, imm: O.BPF_STORE_REL } };
  }

  // Atomics.
  if ((m = new RegExp(String.raw`^lock \*\(u(32|64) \*\)${MEM} (\S+) [rw](\d+)$`).exec(s))) {
    const op = ATOMIC_SYM[m[5]!];
    if (op === undefined) return fail(`unknown atomic operation '${m[5]}'`);
    const mm = memFrom(m, 2);
    return { insn: { code: O.BPF_STX | O.BPF_ATOMIC | SIZE_CODE[sizeOf(m[1]!)]!, dst: mm.reg, src: reg(`r${m[6]}`), off: mm.off, imm: op } };
  }
  if ((m = new RegExp(String.raw`^[rw](\d+) = atomic(64)?_fetch_(add|and|or|xor)\(\(u(32|64) \*\)${MEM}, [rw](\d+)\)$`).exec(s))) {
    const mm = memFrom(m, 5);
    if (m[1] !== m[8]) fail('atomic fetch must name the same register twice');
    return { insn: { code: O.BPF_STX | O.BPF_ATOMIC | SIZE_CODE[sizeOf(m[4]!)]!, dst: mm.reg, src: reg(`r${m[8]}`), off: mm.off, imm: ATOMIC_OP[m[3]!]! | O.BPF_FETCH } };
  }
  if ((m = new RegExp(String.raw`^[rw](\d+) = atomic(64)?_(xchg|cmpxchg)\(\(u(32|64) \*\)${MEM}, (?:[rw]0, )?[rw](\d+)\)$`).exec(s))) {
    const mm = memFrom(m, 5);
    const xchg = m[3] === 'xchg';
    return { insn: { code: O.BPF_STX | O.BPF_ATOMIC | SIZE_CODE[sizeOf(m[4]!)]!, dst: mm.reg, src: reg(`r${m[8]}`), off: mm.off, imm: xchg ? O.BPF_XCHG : O.BPF_CMPXCHG } };
  }
  // llvm: "r3 = xchg_64(r2 + 0x0, r3)", "w0 = cmpxchg32_32(r2 + 0x0, w0, w3)"
  if ((m = /^[rw](\d+) = (xchg|cmpxchg)(_64|32_32)\(r(\d+) ([+-]) (0x[0-9a-fA-F]+|\d+), (?:[rw]0, )?[rw](\d+)\)$/.exec(s))) {
    const size = m[3] === '_64' ? 8 : 4;
    return { insn: { code: O.BPF_STX | O.BPF_ATOMIC | SIZE_CODE[size]!, dst: reg(`r${m[4]}`), src: reg(`r${m[7]}`), off: off16(`${m[5]}${m[6]}`), imm: m[2] === 'xchg' ? O.BPF_XCHG : O.BPF_CMPXCHG } };
  }

  // Stores.
  if ((m = new RegExp(String.raw`^\*\(u(8|16|32|64) \*\)${MEM} = (?:[rw](\d+)|(${NUM}))$`).exec(s))) {
    const mm = memFrom(m, 2);
    const sz = SIZE_CODE[sizeOf(m[1]!)]!;
    if (m[5] !== undefined) return { insn: { code: O.BPF_STX | O.BPF_MEM | sz, dst: mm.reg, src: reg(`r${m[5]}`), off: mm.off, imm: 0 } };
    return { insn: { code: O.BPF_ST | O.BPF_MEM | sz, dst: mm.reg, src: 0, off: mm.off, imm: imm32(m[6]!) } };
  }
  // Loads.
  if ((m = new RegExp(String.raw`^[rw](\d+) = \*\(([us])(8|16|32|64) \*\)${MEM}$`).exec(s))) {
    const mm = memFrom(m, 4);
    const signed = m[2] === 's';
    if (signed && m[3] === '64') fail('there is no sign-extending 64-bit load');
    return { insn: { code: O.BPF_LDX | (signed ? O.BPF_MEMSX : O.BPF_MEM) | SIZE_CODE[sizeOf(m[3]!)]!, dst: reg(`r${m[1]}`), src: mm.reg, off: mm.off, imm: 0 } };
  }
  if ((m = /^r0 = \*\(u(8|16|32) \*\)skb\[(?:r(\d+)(?: \+ )?)?([+-]?(?:0x[0-9a-fA-F]+|\d+))?\]$/.exec(s))) {
    const sz = SIZE_CODE[sizeOf(m[1]!)]!;
    if (m[2] !== undefined) return { insn: { code: O.BPF_LD | O.BPF_IND | sz, dst: 0, src: reg(`r${m[2]}`), off: 0, imm: m[3] ? imm32(m[3]) : 0 } };
    return { insn: { code: O.BPF_LD | O.BPF_ABS | sz, dst: 0, src: 0, off: 0, imm: imm32(m[3] ?? '') } };
  }

  // Register = something.
  if ((m = /^([rw])(\d+) = -([rw])(\d+)$/.exec(s))) {
    if (m[2] !== m[4]) fail('negation must name the same register twice');
    return { insn: { ...i, code: (m[1] === 'w' ? O.BPF_ALU : O.BPF_ALU64) | O.BPF_NEG, dst: reg(`r${m[2]}`) } };
  }
  if ((m = /^r(\d+) = (be|le|bswap)(16|32|64) r(\d+)$/.exec(s))) {
    if (m[1] !== m[4]) fail('a byte swap must name the same register twice');
    const code = m[2] === 'bswap' ? O.BPF_ALU64 | O.BPF_END : O.BPF_ALU | O.BPF_END | (m[2] === 'be' ? O.BPF_TO_BE : O.BPF_TO_LE);
    return { insn: { ...i, code, dst: reg(`r${m[1]}`), imm: Number(m[3]) } };
  }
  if ((m = /^([rw])(\d+) = \(s(8|16|32)\)([rw])(\d+)$/.exec(s))) {
    if (m[1] === 'w' && m[3] === '32') fail('w = (s32)w is not an instruction');
    return { insn: { ...i, code: (m[1] === 'w' ? O.BPF_ALU : O.BPF_ALU64) | O.BPF_MOV | O.BPF_X, dst: reg(`r${m[2]}`), src: reg(`r${m[5]}`), off: Number(m[3]) } };
  }
  if ((m = new RegExp(String.raw`^r(\d+) = (${NUM}) ll$`).exec(s))) return { insn: lddw(reg(`r${m[1]}`), parseBig(m[2]!), m[2]!) };
  if ((m = new RegExp(String.raw`^([rw])(\d+) (s/=|s%=|\S+) (?:([rw])(\d+)|(${NUM}))$`).exec(s))) {
    const sym = m[3]!;
    const signed = sym === 's/=' || sym === 's%=';
    const op = signed ? (sym === 's/=' ? O.BPF_DIV : O.BPF_MOD) : ALU_BY_SYM.get(sym);
    if (op === undefined) return fail(`unknown operator '${sym}'`);
    const cls = m[1] === 'w' ? O.BPF_ALU : O.BPF_ALU64;
    i.dst = reg(`r${m[2]}`);
    i.off = signed ? 1 : 0;
    if (m[4]) {
      if (m[4] !== m[1]) fail('both operands must be the same width (r or w)');
      return { insn: { ...i, code: cls | op | O.BPF_X, src: reg(`r${m[5]}`) } };
    }
    const v = parseBig(m[6]!)!;
    // "r1 = 0xffffffff" in a kernel log is an lddw (a mov imm would print -1).
    if (op === O.BPF_MOV && cls === O.BPF_ALU64 && (v < -(1n << 31n) || v >= 1n << 31n)) return { insn: lddw(i.dst, v, m[6]!) };
    return { insn: { ...i, code: cls | op | O.BPF_K, imm: imm32(m[6]!) } };
  }
  const word = /^([a-z_][a-z0-9_]*)(?: |$)/.exec(s)?.[1];
  if (word && !/^[rw]\d+$/.test(word) && !['if', 'goto', 'gotol', 'may_goto', 'call', 'lock'].includes(word)) return fail(`unknown instruction '${word}'`);
  return fail(`cannot parse '${s}'`);
}
