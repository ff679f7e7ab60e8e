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
import { CompileAbort, DiagnosticBag, NO_SPAN, type Diagnostic } from './diagnostics';
import { HEADERS } from './headers';
import type { BtfInfo } from './maps';
import { buildObject } from './object';
import { Parser } from './parser';
import { Preprocessor } from './preprocessor';
import type { ProgramSpec } from '../isa/spec';

export { formatDiagnostic, type Diagnostic, type Span, type Severity } from './diagnostics';
export { HEADERS } from './headers';
export type { BtfInfo, TypeDesc } from './maps';

export interface CompileOptions {
  file?: string;
  /** Extra headers by include name (tests, lessons). */
  headers?: Record<string, string>;
  /** Peephole clean-up (default true; off only to debug the code generator). */
  optimize?: boolean;
  /** The XDP program to make the entry when the file has several (default: the first). */
  entry?: string;
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
    spec = compileInner(source, file, diags, { ...HEADERS, ...(opts.headers ?? {}) }, opts.optimize !== false, opts.entry);
  } catch (e) {
    if (!(e instanceof CompileAbort)) {
      // Our bug, never the user's: report it as a diagnostic rather than throwing.
      diags.list.push({ code: 'cc-internal', severity: 'error', message: `internal compiler error: ${(e as Error)?.message ?? String(e)}`, span: { ...NO_SPAN, file } });
    }
  }
  const errors = diags.list.some((d) => d.severity === 'error');
  return { spec: errors ? undefined : spec, diagnostics: diags.list };
}

function compileInner(source: string, file: string, diags: DiagnosticBag, headers: Record<string, string>, optimize: boolean, entry?: string): CompileResult['spec'] {
  const pp = new Preprocessor(diags, headers);
  const toks = pp.run(source, file);
  const unit = new Parser(toks, diags).parseUnit();
  if (diags.hasErrors) return undefined;

  return buildObject(unit, diags, { file, source, optimize, entry });
}
