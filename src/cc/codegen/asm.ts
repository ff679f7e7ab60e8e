/**
 * Inline assembly, as clang's BPF target takes it: `asm volatile("r1 =
 * *(u32 *)(%[ctx] +0) …" : "=r"(ret) : [ctx]"r"(ctx), [len]"ri"(len) :
 * "r1", "r2")`. Operands are registers ("r", "=r", "+r", "0" tied to an
 * output) or immediates ("i", "n"; "ri"/"g" take an immediate when the
 * value is a constant, as clang's operand lowering does); `%[name]`, `%N`
 * and the `w` modifier (`%w[name]`: the 32-bit view) are substituted and
 * the text assembled by src/isa's assembler (llvm-mc's syntax). The
 * instructions are emitted as written and marked `pinned`, so the peephole
 * pass never rewrites them: projects write asm precisely to fix the shape
 * the kernel verifier sees. Relative jumps stay inside the statement.
 *
 * Registers: each input gets its own register (asm may modify an input
 * register, as cilium's xdp_load_bytes does with `%[off] &= …`, and the C
 * value must survive that); an output takes an input's register unless it
 * is early-clobber ("=&r"), as clang's allocator does, else a free one; no
 * operand sits in a clobbered register, and a clobbered register that
 * holds a live value is saved to the stack around the statement.
 */
import type { AsmInfo, Expr } from '../ast';
import { T, isInt, sizeOf } from '../types';
import { TEMP_ORDER, CALLEE_SAVED, type Val } from './frame';
import { helperIdOf } from './tree';
import { BuiltinGen } from './builtins';
import { assemble } from '../../isa/asm';
import * as O from '../../isa/opcodes';

type Reg = Val & { k: 'reg' };
type Operand = { k: 'reg'; r: number } | { k: 'imm'; v: bigint } | { k: 'map'; idx: number };

/**
 * A map's address as an "i" operand (`r1 = %[map] ll`, the kernel selftests'
 * __imm_addr(map)) reaches the assembler as this 64-bit value plus the map's
 * index; the lddw that loads it becomes the map reference clang emits.
 */
const MAP_OPERAND_HI = 0x5a4d4150; // "PAMZ": no 64-bit constant a program writes ends up in an lddw's high half by chance

const ASM_REG_ORDER = [...TEMP_ORDER, ...CALLEE_SAVED];

export abstract class AsmGen extends BuiltinGen {
  /** The output registers of the asm statement being lowered, read back by `__asm_out`. */
  private asmOutputs: (Reg | undefined)[] = [];
  /** `%=` in a template: a number unique to each asm statement emitted. */
  private asmCount = 0;

  protected override builtin(e: Expr & { k: 'builtin' }, discard: boolean): Val {
    if (e.name === '__asm_out') {
      const v = this.asmOutputs[e.asmOut ?? -1];
      if (!v) this.fail('internal: asm output read twice', e.span, 'cc-internal');
      this.asmOutputs[e.asmOut!] = undefined;
      return v;
    }
    if (e.name === '__asm' && e.asm) {
      this.inlineAsm(e, e.asm);
      return { k: 'imm', v: 0n };
    }
    return super.builtin(e, discard);
  }

  /** Any free register, the temporaries first, avoiding `avoid`. */
  private asmReg(avoid: Set<number>): number {
    for (const r of ASM_REG_ORDER) if (this.regOwner[r] === 'free' && !avoid.has(r)) { this.regOwner[r] = 'temp'; return r; }
    this.fail('inline asm needs more registers than are free here', this.span, 'cc-out-of-registers');
  }

  private inlineAsm(e: Expr & { k: 'builtin' }, info: AsmInfo): void {
    const saved = this.span;
    this.span = e.span;
    const clobbered = new Set<number>();
    for (const c of info.clobbers) {
      const m = /^[rw](\d+)$/.exec(c.trim());
      if (!m) continue; // "memory", "cc": nothing we keep in registers across statements
      const r = Number(m[1]);
      if (r > 9) this.fail(`inline asm cannot clobber '${c}'`, e.span, 'cc-asm');
      clobbered.add(r);
    }
    const kind = (c: string): string => c.replace(/[=+&%]/g, '');
    // "g" (any general operand: a register, memory or an immediate) is a register here, as clang picks for BPF
    // (bpf_misc.h's __sink(x) is asm volatile("" : "+g"(x))).
    for (const o of info.outputs) if (!/[rg]/.test(kind(o.constraint))) this.fail(`inline asm output constraint "${o.constraint}" is not supported on BPF (outputs are registers: "=r")`, e.span, 'cc-asm');
    // Evaluate the inputs (left to right, as clang does), constants kept as immediates where allowed.
    const vals: (Val | bigint)[] = info.inputs.map((op, i) => {
      const a = e.args[i]!;
      const c = kind(op.constraint);
      // A helper's pointer (`static long (*bpf_sk_fullsock)(…) = (void *) 95;`) is its id: clang folds the never
      // written static before checking "i" (the selftests' __imm(bpf_sk_fullsock)).
      const helper = (): bigint | undefined => {
        const id = helperIdOf(a);
        return id === undefined ? undefined : BigInt(id);
      };
      const imm = /[in]/.test(c) ? (this.evalStatic(a) ?? helper()) : c.includes('g') ? this.evalStatic(a) : undefined;
      if (imm !== undefined) return imm;
      if (/[in]/.test(c) && a.k === 'addr' && a.e.k === 'var') {
        const v = this.expr(a);
        if (v.k === 'map') return v;
      }
      if (!/[rg]/.test(c) && !/^\d+$/.test(c)) {
        if (/[in]/.test(c)) this.fail(`constraint '${c}' expects an integer constant expression`, a.span, 'cc-asm');
        this.fail(`inline asm input constraint "${op.constraint}" is not supported on BPF (inputs are registers or immediates)`, a.span, 'cc-asm');
      }
      const v = this.expr(a);
      // A register operand is the whole 64-bit register: widen a narrower int as C would to long.
      return isInt(a.ty) && sizeOf(a.ty) < 8 ? this.convert(v, a.ty, a.ty.k === 'int' && a.ty.signed ? T.long : T.ulong) : v;
    });
    const used = new Set<number>(clobbered);
    const outRegs: number[] = info.outputs.map(() => -1);
    const inputOps: Operand[] = vals.map((v, i) => {
      const a = e.args[i]!;
      const tied = /^\d+$/.test(kind(info.inputs[i]!.constraint)) ? Number(kind(info.inputs[i]!.constraint)) : undefined;
      if (tied !== undefined && (tied >= info.outputs.length || outRegs[tied] !== -1)) this.fail(`invalid tied asm operand "${info.inputs[i]!.constraint}"`, a.span, 'cc-asm');
      if (typeof v !== 'bigint' && v.k === 'map') return { k: 'map', idx: v.idx };
      if (typeof v === 'bigint') {
        if (tied === undefined) return { k: 'imm', v };
        const r = this.asmReg(used);
        this.loadImm(r, v, true);
        used.add(r);
        outRegs[tied] = r;
        return { k: 'reg', r };
      }
      let r: number;
      if (v.k === 'reg' && v.temp && !used.has(v.r)) r = v.r;
      else {
        r = this.asmReg(used);
        this.moveTo(v, r, a.ty.k === 'int' ? T.ulong : a.ty);
        this.release(v);
      }
      used.add(r);
      if (tied !== undefined) outRegs[tied] = r;
      return { k: 'reg', r };
    });
    // An output may share an input's register unless it is early-clobber ("=&r"): the template
    // reads its inputs before writing its outputs (GNU C's contract; clang's allocator shares too).
    const shareable = inputOps.flatMap((op, i) => (op.k === 'reg' && !outRegs.includes(op.r) && !/^\d+$/.test(kind(info.inputs[i]!.constraint)) ? [op.r] : []));
    for (let i = 0; i < outRegs.length; i++) {
      if (outRegs[i] !== -1) continue;
      const share = info.outputs[i]!.constraint.includes('&') ? undefined : shareable.shift();
      outRegs[i] = share ?? this.asmReg(used);
      used.add(outRegs[i]!);
    }
    // Values other code keeps in clobbered registers survive on the stack.
    const spills: [number, number][] = [];
    for (const r of clobbered) if (this.regOwner[r] !== 'free') {
      const off = this.allocStack(8, 8);
      this.emit(O.BPF_STX | O.BPF_MEM | O.BPF_DW, 10, r, off);
      spills.push([r, off]);
    }
    // The template's operands: outputs first, then the inputs written in the source.
    const numbered: Operand[] = [...outRegs.map((r): Operand => ({ k: 'reg', r })), ...inputOps.filter((_, i) => !info.inputs[i]!.implicit)];
    const names = new Map<string, Operand>();
    info.outputs.forEach((o, i) => o.name !== undefined && names.set(o.name, { k: 'reg', r: outRegs[i]! }));
    info.inputs.forEach((o, i) => o.name !== undefined && names.set(o.name, inputOps[i]!));
    const serial = this.asmCount++;
    let bad = '';
    const text = info.template.replace(/%(%|=|(w?)(?:\[([A-Za-z_]\w*)\]|(\d+)))/g, (m, what: string, w: string, name?: string, num?: string) => {
      if (what === '%') return '%';
      if (what === '=') return String(serial);
      const op = name !== undefined ? names.get(name) : numbered[Number(num)];
      if (!op) { bad ||= m; return m; }
      if (op.k === 'map') return `0x${MAP_OPERAND_HI.toString(16)}${op.idx.toString(16).padStart(8, '0')}`;
      return op.k === 'imm' ? BigInt.asIntN(64, op.v).toString() : `${w ? 'w' : 'r'}${op.r}`;
    });
    if (bad) this.fail(`invalid operand '${bad}' in inline asm`, e.span, 'cc-asm');
    this.emitAsm(text, e, new Set(inputOps.flatMap((op) => (op.k === 'map' ? [op.idx] : []))));
    for (const [r, off] of spills) this.emit(O.BPF_LDX | O.BPF_MEM | O.BPF_DW, r, 10, off);
    // Inputs are free again; the outputs wait for their `__asm_out`.
    const outs = new Set(outRegs);
    for (const op of inputOps) if (op.k === 'reg' && !outs.has(op.r)) this.release({ k: 'reg', r: op.r, temp: true });
    this.asmOutputs = outRegs.map((r) => ({ k: 'reg', r, temp: true, zext: false }));
    this.span = saved;
  }

  /** Assemble the substituted template and emit it, its relative jumps turned into labels. */
  private emitAsm(text: string, e: Expr & { k: 'builtin' }, mapOperands: ReadonlySet<number>): void {
    // C comments inside the template are the assembler's to skip (the kernel selftests annotate their asm so).
    text = text.replace(/\/\*[\s\S]*?\*\//g, ' ');
    if (text.trim() === '') return;
    const lines = numericLabels(text.replace(/;/g, '\n').split('\n'));
    const res = assemble(lines.join('\n'));
    if (res.errors.length) {
      const err = res.errors[0]!;
      const line = lines[err.line - 1]?.trim() ?? '';
      this.fail(`inline asm is not BPF assembly: ${err.message}${line ? ` in '${line}'` : ''} (reached from '${this.fn.name}')`, e.span, 'cc-asm');
    }
    const insns = res.insns;
    const n = insns.length;
    const labelAt = new Map<number, number>();
    const targetOf = (i: number): number | undefined => {
      const { code } = insns[i]!;
      const cls = O.BPF_CLASS(code), op = O.BPF_OP(code);
      if ((cls !== O.BPF_JMP && cls !== O.BPF_JMP32) || op === O.BPF_CALL || op === O.BPF_EXIT) return undefined;
      return i + 1 + (cls === O.BPF_JMP32 && op === O.BPF_JA ? insns[i]!.imm : insns[i]!.off);
    };
    for (let i = 0; i < n; i++) {
      const t = targetOf(i);
      if (t === undefined) continue;
      if (t < 0 || t > n) this.fail('inline asm: a jump leaves the asm statement', e.span, 'cc-asm');
      if (!labelAt.has(t)) labelAt.set(t, this.newLabel());
    }
    for (let i = 0; i < n; i++) {
      const l = labelAt.get(i);
      if (l !== undefined) this.place(l);
      const ins = insns[i]!;
      if (ins.code === (O.BPF_JMP | O.BPF_CALL) && ins.src !== 0) this.fail('inline asm: only helper calls are supported', e.span, 'cc-asm');
      if (ins.code === (O.BPF_LD | O.BPF_IMM | O.BPF_DW)) {
        if (ins.src !== 0) this.fail('inline asm: map references are not supported', e.span, 'cc-asm');
        const hi = ins.imm2 ?? insns[i + 1]?.imm ?? 0;
        if (hi === MAP_OPERAND_HI && mapOperands.has(ins.imm)) {
          this.emit(ins.code, ins.dst, O.BPF_PSEUDO_MAP_FD, 0, 0, { map: ins.imm, pinned: true });
          this.emit(0, 0, 0, 0, 0, { pinned: true });
        } else {
          this.emit(ins.code, ins.dst, 0, 0, ins.imm, { pinned: true });
          this.emit(0, 0, 0, 0, hi, { pinned: true });
        }
        i++;
        continue;
      }
      const t = targetOf(i);
      if (t !== undefined) {
        // gotol (JMP32 | JA, offset in imm) becomes a plain ja: the label carries the target.
        const code = O.BPF_CLASS(ins.code) === O.BPF_JMP32 && O.BPF_OP(ins.code) === O.BPF_JA ? O.BPF_JMP | O.BPF_JA : ins.code;
        this.emit(code, ins.dst, ins.src, 0, code === ins.code ? ins.imm : 0, { label: labelAt.get(t)!, pinned: true });
      } else this.emit(ins.code, ins.dst, ins.src, ins.off, ins.imm, { pinned: true });
    }
    const end = labelAt.get(n);
    if (end !== undefined) this.place(end);
  }
}

/**
 * GNU assembler local labels: `1:` may be defined again and again, and
 * `goto 1f` / `goto 1b` name the next definition forward or the last one
 * back (the kernel selftests' asm uses them). Each definition gets a name of
 * its own; a numbered line start is a label here, never a log's slot number.
 */
function numericLabels(lines: string[]): string[] {
  const defs: { line: number; n: string; name: string }[] = [];
  lines.forEach((l, i) => {
    const m = /^\s*(\d+):/.exec(l);
    if (m) defs.push({ line: i, n: m[1]!, name: `.L${m[1]}_${defs.length}` });
  });
  if (defs.length === 0) return lines;
  return lines.map((l, i) => {
    const own = defs.find((d) => d.line === i);
    let s = own ? l.replace(/^(\s*)\d+:/, (_all, sp: string) => `${sp}${own.name}:`) : l;
    s = s.replace(/\b(goto|gotol|ja)(\s+)(\d+)([fb])\b/g, (all, op: string, sp: string, n: string, dir: string) => {
      const d = dir === 'f' ? defs.find((x) => x.n === n && x.line > i) : [...defs].reverse().find((x) => x.n === n && x.line <= i);
      return d ? `${op}${sp}${d.name}` : all;
    });
    return s;
  });
}
