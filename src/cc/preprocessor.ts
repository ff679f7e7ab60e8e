/**
 * The C preprocessor, as clang runs it for -target bpf: #include and
 * #include_next through an IncludeSearch (clang's search order), #pragma once
 * and include guards (a guarded file is not even re-read), object- and
 * function-like macros (# and ##, placemarkers, __VA_ARGS__, GNU named
 * variadics `args...`, GNU's `, ## args`, __VA_OPT__), _Pragma, conditionals
 * with defined / __has_include / __has_include_next / __has_attribute /
 * __has_builtin / __has_feature, #error/#warning, clang's predefined macros,
 * and `#pragma unroll` (passed on to the parser as a 'pragma' token).
 *
 * Expansion follows the hideset rule, so self-referential macros stop
 * instead of looping; include depth and the number of expansions are
 * bounded, so no input can hang it. Tokens are read through a stack of
 * frames (a file's token array and an index, or a macro's expansion), so a
 * 7000-line header is never copied; the main file is read from a compact
 * TokenTape. run() returns every token; start() and pull() hand them out one
 * at a time (what the compiler uses, so the tokens never all exist at once).
 */
import { DiagnosticPragmas } from './diag_pragmas';
import { type DiagnosticBag, type Span } from './diagnostics';
import { IncludeSearch } from './includes';
import { fullToken, hasRareFields, lex, lexTape, makeToken, parseNumber, type Token, type TokenTape } from './lexer';
import { CLANG_BPF_PREDEFINED } from './predefined';
import { CLANG_ATTRIBUTES, CLANG_BUILTINS, CLANG_FEATURES } from './pp_features';

interface Macro {
  name: string;
  params?: string[];
  /** The variadic parameter's name: '__VA_ARGS__', or GNU's `args` in `args...`. */
  vaName?: string;
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

interface FileCtx {
  path: string;
  /** Where in the search list it was found (for #include_next). */
  dirIndex: number;
  /** Open conditionals when the file started (an #if may not span files). */
  condDepth: number;
  /** The include guard macro, when the whole file is one #ifndef X / #define X … #endif. */
  guard?: string;
  /** -imacros: keep the macros, drop the tokens. */
  discard: boolean;
}

/** Tokens being read: a file (then `file` is set) or a macro expansion. */
interface Frame {
  toks: readonly Token[];
  /** The main file is read from a tape instead (then toks is empty). */
  tape?: TokenTape;
  i: number;
  file?: FileCtx;
}

function frameLength(f: Frame): number {
  return f.tape ? f.tape.length : f.toks.length;
}
function frameAt(f: Frame, i: number): Token {
  return f.tape ? f.tape.at(i)! : f.toks[i]!;
}

const MAX_INCLUDE_DEPTH = 200;
const MAX_EXPANSIONS = 2_000_000;

/** Lexed files by path; the text is compared so an edited file is lexed again. */
const LEX_CACHE = new Map<string, { text: string; toks: Token[]; guard: string | null }>();

/** The predefined macros' tokens, lexed once. */
let PREDEFINED_TOKENS: Map<string, Token[]> | undefined;

/** Operators valid in #if; `defined(X)` is true for them, as in clang. */
const HAS_OPERATORS = new Set(['__has_include', '__has_include_next', '__has_attribute', '__has_builtin', '__has_feature', '__has_extension', '__has_c_attribute', '__has_cpp_attribute', '__has_declspec_attribute', '__has_warning', '__is_identifier']);

const NO_SPAN_AT: Span = { file: '<built-in>', line: 0, col: 0, endLine: 0, endCol: 0 };
const EOF_TOKEN: Token = makeToken('eof', '', NO_SPAN_AT, true, false);

/** The predefined macros with a few of them adjusted by flags (-O0, -std=, -mcpu=). */
export interface PredefineOptions {
  optimize?: boolean;
  stdVersion?: string;
  strictAnsi?: boolean;
  cpuVersion?: number;
}

export class Preprocessor {
  private macros = new Map<string, Macro>();
  private frames: Frame[] = [];
  private out: Token[] = [];
  private conds: Cond[] = [];
  private onceFiles = new Set<string>();
  private files: FileCtx[] = [];
  private expansions = 0;
  private counter = 0;
  private search: IncludeSearch;
  private mainFile = '';
  /** Open -imacros files. */
  private discarding = 0;
  /** pull(): the next token of this.out to hand out, whether the input is done, the last token's span, the final 'eof'. */
  private outHead = 0;
  private finished = false;
  private lastSpan?: Span;
  private eofToken?: Token;
  /** `#pragma GCC diagnostic` state by place in the source (applied to the warnings after compiling). */
  readonly diagPragmas = new DiagnosticPragmas();

  constructor(
    private diags: DiagnosticBag,
    search: IncludeSearch | Readonly<Record<string, string>>,
    predef: PredefineOptions = {},
  ) {
    // A plain record is a set of headers by include name, found by that name (the editor's completion probe).
    this.search = search instanceof IncludeSearch ? search : new IncludeSearch({ readFile: (p) => search[p], builtin: search, builtinDir: '', nostdinc: false });
    if (!PREDEFINED_TOKENS) {
      PREDEFINED_TOKENS = new Map();
      for (const [k, v] of [...CLANG_BPF_PREDEFINED, ['__XDP_LAB__', '1'] as const]) PREDEFINED_TOKENS.set(k, lex(v, '<built-in>', diags).filter((t) => t.kind !== 'eof'));
    }
    for (const [name, body] of PREDEFINED_TOKENS) this.macros.set(name, { name, body });
    if (predef.optimize === false) {
      this.macros.delete('__OPTIMIZE__');
      this.define('__NO_INLINE__', '1');
    }
    if (predef.stdVersion) this.define('__STDC_VERSION__', predef.stdVersion);
    if (predef.strictAnsi) this.define('__STRICT_ANSI__', '1');
    if (predef.cpuVersion !== undefined) this.define('__BPF_CPU_VERSION__', String(predef.cpuVersion));
    const mk = (name: string, f: (at: Token) => Token): void => void this.macros.set(name, { name, body: [], builtin: f });
    const str = (at: Token, s: string): Token => {
      return fullToken('str', JSON.stringify(s), at.span, at.bol, at.space, { bytes: [...new TextEncoder().encode(s)] });
    };
    const num = (at: Token, n: number): Token => makeToken('num', String(n), at.span, at.bol, at.space);
    mk('__LINE__', (at) => num(at, at.span.line));
    mk('__FILE__', (at) => str(at, at.span.file));
    mk('__FILE_NAME__', (at) => str(at, at.span.file.slice(at.span.file.lastIndexOf('/') + 1)));
    mk('__BASE_FILE__', (at) => str(at, this.mainFile));
    mk('__COUNTER__', (at) => num(at, this.counter++));
    mk('__INCLUDE_LEVEL__', (at) => num(at, Math.max(0, this.files.length - 1)));
    // The core is deterministic: the build date is a fixed one.
    mk('__DATE__', (at) => str(at, 'Jan  1 1970'));
    mk('__TIME__', (at) => str(at, '00:00:00'));
    mk('__TIMESTAMP__', (at) => str(at, 'Thu Jan  1 00:00:00 1970'));
  }

  /** Define an object-like macro from text (-D, predefined macros). */
  define(name: string, value: string): void {
    const body = lex(value, '<command line>', this.diags).filter((t) => t.kind !== 'eof');
    this.macros.set(name, { name, body });
  }

  /** -D NAME=VALUE, where NAME may be function-like ("-D'F(x)=x'"). */
  defineFromFlag(name: string, value: string): void {
    const toks = lex(`${name} ${value}`, '<command line>', this.diags).filter((t) => t.kind !== 'eof');
    const paren = name.indexOf('(');
    // lex puts a space before VALUE; a function-like name's '(' must stay glued.
    if (paren > 0 && toks[1]) toks[1] = retoken(toks[1], toks[1].span, undefined, false, false);
    this.defineDirective(toks, toks[0]!);
  }

  undefine(name: string): void {
    this.macros.delete(name);
  }

  /**
   * Run a file. `preincludes` are -include files, read as if #included
   * first by the main file; `imacros` are -imacros files, read before those
   * for their macros only.
   */
  run(src: string, file: string, preincludes: readonly string[] = [], imacros: readonly string[] = []): Token[] {
    this.start(src, file, preincludes, imacros);
    while (this.step()) { /* every token into this.out */ }
    this.out.push(this.endToken());
    return this.out;
  }

  /**
   * The streaming form of run(): start(), then pull() hands out the
   * preprocessed tokens one at a time, ending with one 'eof' (and 'eof'
   * after that). The parser pulls as it goes, so a token dies young once
   * parsed instead of a list of every token living through preprocessing
   * and parsing. The tokens and diagnostics are run()'s, in the same order.
   */
  start(src: string, file: string, preincludes: readonly string[] = [], imacros: readonly string[] = []): void {
    this.mainFile = file;
    this.pushFile(src, file, -1, false);
    // Command-line files go on top of the main file: the last pushed is read first.
    const pre = [...imacros.map((n) => ({ n, discard: true })), ...preincludes.map((n) => ({ n, discard: false }))];
    for (let k = pre.length - 1; k >= 0; k--) {
      const { n, discard } = pre[k]!;
      const found = this.search.find(n, false, file);
      const flag = discard ? '-imacros' : '-include';
      if (!found) this.diags.error('pp-include-not-found', this.search.explainMissing(n, false, file).replace('file not found', `file not found (${flag})`), { file: '<command line>', line: 0, col: 0, endLine: 0, endCol: 0 });
      else this.pushFile(found.text, found.path, found.dirIndex, true, discard);
    }
  }

  /** Read until at least one more token is in this.out (directives may add none or several); false at the end. */
  private step(): boolean {
    for (;;) {
      const t = this.next();
      if (t.kind === 'eof') {
        if (this.endFile()) continue;
        this.finished = true;
        return false;
      }
      if (t.kind === 'punct' && t.text === '#' && t.bol && !t.hide) {
        this.directive(t);
        return true;
      }
      if (!this.active() || this.discarding > 0) continue;
      if (t.kind === 'id' && this.expand(t, false)) continue;
      if (t.bad) this.diags.error(t.bad.code, t.bad.message, t.span);
      this.out.push(t);
      this.lastSpan = t.span;
      return true;
    }
  }

  /** The closing 'eof', at the last token's place. */
  private endToken(): Token {
    const last = this.out.length ? this.out[this.out.length - 1]!.span : this.lastSpan;
    return makeToken('eof', '', last ?? { file: this.mainFile, line: 1, col: 1, endLine: 1, endCol: 1 }, true, false);
  }

  /** The next preprocessed token (see start()). */
  pull(): Token {
    while (this.outHead >= this.out.length) {
      if (this.finished) return this.eofToken ??= this.endToken();
      this.out.length = 0;
      this.outHead = 0;
      this.step();
    }
    const t = this.out[this.outHead++]!;
    this.lastSpan = t.span;
    return t;
  }

  private active(): boolean {
    return this.conds.length === 0 || this.conds[this.conds.length - 1]!.active;
  }

  private pushFile(src: string, path: string, dirIndex: number, included: boolean, discard = false): void {
    this.diagPragmas.enterFile(path);
    if (!included) {
      // The user's main file changes on every keystroke and may be big: read it from a tape
      // (no include guard to find: nothing includes it again through the cache).
      const ctx: FileCtx = { path, dirIndex, condDepth: this.conds.length, discard };
      if (discard) this.discarding++;
      this.files.push(ctx);
      this.frames.push({ toks: [], tape: lexTape(src, path, this.diags), i: 0, file: ctx });
      return;
    }
    let c = LEX_CACHE.get(path);
    if (!c || c.text !== src) {
      const toks = lex(src, path, this.diags);
      c = { text: src, toks, guard: findGuard(toks) };
      LEX_CACHE.set(path, c);
    }
    const ctx: FileCtx = { path, dirIndex, condDepth: this.conds.length, guard: c.guard ?? undefined, discard };
    if (discard) this.discarding++;
    this.files.push(ctx);
    this.frames.push({ toks: c.toks, i: 0, file: ctx });
  }

  /** At a file's end: pop it; false at the end of the main file. */
  private endFile(): boolean {
    const f = this.frames.pop();
    const ctx = this.files.pop();
    if (ctx) {
      if (ctx.discard) this.discarding--;
      while (this.conds.length > ctx.condDepth) {
        const c = this.conds.pop()!;
        this.diags.error('pp-unterminated-if', 'unterminated conditional directive', c.span);
      }
    }
    return !!f && this.frames.length > 0;
  }

  private next(): Token {
    for (;;) {
      const f = this.frames[this.frames.length - 1];
      if (!f) return EOF_TOKEN;
      if (f.i < frameLength(f)) {
        const t = frameAt(f, f.i);
        // A file's eof stays put until run() pops the file.
        if (t.kind === 'eof' && f.file) return t;
        f.i++;
        return t;
      }
      if (f.file) return EOF_TOKEN;
      this.frames.pop();
    }
  }

  private peek(): Token | undefined {
    for (let k = this.frames.length - 1; k >= 0; k--) {
      const f = this.frames[k]!;
      if (f.i < frameLength(f)) return frameAt(f, f.i);
      if (f.file) return undefined;
    }
    return undefined;
  }

  private pushTokens(toks: readonly Token[]): void {
    if (toks.length) this.frames.push({ toks, i: 0 });
  }

  /** The rest of the directive line (directives only come from files). */
  private lineTokens(): Token[] {
    const f = this.frames[this.frames.length - 1]!;
    const r: Token[] = [];
    while (f.i < frameLength(f)) {
      const t = frameAt(f, f.i);
      if (t.bol || t.kind === 'eof') break;
      r.push(t);
      f.i++;
    }
    return r;
  }

  private currentFile(): FileCtx | undefined {
    return this.files[this.files.length - 1];
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
            v = this.isDefined(rest[0]?.text ?? '') === (d === 'ifdef');
          }
        }
        this.conds.push({ active: active && v, taken: v, outer: active, elseSeen: false, span: hash.span });
        return;
      }
      case 'elif':
      case 'elifdef':
      case 'elifndef':
      case 'else': {
        const c = this.conds[this.conds.length - 1];
        if (!c || this.conds.length <= (this.currentFile()?.condDepth ?? 0)) return this.diags.error('pp-stray', `#${d} without #if`, name.span);
        if (c.elseSeen) return this.diags.error('pp-stray', `#${d} after #else`, name.span);
        if (d === 'else') {
          c.elseSeen = true;
          c.active = c.outer && !c.taken;
          c.taken = true;
        } else {
          let v = false;
          if (c.outer && !c.taken) v = d === 'elif' ? this.evalIf(rest, name) : this.isDefined(rest[0]?.text ?? '') === (d === 'elifdef');
          c.active = v;
          c.taken ||= v;
        }
        return;
      }
      case 'endif':
        if (this.conds.length <= (this.currentFile()?.condDepth ?? 0)) return this.diags.error('pp-stray', '#endif without #if', name.span);
        this.conds.pop();
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
      case 'include_next':
      case 'import':
        return this.include(rest, name, d === 'include_next');
      case 'error':
        return this.diags.error('pp-error', rest.map((t) => (t.space ? ' ' : '') + t.text).join('').trim() || '#error', hash.span);
      case 'warning':
        return this.diags.warning('pp-warning', rest.map((t) => (t.space ? ' ' : '') + t.text).join('').trim() || '#warning', hash.span);
      case 'pragma':
        return this.pragma(rest, hash);
      case 'line':
      case 'ident':
      case 'sccs':
        return;
      default:
        this.diags.error('pp-invalid-directive', `invalid preprocessing directive '#${d}'`, name.span);
    }
  }

  private isDefined(name: string): boolean {
    return this.macros.has(name) || HAS_OPERATORS.has(name) || name === '_Pragma';
  }

  private pragma(rest: Token[], at: Token): void {
    const words = rest.map((t) => t.text);
    if (this.diagPragmas.pragma(words, at.span)) return;
    if (words[0] === 'once') {
      this.onceFiles.add(this.currentFile()?.path ?? '');
      return;
    }
    const unroll = words[0] === 'unroll' || (words[0] === 'GCC' && words[1] === 'unroll') || (words[0] === 'clang' && words[1] === 'loop' && words.includes('unroll'));
    if (unroll) {
      const numTok = rest.find((t) => t.kind === 'num');
      const count = numTok ? Number(parseNumber(numTok.text).value) : undefined;
      const disabled = words.includes('disable');
      this.out.push(fullToken('pragma', disabled ? 'nounroll' : 'unroll', at.span, true, false, { value: count === undefined ? undefined : BigInt(count) }));
    } else if (words[0] === 'nounroll') {
      this.out.push(makeToken('pragma', 'nounroll', at.span, true, false));
    }
    // Other pragmas (clang attribute, pack…) change nothing we model.
  }

  /** The file name of an #include / __has_include operand: "x.h" or <x.h>, possibly from a macro. */
  private includeName(rest: Token[]): { name: string; angled: boolean } | undefined {
    let toks = rest;
    if (toks[0]?.kind === 'id') toks = this.expandList(toks, false);
    const first = toks[0];
    // An unterminated "x.h (the lexer ends the string at the line's end) is not a file name.
    if (first?.kind === 'str') return first.text.length >= 2 && first.text.endsWith('"') ? { name: first.text.slice(1, -1), angled: false } : undefined;
    if (first?.text === '<') {
      const end = toks.findIndex((t) => t.text === '>');
      if (end > 0) {
        let s = '';
        toks.slice(1, end).forEach((t, j) => { s += (j > 0 && t.space ? ' ' : '') + t.text; });
        return { name: s, angled: true };
      }
    }
    return undefined;
  }

  private include(rest: Token[], at: Token, next: boolean): void {
    const inc = this.includeName(rest);
    if (!inc) {
      const open = rest[0]?.kind === 'str' ? rest[0] : undefined;
      return this.diags.error('pp-include-syntax', open ? `expected "FILENAME" or <FILENAME>: missing terminating '"' character` : `expected "FILENAME" or <FILENAME>`, (open ?? at).span);
    }
    const cur = this.currentFile();
    // #include_next in the main file (or a file found by its includer's folder) searches from the start, as clang does.
    const after = next && cur && cur.dirIndex >= 0 ? cur.dirIndex : undefined;
    const found = this.search.find(inc.name, inc.angled, cur?.path, after);
    if (!found) return this.diags.error('pp-include-not-found', this.search.explainMissing(inc.name, inc.angled, cur?.path), (rest[0] ?? at).span);
    if (this.onceFiles.has(found.path)) return;
    const cached = LEX_CACHE.get(found.path);
    if (cached && cached.text === found.text && cached.guard && this.macros.has(cached.guard)) return;
    if (this.files.length >= MAX_INCLUDE_DEPTH) {
      const chain = this.files.slice(-4).map((f) => f.path).join(' → ');
      return this.diags.error('pp-include-depth', `#include nested too deeply (limit ${MAX_INCLUDE_DEPTH}; an include cycle? … ${chain} → ${found.path})`, at.span);
    }
    this.pushFile(found.text, found.path, found.dirIndex, true);
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
        if (t.text === ')' && m.params.length === 0) { k++; break; }
        if (t.text === '...') {
          m.vaName = '__VA_ARGS__';
          k++;
          if (rest[k]?.text !== ')') return this.diags.error('pp-macro-params', "missing ')' in macro parameter list", t.span);
          k++;
          break;
        }
        if (t.kind !== 'id') return this.diags.error('pp-macro-params', 'invalid token in macro parameter list', t.span);
        k++;
        // GNU named variadic parameter: `args...`.
        if (rest[k]?.text === '...') {
          m.vaName = t.text;
          k++;
          if (rest[k]?.text !== ')') return this.diags.error('pp-macro-params', "missing ')' in macro parameter list", t.span);
          k++;
          break;
        }
        m.params.push(t.text);
        if (rest[k]?.text === ',') k++;
        else if (rest[k]?.text === ')') { k++; break; }
        else return this.diags.error('pp-macro-params', 'expected comma in macro parameter list', (rest[k] ?? t).span);
      }
    }
    m.body = rest.slice(k);
    if (m.body.length) { const b = m.body[0]!; m.body = [retoken(b, b.span, b.hide, b.bol, false), ...m.body.slice(1)]; }
    this.macros.set(m.name, m);
  }

  /** Try to expand t as a macro; true when the expansion was pushed back for rescanning. */
  private expand(t: Token, inIf: boolean): boolean {
    if (t.text === '_Pragma' && !t.hide?.has('_Pragma')) return this.pragmaOperator(t);
    const m = this.macros.get(t.text);
    if (!m || t.hide?.has(t.text)) return false;
    if (++this.expansions > MAX_EXPANSIONS) {
      if (this.expansions === MAX_EXPANSIONS + 1) this.diags.error('pp-expansion-limit', 'macro expansion limit exceeded', t.span);
      return false;
    }
    if (m.builtin) {
      const b = m.builtin(t);
      this.pushTokens([retoken(b, b.span, new Set([m.name]), t.bol, t.space)]);
      return true;
    }
    let hide: Set<string>;
    let body: Token[];
    if (!m.params) {
      hide = new Set(t.hide ?? []);
      hide.add(m.name);
      body = this.substitute(m, [], t);
    } else {
      const p = this.peek();
      if (!p || p.text !== '(' || p.kind !== 'punct') return false;
      this.next();
      const call = this.readArgs(m, t, inIf);
      if (!call) {
        // Stand in a 0 for the failed invocation so the parser does not cascade.
        const zero = makeToken('num', '0', t.span, t.bol, t.space);
        zero.hide = new Set([m.name]);
        this.pushTokens([zero]);
        return true;
      }
      // The hideset of a function-like expansion: the name's and the closing parenthesis's, plus the name.
      hide = new Set<string>();
      if (t.hide && call.close.hide) for (const x of t.hide) if (call.close.hide.has(x)) hide.add(x);
      hide.add(m.name);
      body = this.substitute(m, call.args, t);
    }
    const outToks: Token[] = new Array<Token>(body.length);
    for (let k = 0; k < body.length; k++) {
      const b = body[k]!;
      let h: ReadonlySet<string> = hide;
      if (b.hide && b.hide.size) {
        let sub = true;
        for (const x of b.hide) if (!hide.has(x)) { sub = false; break; }
        if (!sub) {
          const u = new Set(b.hide);
          for (const x of hide) u.add(x);
          h = u;
        }
      }
      outToks[k] = retoken(b, t.span, h, k === 0 ? t.bol : false, k === 0 ? t.space : b.space);
    }
    if (outToks.length === 0) {
      // An empty expansion still separates tokens: keep the invocation's spacing on what follows.
      return true;
    }
    this.pushTokens(outToks);
    return true;
  }

  /** `_Pragma("…")`: run it as a #pragma. */
  private pragmaOperator(t: Token): boolean {
    const p = this.peek();
    if (!p || p.text !== '(') return false;
    this.next();
    const s = this.next();
    const close = this.next();
    if (s.kind !== 'str' || close.text !== ')') {
      this.diags.error('pp-pragma', '_Pragma takes a parenthesized string literal', t.span);
      return true;
    }
    const text = s.text.slice(1, -1).replace(/\\(["\\])/g, '$1');
    const toks = lex(text, t.span.file, this.diags).filter((x) => x.kind !== 'eof');
    this.pragma(toks, t);
    return true;
  }

  private readArgs(m: Macro, at: Token, inIf: boolean): { args: Token[][]; close: Token } | undefined {
    const args: Token[][] = [[]];
    const np = m.params!.length;
    let depth = 0;
    let close: Token;
    for (;;) {
      const t = this.next();
      if (t.kind === 'eof') {
        this.diags.error('pp-unterminated-call', `unterminated function-like macro invocation '${m.name}'`, at.span);
        return undefined;
      }
      // A directive inside macro arguments (clang allows it as an extension): run it.
      if (!inIf && t.kind === 'punct' && t.text === '#' && t.bol && !t.hide && this.frames[this.frames.length - 1]?.file) {
        this.directive(t);
        continue;
      }
      if (!this.active()) continue;
      if (t.text === '(' && t.kind === 'punct') depth++;
      else if (t.text === ')' && t.kind === 'punct') {
        if (depth === 0) { close = t; break; }
        depth--;
      } else if (t.text === ',' && t.kind === 'punct' && depth === 0 && !(m.vaName && args.length > np)) {
        args.push([]);
        continue;
      }
      args[args.length - 1]!.push(t);
    }
    if (np === 0 && !m.vaName && args.length === 1 && args[0]!.length === 0) return { args: [], close };
    if (m.vaName && args.length === np) args.push([]);
    if (args.length < np || (!m.vaName && args.length > np) || (m.vaName && args.length < np)) {
      this.diags.error('pp-macro-args', `macro '${m.name}' ${args.length > np ? 'passed' : 'requires'} ${np} arguments, but ${args.length > np ? 'takes just ' + np : 'only ' + args.length + ' given'}`, at.span);
      return undefined;
    }
    return { args, close };
  }

  /** Fully macro-expand a list in isolation (macro arguments, #if lines, #include operands). */
  private expandList(toks: readonly Token[], inIf: boolean): Token[] {
    const saved = this.frames;
    this.frames = [{ toks, i: 0 }];
    const r: Token[] = [];
    for (;;) {
      const t = this.next();
      if (t.kind === 'eof') break;
      if (t.kind === 'id') {
        if (inIf && (t.text === 'defined' || HAS_OPERATORS.has(t.text))) {
          r.push(this.ifOperator(t));
          continue;
        }
        if (this.expand(t, inIf)) continue;
      }
      r.push(t);
    }
    this.frames = saved;
    return r;
  }

  /** `defined X`, `defined(X)`, `__has_include(<x.h>)`… in #if: read the operand unexpanded, give 0 or 1. */
  private ifOperator(t: Token): Token {
    const num = (v: boolean): Token => makeToken('num', v ? '1' : '0', t.span, t.bol, t.space);
    if (t.text === 'defined') {
      let nm = this.next();
      if (nm.text === '(') {
        const id = this.next();
        if (this.next().text !== ')') this.diags.error('pp-if-expr', "missing ')' after 'defined'", t.span);
        nm = id;
      }
      if (nm.kind !== 'id') this.diags.error('pp-macro-name', "macro name missing after 'defined'", t.span);
      return num(this.isDefined(nm.text));
    }
    if (this.peek()?.text !== '(') {
      this.diags.error('pp-if-expr', `missing '(' after '${t.text}'`, t.span);
      return num(false);
    }
    this.next();
    const inner: Token[] = [];
    for (let depth = 0; ;) {
      const x = this.next();
      if (x.kind === 'eof') break;
      if (x.text === '(') depth++;
      if (x.text === ')' && depth-- === 0) break;
      inner.push(x);
    }
    switch (t.text) {
      case '__has_include':
      case '__has_include_next': {
        const inc = this.includeName(inner);
        if (!inc) {
          this.diags.error('pp-include-syntax', `expected "FILENAME" or <FILENAME> in ${t.text}`, t.span);
          return num(false);
        }
        const cur = this.currentFile();
        const after = t.text === '__has_include_next' && cur && cur.dirIndex >= 0 ? cur.dirIndex : undefined;
        return num(this.search.find(inc.name, inc.angled, cur?.path, after) !== undefined);
      }
      case '__has_attribute':
      case '__has_c_attribute':
      case '__has_declspec_attribute': {
        const name = inner.map((x) => x.text).join('').replace(/^__(.*)__$/, '$1').replace(/^(gnu|clang)::/, '');
        return num(t.text !== '__has_declspec_attribute' && CLANG_ATTRIBUTES.has(name));
      }
      case '__has_builtin':
        return num(CLANG_BUILTINS.has(inner.map((x) => x.text).join('')));
      case '__has_feature':
      case '__has_extension':
        return num(CLANG_FEATURES.has(inner.map((x) => x.text).join('')));
      case '__is_identifier':
        return num(inner[0]?.kind === 'id' && !KEYWORDS.has(inner[0].text));
      default:
        return num(false);
    }
  }

  private substitute(m: Macro, args: Token[][], at: Token): Token[] {
    const params = m.params ?? [];
    const vaIndex = m.vaName ? params.length : -1;
    const argIndex = (t: Token | undefined): number => {
      if (!t || t.kind !== 'id') return -1;
      if (m.vaName && t.text === m.vaName) return vaIndex;
      return params.indexOf(t.text);
    };
    const expanded = new Map<number, Token[]>();
    const expandedArg = (i: number): Token[] => {
      let e = expanded.get(i);
      if (!e) { e = this.expandList(args[i] ?? [], false); expanded.set(i, e); }
      return e;
    };
    return this.substituteBody(m.body, m, args, at, argIndex, expandedArg, vaIndex);
  }

  private substituteBody(body: readonly Token[], m: Macro, args: Token[][], at: Token, argIndex: (t: Token | undefined) => number, expandedArg: (i: number) => Token[], vaIndex: number): Token[] {
    const out: Token[] = [];
    const isPaste = (t: Token | undefined): boolean => t?.kind === 'punct' && t.text === '##';
    for (let k = 0; k < body.length; k++) {
      const t = body[k]!;
      // __VA_OPT__( … ): its content when the variadic argument has tokens, else a placemarker.
      if (t.kind === 'id' && t.text === '__VA_OPT__' && m.vaName && body[k + 1]?.text === '(') {
        let depth = 0, j = k + 1;
        for (; j < body.length; j++) { if (body[j]!.text === '(') depth++; else if (body[j]!.text === ')' && --depth === 0) break; }
        const inner = body.slice(k + 2, j);
        const content = (args[vaIndex] ?? []).length > 0 ? this.substituteBody(inner, m, args, at, argIndex, expandedArg, vaIndex) : [];
        out.push(...(content.length ? content.map((x, q) => (q === 0 ? retoken(x, x.span, x.hide, x.bol, t.space) : x)) : [placemarker(t)]));
        k = j;
        continue;
      }
      if (t.text === '#' && t.kind === 'punct' && m.params) {
        const ai = argIndex(body[k + 1]);
        if (ai >= 0) {
          out.push(stringize(args[ai] ?? [], at, t.space));
          k++;
          continue;
        }
        this.diags.error('pp-stringize', "'#' is not followed by a macro parameter", at.span);
        continue;
      }
      if (isPaste(t)) {
        const rhs = body[k + 1];
        k++;
        if (!rhs || out.length === 0) {
          this.diags.error('pp-paste', "'##' cannot appear at either end of a macro expansion", at.span);
          continue;
        }
        const ai = argIndex(rhs);
        // GNU comma elision: `, ## __VA_ARGS__` drops the comma when there are no variadic arguments.
        if (ai === vaIndex && ai >= 0 && out[out.length - 1]!.text === ',') {
          const va = args[ai] ?? [];
          if (va.length === 0) out.pop();
          else out.push(...va);
          continue;
        }
        let rtoks: Token[];
        if (ai >= 0) rtoks = args[ai] ?? [];
        else if (rhs.kind === 'id' && rhs.text === '__VA_OPT__' && body[k + 1]?.text === '(') {
          // `x ## __VA_OPT__(…)`: substitute the __VA_OPT__ group first, then paste its first token.
          let depth = 0, j = k;
          for (; j < body.length; j++) { if (body[j]!.text === '(') depth++; else if (body[j]!.text === ')' && --depth === 0) break; }
          const inner = body.slice(k + 1, j + 1);
          rtoks = this.substituteBody([rhs, ...inner], m, args, at, argIndex, expandedArg, vaIndex);
          k = j;
        } else rtoks = [rhs];
        const lhs = out.pop()!;
        if (rtoks.length === 0 || rtoks[0]!.placemarker) out.push(lhs, ...rtoks.slice(1));
        else if (lhs.placemarker) out.push(...rtoks);
        else out.push(this.paste(lhs, rtoks[0]!, at), ...rtoks.slice(1));
        continue;
      }
      const ai = argIndex(t);
      if (ai >= 0) {
        const raw = isPaste(body[k + 1]);
        const toks = raw ? (args[ai] ?? []) : expandedArg(ai);
        if (toks.length === 0) { if (raw) out.push(placemarker(t)); continue; }
        for (let j = 0; j < toks.length; j++) { const x = toks[j]!; out.push(j === 0 ? retoken(x, x.span, x.hide, x.bol, t.space) : x); }
        continue;
      }
      out.push(t);
    }
    // Placemarkers only live until pasting is done.
    return out.some((x) => x.placemarker) ? out.filter((x) => !x.placemarker) : out;
  }

  private paste(a: Token, b: Token, at: Token): Token {
    const text = a.text + b.text;
    const toks = lex(text, at.span.file, this.diags);
    if (toks.length !== 2) {
      this.diags.error('pp-paste', `pasting formed '${text}', an invalid preprocessing token`, at.span);
      return a;
    }
    return retoken(toks[0]!, at.span, a.hide, a.bol, a.space);
  }

  private evalIf(rest: Token[], at: Token): boolean {
    const toks = this.expandList(rest, true).map((t) => (t.kind === 'id' ? makeToken('num', '0', t.span, t.bol, t.space) : t));
    const ev = new IfEvaluator(toks, this.diags, at);
    return ev.parse();
  }
}

/** A copy of b at another place (explicit fields: a spread would give tokens of many shapes). */
function retoken(b: Token, span: Span, hide: ReadonlySet<string> | undefined, bol: boolean, space: boolean): Token {
  const t = hasRareFields(b) ? fullToken(b.kind, b.text, span, bol, space, b) : makeToken(b.kind, b.text, span, bol, space);
  t.hide = hide;
  return t;
}

function placemarker(t: Token): Token {
  const p = fullToken('other', '', t.span, t.bol, t.space, { placemarker: true });
  return p;
}

/** `#x`: the argument's spelling, spaces collapsed, quotes and backslashes in literals escaped. */
function stringize(toks: Token[], at: Token, space: boolean): Token {
  let s = '';
  toks.forEach((t, j) => {
    if (j > 0 && (t.space || t.bol)) s += ' ';
    s += t.text;
  });
  const t = fullToken('str', '"' + s.replace(/[\\"]/g, (c) => '\\' + c) + '"', at.span, false, space, { bytes: [...new TextEncoder().encode(s)] });
  return t;
}

/**
 * The include guard of a lexed file: the X of a file that is exactly
 * `#ifndef X` / `#define X` … `#endif` (comments aside), or null.
 */
function findGuard(toks: Token[]): string | null {
  const t0 = toks[0], t1 = toks[1], t2 = toks[2];
  if (!t0 || t0.text !== '#' || !t0.bol || !t1 || !t2 || t2.kind !== 'id') return null;
  let name: string;
  if (t1.text === 'ifndef') name = t2.text;
  else if (t1.text === 'if' && t2.text === '!' && toks[3]?.text === 'defined') {
    const paren = toks[4]?.text === '(';
    name = toks[paren ? 5 : 4]?.text ?? '';
    if (!name) return null;
  } else return null;
  // The matching #endif must be the last thing in the file.
  let depth = 0;
  for (let k = 0; k < toks.length; k++) {
    const t = toks[k]!;
    if (t.text !== '#' || !t.bol) continue;
    const d = toks[k + 1]?.text;
    if (d === 'if' || d === 'ifdef' || d === 'ifndef') depth++;
    else if (d === 'endif') {
      depth--;
      if (depth === 0) {
        let j = k + 2;
        while (toks[j] && !toks[j]!.bol && toks[j]!.kind !== 'eof') j++;
        return toks[j]?.kind === 'eof' ? name : null;
      }
    }
  }
  return null;
}

const KEYWORDS = new Set(['auto', 'break', 'case', 'char', 'const', 'continue', 'default', 'do', 'double', 'else', 'enum', 'extern', 'float', 'for', 'goto', 'if', 'inline', 'int', 'long', 'register', 'restrict', 'return', 'short', 'signed', 'sizeof', 'static', 'struct', 'switch', 'typedef', 'union', 'unsigned', 'void', 'volatile', 'while', '_Alignas', '_Alignof', '_Atomic', '_Bool', '_Complex', '_Generic', '_Imaginary', '_Noreturn', '_Static_assert', '_Thread_local', '__attribute__', 'typeof', '__typeof__', 'asm', '__asm__']);

/** An #if value: intmax_t or uintmax_t (C11 6.10.1p4). */
interface PPValue { v: bigint; u: boolean }

/** Constant expressions of #if, in intmax_t / uintmax_t. */
class IfEvaluator {
  private k = 0;
  private failed = false;
  /** Inside an operand that is not evaluated. */
  private quiet = 0;
  constructor(private toks: Token[], private diags: DiagnosticBag, private at: Token) {}

  parse(): boolean {
    if (this.toks.length === 0) {
      this.diags.error('pp-if-empty', '#if with no expression', this.at.span);
      return false;
    }
    const v = this.cond();
    if (this.k < this.toks.length && !this.failed) this.fail('token is not a valid binary operator in a preprocessor subexpression');
    return !this.failed && v.v !== 0n;
  }
  private fail(msg: string): PPValue {
    if (!this.failed) this.diags.error('pp-if-expr', msg, (this.toks[this.k] ?? this.at).span);
    this.failed = true;
    this.k = this.toks.length;
    return { v: 0n, u: false };
  }
  private peek(): string | undefined {
    return this.toks[this.k]?.text;
  }
  private divZero(): PPValue {
    return this.quiet > 0 ? { v: 0n, u: false } : this.fail('division by zero in preprocessor expression');
  }
  private cond(): PPValue {
    const c = this.binary(1);
    if (this.peek() === '?') {
      this.k++;
      if (c.v === 0n) this.quiet++;
      const a = this.cond();
      if (c.v === 0n) this.quiet--;
      if (this.peek() !== ':') return this.fail("expected ':' in preprocessor expression");
      this.k++;
      if (c.v !== 0n) this.quiet++;
      const b = this.cond();
      if (c.v !== 0n) this.quiet--;
      const u = a.u || b.u;
      return norm(c.v !== 0n ? a.v : b.v, u);
    }
    return c;
  }
  private static PREC: Record<string, number> = { '||': 1, '&&': 2, '|': 3, '^': 4, '&': 5, '==': 6, '!=': 6, '<': 7, '>': 7, '<=': 7, '>=': 7, '<<': 8, '>>': 8, '+': 9, '-': 9, '*': 10, '/': 10, '%': 10 };
  private binary(minPrec: number): PPValue {
    let l = this.unary();
    for (;;) {
      const op = this.peek();
      const p = op !== undefined ? IfEvaluator.PREC[op] : undefined;
      if (p === undefined || p < minPrec) return l;
      this.k++;
      // The unevaluated side of && and || may divide by zero (C11 6.5.13/14).
      const skip = (op === '||' && l.v !== 0n) || (op === '&&' && l.v === 0n);
      if (skip) this.quiet++;
      const r = this.binary(p + 1);
      if (skip) this.quiet--;
      l = this.apply(op!, l, r);
    }
  }
  private apply(op: string, l: PPValue, r: PPValue): PPValue {
    const bool = (b: boolean): PPValue => ({ v: b ? 1n : 0n, u: false });
    if (op === '||') return bool(l.v !== 0n || r.v !== 0n);
    if (op === '&&') return bool(l.v !== 0n && r.v !== 0n);
    // The usual arithmetic conversions: unsigned wins. Shifts keep the left operand's type.
    const u = op === '<<' || op === '>>' ? l.u : l.u || r.u;
    const a = u ? BigInt.asUintN(64, l.v) : l.v;
    const b = u ? BigInt.asUintN(64, r.v) : r.v;
    switch (op) {
      case '|': return norm(a | b, u);
      case '^': return norm(a ^ b, u);
      case '&': return norm(a & b, u);
      case '==': return bool(a === b);
      case '!=': return bool(a !== b);
      case '<': return bool(a < b);
      case '>': return bool(a > b);
      case '<=': return bool(a <= b);
      case '>=': return bool(a >= b);
      case '<<': return norm(a << (r.v & 63n), u);
      case '>>': return norm(a >> (r.v & 63n), u);
      case '+': return norm(a + b, u);
      case '-': return norm(a - b, u);
      case '*': return norm(a * b, u);
      case '/': return b === 0n ? this.divZero() : norm(a / b, u);
      default: return b === 0n ? this.divZero() : norm(a % b, u);
    }
  }
  private unary(): PPValue {
    const t = this.toks[this.k];
    if (!t) return this.fail('expected value in expression');
    this.k++;
    switch (t.text) {
      case '-': { const x = this.unary(); return norm(-x.v, x.u); }
      case '+': return this.unary();
      case '!': return { v: this.unary().v === 0n ? 1n : 0n, u: false };
      case '~': { const x = this.unary(); return norm(~x.v, x.u); }
      case '(': {
        const v = this.cond();
        if (this.peek() !== ')') return this.fail("expected ')' in preprocessor expression");
        this.k++;
        return v;
      }
    }
    if (t.kind === 'num') {
      const n = parseNumber(t.text);
      if (n.error) return this.fail(n.error.startsWith('invalid integer') ? `floating point literal in preprocessor expression` : n.error);
      return norm(n.value, n.unsigned || n.value > 0x7fffffffffffffffn);
    }
    if (t.kind === 'char') return { v: t.value ?? 0n, u: false };
    this.k--;
    return this.fail('invalid token at start of a preprocessor subexpression');
  }
}

function norm(v: bigint, u: boolean): PPValue {
  return { v: u ? BigInt.asUintN(64, v) : BigInt.asIntN(64, v), u };
}
