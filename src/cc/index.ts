/**
 * The restricted-C compiler's public face.
 *
 *   compileWorkspace(ws, opts) → { spec?, diagnostics }
 *   compile(source, { file })  = compileWorkspace of a one-file workspace
 *
 * A workspace (./workspace.ts) is files plus clang's flags; includes resolve
 * as clang resolves them (./includes.ts), the system headers come from
 * `opts.systemHeaders` or the process's installed reader (./system_headers.ts).
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
import { FuncGen, type EmittedInsn, type ProgramContext } from './codegen';
import { CompileAbort, DiagnosticBag, NO_SPAN, type Diagnostic } from './diagnostics';
import { FREESTANDING } from './headers/freestanding';
import { parseCcFlags } from './flags';
import { IncludeSearch, normalizePath, type HeaderReader } from './includes';
import { installedSystemHeaders } from './system_headers';
import { singleFileWorkspace, type Workspace } from './workspace';
import { describeType, readMapDef, type BtfInfo } from './maps';
import { Parser } from './parser';
import { Preprocessor } from './preprocessor';
import type { Token } from './lexer';
import { bytesToHex, encodeProgram } from '../isa/insn';
import type { LineInfo, MapSpec, ProgramSpec } from '../isa/spec';

export { formatDiagnostic, type Diagnostic, type Span, type Severity } from './diagnostics';
export { HEADERS } from './headers';
export { FREESTANDING } from './headers/freestanding';
export { installSystemHeaders, installedSystemHeaders } from './system_headers';
export { parseCcFlags, shellSplit, type CcFlags } from './flags';
export { packageFor, type HeaderReader } from './includes';
export { singleFileWorkspace, type Workspace, type WorkspaceFile } from './workspace';
export type { BtfInfo, TypeDesc } from './maps';

export interface CompileOptions {
  file?: string;
  /** Extra headers by include name (tests, lessons), searched after -I and before the system headers. */
  headers?: Record<string, string>;
  /** Peephole clean-up (default true; off only to debug the code generator). */
  optimize?: boolean;
  /** The system headers by include name ("linux/bpf.h"); default: the installed reader. */
  systemHeaders?: HeaderReader;
  /** Files outside the workspace by path (the CLI reads the disk); the workspace's own files win. */
  readFile?: HeaderReader;
}

export interface CompileResult {
  spec?: ProgramSpec & { btf?: BtfInfo };
  diagnostics: Diagnostic[];
}

export function compile(source: string, opts: CompileOptions = {}): CompileResult {
  return compileWorkspace(singleFileWorkspace(source, opts.file ?? 'prog.c'), opts);
}

export function compileWorkspace(ws: Workspace, opts: CompileOptions = {}): CompileResult {
  const file = ws.main;
  const diags = new DiagnosticBag();
  let spec: CompileResult['spec'];
  try {
    const pre = preprocessInto(ws, opts, diags);
    if (pre) spec = compileInner(pre.tokens, pre.source, ws.main, diags, opts.optimize !== false);
  } catch (e) {
    if (!(e instanceof CompileAbort)) {
      // Our bug, never the user's: report it as a diagnostic rather than throwing.
      diags.list.push({ code: 'cc-internal', severity: 'error', message: `internal compiler error: ${(e as Error)?.message ?? String(e)}`, span: { ...NO_SPAN, file } });
    }
  }
  const errors = diags.list.some((d) => d.severity === 'error');
  return { spec: errors ? undefined : spec, diagnostics: diags.list };
}

/** Preprocess a workspace's main file (clang -E, as tokens): for tests and tools. Never throws. */
export function preprocessWorkspace(ws: Workspace, opts: CompileOptions = {}): { tokens: Token[]; diagnostics: Diagnostic[] } {
  const diags = new DiagnosticBag();
  let tokens: Token[] = [];
  try {
    tokens = preprocessInto(ws, opts, diags)?.tokens ?? [];
  } catch (e) {
    if (!(e instanceof CompileAbort)) throw e;
  }
  return { tokens, diagnostics: diags.list };
}

function preprocessInto(ws: Workspace, opts: CompileOptions, diags: DiagnosticBag): { tokens: Token[]; source: string } | undefined {
  const main = ws.files.find((f) => f.path === ws.main) ?? ws.files.find((f) => normalizePath(f.path) === normalizePath(ws.main));
  if (!main) {
    diags.error('cc-no-main', `the workspace has no file '${ws.main}' to compile`, { ...NO_SPAN, file: ws.main });
    return undefined;
  }
  const flags = parseCcFlags(ws.flags);
  for (const e of flags.errors) diags.error('cc-flag', e, { ...NO_SPAN, file: '<command line>' });
  if (diags.hasErrors) return undefined;
  const byPath = new Map(ws.files.map((f) => [normalizePath(f.path), f.text]));
  const search = new IncludeSearch({
    quote: flags.quote, angled: flags.angled, system: flags.system, after: flags.after, nostdinc: flags.nostdinc,
    readFile: (p) => byPath.get(p) ?? opts.readFile?.(p),
    builtin: opts.headers ? { ...FREESTANDING, ...opts.headers } : FREESTANDING,
    systemHeaders: opts.systemHeaders ?? installedSystemHeaders(),
  });
  const pp = new Preprocessor(diags, search, { optimize: flags.optimize, stdVersion: flags.stdVersion, strictAnsi: flags.strictAnsi, cpuVersion: flags.cpuVersion });
  for (const m of flags.macros) {
    if ('undef' in m) pp.undefine(m.undef);
    else pp.defineFromFlag(m.define, m.value);
  }
  return { tokens: pp.run(main.text, main.path, flags.includes, flags.imacros), source: main.text };
}

function compileInner(toks: Token[], source: string, file: string, diags: DiagnosticBag, optimize: boolean): CompileResult['spec'] {
  const parser = new Parser(toks, diags);
  const unit = parser.parseUnit();
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
      mapSpecs.push(def.spec);
      btf.maps.push({
        name: g.name,
        key: def.key ? describeType(def.key) : { kind: 'array', elem: { kind: 'int', name: 'unsigned char', size: 1, signed: false }, len: def.spec.key_size, size: def.spec.key_size },
        value: def.value ? describeType(def.value) : { kind: 'array', elem: { kind: 'int', name: 'unsigned char', size: 1, signed: false }, len: def.spec.value_size, size: def.spec.value_size },
      });
    }
  }
  const entries = unit.funcs.filter((f) => f.body && f.attrs.section !== undefined && /^xdp/.test(f.attrs.section));
  if (entries.length === 0) {
    diags.error('cc-no-entry', 'no XDP program found: put the entry function in an "xdp" section, e.g. SEC("xdp") int prog(struct xdp_md *ctx)', { file, line: 1, col: 1, endLine: 1, endCol: 1 });
    return undefined;
  }
  const entry = entries[0]!;
  if (parser.deferredAsm.size) {
    const reached = reachableFunctions(entry);
    for (const [f, span] of parser.deferredAsm) {
      if (reached.has(f)) diags.error('cc-asm', `inline assembly is not supported (only the empty compiler barrier asm("" ::: "memory")); '${f.name}' uses it and the program calls it`, span);
    }
    if (diags.hasErrors) return undefined;
  }
  for (const other of entries.slice(1)) diags.warning('cc-extra-entry', `only the first XDP program ('${entry.name}') is compiled; '${other.name}' is ignored`, other.span);

  const ctx: ProgramContext = {
    diags,
    maps,
    subprogs: [],
    optimize,
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
  for (const g of gens) g.finish();

  // Link: lay the functions out one after another and resolve calls and map references.
  const start = new Map<Sym, number>();
  const all: EmittedInsn[] = [];
  for (const b of bodies) {
    start.set(b.sym, all.length);
    all.push(...b.out);
  }
  const relocs: { insn: number; map: number }[] = [];
  all.forEach((e, i) => {
    if (e.callee) e.insn.imm = start.get(e.callee)! - (i + 1);
    if (e.map !== undefined) relocs.push({ insn: i, map: e.map });
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

/** The functions a program can reach from its entry (calls and function addresses), walking the AST. */
function reachableFunctions(entry: Sym): Set<Sym> {
  const reached = new Set<Sym>([entry]);
  const seen = new Set<object>();
  const work: unknown[] = [entry.body];
  while (work.length) {
    const n = work.pop();
    if (!n || typeof n !== 'object' || seen.has(n)) continue;
    seen.add(n);
    if (isFuncSym(n)) {
      if (!reached.has(n)) { reached.add(n); work.push(n.body); }
      continue;
    }
    for (const [k, v] of Object.entries(n)) {
      // Types can be cyclic and never lead to code.
      if (k === 'type' || k === 'span' || k === 'ty') continue;
      if (v && typeof v === 'object') work.push(v);
    }
  }
  return reached;
}

function isFuncSym(n: object): n is Sym {
  const s = n as Partial<Sym>;
  return s.kind === 'func' && typeof s.name === 'string' && 'attrs' in s;
}
