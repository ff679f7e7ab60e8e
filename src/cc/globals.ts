/**
 * Global data, laid out as libbpf lays it out: every global variable (and
 * static local, and string literal) the program reads or writes lives in
 * one of the object's data sections — `.rodata` (const, including the
 * `const volatile` knobs a skeleton sets before load), `.data` (initialised),
 * `.bss` (zero), or the section a SEC() names — and each section becomes an
 * internal array map (one entry, the section's bytes as its value). Code
 * addresses a variable with `lddw rX, map_value(section) + offset`
 * (BPF_PSEUDO_MAP_VALUE) and a `{kind: "value", offset}` relocation.
 *
 * object.ts places the variables the functions name first, in declaration
 * order (clang's layout); string literals follow as codegen meets them.
 * Sections are created in first-use order, so a program that uses no global
 * data gets no internal map, as with clang (which drops unused statics).
 */
import type { Expr, Stmt, Sym } from './ast';
import type { DiagnosticBag, Span } from './diagnostics';
import { constOf, walkExprs } from './codegen/tree';
import { alignOf, sizeOf } from './types';
import { bytesToHex } from '../isa/insn';
import type { MapSpec } from '../isa/spec';
import type { TypeDesc } from './maps';
import { describeType } from './maps';

/** array_map_alloc_check: a value larger than this is E2BIG (x86-64: 4 MiB). */
const KMALLOC_MAX_SIZE = 1 << 22;

/** libbpf's flags for global data maps (BPF_F_MMAPABLE; .rodata adds BPF_F_RDONLY_PROG). */
const BPF_F_RDONLY_PROG = 0x80;
const BPF_F_MMAPABLE = 0x400;

interface Section {
  name: string;
  map: number;
  bytes: number[];
  align: number;
  vars: { name: string; offset: number; type: TypeDesc }[];
}

export class GlobalData {
  private sections: Section[] = [];
  private placed = new Map<Sym, { map: number; offset: number }>();
  /** Globals too large to place, each refused once. */
  private refused = new Set<Sym>();
  private strings = new Map<string, { map: number; offset: number }>();

  constructor(private diags: DiagnosticBag, private firstMap: number) {}

  /** The section a variable belongs in, by libbpf's (and clang's) rules. */
  static sectionOf(sym: Sym): string {
    const sec = sym.attrs.section;
    if (sec !== undefined) return sec;
    if (sym.isConst) return '.rodata';
    const init = sym.init;
    const nonzero = init?.parts.some((p) => constOf(p.e) !== 0n);
    return nonzero ? '.data' : '.bss';
  }

  /** Where `sym` lives (laid out when first asked); undefined for what has no storage here (extern). */
  ref(sym: Sym, span: Span): { map: number; offset: number } | undefined {
    const known = this.placed.get(sym);
    if (known) return known;
    if (sym.isExtern && !sym.init) return undefined;
    const size = Math.max(1, sizeOf(sym.type));
    if (size > KMALLOC_MAX_SIZE) {
      // Said once, where it is declared; its uses get a stand-in place (the compile fails on the error).
      if (!this.refused.has(sym)) this.diags.error('cc-global-size', `global '${sym.name}' is ${size} bytes: its section is one array map value, and the kernel takes values of at most ${KMALLOC_MAX_SIZE} bytes (KMALLOC_MAX_SIZE)`, sym.span);
      this.refused.add(sym);
      return { map: this.section(GlobalData.sectionOf(sym)).map, offset: 0 };
    }
    const sec = this.section(GlobalData.sectionOf(sym));
    const offset = this.reserve(sec, size, Math.max(1, alignOf(sym.type)));
    for (const p of sym.init?.parts ?? []) {
      const v = constOf(p.e);
      if (v === undefined) {
        this.diags.error('cc-global-init', `initializer of global '${sym.name}' is not a constant BPF can place in ${sec.name} (addresses of other objects need relocations libbpf does not do for data)`, p.e.span ?? span);
        continue;
      }
      if (p.bit) {
        const unit = sizeOf(p.bit.type);
        let word = 0n;
        for (let i = unit - 1; i >= 0; i--) word = (word << 8n) | BigInt(sec.bytes[offset + p.offset + i] ?? 0);
        const mask = ((1n << BigInt(p.bit.bitWidth!)) - 1n) << BigInt(p.bit.bitOffset!);
        word = (word & ~mask) | ((BigInt.asUintN(64, v) << BigInt(p.bit.bitOffset!)) & mask);
        for (let i = 0; i < unit; i++) sec.bytes[offset + p.offset + i] = Number((word >> BigInt(8 * i)) & 0xffn);
        continue;
      }
      const w = sizeOf(p.type);
      const u = BigInt.asUintN(64, v);
      for (let i = 0; i < w && i < 8 && p.offset + i < size; i++) sec.bytes[offset + p.offset + i] = Number((u >> BigInt(8 * i)) & 0xffn);
    }
    sec.vars.push({ name: sym.name, offset, type: describeType(sym.type) });
    const r = { map: sec.map, offset };
    this.placed.set(sym, r);
    return r;
  }

  /** A string literal: NUL-terminated bytes in .rodata, identical strings shared. */
  stringRef(bytes: number[]): { map: number; offset: number } {
    const key = bytes.join(',');
    const known = this.strings.get(key);
    if (known) return known;
    const sec = this.section('.rodata');
    const offset = this.reserve(sec, bytes.length + 1, 1);
    bytes.forEach((b, i) => (sec.bytes[offset + i] = b & 0xff));
    const r = { map: sec.map, offset };
    this.strings.set(key, r);
    return r;
  }

  private section(name: string): Section {
    let s = this.sections.find((x) => x.name === name);
    if (!s) {
      s = { name, map: this.firstMap + this.sections.length, bytes: [], align: 1, vars: [] };
      this.sections.push(s);
    }
    return s;
  }

  private reserve(sec: Section, size: number, align: number): number {
    const off = Math.ceil(sec.bytes.length / align) * align;
    while (sec.bytes.length < off + size) sec.bytes.push(0);
    sec.align = Math.max(sec.align, align);
    return off;
  }

  /** The internal maps, in map-index order, with their pretty-printing types. */
  maps(): { spec: MapSpec; value: TypeDesc }[] {
    return this.sections.map((s) => {
      // libbpf sizes the map by the section, byte for byte.
      const size = Math.max(1, s.bytes.length);
      const bytes = new Uint8Array(size);
      bytes.set(s.bytes);
      const rodata = s.name.startsWith('.rodata');
      // One flat string from a byte array (a string per byte was ~30 bytes each on a big .data).
      const hex = bytesToHex(bytes);
      const spec: MapSpec = {
        name: s.name,
        type: 'array',
        key_size: 4,
        value_size: size,
        max_entries: 1,
        flags: BPF_F_MMAPABLE | (rodata ? BPF_F_RDONLY_PROG : 0),
        internal: s.name,
        ...(s.name.startsWith('.bss') ? {} : { init: [{ key: '00000000', value: hex }] }),
        ...(rodata ? { freeze: true } : {}),
      };
      return { spec, value: { kind: 'struct', name: s.name, size, members: s.vars.map((v) => ({ name: v.name, offset: v.offset, type: v.type })) } };
    });
  }
}

/**
 * Globals whose value is known at compile time, as clang -O2 sees it:
 * const and not volatile (`const volatile` knobs are set by user space
 * before load and must be read), or static, never written, never addressed.
 */
export function foldableGlobals(globals: Sym[], funcs: Sym[]): Set<Sym> {
  const written = new Set<Sym>();
  const note = (e: Expr): void => {
    if (e.k === 'assign' && e.l.k === 'var') written.add(e.l.sym);
    if (e.k === 'incdec' && e.e.k === 'var') written.add(e.e.sym);
    if (e.k === 'addr' && e.e.k === 'var') written.add(e.e.sym);
  };
  for (const f of funcs) if (f.body) walkExprs(f.body as Stmt, note);
  const out = new Set<Sym>();
  for (const g of globals) {
    if (g.kind !== 'var' || g.isVolatile || g.isExtern || g.addressTaken || written.has(g)) continue;
    if (g.isConst || g.isStatic) out.add(g);
  }
  return out;
}
