/**
 * The restricted-C compiler's public face.
 *
 *   compile(source, { file }) → { spec?, diagnostics }
 *
 * `spec` is the program spec of DESIGN.md (hand it to the verifier, the VM
 * or the kernel oracle unchanged) plus `line_info` (the C span of every
 * instruction slot), `funcs` (where each BPF function starts), `btf` (each
 * map's key/value C types: see BtfInfo in maps.ts) and `source`. It is
 * absent when there are errors. `diagnostics` holds errors, warnings and
 * notes with spans; formatDiagnostic prints them the way clang does.
 * compile() never throws, whatever the input.
 */
import type { Sym } from './ast';
import type { EmittedInsn, ProgramContext } from './codegen/frame';
import { FuncGen } from './codegen/stmt';
import { CompileAbort, DiagnosticBag, NO_SPAN, type Diagnostic } from './diagnostics';
import { HEADERS } from './headers';
import { describeType, readMapDef, type BtfInfo, type TypeDesc } from './maps';
import { GlobalData, foldableGlobals } from './globals';
import { Parser } from './parser';
import { Preprocessor } from './preprocessor';
import { bytesToHex, encodeProgram } from '../isa/insn';
import type { LineInfo, MapReloc, MapSpec, ProgramSpec } from '../isa/spec';

export { formatDiagnostic, type Diagnostic, type Span, type Severity } from './diagnostics';
export { HEADERS } from './headers';
export type { BtfInfo, TypeDesc } from './maps';

export interface CompileOptions {
  file?: string;
  /** Extra headers by include name (tests, lessons). */
  headers?: Record<string, string>;
  /** Peephole clean-up (default true; off only to debug the code generator). */
  optimize?: boolean;
}

export interface CompileResult {
  spec?: ProgramSpec & { btf?: BtfInfo };
  diagnostics: Diagnostic[];
}

export function compile(source: string, opts: CompileOptions = {}): CompileResult {
  const file = opts.file ?? 'prog.c';
  const diags = new DiagnosticBag();
  let spec: CompileResult['spec'];
  try {
    spec = compileInner(source, file, diags, { ...HEADERS, ...(opts.headers ?? {}) }, opts.optimize !== false);
  } catch (e) {
    if (!(e instanceof CompileAbort)) {
      // Our bug, never the user's: report it as a diagnostic rather than throwing.
      diags.list.push({ code: 'cc-internal', severity: 'error', message: `internal compiler error: ${(e as Error)?.message ?? String(e)}`, span: { ...NO_SPAN, file } });
    }
  }
  const errors = diags.list.some((d) => d.severity === 'error');
  return { spec: errors ? undefined : spec, diagnostics: diags.list };
}

function compileInner(source: string, file: string, diags: DiagnosticBag, headers: Record<string, string>, optimize: boolean): CompileResult['spec'] {
  const pp = new Preprocessor(diags, headers);
  const toks = pp.run(source, file);
  const unit = new Parser(toks, diags).parseUnit();
  if (diags.hasErrors) return undefined;

  // Maps, in declaration order.
  const maps = new Map<Sym, number>();
  const mapSpecs: MapSpec[] = [];
  const btf: BtfInfo = { maps: [] };
  for (const g of unit.globals) {
    const sec = g.attrs.section;
    if (sec === '.maps' || sec === 'maps') {
      const def = readMapDef(g, diags);
      if (!def) continue;
      maps.set(g, mapSpecs.length);
      const bytes = (n: number): TypeDesc => ({ kind: 'array', elem: { kind: 'int', name: 'unsigned char', size: 1, signed: false }, len: n, size: n });
      for (const d of def.inner ? [def, def.inner] : [def]) {
        if (d === def.inner) def.spec.inner_map = mapSpecs.length;
        mapSpecs.push(d.spec);
        btf.maps.push({ name: d.spec.name!, key: d.key ? describeType(d.key) : bytes(d.spec.key_size), value: d.value ? describeType(d.value) : bytes(d.spec.value_size) });
      }
    }
  }
  const entries = unit.funcs.filter((f) => f.body && f.attrs.section !== undefined && /^xdp/.test(f.attrs.section));
  if (entries.length === 0) {
    diags.error('cc-no-entry', 'no XDP program found: put the entry function in an "xdp" section, e.g. SEC("xdp") int prog(struct xdp_md *ctx)', { file, line: 1, col: 1, endLine: 1, endCol: 1 });
    return undefined;
  }
  const entry = entries[0]!;
  for (const other of entries.slice(1)) diags.warning('cc-extra-entry', `only the first XDP program ('${entry.name}') is compiled; '${other.name}' is ignored`, other.span);

  const globalData = new GlobalData(diags, mapSpecs.length);
  const ctx: ProgramContext = {
    diags,
    maps,
    subprogs: [],
    optimize,
    globalRef: (sym, span) => globalData.ref(sym, span),
    stringRef: (bytes) => globalData.stringRef(bytes),
    foldable: foldableGlobals(unit.globals, unit.funcs),
    inlineable: (f) => !!f.body && !f.attrs.noinline && f !== entry && !(f.attrs.section && /^xdp/.test(f.attrs.section)),
  };
  const bodies: { sym: Sym; out: EmittedInsn[] }[] = [];
  const main = new FuncGen(ctx, entry);
  main.generate();
  bodies.push({ sym: entry, out: main.out });
  const gens = [main];
  for (let i = 0; i < ctx.subprogs.length && i < 64; i++) {
    const f = ctx.subprogs[i]!;
    const g = new FuncGen(ctx, f);
    g.generate();
    gens.push(g);
    bodies.push({ sym: f, out: g.out });
  }
  // Code after an error may be incomplete: resolve jumps only for a clean program.
  if (diags.hasErrors) return undefined;
  for (const m of globalData.maps()) {
    mapSpecs.push(m.spec);
    btf.maps.push({ name: m.spec.name!, key: { kind: 'int', name: 'unsigned int', size: 4, signed: false }, value: m.value });
  }
  for (const g of gens) g.finish();

  // Link: lay the functions out one after another and resolve calls and map references.
  const start = new Map<Sym, number>();
  const all: EmittedInsn[] = [];
  for (const b of bodies) {
    start.set(b.sym, all.length);
    all.push(...b.out);
  }
  const relocs: MapReloc[] = [];
  all.forEach((e, i) => {
    if (e.callee) e.insn.imm = start.get(e.callee)! - (i + 1);
    if (e.map !== undefined) relocs.push(e.valueOff !== undefined ? { insn: i, map: e.map, kind: 'value', offset: e.valueOff } : { insn: i, map: e.map });
  });
  if (all.length > 1_000_000) diags.error('cc-too-large', 'program is too large (more than 1M instructions)', entry.span);
  const lineInfo: LineInfo[] = all.map((e, i) => ({ insn: i, file: e.span.file, line: e.span.line, col: e.span.col, endLine: e.span.endLine, endCol: e.span.endCol }));
  return {
    prog_type: 'xdp',
    insns: bytesToHex(encodeProgram(all.map((e) => e.insn))),
    maps: mapSpecs,
    map_relocs: relocs,
    line_info: lineInfo,
    funcs: bodies.map((b) => ({ name: b.sym.name, insn: start.get(b.sym)! })),
    btf,
    source,
  };
}
