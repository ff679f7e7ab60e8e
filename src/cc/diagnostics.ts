/**
 * Compiler diagnostics: every message carries a source span, and prints the
 * way clang prints it (`file:line:col: error: message`, the source line, a
 * caret under the column), so that what a student sees here reads like what
 * a real toolchain would say.
 */

export interface Span {
  file: string;
  line: number;
  col: number;
  endLine: number;
  endCol: number;
}

export type Severity = 'error' | 'warning' | 'note';

export interface Diagnostic {
  /** Stable identifier, e.g. 'pp-include-not-found', 'sema-undeclared'. */
  code: string;
  severity: Severity;
  message: string;
  span: Span;
  related?: Diagnostic[];
}

export const NO_SPAN: Span = { file: '<built-in>', line: 0, col: 0, endLine: 0, endCol: 0 };

/** Thrown to stop a phase after too many errors or on an unrecoverable one; always caught in compile(). */
export class CompileAbort extends Error {}

/** A bag of diagnostics with an error budget, so malformed input cannot make us report forever. */
export class DiagnosticBag {
  readonly list: Diagnostic[] = [];
  errors = 0;
  constructor(readonly maxErrors = 20) {}

  report(severity: Severity, code: string, message: string, span: Span, related?: Diagnostic[]): void {
    // One message per location is enough; cascades say nothing new.
    if (this.list.some((d) => d.span.line === span.line && d.span.col === span.col && d.span.file === span.file && d.severity === severity)) return;
    this.list.push(related ? { code, severity, message, span, related } : { code, severity, message, span });
    if (severity === 'error' && ++this.errors >= this.maxErrors) {
      this.list.push({ code: 'too-many-errors', severity: 'error', message: 'too many errors emitted, stopping now', span });
      throw new CompileAbort('too many errors');
    }
  }
  error(code: string, message: string, span: Span, related?: Diagnostic[]): void {
    this.report('error', code, message, span, related);
  }
  warning(code: string, message: string, span: Span): void {
    this.report('warning', code, message, span);
  }
  get hasErrors(): boolean {
    return this.errors > 0;
  }
}

/**
 * clang's format. `sources` maps file names to their text so that related
 * notes in headers get their own source line too.
 */
export function formatDiagnostic(d: Diagnostic, source: string | Record<string, string>): string {
  const text = (file: string): string | undefined => (typeof source === 'string' ? source : source[file]);
  const one = (x: Diagnostic): string => {
    const head = x.span.line > 0 ? `${x.span.file}:${x.span.line}:${x.span.col}: ` : `${x.span.file}: `;
    let s = `${head}${x.severity}: ${x.message}\n`;
    const src = x.span.line > 0 ? text(x.span.file) : undefined;
    if (src !== undefined) {
      const lineText = src.split('\n')[x.span.line - 1];
      if (lineText !== undefined) {
        const clean = lineText.replace(/\r$/, '');
        s += `${clean}\n`;
        const width = x.span.endLine === x.span.line ? Math.max(1, x.span.endCol - x.span.col) : 1;
        let pad = '';
        for (let i = 0; i < x.span.col - 1 && i < clean.length; i++) pad += clean[i] === '\t' ? '\t' : ' ';
        s += `${pad}^${'~'.repeat(Math.max(0, Math.min(width, clean.length - x.span.col + 1) - 1))}\n`;
      }
    }
    return s;
  };
  let out = one(d);
  for (const r of d.related ?? []) out += one(r);
  return out;
}
