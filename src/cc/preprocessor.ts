/**
 * The C preprocessor: #include of the built-in headers, object- and
 * function-like macros (# and ## and __VA_ARGS__, GNU's `, ## __VA_ARGS__`),
 * conditionals, #error/#warning, and `#pragma unroll` (passed on to the
 * parser as a 'pragma' token). Expansion follows the hideset rule, so
 * self-referential macros stop instead of looping; include depth and the
 * total number of expansions are bounded, so no input can hang it.
 */
import { type DiagnosticBag, type Span } from './diagnostics';
import { lex, parseNumber, type Token } from './lexer';

interface Macro {
  name: string;
  params?: string[];
  variadic?: boolean;
  body: Token[];
  builtin?: (at: Token) => Token;
}

interface Cond {
  /** This group is being emitted. */
  active: boolean;
  /** Some group of this #if chain has been taken. */
  taken: boolean;
  /** The enclosing context was active. */
  outer: boolean;
  elseSeen: boolean;
  span: Span;
}

const MAX_INCLUDE_DEPTH = 64;
const LEX_CACHE = new Map<string, Token[]>();
const MAX_EXPANSIONS = 200_000;

export const PREDEFINED: Record<string, string> = {
  __STDC__: '1',
  __STDC_VERSION__: '201710L',
  __BPF__: '1',
  __bpf__: '1',
  __XDP_LAB__: '1',
  __LITTLE_ENDIAN__: '1',
  __ORDER_LITTLE_ENDIAN__: '1234',
  __ORDER_BIG_ENDIAN__: '4321',
  __BYTE_ORDER__: '__ORDER_LITTLE_ENDIAN__',
  __CHAR_BIT__: '8',
  __SIZEOF_POINTER__: '8',
  __SIZEOF_LONG__: '8',
  __SIZEOF_INT__: '4',
  __SIZEOF_SHORT__: '2',
  __SIZEOF_LONG_LONG__: '8',
};

export class Preprocessor {
  private macros = new Map<string, Macro>();
  /** Input, reversed: the next token is at the end. */
  private stack: Token[] = [];
  private out: Token[] = [];
  private conds: Cond[] = [];
  private onceFiles = new Set<string>();
  private depth = 0;
  private expansions = 0;
  private counter = 0;
  /** Files whose EOF marker is on the stack, innermost last. */
  private fileStack: string[] = [];

  constructor(
    private diags: DiagnosticBag,
    private headers: Readonly<Record<string, string>>,
  ) {
    for (const [k, v] of Object.entries(PREDEFINED)) this.define(k, v);
    const mk = (name: string, f: (at: Token) => Token): void => void this.macros.set(name, { name, body: [], builtin: f });
    mk('__LINE__', (at) => ({ ...at, kind: 'num', text: String(at.span.line) }));
    mk('__FILE__', (at) => ({ ...at, kind: 'str', text: JSON.stringify(at.span.file), bytes: [...new TextEncoder().encode(at.span.file)] }));
    mk('__COUNTER__', (at) => ({ ...at, kind: 'num', text: String(this.counter++) }));
  }

  /** Define an object-like macro from text (for -D style use and predefined macros). */
  define(name: string, value: string): void {
    const body = lex(value, '<built-in>', this.diags).filter((t) => t.kind !== 'eof');
    this.macros.set(name, { name, body });
  }

  run(src: string, file: string): Token[] {
    this.pushFile(src, file, undefined);
    for (;;) {
      const t = this.next();
      if (t.kind === 'eof') {
        if (t.text === '<end-of-include>') {
          this.fileStack.pop();
          this.depth--;
          continue;
        }
        break;
      }
      if (t.kind === 'punct' && t.text === '#' && t.bol && !t.hide) {
        this.directive(t);
        continue;
      }
      if (!this.active()) continue;
      if (t.kind === 'id' && this.expand(t)) continue;
      this.out.push(t);
    }
    for (const c of this.conds) this.diags.error('pp-unterminated-if', 'unterminated conditional directive', c.span);
    this.out.push({ kind: 'eof', text: '', span: this.out.length ? this.out[this.out.length - 1]!.span : { file, line: 1, col: 1, endLine: 1, endCol: 1 }, bol: true, space: false });
    return this.out;
  }

  private active(): boolean {
    return this.conds.length === 0 || this.conds[this.conds.length - 1]!.active;
  }

  private pushFile(src: string, file: string, includeTok: Token | undefined): void {
    // Headers are lexed once per process: their tokens are never mutated.
    let toks: Token[];
    if (includeTok) {
      const key = file + '\0' + src;
      let cached = LEX_CACHE.get(key);
      if (!cached) { cached = lex(src, file, this.diags); LEX_CACHE.set(key, cached); }
      toks = cached.slice();
    } else toks = lex(src, file, this.diags);
    const eof = toks.pop()!;
    if (includeTok) toks.push({ ...eof, text: '<end-of-include>', bol: true });
    else toks.push(eof);
    for (let k = toks.length - 1; k >= 0; k--) this.stack.push(toks[k]!);
    this.fileStack.push(file);
  }

  private next(): Token {
    return this.stack.pop() ?? { kind: 'eof', text: '', span: { file: '', line: 0, col: 0, endLine: 0, endCol: 0 }, bol: true, space: false };
  }
  private peek(): Token | undefined {
    return this.stack[this.stack.length - 1];
  }

  /** The rest of the directive line. */
  private lineTokens(): Token[] {
    const r: Token[] = [];
    for (;;) {
      const t = this.peek();
      if (!t || t.bol || t.kind === 'eof') return r;
      r.push(this.stack.pop()!);
    }
  }

  private directive(hash: Token): void {
    const line = this.lineTokens();
    const name = line[0];
    if (!name) return; // the null directive
    const rest = line.slice(1);
    const d = name.text;
    const active = this.active();
    switch (d) {
      case 'if':
      case 'ifdef':
      case 'ifndef': {
        let v = false;
        if (active) {
          if (d === 'if') v = this.evalIf(rest, name);
          else {
            if (rest[0]?.kind !== 'id') this.diags.error('pp-macro-name', 'macro name missing', name.span);
            v = this.macros.has(rest[0]?.text ?? '') === (d === 'ifdef');
          }
        }
        this.conds.push({ active: active && v, taken: v, outer: active, elseSeen: false, span: hash.span });
        return;
      }
      case 'elif':
      case 'else': {
        const c = this.conds[this.conds.length - 1];
        if (!c) return this.diags.error('pp-stray', `#${d} without #if`, name.span);
        if (c.elseSeen) return this.diags.error('pp-stray', `#${d} after #else`, name.span);
        if (d === 'else') {
          c.elseSeen = true;
          c.active = c.outer && !c.taken;
          c.taken = true;
        } else {
          const v = c.outer && !c.taken ? this.evalIf(rest, name) : false;
          c.active = v;
          c.taken ||= v;
        }
        return;
      }
      case 'endif':
        if (!this.conds.pop()) this.diags.error('pp-stray', '#endif without #if', name.span);
        return;
    }
    if (!active) return;
    switch (d) {
      case 'define':
        return this.defineDirective(rest, name);
      case 'undef':
        if (rest[0]?.kind !== 'id') return this.diags.error('pp-macro-name', 'macro name must be an identifier', name.span);
        this.macros.delete(rest[0].text);
        return;
      case 'include':
        return this.include(rest, name);
      case 'error':
        return this.diags.error('pp-error', rest.map((t) => (t.space ? ' ' : '') + t.text).join('').trim() || '#error', hash.span);
      case 'warning':
        return this.diags.warning('pp-warning', rest.map((t) => (t.space ? ' ' : '') + t.text).join('').trim() || '#warning', hash.span);
      case 'pragma':
        return this.pragma(rest, hash);
      case 'line':
        return;
      default:
        this.diags.error('pp-invalid-directive', `invalid preprocessing directive '#${d}'`, name.span);
    }
  }

  private pragma(rest: Token[], hash: Token): void {
    const words = rest.map((t) => t.text);
    if (words[0] === 'once') {
      this.onceFiles.add(this.fileStack[this.fileStack.length - 1] ?? '');
      return;
    }
    const unroll = words[0] === 'unroll' || words[0] === 'GCC' && words[1] === 'unroll' || (words[0] === 'clang' && words[1] === 'loop' && words.includes('unroll'));
    if (unroll) {
      const numTok = rest.find((t) => t.kind === 'num');
      const count = numTok ? Number(parseNumber(numTok.text).value) : undefined;
      const disabled = words.includes('disable');
      this.out.push({ kind: 'pragma', text: disabled ? 'nounroll' : 'unroll', span: hash.span, bol: true, space: false, value: count === undefined ? undefined : BigInt(count) });
    } else if (words[0] === 'nounroll') {
      this.out.push({ kind: 'pragma', text: 'nounroll', span: hash.span, bol: true, space: false });
    }
    // Other pragmas (GCC diagnostic, clang attribute…) change nothing we model.
  }

  private include(rest: Token[], name: Token): void {
    let target: string | undefined;
    if (rest[0]?.kind === 'str') target = JSON.parse(rest[0].text.replace(/\\/g, '\\\\')) as string;
    else if (rest[0]?.text === '<') {
      const end = rest.findIndex((t) => t.text === '>');
      if (end > 0) target = rest.slice(1, end).map((t) => t.text).join('');
    }
    if (target === undefined) return this.diags.error('pp-include-syntax', 'expected "FILENAME" or <FILENAME>', name.span);
    const text = this.headers[target];
    if (text === undefined) {
      const avail = Object.keys(this.headers).sort().join(', ');
      return this.diags.error('pp-include-not-found', `'${target}' file not found (built-in headers: ${avail})`, rest[0]!.span);
    }
    if (this.onceFiles.has(target)) return;
    if (this.depth >= MAX_INCLUDE_DEPTH) return this.diags.error('pp-include-depth', `#include nested too deeply (limit ${MAX_INCLUDE_DEPTH})`, name.span);
    this.depth++;
    this.pushFile(text, target, name);
  }

  private defineDirective(rest: Token[], at: Token): void {
    const nameTok = rest[0];
    if (!nameTok || nameTok.kind !== 'id') return this.diags.error('pp-macro-name', 'macro name must be an identifier', nameTok?.span ?? at.span);
    if (nameTok.text === 'defined') return this.diags.error('pp-macro-name', "'defined' cannot be used as a macro name", nameTok.span);
    const m: Macro = { name: nameTok.text, body: [] };
    let k = 1;
    if (rest[1]?.text === '(' && !rest[1].space) {
      m.params = [];
      k = 2;
      for (;;) {
        const t = rest[k];
        if (!t) return this.diags.error('pp-macro-params', "missing ')' in macro parameter list", nameTok.span);
        if (t.text === ')') { k++; break; }
        if (t.text === '...') { m.variadic = true; k++; if (rest[k]?.text !== ')') return this.diags.error('pp-macro-params', "missing ')' in macro parameter list", t.span); k++; break; }
        if (t.kind !== 'id') return this.diags.error('pp-macro-params', 'invalid token in macro parameter list', t.span);
        m.params.push(t.text);
        k++;
        if (rest[k]?.text === ',') k++;
        else if (rest[k]?.text !== ')') return this.diags.error('pp-macro-params', "expected comma in macro parameter list", (rest[k] ?? t).span);
      }
    }
    m.body = rest.slice(k);
    this.macros.set(m.name, m);
  }

  /** Try to expand t as a macro; true when the expansion was pushed back for rescanning. */
  private expand(t: Token): boolean {
    const m = this.macros.get(t.text);
    if (!m || t.hide?.has(t.text)) return false;
    if (++this.expansions > MAX_EXPANSIONS) {
      if (this.expansions === MAX_EXPANSIONS + 1) this.diags.error('pp-expansion-limit', 'macro expansion limit exceeded', t.span);
      return false;
    }
    if (m.builtin) {
      this.stack.push({ ...m.builtin(t), bol: t.bol, space: t.space });
      return true;
    }
    const hide = new Set(t.hide ?? []);
    hide.add(m.name);
    let body: Token[];
    if (!m.params) {
      body = this.substitute(m, [], t);
    } else {
      const p = this.peek();
      if (!p || p.text !== '(' || p.kind !== 'punct') return false;
      this.next();
      const args = this.readArgs(m, t);
      if (!args) {
        // Stand in a 0 for the failed invocation so the parser does not cascade.
        this.stack.push({ ...t, kind: 'num', text: '0', hide: hide });
        return true;
      }
      body = this.substitute(m, args, t);
    }
    for (let k = body.length - 1; k >= 0; k--) {
      const b = body[k]!;
      let h: ReadonlySet<string> = hide;
      if (b.hide && b.hide.size && ![...b.hide].every((x) => hide.has(x))) {
        const u = new Set(b.hide);
        for (const x of hide) u.add(x);
        h = u;
      }
      this.stack.push({ ...b, span: t.span, hide: h, bol: k === 0 ? t.bol : false, space: k === 0 ? t.space : b.space });
    }
    return true;
  }

  private readArgs(m: Macro, at: Token): Token[][] | undefined {
    const args: Token[][] = [[]];
    let depth = 0;
    for (;;) {
      const t = this.next();
      if (t.kind === 'eof') {
        if (t.text === '<end-of-include>') this.stack.push(t);
        this.diags.error('pp-unterminated-call', `unterminated function-like macro invocation '${m.name}'`, at.span);
        return undefined;
      }
      if (t.text === '(' && t.kind === 'punct') depth++;
      else if (t.text === ')' && t.kind === 'punct') {
        if (depth === 0) break;
        depth--;
      } else if (t.text === ',' && t.kind === 'punct' && depth === 0 && !(m.variadic && args.length > m.params!.length)) {
        args.push([]);
        continue;
      }
      args[args.length - 1]!.push(t);
    }
    const np = m.params!.length;
    if (np === 0 && !m.variadic && args.length === 1 && args[0]!.length === 0) return [];
    if (args.length < np || (!m.variadic && args.length > np)) {
      if (m.variadic && args.length === np) { args.push([]); return args; }
      this.diags.error('pp-macro-args', `macro '${m.name}' ${args.length > np ? 'passed' : 'requires'} ${np} arguments, but ${args.length > np ? 'takes just ' + np : 'only ' + args.length + ' given'}`, at.span);
      return undefined;
    }
    if (m.variadic && args.length === np) args.push([]);
    return args;
  }

  /** Fully macro-expand a list in isolation (macro arguments, #if lines). */
  private expandList(toks: Token[]): Token[] {
    const saved = this.stack;
    this.stack = [{ kind: 'eof', text: '<end-of-list>', span: toks[0]?.span ?? saved[0]?.span ?? { file: '', line: 0, col: 0, endLine: 0, endCol: 0 }, bol: true, space: false }];
    for (let k = toks.length - 1; k >= 0; k--) this.stack.push(toks[k]!);
    const r: Token[] = [];
    for (;;) {
      const t = this.next();
      if (t.kind === 'eof') break;
      if (t.kind === 'id' && this.expand(t)) continue;
      r.push(t);
    }
    this.stack = saved;
    return r;
  }

  private substitute(m: Macro, args: Token[][], at: Token): Token[] {
    const params = m.params ?? [];
    const argIndex = (t: Token | undefined): number => {
      if (!t || t.kind !== 'id') return -1;
      if (t.text === '__VA_ARGS__' && m.variadic) return params.length;
      return params.indexOf(t.text);
    };
    const expanded = new Map<number, Token[]>();
    const expandedArg = (i: number): Token[] => {
      let e = expanded.get(i);
      if (!e) { e = this.expandList(args[i] ?? []); expanded.set(i, e); }
      return e;
    };
    const out: Token[] = [];
    const body = m.body;
    for (let k = 0; k < body.length; k++) {
      const t = body[k]!;
      if (t.text === '#' && t.kind === 'punct' && m.params) {
        const ai = argIndex(body[k + 1]);
        if (ai >= 0) {
          out.push(this.stringize(args[ai] ?? [], at, t.space));
          k++;
          continue;
        }
        this.diags.error('pp-stringize', "'#' is not followed by a macro parameter", at.span);
        continue;
      }
      if (t.text === '##' && t.kind === 'punct') {
        const rhs = body[k + 1];
        k++;
        if (!rhs || out.length === 0) {
          this.diags.error('pp-paste', "'##' cannot appear at either end of a macro expansion", at.span);
          continue;
        }
        const ai = argIndex(rhs);
        // GNU comma elision: `, ## __VA_ARGS__` drops the comma when there are no variadic arguments.
        if (ai === params.length && m.variadic && out[out.length - 1]!.text === ',') {
          const va = args[ai] ?? [];
          if (va.length === 0) out.pop();
          else out.push(...va);
          continue;
        }
        const rtoks = ai >= 0 ? (args[ai] ?? []) : [rhs];
        if (rtoks.length === 0) continue;
        const lhs = out.pop()!;
        out.push(this.paste(lhs, rtoks[0]!, at), ...rtoks.slice(1));
        continue;
      }
      const ai = argIndex(t);
      if (ai >= 0) {
        const nextIsPaste = body[k + 1]?.text === '##';
        const toks = nextIsPaste ? (args[ai] ?? []) : expandedArg(ai);
        toks.forEach((x, j) => out.push(j === 0 ? { ...x, space: t.space } : x));
        continue;
      }
      out.push(t);
    }
    return out;
  }

  private stringize(toks: Token[], at: Token, space: boolean): Token {
    let s = '';
    toks.forEach((t, j) => {
      if (j > 0 && t.space) s += ' ';
      s += t.text;
    });
    const bytes = [...new TextEncoder().encode(s)];
    return { kind: 'str', text: JSON.stringify(s), bytes, span: at.span, bol: false, space };
  }

  private paste(a: Token, b: Token, at: Token): Token {
    const text = a.text + b.text;
    const toks = lex(text, at.span.file, this.diags);
    if (toks.length !== 2) {
      this.diags.error('pp-paste', `pasting formed '${text}', an invalid preprocessing token`, at.span);
      return a;
    }
    return { ...toks[0]!, span: at.span, space: a.space, hide: a.hide };
  }

  private evalIf(rest: Token[], at: Token): boolean {
    // `defined X` is resolved before expansion, as the standard requires.
    const pre: Token[] = [];
    for (let k = 0; k < rest.length; k++) {
      const t = rest[k]!;
      if (t.kind === 'id' && t.text === 'defined') {
        let nm = rest[k + 1];
        if (nm?.text === '(') { nm = rest[k + 2]; k += 3; } else k += 1;
        pre.push({ ...t, kind: 'num', text: this.macros.has(nm?.text ?? '') ? '1' : '0' });
        continue;
      }
      if (t.kind === 'id' && (t.text === '__has_include' || t.text === '__has_builtin' || t.text === '__has_attribute' || t.text === '__has_feature')) {
        // Answer conservatively, consuming the parenthesised argument.
        let j = k + 1, depth = 0;
        for (; j < rest.length; j++) { if (rest[j]!.text === '(') depth++; else if (rest[j]!.text === ')' && --depth === 0) break; }
        const inner = rest.slice(k + 2, j).map((x) => x.text).join('');
        const yes = t.text === '__has_include' ? inner.replace(/[<>"]/g, '') in this.headers : false;
        pre.push({ ...t, kind: 'num', text: yes ? '1' : '0' });
        k = j;
        continue;
      }
      pre.push(t);
    }
    const toks = this.expandList(pre).map((t) => (t.kind === 'id' ? { ...t, kind: 'num' as const, text: t.text === 'true' ? '1' : '0' } : t));
    const ev = new IfEvaluator(toks, this.diags, at);
    const v = ev.parse();
    return v !== 0n;
  }
}

/** Constant expressions of #if, in intmax_t (bigint, 64-bit wrapped). */
class IfEvaluator {
  private k = 0;
  private failed = false;
  constructor(private toks: Token[], private diags: DiagnosticBag, private at: Token) {}

  parse(): bigint {
    if (this.toks.length === 0) {
      this.diags.error('pp-if-empty', '#if with no expression', this.at.span);
      return 0n;
    }
    const v = this.cond();
    if (this.k < this.toks.length && !this.failed) this.fail(`token is not a valid binary operator in a preprocessor subexpression`);
    return this.failed ? 0n : v;
  }
  private fail(msg: string): bigint {
    if (!this.failed) this.diags.error('pp-if-expr', msg, (this.toks[this.k] ?? this.at).span);
    this.failed = true;
    this.k = this.toks.length;
    return 0n;
  }
  private peek(): string | undefined {
    return this.toks[this.k]?.text;
  }
  private cond(): bigint {
    const c = this.binary(0);
    if (this.peek() === '?') {
      this.k++;
      const a = this.cond();
      if (this.peek() !== ':') return this.fail("expected ':' in preprocessor expression");
      this.k++;
      const b = this.cond();
      return c !== 0n ? a : b;
    }
    return c;
  }
  private static PREC: Record<string, number> = { '||': 1, '&&': 2, '|': 3, '^': 4, '&': 5, '==': 6, '!=': 6, '<': 7, '>': 7, '<=': 7, '>=': 7, '<<': 8, '>>': 8, '+': 9, '-': 9, '*': 10, '/': 10, '%': 10 };
  private binary(minPrec: number): bigint {
    let l = this.unary();
    for (;;) {
      const op = this.peek();
      const p = op !== undefined ? IfEvaluator.PREC[op] : undefined;
      if (p === undefined || p <= minPrec - 1 || p < minPrec) return l;
      this.k++;
      const r = this.binary(p + 1);
      l = BigInt.asIntN(64, this.apply(op!, l, r));
    }
  }
  private apply(op: string, l: bigint, r: bigint): bigint {
    switch (op) {
      case '||': return l !== 0n || r !== 0n ? 1n : 0n;
      case '&&': return l !== 0n && r !== 0n ? 1n : 0n;
      case '|': return l | r;
      case '^': return l ^ r;
      case '&': return l & r;
      case '==': return l === r ? 1n : 0n;
      case '!=': return l !== r ? 1n : 0n;
      case '<': return l < r ? 1n : 0n;
      case '>': return l > r ? 1n : 0n;
      case '<=': return l <= r ? 1n : 0n;
      case '>=': return l >= r ? 1n : 0n;
      case '<<': return l << (r & 63n);
      case '>>': return l >> (r & 63n);
      case '+': return l + r;
      case '-': return l - r;
      case '*': return l * r;
      case '/': return r === 0n ? this.fail('division by zero in preprocessor expression') : l / r;
      default: return r === 0n ? this.fail('division by zero in preprocessor expression') : l % r;
    }
  }
  private unary(): bigint {
    const t = this.toks[this.k];
    if (!t) return this.fail('expected value in expression');
    this.k++;
    switch (t.text) {
      case '-': return BigInt.asIntN(64, -this.unary());
      case '+': return this.unary();
      case '!': return this.unary() === 0n ? 1n : 0n;
      case '~': return BigInt.asIntN(64, ~this.unary());
      case '(': {
        const v = this.cond();
        if (this.peek() !== ')') return this.fail("expected ')' in preprocessor expression");
        this.k++;
        return v;
      }
    }
    if (t.kind === 'num') {
      const n = parseNumber(t.text);
      if (n.error) return this.fail(n.error);
      return BigInt.asIntN(64, n.value);
    }
    if (t.kind === 'char') return t.value ?? 0n;
    this.k--;
    return this.fail(`invalid token at start of a preprocessor expression`);
  }
}
