/**
 * The C side of an explanation: which source line and column an instruction
 * came from (the compiler's line_info), the enclosing function, and the
 * names the program itself uses for the context, `data` and `data_end`,
 * so a suggested fix is written in the learner's own words.
 */
import type { LineInfo } from '../isa/spec';

export interface SourcePos {
  line: number;
  column: number;
}

/** The C position of an instruction slot: its own line_info, else the nearest earlier one. */
export function posOfPc(lineInfo: readonly LineInfo[], pc: number): SourcePos | undefined {
  let best: LineInfo | undefined;
  for (const l of lineInfo) if (l.insn <= pc && (!best || l.insn >= best.insn)) best = l;
  return best ? { line: best.line, column: best.col } : undefined;
}

/** The C lines a path of pcs went through, each once, in the order first reached (a loop's lines are not repeated). */
export function pathLines(lineInfo: readonly LineInfo[], pcs: readonly number[]): number[] {
  const seen = new Set<number>();
  for (const pc of pcs) {
    const p = posOfPc(lineInfo, pc);
    if (p) seen.add(p.line);
  }
  return [...seen];
}

/** 1-based first and last line of the function body around `line` (a top-level `}` closes it). */
export function functionAround(lines: readonly string[], line: number): { start: number; end: number } {
  let start = line;
  while (start > 1 && !/^[A-Za-z_].*\(/.test(lines[start - 1] ?? '')) start--;
  let end = line;
  while (end < lines.length && !/^}/.test(lines[end - 1] ?? '')) end++;
  return { start, end };
}

export interface Names {
  ctx: string;
  /** Expressions for data and data_end: a variable of the program when it has one. */
  data: string;
  dataEnd: string;
  /** Whether `data`/`data_end` are variables (they can be re-read after bpf_xdp_adjust_head). */
  dataVar?: string;
  dataEndVar?: string;
  /** What the function's own bounds checks return (an XDP action, or a helper's error value); XDP_DROP when it has none. */
  action: string;
}

/** The program's names for the context and the packet bounds, from the function around `line`. */
export function namesAround(lines: readonly string[], line: number): Names {
  const { start, end } = functionAround(lines, line);
  const body = lines.slice(start - 1, end).join('\n');
  const ctx = /struct\s+xdp_md\s*\*\s*(\w+)/.exec(body)?.[1] ?? 'ctx';
  const assigned = (field: string): string | undefined => {
    const re = new RegExp(`(\\w+)\\s*=\\s*\\(void\\s*\\*\\)\\s*\\(long\\)\\s*${ctx}->${field}\\b`);
    return re.exec(body)?.[1];
  };
  // A parsing helper gets them as parameters (`void *data_end`) instead of reading the context.
  const param = (name: string): string | undefined => (new RegExp(`\\bvoid\\s*\\*\\s*(${name})\\b`).exec(body) ? name : undefined);
  const dataVar = assigned('data') ?? param('data');
  const dataEndVar = assigned('data_end') ?? param('data_end');
  // …or what a parsing helper's own checks return (xdp-tutorial's parse_ethhdr: `return -1;`).
  const action = /data_end\s*\)?\s*\)\s*\n?\s*return\s+(XDP_\w+|-?\d+)\s*;/.exec(body)?.[1] ?? 'XDP_DROP';
  return {
    ctx,
    data: dataVar ?? `(void *)(long)${ctx}->data`,
    dataEnd: dataEndVar ?? `(void *)(long)${ctx}->data_end`,
    ...(dataVar ? { dataVar } : {}),
    ...(dataEndVar ? { dataEndVar } : {}),
    action,
  };
}

const KEYWORDS = new Set(['if', 'else', 'return', 'while', 'for', 'sizeof', 'struct', 'void', 'long', 'int', 'char', 'unsigned', 'const', 'volatile', 'switch', 'case']);

/** Identifiers the line dereferences (`p->f`, `p[i]`, `*p`), in order of appearance. */
export function derefNames(text: string): string[] {
  const out: string[] = [];
  const re = /(\w+)\s*(?:->|\[)|\*\s*\(?\s*(\w+)/g;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    const n = m[1] ?? m[2];
    if (n && !KEYWORDS.has(n) && !/^\d/.test(n) && !out.includes(n)) out.push(n);
  }
  return out;
}

/** Every identifier on the line that is not a keyword, a macro constant or a function name. */
export function identifiers(text: string): string[] {
  const out: string[] = [];
  const re = /\b([A-Za-z_]\w*)\b(?!\s*\()/g;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    const n = m[1]!;
    if (KEYWORDS.has(n) || /^[A-Z0-9_]+$/.test(n) || /^__u\d+$|^__be\d+$|^u\d+$/.test(n) || out.includes(n)) continue;
    out.push(n);
  }
  return out;
}

/** For each pointer indexed with constants in these lines (`p[4]`), one past the largest index. */
export function constIndexEnds(lines: readonly string[]): Map<string, number> {
  const out = new Map<string, number>();
  const re = /(\w+)\s*\[\s*(\d+)\s*\]/g;
  for (const t of lines) for (let m = re.exec(t); m; m = re.exec(t)) out.set(m[1]!, Math.max(out.get(m[1]!) ?? 0, Number(m[2]) + 1));
  return out;
}

/** Identifiers indexed on the line (`a[i]` gives i). */
export function indexNames(text: string): string[] {
  const out: string[] = [];
  const re = /\[\s*([A-Za-z_]\w*)\s*\]/g;
  for (let m = re.exec(text); m; m = re.exec(text)) if (!out.includes(m[1]!)) out.push(m[1]!);
  return out;
}

/** The statement `NAME = EXPR;` (or a declaration with an initialiser) that last set NAME before `line`. */
export function assignmentOf(lines: readonly string[], name: string, line: number): string | undefined {
  const re = new RegExp(`(?:^|[\\s*(])${name}\\s*=\\s*([^;=][^;]*);`);
  for (let l = line - 1; l >= 1; l--) {
    const m = re.exec(lines[l - 1] ?? '');
    if (m) return m[1]!.trim();
  }
  return undefined;
}

export function indentOf(text: string): string {
  return /^\s*/.exec(text)?.[0] ?? '';
}

interface EditLike {
  line: number;
  insert: string;
  replace?: boolean;
  also?: EditLike[];
}

/** The source with `insert` placed before 1-based `line` (or replacing it), and the fix's further edits (all in the original's line numbers). */
export function applyFix(source: string, fix: EditLike): string {
  const lines = source.split('\n');
  // Bottom-up, so each edit's line number still means the original's.
  const edits = [fix, ...(fix.also ?? [])].sort((a, b) => b.line - a.line);
  for (const e of edits) {
    const at = Math.max(0, Math.min(lines.length, e.line - 1));
    lines.splice(at, e.replace ? 1 : 0, ...e.insert.split('\n'));
  }
  return lines.join('\n');
}

/**
 * The `return` the path really took when the compiler shared one exit between several equal returns: the exit's line
 * info names one of them (`line`), but the path came there from the branch on line `prev`, whose own body is
 * `return <the same>;` (on that line or the next). Undefined when the exit's own line is the one taken.
 */
export function takenReturn(lines: readonly string[], path: readonly number[], line: number): number | undefined {
  const ret = /^\s*(return\b[^;]*;)/.exec(lines[line - 1] ?? '')?.[1]?.replace(/\s+/g, ' ');
  if (!ret) return undefined;
  const at = path.lastIndexOf(line);
  const prev = at > 0 ? path[at - 1] : undefined;
  if (prev === undefined || prev === line || prev === line - 1) return undefined;
  if (!/^\s*(?:\}\s*)?(?:else\s+)?if\s*\(/.test(lines[prev - 1] ?? '')) return undefined;
  for (const l of [prev, prev + 1]) {
    const t = lines[l - 1] ?? '';
    const m = /\breturn\b[^;]*;/.exec(l === prev ? t.slice(t.lastIndexOf(')')) : t);
    if (m && m[0].replace(/\s+/g, ' ') === ret && (l === prev || /^\s*return\b/.test(t))) return l;
  }
  return undefined;
}

/** How one edit reads to a learner: "replace line 12 with", "insert before line 12", "delete line 12" (a line replaced by nothing). */
export function editHeading(e: EditLike): string {
  if (e.replace && e.insert.trim() === '') return `delete line ${e.line}`;
  return e.replace ? `replace line ${e.line} with` : `insert before line ${e.line}`;
}

/** Where original line `line` is after the fix is applied. */
export function lineAfterFix(fix: EditLike, line: number): number {
  let shift = 0;
  for (const e of [fix, ...(fix.also ?? [])]) if (e.line <= line) shift += e.insert.split('\n').length - (e.replace ? 1 : 0);
  return line + shift;
}
