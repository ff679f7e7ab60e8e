/**
 * The object file, as libbpf would load it: from a parsed translation unit,
 * the maps (BTF-style and legacy definitions, map-in-map templates, global
 * data sections), the entry XDP program and the object's other XDP
 * programs (tail-call targets, each laid out with its own subprograms over
 * the same maps), linked into the program spec of DESIGN.md.
 *
 * The entry is the XDP program named by `entry`, else the first one in the
 * file. PROG_ARRAY maps initialised with `.values = { [i] = &prog }` get
 * their slots (MapSpec.prog_slots) pointing into `programs`; map-in-maps
 * initialised with `.values = { [i] = &map }` get init entries whose values
 * are the inner maps' indices in `maps` (what the VM's outer lookup reads).
 *
 * Once every function is generated, the function bodies, global
 * initialisers and the generators' analyses are dropped (the unit is
 * spent): on a big source they would otherwise live through the peephole
 * pass and linking.
 */
import type { Sym, TranslationUnit } from './ast';
import type { EmittedInsn, ProgramContext } from './codegen/frame';
import { FuncGen } from './codegen/stmt';
import type { DiagnosticBag } from './diagnostics';
import { GlobalData, foldableGlobals } from './globals';
import { walkExprs } from './codegen/tree';
import { describeType, readMapDef, type BtfInfo, type TypeDesc } from './maps';
import { bytesToHex, encodeProgram, type Insn } from '../isa/insn';
import type { KfuncReloc, LineInfo, MapReloc, MapSpec, ProgramSpec } from '../isa/spec';

export interface ObjectOptions {
  file: string;
  source: string;
  optimize: boolean;
  /** Name of the XDP program to make the entry (default: the first in the file). */
  entry?: string;
  /** See CompileOptions.onPhase. */
  onPhase?: (phase: 'codegen' | 'peephole' | 'link') => void;
}

/**
 * XDP program sections: libbpf's xdp, xdp.frags, xdp/..., xdp_devmap/...,
 * xdp_cpumap/..., and the older free-form names tutorials still use
 * (SEC("xdp_pass"), SEC("xdp_tailgrow")), which their loaders pick by name.
 */
export function isXdpSection(sec: string | undefined): boolean {
  return sec !== undefined && /^xdp/.test(sec);
}

/**
 * The section prefixes libbpf gives a program type other than XDP
 * (section_defs in libbpf.c). A function in an executable section that is
 * neither these nor xdp (SEC("prog"), bpf-examples' encap-forward) has no
 * type until its loader gives it one (bpftool prog load … type xdp).
 */
const OTHER_TYPE_SECTION = /^(socket|sk_reuseport|sk_skb|sk_msg|sk_lookup|sockops|kprobe|kretprobe|uprobe|uretprobe|ksyscall|kretsyscall|usdt|tc|tcx|netkit|classifier|action|tracepoint|tp|raw_tracepoint|raw_tp|tp_btf|fentry|fexit|fmod_ret|freplace|lsm|iter|syscall|flow_dissector|cgroup|lirc_mode2|perf_event|lwt_|struct_ops|netfilter|license|version|\.)/;

/** A section libbpf assigns no program type: its loader decides (taken as XDP when a file has no xdp section). */
export function isTypelessSection(sec: string | undefined): boolean {
  return sec !== undefined && sec !== '' && !isXdpSection(sec) && !OTHER_TYPE_SECTION.test(sec) && sec !== 'maps';
}

/** The first parameter is `struct xdp_md *`: what an XDP program in a typeless section takes. */
function takesXdpMd(f: Sym): boolean {
  const t = f.params?.[0]?.type;
  return t?.k === 'ptr' && t.to.k === 'struct' && t.to.tag === 'xdp_md';
}

interface Linked {
  insns: string;
  map_relocs: MapReloc[];
  kfunc_relocs?: KfuncReloc[];
  line_info: LineInfo[];
  funcs: { name: string; insn: number }[];
}

const MAX_SUBPROGS = 64;

export function buildObject(unit: TranslationUnit, diags: DiagnosticBag, opts: ObjectOptions): (ProgramSpec & { btf?: BtfInfo }) | undefined {
  // Maps, in declaration order (a map-in-map's inner template right after it).
  const maps = new Map<Sym, number>();
  const mapSpecs: MapSpec[] = [];
  const btf: BtfInfo = { maps: [] };
  const progArrays: { sym: Sym; index: number }[] = [];
  const outerMaps: { sym: Sym; index: number }[] = [];
  // The globals some function names (maps by &map, variables), and those named outside the file's programs of other
  // types (SEC("sk_reuseport"), SEC("tc"): never compiled here, so a map only they use need not be one we support).
  const named = new Set<Sym>();
  const namedHere = new Set<Sym>();
  for (const f of unit.funcs) {
    if (!f.body) continue;
    const here = !OTHER_TYPE_SECTION.test(f.attrs.section ?? '');
    walkExprs(f.body, (e) => {
      if (e.k !== 'var' || e.sym.kind !== 'var' || !e.sym.global) return;
      named.add(e.sym);
      if (here) namedHere.add(e.sym);
    });
  }
  for (const g of unit.globals) {
    const sec = g.attrs.section;
    if (sec !== '.maps' && sec !== 'maps') continue;
    const def = readMapDef(g, diags, 0, { unused: !namedHere.has(g) });
    if (!def) continue;
    maps.set(g, mapSpecs.length);
    if (def.spec.type === 'prog_array') progArrays.push({ sym: g, index: mapSpecs.length });
    if (def.inner) outerMaps.push({ sym: g, index: mapSpecs.length });
    const bytes = (n: number): TypeDesc => ({ kind: 'array', elem: { kind: 'int', name: 'unsigned char', size: 1, signed: false }, len: n, size: n });
    for (const d of def.inner ? [def, def.inner] : [def]) {
      if (d === def.inner) def.spec.inner_map = mapSpecs.length;
      mapSpecs.push(d.spec);
      btf.maps.push({ name: d.spec.name!, key: d.key ? describeType(d.key) : bytes(d.spec.key_size), value: d.value ? describeType(d.value) : bytes(d.spec.value_size) });
    }
  }
  // Inner maps user space would insert: `.values = { [i] = &map }` in a map-in-map definition. libbpf's
  // init_map_in_map_slots updates key i (an int) with the inner map's fd; here the value is the map's index.
  for (const om of outerMaps) {
    const init: { key: string; value: string }[] = [];
    const valuesOff = om.sym.type.k === 'struct' ? om.sym.type.members.find((m) => m.name === 'values')?.offset ?? 0 : 0;
    for (const part of om.sym.init?.parts ?? []) {
      let e = part.e;
      while (e.k === 'cast') e = e.e;
      if (e.k === 'addr') e = e.e;
      const inner = e.k === 'var' ? maps.get(e.sym) : undefined;
      if (inner === undefined) {
        diags.error('cc-map-def', `map '${om.sym.name}': .values may only hold the addresses of maps defined in SEC(".maps")`, part.e.span);
        continue;
      }
      init.push({ key: u32Hex(Math.floor((part.offset - valuesOff) / 8)), value: u32Hex(inner) });
    }
    if (init.length) mapSpecs[om.index]!.init = init;
  }
  let programs = unit.funcs.filter((f) => f.body && isXdpSection(f.attrs.section)).sort((a, b) => (a.defIndex ?? 0) - (b.defIndex ?? 0));
  if (programs.length === 0) {
    // No xdp section: a function taking struct xdp_md * in a section of no type is the XDP program its loader makes it.
    programs = unit.funcs.filter((f) => f.body && isTypelessSection(f.attrs.section) && takesXdpMd(f)).sort((a, b) => (a.defIndex ?? 0) - (b.defIndex ?? 0));
    for (const f of programs) diags.warning('cc-section-type', `section "${f.attrs.section}" names no program type: '${f.name}' takes struct xdp_md *, so it is loaded as XDP, as its loader does (bpftool prog load … type xdp); SEC("xdp") says so itself`, f.span);
  }
  if (programs.length === 0) {
    diags.error('cc-no-entry', 'no XDP program found: put the entry function in an "xdp" section, e.g. SEC("xdp") int prog(struct xdp_md *ctx)', { file: opts.file, line: 1, col: 1, endLine: 1, endCol: 1 });
    return undefined;
  }
  let entry = programs[0]!;
  if (opts.entry !== undefined) {
    const named = programs.find((f) => f.name === opts.entry);
    if (!named) {
      diags.error('cc-no-entry', `no XDP program named '${opts.entry}' (programs: ${programs.map((f) => f.name).join(', ')})`, { file: opts.file, line: 1, col: 1, endLine: 1, endCol: 1 });
      return undefined;
    }
    entry = named;
  }
  const others = programs.filter((f) => f !== entry);

  const globalData = new GlobalData(diags, mapSpecs.length);
  const foldable = foldableGlobals(unit.globals, unit.funcs);
  // clang lays a data section out in declaration order, not in order of first use: place every
  // global variable the functions name up front (the layout user space and the maps view see).
  const isMapDef = (g: Sym) => g.attrs.section === '.maps' || g.attrs.section === 'maps';
  for (const g of unit.globals) if (named.has(g) && !foldable.has(g) && !isMapDef(g) && g.kind === 'var') globalData.ref(g, g.span);
  const gens: FuncGen[] = [];
  const layouts: { prog: Sym; bodies: { sym: Sym; out: EmittedInsn[] }[] }[] = [];
  for (const prog of [entry, ...others]) {
    const ctx: ProgramContext = {
      diags,
      maps,
      subprogs: [],
      optimize: opts.optimize,
      globalRef: (sym, span) => globalData.ref(sym, span),
      stringRef: (bytes) => globalData.stringRef(bytes),
      foldable,
      inlineable: (f) => !!f.body && !f.attrs.noinline && !programs.includes(f),
    };
    const bodies: { sym: Sym; out: EmittedInsn[] }[] = [];
    const main = new FuncGen(ctx, prog);
    main.generate();
    gens.push(main);
    bodies.push({ sym: prog, out: main.out });
    for (let i = 0; i < ctx.subprogs.length && i < MAX_SUBPROGS; i++) {
      const f = ctx.subprogs[i]!;
      const g = new FuncGen(ctx, f);
      g.generate();
      gens.push(g);
      bodies.push({ sym: f, out: g.out });
    }
    layouts.push({ prog, bodies });
  }
  // A global (non-static) function called as a BPF function: where XDP Lab's verifier, like the kernel given
  // no BTF, checks it with each caller's values, the kernel given clang's BTF (libbpf) checks it once on its
  // own from its prototype (check_global_func: scalars of any value, pointers that may be NULL) and may refuse
  // what is accepted here. Said once per function.
  const warnedGlobal = new Set<Sym>();
  for (const { bodies } of layouts) for (const { sym } of bodies.slice(1)) {
    if (sym.isStatic || warnedGlobal.has(sym)) continue;
    warnedGlobal.add(sym);
    diags.warning('cc-global-func', `'${sym.name}' is a global function: XDP Lab verifies it with each caller's values, but the kernel, given BTF as libbpf loads it, verifies it on its own from its parameter types (any value; pointers may be NULL) and hands its callers a return value it knows nothing of, so it may refuse this program; make it 'static' to have it verified the same way there`, sym.span);
  }
  // Code after an error may be incomplete: resolve jumps only for a clean program.
  if (diags.hasErrors) return undefined;
  for (const m of globalData.maps()) {
    mapSpecs.push(m.spec);
    btf.maps.push({ name: m.spec.name!, key: { kind: 'int', name: 'unsigned int', size: 4, signed: false }, value: m.value });
  }
  // Every function is generated: the trees are no longer needed (finish() and link() read the
  // emitted code only), and on a big source they are most of what is still alive.
  for (const g of gens) g.releaseAnalyses();
  for (const f of unit.funcs) f.body = undefined;
  // So are global initialisers, now in the data sections' bytes (an array of a million
  // numbers is a tree node, a type and a span each); map definitions' stay (prog slots below).
  for (const g of unit.globals) if (!maps.has(g)) g.init = undefined;
  opts.onPhase?.('codegen');
  for (const g of gens) g.finish();
  opts.onPhase?.('peephole');
  const linked = layouts.map((l) => link(l.prog, l.bodies, diags));
  opts.onPhase?.('link');

  // Tail-call slots user space would fill: `.values = { [i] = &prog }` in a PROG_ARRAY definition.
  for (const pa of progArrays) {
    const slots: { slot: number; prog: number }[] = [];
    for (const part of pa.sym.init?.parts ?? []) {
      let e = part.e;
      while (e.k === 'cast') e = e.e;
      if (e.k === 'addr') e = e.e;
      if (e.k !== 'var' || e.sym.kind !== 'func') continue;
      const idx = others.indexOf(e.sym);
      const valuesOff = pa.sym.type.k === 'struct' ? pa.sym.type.members.find((m) => m.name === 'values')?.offset ?? 0 : 0;
      if (idx < 0) {
        diags.warning('cc-prog-slot', `'${e.sym.name}' in '${pa.sym.name}' is not one of this object's other XDP programs; its slot stays empty`, part.e.span);
        continue;
      }
      slots.push({ slot: Math.floor((part.offset - valuesOff) / 8), prog: idx });
    }
    if (slots.length) mapSpecs[pa.index]!.prog_slots = slots;
  }

  const main = linked[0]!;
  return {
    prog_type: 'xdp',
    insns: main.insns,
    maps: mapSpecs,
    map_relocs: main.map_relocs,
    ...(main.kfunc_relocs ? { kfunc_relocs: main.kfunc_relocs } : {}),
    line_info: main.line_info,
    funcs: main.funcs,
    ...(entry.attrs.section !== 'xdp' ? { section: entry.attrs.section } : {}),
    ...(others.length ? { programs: others.map((p, i) => ({ name: p.name, section: p.attrs.section, ...linked[i + 1]! })) } : {}),
    btf,
    source: opts.source,
  };
}

/** Lay a program's functions out one after another; resolve calls and map references. */
function link(prog: Sym, bodies: { sym: Sym; out: EmittedInsn[] }[], diags: DiagnosticBag): Linked {
  const start = new Map<Sym, number>();
  let n = 0;
  for (const b of bodies) {
    start.set(b.sym, n);
    n += b.out.length;
  }
  // The slots by reference, not copied: only a call's imm differs between the programs that
  // share a function, and that slot alone is copied (a copy of every slot doubled the code's
  // memory on a huge function).
  const slots: Insn[] = new Array(n);
  const relocs: MapReloc[] = [];
  const kfuncs: KfuncReloc[] = [];
  const line_info: LineInfo[] = new Array(n);
  let i = 0;
  for (const b of bodies) {
    for (const e of b.out) {
      // bpf-to-bpf calls and function addresses (BPF_PSEUDO_FUNC) alike: the offset from the next slot.
      slots[i] = e.callee ? { ...e.insn, imm: start.get(e.callee)! - (i + 1) } : e.insn;
      if (e.kfunc !== undefined) kfuncs.push({ insn: i, name: e.kfunc });
      if (e.map !== undefined) relocs.push(e.valueOff !== undefined ? { insn: i, map: e.map, kind: 'value', offset: e.valueOff } : { insn: i, map: e.map });
      line_info[i] = { insn: i, file: e.span.file, line: e.span.line, col: e.span.col, endLine: e.span.endLine, endCol: e.span.endCol };
      i++;
    }
  }
  if (n > 1_000_000) diags.error('cc-too-large', 'program is too large (more than 1M instructions)', prog.span);
  return {
    insns: bytesToHex(encodeProgram(slots)),
    map_relocs: relocs,
    ...(kfuncs.length ? { kfunc_relocs: kfuncs } : {}),
    line_info,
    funcs: bodies.map((b) => ({ name: b.sym.name, insn: start.get(b.sym)! })),
  };
}

/** A u32 as the oracle's little-endian hex. */
function u32Hex(n: number): string {
  return bytesToHex(new Uint8Array([n & 0xff, (n >>> 8) & 0xff, (n >>> 16) & 0xff, n >>> 24]));
}
