/**
 * The JIT: translates a loaded program, once, into one JavaScript function
 * with exactly the interpreter's semantics (interp.ts stays the reference).
 *
 * Shape of the translation: registers live in local variables (an int32
 * lo/hi pair per register, as in the interpreter's Int32Arrays, so every
 * local always holds an int32); the program is cut into basic blocks, each a
 * `case` of a `switch (pc)` inside a loop, with straight-line code in which
 * imm and off are constants. Memory accesses test the region inline (the
 * same test as RegionTable.byHi and the interpreter's fast path) and take
 * the interpreter's own load/store/atomic path for everything else (ctx
 * rewrites, faults), so faults are the interpreter's, byte for byte.
 * Helpers are the same functions, called with the registers flushed to the
 * machine. The budget is charged per block; a block that would overrun it
 * hands the run to the interpreter (Machine.resume), which stops at the
 * same instruction with the same fault. The executed-instruction count is
 * the interpreter's: whole blocks, minus what a fault left unexecuted.
 */
import type { Machine } from './interp';
import { HI_BASE, LO_BASE, VmFault } from './memory';

/** Runs the translated program on the machine's registers; throws VmFault like the interpreter's loop. */
export type JitRun = () => void;

/**
 * Above this many slots V8 stops optimizing one function (its bytecode-size
 * limit), and an unoptimized translation is slower than the interpreter.
 */
export const JIT_MAX_SLOTS = 6000;

const MAX_CALL_FRAMES = 8;
const STACK_SIZE = 512;
const U32 = 4294967296;

const L = (r: number): string => `l${r}`;
const H = (r: number): string => `h${r}`;
const ALL = Array.from({ length: 11 }, (_, r) => r);
const flush = (regs: readonly number[]): string => regs.map((r) => `lo[${r}]=${L(r)};hi[${r}]=${H(r)};`).join('');
const reload = (regs: readonly number[]): string => regs.map((r) => `${L(r)}=lo[${r}];${H(r)}=hi[${r}];`).join('');

/** Translate; null when the program is too large or the host forbids `new Function` (a CSP without unsafe-eval). */
export function compileJit(m: Machine): JitRun | null {
  if (m.n > JIT_MAX_SLOTS) return null;
  const source = translate(m);
  try {
    const factory = new Function('m', 'VmFault', source) as (m: Machine, vmFault: typeof VmFault) => JitRun;
    return factory(m, VmFault);
  } catch (e) {
    if (e instanceof EvalError) return null;
    throw e;
  }
}

/** Opcode classes of a slot, for block formation. */
function isJmpClass(c: number): boolean {
  return (c & 7) === 5 || (c & 7) === 6;
}

/** The generated source (exported for tests and for reading). */
export function translate(m: Machine): string {
  const { code, n } = m;
  // ---- basic blocks: leaders are the entry, jump and call targets, and whatever follows a jump, call, exit or invalid insn.
  const leader = new Uint8Array(n + 1);
  leader[0] = 1;
  const markTarget = (t: number): void => {
    if (t >= 0 && t < n) leader[t] = 1;
  };
  for (let k = 0; k < n; k++) {
    const c = code[k]!;
    if (c === 0x18) {
      k++;
      continue;
    }
    if (endsBlock(m, k)) {
      leader[k + 1] = 1;
      if (c === 0x05) markTarget(k + 1 + m.off[k]!);
      else if (c === 0x06) markTarget(k + 1 + m.imm[k]!);
      else if (c === 0x85 && m.src[k] === 1) markTarget(k + 1 + m.imm[k]!);
      else if (isJmpClass(c) && condOp(c) !== undefined) markTarget(k + 1 + m.off[k]!);
    }
  }
  // A jump may land on the second slot of an lddw: it decodes as opcode 0 and faults there, as in the interpreter.

  const out: string[] = [];
  const remainAfter = new Int32Array(n);
  const leaders: number[] = [];
  for (let k = 0; k < n; k++) if (leader[k]) leaders.push(k);
  for (let b = 0; b < leaders.length; b++) {
    const start = leaders[b]!;
    // Collect the block's slots.
    const slots: number[] = [];
    let k = start;
    for (;;) {
      slots.push(k);
      const next = code[k] === 0x18 ? k + 2 : k + 1;
      if (endsBlock(m, k) || next >= n || leader[next]) {
        k = next;
        break;
      }
      k = next;
    }
    slots.forEach((s, i) => (remainAfter[s] = slots.length - 1 - i));
    out.push(`case ${start}: if ((count += ${slots.length}) > budget) { count -= ${slots.length}; pc = ${start}; deopt = true; break main; }`);
    for (const s of slots) out.push(emit(m, s));
    // Fall through into the next case only when it is the next slot.
    const last = slots[slots.length - 1]!;
    if (fallsThrough(m, last) && leaders[b + 1] !== k) out.push(`pc = ${k}; continue main;`);
  }

  const stackHi = m.stacks.map((st) => (HI_BASE + st.id * 8) | 0);
  return `"use strict";
const lo = m.lo, hi = m.hi, CF = m.ctxFields, RT = m.regions.regions, retPc = m.retPc, saved = m.saved, stacks = m.stacks;
const RA = new Int32Array([${Array.from(remainAfter).join(',')}]);
const STHI = [${stackHi.join(',')}];
let RH = 0;
const HELPER = [];
for (const [id, fn] of m.helpers) if (id >= 0 && id < 4096) HELPER[id] = fn;
${RUNTIME}
return function run() {
  let ${ALL.map((r) => `${L(r)} = lo[${r}], ${H(r)} = hi[${r}]`).join(', ')};
  let pc = 0, count = 0, frame = 0, deopt = false, budget = m.budget;
  let t = 0, a = 0, b = 0, c2 = 0, e2 = 0, g = 0, R;
  try {
    main: for (;;) {
      switch (pc) {
${out.join('\n')}
      default:
        throw new VmFault(pc, 'invalid_insn', 'pc ' + pc + ': jumped outside the program (${n} insns)');
      }
    }
  } catch (err) {
    ${flush(ALL)}
    if (err instanceof VmFault) m.executed = count - (err.pc >= 0 && err.pc < ${n} ? RA[err.pc] : 0);
    throw err;
  }
  if (deopt) {
    ${flush(ALL)}
    m.executed = count;
    m.resume(pc, count, frame);
  }
};`;
}

/** Shared pieces of 64-bit arithmetic; results wider than one word leave the high word in RH. */
const RUNTIME = `
function mulhi(aLo, bLo) {
  const a0 = aLo & 0xffff, a1 = aLo >>> 16, b0 = bLo & 0xffff, b1 = bLo >>> 16;
  const t = a0 * b0, m1 = a1 * b0, m2 = a0 * b1;
  const carry = ((t >>> 16) + (m1 & 0xffff) + (m2 & 0xffff)) / 65536;
  return a1 * b1 + Math.floor(m1 / 65536) + Math.floor(m2 / 65536) + Math.floor(carry);
}
function mul64(aLo, aHi, bLo, bHi) {
  RH = (mulhi(aLo, bLo) + Math.imul(aLo, bHi) + Math.imul(aHi, bLo)) | 0;
  return Math.imul(aLo, bLo);
}
function lsh64(l, h, n) {
  if (n === 0) { RH = h; return l; }
  if (n < 32) { RH = (h << n) | (l >>> (32 - n)); return l << n; }
  RH = l << (n - 32); return 0;
}
function rsh64(l, h, n) {
  if (n === 0) { RH = h; return l; }
  if (n < 32) { RH = (h >>> n) | 0; return (l >>> n) | (h << (32 - n)); }
  RH = 0; return (h >>> (n - 32)) | 0;
}
function arsh64(l, h, n) {
  if (n === 0) { RH = h; return l; }
  if (n < 32) { RH = h >> n; return (l >>> n) | (h << (32 - n)); }
  RH = h >> 31; return h >> (n - 32);
}
function swap32(x) {
  return ((x & 0xff) << 24) | ((x & 0xff00) << 8) | ((x >>> 8) & 0xff00) | (x >>> 24);
}
function divmod32(a, b, signed, div) {
  let r;
  if (signed) {
    if (b === 0) r = div ? 0 : a;
    else if (b === -1) r = div ? -a | 0 : 0;
    else r = div ? (a / b) | 0 : a % b;
  } else {
    const ua = a >>> 0, ub = b >>> 0;
    if (ub === 0) r = div ? 0 : ua;
    else r = div ? Math.floor(ua / ub) : ua % ub;
  }
  return r | 0;
}
`;

/** Does the instruction at slot k end its basic block (a jump, call, exit, or a certain fault)? */
function endsBlock(m: Machine, k: number): boolean {
  const c = m.code[k]!;
  if (isJmpClass(c)) return true;
  return emitAlu(m, k) === undefined && ((c & 7) === 7 || (c & 7) === 4 || ((c & 7) === 0 && c !== 0x18));
}

/** Can control leave the instruction at slot k for the next slot (as well as, or instead of, a jump)? */
function fallsThrough(m: Machine, k: number): boolean {
  const c = m.code[k]!;
  if (!endsBlock(m, k)) return true;
  if (c === 0x85) return m.src[k] !== 1;
  if (c === 0x8d) return true;
  return isJmpClass(c) && c !== 0x05 && c !== 0x06 && c !== 0x95 && condOp(c) !== undefined;
}

/** The comparison of a conditional jump opcode, or undefined when the interpreter's jump() faults on it. */
function condOp(c: number): number | undefined {
  const op = c & 0xf0;
  if (op === 0x80 || op === 0x90 || op === 0) return undefined;
  return op;
}

/** One instruction's code. Block-ending instructions leave `pc` set and `continue main`, or return. */
function emit(m: Machine, k: number): string {
  const c = m.code[k]!;
  const d = m.dst[k]!;
  const s = m.src[k]!;
  const o = m.off[k]!;
  const imm = m.imm[k]!;
  const next = k + 1;
  switch (c & 7) {
    case 7:
    case 4:
      return emitAlu(m, k) ?? `m.invalid(${k});`;
    case 1:
      return emitCtxLoad(m, c, d, s, o) + emitLoad(k, c, d, s, o);
    case 2:
      return emitStore(k, c, d, o, String(imm), String(imm >> 31));
    case 3:
      if (c === 0xc3 || c === 0xdb) {
        // Atomics are rare: the interpreter's implementation, on flushed registers.
        return `${flush([0, d, s])}m.atomic(${k}, ${c === 0xdb}, ${d}, ${s}, ${o}, ${imm});${reload([0, s])}`;
      }
      return emitStore(k, c, d, o, L(s), H(s));
    case 0: {
      if (c !== 0x18) return `m.invalid(${k});`;
      if (m.ldMapRegion[k]) return `${L(d)} = ${m.ldPtrLo[k]}; ${H(d)} = ${m.ldPtrHi[k]};`;
      return `${L(d)} = ${imm}; ${H(d)} = ${m.imm2[k]};`;
    }
  }
  // JMP, JMP32
  switch (c) {
    case 0x05:
      return `pc = ${next + o}; continue main;`;
    case 0x06:
      return `pc = ${next + imm}; continue main;`;
    case 0x85:
      if (s === 1) {
        return `if (frame + 1 >= ${MAX_CALL_FRAMES}) throw new VmFault(${k}, 'call_depth', 'pc ${k}: call stack overflow: more than ${MAX_CALL_FRAMES} frames');
retPc.push(${next}); saved.push(l6, h6, l7, h7, l8, h8, l9, h9, l10, h10); frame++;
m.clearStack(stacks[frame]); h10 = STHI[frame]; l10 = ${(LO_BASE + STACK_SIZE) | 0};
pc = ${next + imm}; continue main;`;
      }
      // A known helper is bound once, at translation; an unknown one faults through callHelper, as in the interpreter.
      return emitHelperCall(k, String(imm), imm >= 0 && imm < 4096 && m.helpers.has(imm) ? `HELPER[${imm}]` : undefined);
    case 0x8d:
      return emitHelperCall(k, L(d));
    case 0x95:
      return `if (frame === 0) { ${flush(ALL)} m.executed = count; return; }
frame--; pc = retPc.pop();
h10 = saved.pop(); l10 = saved.pop(); h9 = saved.pop(); l9 = saved.pop(); h8 = saved.pop(); l8 = saved.pop(); h7 = saved.pop(); l7 = saved.pop(); h6 = saved.pop(); l6 = saved.pop();
continue main;`;
  }
  const op = condOp(c);
  if (op === undefined) return `m.invalid(${k});`;
  const isX = (c & 8) !== 0;
  const cond = condition(op, (c & 7) === 5, L(d), H(d), isX ? L(s) : String(imm), isX ? H(s) : String(imm >> 31), isX ? `(${L(s)} >>> 0)` : String(imm >>> 0));
  return `if (${cond}) { pc = ${next + o}; continue main; }`;
}

function emitHelperCall(k: number, id: string, fn?: string): string {
  // Helpers read their arguments (and may write any register) through the machine.
  return `${flush(ALL)}${fn ? `${fn}(m, ${k})` : `m.callHelper(${k}, ${id})`};${reload(ALL)}
if (m.unwound) { m.executed = count; return; }`;
}

/** A conditional jump's test, as the interpreter's jump() decides it. */
function condition(op: number, is64: boolean, aL: string, aH: string, bL: string, bH: string, bU: string): string {
  const aU = `(${aL} >>> 0)`;
  const rel = op === 0x20 || op === 0x60 ? '>' : op === 0x30 || op === 0x70 ? '>=' : op === 0xa0 || op === 0xc0 ? '<' : '<=';
  const signed = op === 0x60 || op === 0x70 || op === 0xc0 || op === 0xd0;
  if (!is64) {
    switch (op) {
      case 0x10: return `${aL} === ${bL}`;
      case 0x50: return `${aL} !== ${bL}`;
      case 0x40: return `(${aL} & ${bL}) !== 0`;
    }
    if (op === 0xe0 || op === 0xf0) return 'false';
    return signed ? `${aL} ${rel} ${bL}` : `${aU} ${rel} ${bU}`;
  }
  switch (op) {
    case 0x10: return `${aL} === ${bL} && ${aH} === ${bH}`;
    case 0x50: return `${aL} !== ${bL} || ${aH} !== ${bH}`;
    case 0x40: return `(${aL} & ${bL}) !== 0 || (${aH} & ${bH}) !== 0`;
  }
  if (op === 0xe0 || op === 0xf0) return 'false';
  const hiCmp = signed ? `${aH} ${rel} ${bH}` : `(${aH} >>> 0) ${rel} (${bH} >>> 0)`;
  return `(${aH} !== ${bH} ? ${hiCmp} : ${aU} ${rel} ${bU})`;
}

/** ALU and ALU64, or undefined for an opcode the interpreter treats as invalid. */
function emitAlu(m: Machine, k: number): string | undefined {
  const c = m.code[k]!;
  const d = m.dst[k]!;
  const s = m.src[k]!;
  const o = m.off[k]!;
  const imm = m.imm[k]!;
  const dl = L(d), dh = H(d), sl = L(s), sh = H(s);
  const kh = imm >> 31, ku = imm >>> 0;
  const shl = (n: number): string => (n === 0 ? '' : n < 32 ? `${dh} = (${dh} << ${n}) | (${dl} >>> ${32 - n}); ${dl} = ${dl} << ${n};` : `${dh} = ${dl} << ${n - 32}; ${dl} = 0;`);
  const shr = (n: number): string => (n === 0 ? '' : n < 32 ? `${dl} = (${dl} >>> ${n}) | (${dh} << ${32 - n}); ${dh} = (${dh} >>> ${n}) | 0;` : `${dl} = (${dh} >>> ${n - 32}) | 0; ${dh} = 0;`);
  const sar = (n: number): string => (n === 0 ? '' : n < 32 ? `${dl} = (${dl} >>> ${n}) | (${dh} << ${32 - n}); ${dh} = ${dh} >> ${n};` : `${dl} = ${dh} >> ${n - 32}; ${dh} = ${dh} >> 31;`);
  const bswap = (w: number): string =>
    w === 16 ? `${dl} = ((${dl} & 0xff) << 8) | ((${dl} >>> 8) & 0xff); ${dh} = 0;` : w === 32 ? `${dl} = swap32(${dl}); ${dh} = 0;` : `a = ${dl}; ${dl} = swap32(${dh}); ${dh} = swap32(a);`;
  const z = `${dh} = 0;`;
  const div64 = (b: string, div: boolean): string => `${flush([d, s])}m.divmod64(${d}, ${b}, ${o === 1}, ${div});${reload([d])}`;
  const div32 = (b: string, div: boolean): string => `${dl} = divmod32(${dl}, ${b}, ${o === 1}, ${div}); ${z}`;
  switch (c) {
    // ALU64
    case 0xb7: return `${dl} = ${imm}; ${dh} = ${kh};`;
    case 0xbf:
      if (o === 0) return `${dl} = ${sl}; ${dh} = ${sh};`;
      if (o === 8) return `${dl} = (${sl} << 24) >> 24; ${dh} = ${dl} >> 31;`;
      if (o === 16) return `${dl} = (${sl} << 16) >> 16; ${dh} = ${dl} >> 31;`;
      return `${dl} = ${sl}; ${dh} = ${dl} >> 31;`;
    case 0x07: return `t = (${dl} >>> 0) + ${ku}; ${dl} = t | 0; ${dh} = (${dh} + ${kh} + (t >= ${U32} ? 1 : 0)) | 0;`;
    case 0x0f: return `t = (${dl} >>> 0) + (${sl} >>> 0); e2 = ${sh}; ${dl} = t | 0; ${dh} = (${dh} + e2 + (t >= ${U32} ? 1 : 0)) | 0;`;
    case 0x17: return `a = ${dl} >>> 0; ${dl} = (a - ${ku}) | 0; ${dh} = (${dh} - ${kh} - (a < ${ku} ? 1 : 0)) | 0;`;
    case 0x1f: return `a = ${dl} >>> 0; b = ${sl} >>> 0; e2 = ${sh}; ${dl} = (a - b) | 0; ${dh} = (${dh} - e2 - (a < b ? 1 : 0)) | 0;`;
    case 0x27: return `${dl} = mul64(${dl}, ${dh}, ${imm}, ${kh}); ${dh} = RH;`;
    case 0x2f: return `${dl} = mul64(${dl}, ${dh}, ${sl}, ${sh}); ${dh} = RH;`;
    case 0x37: return div64(`BigInt(${imm})`, true);
    case 0x3f: return div64(`m.regU64(${s})`, true);
    case 0x97: return div64(`BigInt(${imm})`, false);
    case 0x9f: return div64(`m.regU64(${s})`, false);
    case 0x47: return `${dl} |= ${imm}; ${dh} |= ${kh};`;
    case 0x4f: return `${dl} |= ${sl}; ${dh} |= ${sh};`;
    case 0x57: return `${dl} &= ${imm}; ${dh} &= ${kh};`;
    case 0x5f: return `${dl} &= ${sl}; ${dh} &= ${sh};`;
    case 0xa7: return `${dl} ^= ${imm}; ${dh} ^= ${kh};`;
    case 0xaf: return `${dl} ^= ${sl}; ${dh} ^= ${sh};`;
    case 0x67: return shl(imm & 63);
    case 0x6f: return `${dl} = lsh64(${dl}, ${dh}, ${sl} & 63); ${dh} = RH;`;
    case 0x77: return shr(imm & 63);
    case 0x7f: return `${dl} = rsh64(${dl}, ${dh}, ${sl} & 63); ${dh} = RH;`;
    case 0xc7: return sar(imm & 63);
    case 0xcf: return `${dl} = arsh64(${dl}, ${dh}, ${sl} & 63); ${dh} = RH;`;
    case 0x87: return `a = ${dl}; ${dl} = -a | 0; ${dh} = (~${dh} + (a === 0 ? 1 : 0)) | 0;`;
    case 0xd7: return bswap(imm);
    // ALU (32-bit, zero-extended)
    case 0xb4: return `${dl} = ${imm}; ${z}`;
    case 0xbc: return `${dl} = ${o === 8 ? `(${sl} << 24) >> 24` : o === 16 ? `(${sl} << 16) >> 16` : sl}; ${z}`;
    case 0x04: return `${dl} = (${dl} + ${imm}) | 0; ${z}`;
    case 0x0c: return `${dl} = (${dl} + ${sl}) | 0; ${z}`;
    case 0x14: return `${dl} = (${dl} - ${imm}) | 0; ${z}`;
    case 0x1c: return `${dl} = (${dl} - ${sl}) | 0; ${z}`;
    case 0x24: return `${dl} = Math.imul(${dl}, ${imm}); ${z}`;
    case 0x2c: return `${dl} = Math.imul(${dl}, ${sl}); ${z}`;
    case 0x34: return div32(String(imm), true);
    case 0x3c: return div32(sl, true);
    case 0x94: return div32(String(imm), false);
    case 0x9c: return div32(sl, false);
    case 0x44: return `${dl} |= ${imm}; ${z}`;
    case 0x4c: return `${dl} |= ${sl}; ${z}`;
    case 0x54: return `${dl} &= ${imm}; ${z}`;
    case 0x5c: return `${dl} &= ${sl}; ${z}`;
    case 0xa4: return `${dl} ^= ${imm}; ${z}`;
    case 0xac: return `${dl} ^= ${sl}; ${z}`;
    case 0x64: return `${dl} <<= ${imm & 31}; ${z}`;
    case 0x6c: return `${dl} <<= ${sl} & 31; ${z}`;
    case 0x74: return `${dl} = (${dl} >>> ${imm & 31}) | 0; ${z}`;
    case 0x7c: return `${dl} = (${dl} >>> (${sl} & 31)) | 0; ${z}`;
    case 0xc4: return `${dl} >>= ${imm & 31}; ${z}`;
    case 0xcc: return `${dl} >>= ${sl} & 31; ${z}`;
    case 0x84: return `${dl} = -${dl} | 0; ${z}`;
    case 0xd4: return imm === 16 ? `${dl} &= 0xffff; ${z}` : imm === 32 ? z : '';
    case 0xdc: return bswap(imm);
  }
  return undefined;
}

/** The region test of the interpreter's fast path, inline: sets R and a (the byte offset) when the access may go straight to bytes. */
function regionTest(ptr: number, o: number, size: number, write: boolean): string {
  return `(g = ${H(ptr)} - ${HI_BASE}) > 0 && (g & 7) === 0 && (R = RT[g >> 3]) !== undefined && R.direct${write ? ' && R.writable' : ''} && (a = (${L(ptr)} >>> 0) - ${LO_BASE - o}) >= R.start && a + ${size} <= R.end`;
}

/**
 * A 32-bit load through the ctx pointer itself (not one moved by
 * arithmetic) at a field the owner keeps in ctxFields: the kernel's ctx
 * rewrite, without a call. Prefixes emitLoad's code as an `if ... else`.
 */
function emitCtxLoad(m: Machine, c: number, d: number, s: number, o: number): string {
  const ctx = m.ctxRegion;
  if (!ctx || c !== 0x61 || o < 0 || o % 4 !== 0 || !m.ctxReadable[o / 4]) return '';
  return `if (${H(s)} === ${(HI_BASE + ctx.id * 8) | 0} && ${L(s)} === ${(LO_BASE + ctx.start) | 0}) { ${L(d)} = CF[${o / 2}]; ${H(d)} = CF[${o / 2 + 1}]; } else `;
}

const LOAD_SIZE: Record<number, number> = { 0x61: 4, 0x69: 2, 0x71: 1, 0x79: 8, 0x81: 4, 0x89: 2, 0x91: 1 };
const STORE_SIZE: Record<number, number> = { 0x62: 4, 0x6a: 2, 0x72: 1, 0x7a: 8, 0x63: 4, 0x6b: 2, 0x73: 1, 0x7b: 8 };

function emitLoad(k: number, c: number, d: number, s: number, o: number): string {
  const dl = L(d), dh = H(d);
  const slow = `${flush([s])}m.load(${k}, ${c}, ${d}, ${s}, ${o});${reload([d])}`;
  const size = LOAD_SIZE[c];
  if (size === undefined) return slow;
  const read: Record<number, string> = {
    0x61: `${dl} = R.dv.getInt32(a, true); ${dh} = 0;`,
    0x69: `${dl} = R.dv.getUint16(a, true); ${dh} = 0;`,
    0x71: `${dl} = R.bytes[a]; ${dh} = 0;`,
    0x79: `${dl} = R.dv.getInt32(a, true); ${dh} = R.dv.getInt32(a + 4, true);`,
    0x81: `${dl} = R.dv.getInt32(a, true); ${dh} = ${dl} >> 31;`,
    0x89: `${dl} = R.dv.getInt16(a, true); ${dh} = ${dl} >> 31;`,
    0x91: `${dl} = R.dv.getInt8(a); ${dh} = ${dl} >> 31;`,
  };
  return `if (${regionTest(s, o, size, false)}) { ${read[c]} } else { ${slow} }`;
}

function emitStore(k: number, c: number, d: number, o: number, vLo: string, vHi: string): string {
  const slow = `${flush([d])}m.store(${k}, ${c}, ${d}, ${o}, ${vLo}, ${vHi});`;
  const size = STORE_SIZE[c];
  if (size === undefined) return slow;
  const write =
    size === 1 ? `R.bytes[a] = ${vLo};` : size === 2 ? `R.dv.setInt16(a, ${vLo}, true);` : size === 4 ? `R.dv.setInt32(a, ${vLo}, true);` : `R.dv.setInt32(a, ${vLo}, true); R.dv.setInt32(a + 4, ${vHi}, true);`;
  return `if (${regionTest(d, o, size, true)}) { ${write} if (a < R.dirtyLo) R.dirtyLo = a; } else { ${slow} }`;
}
