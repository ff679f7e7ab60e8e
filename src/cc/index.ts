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
import { CompileAbort, DiagnosticBag, NO_SPAN, type Diagnostic, type Severity, type Span } from './diagnostics';
import { FREESTANDING } from './headers/freestanding';
import { parseCcFlags, type CcFlags } from './flags';
import { IncludeSearch, normalizePath, type HeaderReader } from './includes';
import { installedSystemHeaders } from './system_headers';
import { singleFileWorkspace, type Workspace } from './workspace';
import type { BtfInfo } from './maps';
import type { TranslationUnit } from './ast';
import { buildObject } from './object';
import { Parser } from './parser';
import { Preprocessor } from './preprocessor';
import type { Token } from './lexer';
import type { ProgramSpec } from '../isa/spec';

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
  /** The XDP program to make the entry when the file has several (default: the first). */
  entry?: string;
  /**
   * The first id `__builtin_btf_type_id` hands out (default 1). Type ids are build-specific
   * (clang's come from its BTF); tests that compare builds vary this to find the bytes a
   * program derives from them.
   */
  btfTypeIdBase?: number;
  /**
   * Called after each phase ('parse': preprocessing and parsing, which stream into each
   * other; 'codegen', 'peephole', 'link') with what it made still referenced: the memory
   * bench and its test measure the live heap there.
   */
  onPhase?: (phase: CompilePhase) => void;
}

export type CompilePhase = 'parse' | 'codegen' | 'peephole' | 'link';

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
  let pre: Prepared | undefined;
  try {
    pre = preprocessorFor(ws, opts, diags);
    if (pre) spec = compileInner(pre, ws.main, diags, opts);
  } catch (e) {
    if (!(e instanceof CompileAbort)) {
      // Our bug, never the user's: report it as a diagnostic rather than throwing.
      diags.list.push({ code: 'cc-internal', severity: 'error', message: `internal compiler error: ${(e as Error)?.message ?? String(e)}`, span: { ...NO_SPAN, file } });
    }
  }
  // Warnings as clang prints them: -w, -Wno-NAME and #pragma GCC diagnostic decide (./diag_pragmas.ts).
  const list = pre ? pre.pp.diagPragmas.filter(diags.list, { noWarnings: !!pre.flags.noWarnings, off: new Set(pre.flags.warningsOff ?? []) }) : diags.list;
  const errors = list.some((d) => d.severity === 'error');
  return { spec: errors ? undefined : spec, diagnostics: list };
}

/** Preprocess a workspace's main file (clang -E, as tokens): for tests and tools. Never throws. */
export function preprocessWorkspace(ws: Workspace, opts: CompileOptions = {}): { tokens: Token[]; diagnostics: Diagnostic[] } {
  const diags = new DiagnosticBag();
  let tokens: Token[] = [];
  try {
    const pre = preprocessorFor(ws, opts, diags);
    if (pre) tokens = pre.pp.run(pre.main.text, pre.main.path, pre.flags.includes, pre.flags.imacros);
  } catch (e) {
    if (!(e instanceof CompileAbort)) throw e;
  }
  return { tokens, diagnostics: diags.list };
}

interface Prepared {
  pp: Preprocessor;
  main: { path: string; text: string };
  flags: CcFlags;
}

/** The workspace's preprocessor, set up with its flags' macros (undefined after a flag error). */
function preprocessorFor(ws: Workspace, opts: CompileOptions, diags: DiagnosticBag): Prepared | undefined {
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
  return { pp, main, flags };
}

/**
 * The parser's diagnostics while the preprocessor streams tokens to it.
 * Run one after the other, every preprocessor diagnostic came before every
 * parser one, and the error budget counted them in that order; streamed,
 * they are produced interleaved. This bag keeps the parser's apart and
 * compileInner appends them once the preprocessor is done, so the list
 * (and where too many errors stop it) is what the two phases in sequence
 * gave. It applies the main bag's rules as it goes — nothing said twice
 * at one place, stop once the errors of both reach the budget — since the
 * preprocessor runs ahead of the parser and has reported everything up to
 * the parser's position.
 */
class ParserBag extends DiagnosticBag {
  constructor(private main: DiagnosticBag) {
    super(Infinity);
  }
  override report(severity: Severity, code: string, message: string, span: Span, related?: Diagnostic[]): void {
    if (this.main.list.some((d) => d.span.line === span.line && d.span.col === span.col && d.span.file === span.file && d.severity === severity)) return;
    const before = this.errors;
    super.report(severity, code, message, span, related);
    if (this.errors > before && this.errors + this.main.errors >= this.main.maxErrors) throw new CompileAbort('too many errors');
  }
}

function compileInner(pre: Prepared, file: string, diags: DiagnosticBag, opts: CompileOptions): CompileResult['spec'] {
  // The parser pulls tokens from the preprocessor as it needs them: on a big
  // source a list of every token was the largest structure, alive through
  // both phases (and old enough by then to stay in memory until a full GC).
  const { pp } = pre;
  pp.start(pre.main.text, pre.main.path, pre.flags.includes, pre.flags.imacros);
  const parserDiags = new ParserBag(diags);
  let ppFailed = false;
  const pull = (): Token => {
    try {
      return pp.pull();
    } catch (e) {
      ppFailed = true;
      throw e;
    }
  };
  let unit: TranslationUnit | undefined;
  let parseError: unknown;
  try {
    unit = new Parser(pull, parserDiags, opts.btfTypeIdBase).parseUnit();
  } catch (e) {
    // The preprocessor's own stop (its error budget, a bug) ends the compile before any parser
    // diagnostic, as when preprocessing ran first.
    if (ppFailed) throw e;
    parseError = e;
  }
  // What run() would still have reported after the parser stopped (its diagnostics come first).
  while (pp.pull().kind !== 'eof') { /* drain */ }
  for (const d of parserDiags.list) diags.report(d.severity, d.code, d.message, d.span, d.related);
  if (parseError !== undefined) throw parseError;
  opts.onPhase?.('parse');
  if (diags.hasErrors || !unit) return undefined;

  return buildObject(unit, diags, { file, source: pre.main.text, optimize: opts.optimize !== false, entry: opts.entry, onPhase: opts.onPhase });
}
