/**
 * The C parser: preprocessed tokens to the typed tree of ast.ts. A
 * recursive-descent parser over C11 with the GNU extensions BPF C uses
 * (__attribute__, typeof, statement expressions, __builtin_offsetof,
 * empty-string asm barriers). It keeps the scopes C's grammar needs (a
 * name is a type or a value depending on its typedef) and calls sema for
 * every node. Errors recover at the next ';' or '}' so one run reports
 * several; no input makes it throw or loop. It reads the tokens from an
 * array or pulls them from a streaming preprocessor, and lets go of those
 * behind it at statement boundaries (only a nested declarator backtracks).
 */
import type { AsmInfo, AsmOperand, Attrs, Expr, Init, InitPart, Stmt, Sym, TranslationUnit } from './ast';
import { nextSymId } from './ast';
import { CompileAbort, type DiagnosticBag, type Span } from './diagnostics';
import { parseNumber, type Token } from './lexer';
import { Sema } from './sema';
import { T, findMember, opaqueScalar, isInt, isPtr, isScalar, layoutStruct, ptrTo, sameType, sizeOf, typeName, type FuncType, type Member, type StructType, type Type } from './types';

/** The enclosing function's name inside a body (C99 __func__; GCC's __FUNCTION__ and, in C, __PRETTY_FUNCTION__). */
const FUNC_NAME_IDS: ReadonlySet<string> = new Set(['__func__', '__FUNCTION__', '__PRETTY_FUNCTION__']);
const KEYWORDS = new Set([
  'float', 'double', '__int128', '__builtin_va_list',
  'void', 'char', 'short', 'int', 'long', 'signed', 'unsigned', '_Bool', 'struct', 'union', 'enum', 'typedef', 'static', 'extern',
  'inline', '__inline', '__inline__', 'const', 'volatile', 'restrict', '__restrict', '__restrict__', 'register', 'auto', 'typeof', '__typeof__', '__typeof', 'typeof_unqual', '__typeof_unqual__', '__typeof_unqual',
  '__attribute__', '__attribute', 'if', 'else', 'for', 'while', 'do', 'switch', 'case', 'default', 'break', 'continue', 'return', 'goto', 'sizeof',
  '_Alignof', '__alignof__', '_Static_assert', '__extension__', '__volatile__', '__const', '__const__', 'asm', '__asm__', '__asm', '_Noreturn', '__signed__',
]);

const BUILTINS = new Set([
  '__builtin_memcpy', '__builtin_memset', '__builtin_memmove', '__builtin_memcmp', '__builtin_bcmp', '__builtin_bswap16', '__builtin_bswap32', '__builtin_bswap64', '__builtin_expect',
  '__builtin_constant_p', '__sync_fetch_and_add', '__sync_fetch_and_sub', '__sync_fetch_and_or', '__sync_fetch_and_and', '__sync_fetch_and_xor',
  '__sync_add_and_fetch', '__sync_sub_and_fetch', '__sync_or_and_fetch', '__sync_and_and_fetch', '__sync_xor_and_fetch',
  '__sync_val_compare_and_swap', '__sync_bool_compare_and_swap', '__sync_lock_test_and_set', '__builtin_unreachable', '__builtin_trap',
]);

interface DeclSpec {
  type: Type;
  /** Top-level qualifiers written in the specifiers (`const volatile int x`). */
  isConst?: boolean;
  isVolatile?: boolean;
  storage?: 'typedef' | 'static' | 'extern';
  inline: boolean;
  attrs: Attrs;
}

const MAX_NESTING = 200;

/** CO-RE builtins (bpf_core_read.h): answered from our own types, which are the target's. */
const CORE_BUILTINS = new Set(['__builtin_btf_type_id', '__builtin_preserve_access_index', '__builtin_preserve_field_info', '__builtin_preserve_type_info', '__builtin_preserve_enum_value']);

/** libc functions clang treats as builtins on BPF (string.h's declarations, or none at all). */
const LIBC_BUILTINS = new Set(['memcpy', 'memset', 'memmove', 'memcmp', 'bcmp']);

/** Qualifiers of the declared object: `const char s[]` is const, `const char *p` is not. */
function objectQuals(spec: DeclSpec, type: Type): { isConst?: boolean; isVolatile?: boolean; pointsToVolatile?: boolean } {
  if (type.k === 'ptr') return spec.isVolatile ? { pointsToVolatile: true } : {};
  return { ...(spec.isConst ? { isConst: true } : {}), ...(spec.isVolatile ? { isVolatile: true } : {}) };
}

export class Parser {
  private k = 0;
  private scopes: Map<string, Sym>[] = [new Map()];
  private tagScopes: Map<string, StructType | 'enum'>[] = [new Map()];
  /** Each enum tag's integer type, scoped as tags are (a packed enum is narrower than int). */
  private enumTypes: Map<string, Type>[] = [new Map()];
  private readonly sema: Sema;
  private globals: Sym[] = [];
  private funcs: Sym[] = [];
  private curFunc?: Sym;
  private nesting = 0;
  private structIds = 0;
  private btfTypeIds = new Map<string, number>();
  private defCount = 0;
  private pendingUnroll?: number | 'full' | 'none';

  /** The tokens from position `base` on (positions, like this.k, count from the first token). */
  private toks: Token[];
  private base = 0;
  /** Where more tokens come from (a streaming preprocessor), until its 'eof'. */
  private pull?: () => Token;
  /** Open backtracking points (a nested declarator re-read): no token may be released meanwhile. */
  private holds = 0;

  /**
   * `toks`: every token, ending with 'eof' (the parser takes the array over), or a
   * function handing them out one at a time, ending with 'eof' (Preprocessor.pull).
   */
  constructor(toks: Token[] | (() => Token), private diags: DiagnosticBag, private btfTypeIdBase = 1) {
    this.sema = new Sema(diags);
    if (typeof toks === 'function') {
      this.toks = [];
      this.pull = toks;
    } else this.toks = toks;
  }

  /** Have the token at position p in hand, if the stream reaches that far. */
  private fill(p: number): void {
    while (this.pull && p - this.base >= this.toks.length) {
      const t = this.pull();
      this.toks.push(t);
      if (t.kind === 'eof') this.pull = undefined;
    }
  }

  /**
   * Let go of the tokens parsed so far, at a statement or declaration
   * boundary: on a big source the tokens would be the largest structure,
   * and the tree replaces them as parsing goes. The last token stays
   * (prevEnd and spanFrom read it). In batches, so the cost stays linear.
   */
  private releaseConsumed(): void {
    const drop = this.k - 1 - this.base;
    if (this.holds > 0 || drop < 4096) return;
    this.toks.splice(0, drop);
    this.base += drop;
  }

  // ---- token helpers -------------------------------------------------------------
  private peek(o = 0): Token {
    this.fill(this.k + o);
    return this.toks[Math.min(this.k + o - this.base, this.toks.length - 1)]!;
  }
  private is(text: string, o = 0): boolean {
    const t = this.peek(o);
    return t.text === text && (t.kind === 'punct' || t.kind === 'id');
  }
  private advance(): Token {
    const t = this.peek();
    this.fill(this.k + 1);
    if (this.k - this.base < this.toks.length - 1) this.k++;
    return t;
  }
  private accept(text: string): boolean {
    if (this.is(text)) { this.advance(); return true; }
    return false;
  }
  private expect(text: string, what?: string): Token {
    const t = this.peek();
    if (this.is(text)) return this.advance();
    // Like clang, a missing ';' or ')' is reported just after the previous token.
    const at = t.kind === 'eof' || text === ';' || (text === ')' && t.span.line !== this.prevEnd().line) ? this.prevEnd() : t.span;
    this.diags.error('parse-expected', `expected '${text}'${what ? ' ' + what : ''}`, at);
    throw new SyntaxRecover();
  }
  private prevEnd(): Span {
    const p = this.toks[Math.max(0, this.k - 1 - this.base)]!.span;
    return { file: p.file, line: p.endLine, col: p.endCol, endLine: p.endLine, endCol: p.endCol + 1 };
  }
  private spanFrom(start: Span): Span {
    const end = this.toks[Math.max(0, this.k - 1 - this.base)]!.span;
    if (end.file !== start.file || end.line < start.line) return start;
    return { file: start.file, line: start.line, col: start.col, endLine: end.endLine, endCol: end.endCol };
  }
  private error(msg: string, span: Span, code = 'parse-error'): never {
    this.diags.error(code, msg, span);
    throw new SyntaxRecover();
  }
  private enter(): void {
    if (++this.nesting > MAX_NESTING) {
      this.diags.error('parse-nesting', 'bracket nesting level exceeded maximum of ' + MAX_NESTING, this.peek().span);
      throw new CompileAbort('nesting');
    }
  }
  private leave(): void {
    this.nesting--;
  }

  // ---- scopes --------------------------------------------------------------------
  private lookup(name: string): Sym | undefined {
    for (let i = this.scopes.length - 1; i >= 0; i--) {
      const s = this.scopes[i]!.get(name);
      if (s) return s;
    }
    return undefined;
  }
  private lookupTag(name: string): StructType | 'enum' | undefined {
    for (let i = this.tagScopes.length - 1; i >= 0; i--) {
      const s = this.tagScopes[i]!.get(name);
      if (s) return s;
    }
    return undefined;
  }
  private pushScope(): void {
    this.scopes.push(new Map());
    this.tagScopes.push(new Map());
    this.enumTypes.push(new Map());
  }
  private popScope(): void {
    const s = this.scopes.pop()!;
    this.tagScopes.pop();
    this.enumTypes.pop();
    for (const sym of s.values()) {
      if (sym.kind === 'var' && !sym.global && !sym.used && !sym.name.startsWith('____') && !sym.name.startsWith('__')) {
        this.diags.warning('sema-unused-variable', `unused variable '${sym.name}'`, sym.span);
      }
    }
  }
  private declare(sym: Sym): void {
    const scope = this.scopes[this.scopes.length - 1]!;
    const prev = scope.get(sym.name);
    if (prev && !(prev.kind === 'func' && sym.kind === 'func') && !(prev.isExtern || sym.isExtern) && !(prev.kind === 'typedef' && sym.kind === 'typedef')) {
      this.diags.error('sema-redefinition', `redefinition of '${sym.name}'`, sym.span, [{ code: 'note', severity: 'note', message: 'previous definition is here', span: prev.span }]);
    }
    scope.set(sym.name, sym);
  }
  private isTypeName(t: Token = this.peek()): boolean {
    if (t.kind !== 'id') return false;
    if (KEYWORDS.has(t.text)) {
      return ['void', '__builtin_va_list', 'float', 'double', '__int128', '__int128_t', '__uint128_t', 'char', 'short', 'int', 'long', 'signed', 'unsigned', '_Bool', 'struct', 'union', 'enum', 'const', 'volatile', 'restrict', '__restrict', 'typeof', '__typeof__', '__typeof', 'typeof_unqual', '__typeof_unqual__', '__typeof_unqual', '__attribute__', '__extension__', '__signed__', '__const', '__const__', 'static', 'extern', 'typedef', 'inline', '__inline', '__inline__', 'register', 'auto', '__volatile__', '_Noreturn', '__restrict__', '__attribute'].includes(t.text);
    }
    return this.lookup(t.text)?.kind === 'typedef';
  }

  // ---- top level -----------------------------------------------------------------
  parseUnit(): TranslationUnit {
    while (this.peek().kind !== 'eof') {
      this.releaseConsumed();
      const start = this.k;
      try {
        this.externalDecl();
      } catch (e) {
        if (!(e instanceof SyntaxRecover)) throw e;
        this.recoverTop();
      }
      if (this.k === start) this.advance();
    }
    return { globals: this.globals, funcs: this.funcs };
  }

  private recoverTop(): void {
    let depth = 0;
    while (this.peek().kind !== 'eof') {
      const t = this.advance();
      if (t.text === '{') depth++;
      else if (t.text === '}') { if (--depth <= 0) { this.accept(';'); return; } }
      else if (t.text === ';' && depth === 0) return;
    }
  }

  private externalDecl(): void {
    if (this.accept(';')) return;
    if (this.is('_Static_assert')) return this.staticAssert();
    const start = this.peek().span;
    const spec = this.declSpec();
    if (this.accept(';')) return;
    let first = true;
    for (;;) {
      const d = this.declarator(spec.type);
      this.asmLabel();
      const attrs = { ...spec.attrs, ...this.attributes() };
      if (!d.name) this.error('expected identifier', d.span);
      if (spec.storage === 'typedef') {
        this.declare({ id: nextSymId(), kind: 'typedef', name: d.name!, type: d.type, span: d.span, global: true, attrs });
      } else if (d.type.k === 'func') {
        const sym = this.declareFunc(d.name!, d.type, d.span, spec, attrs, d.paramSyms);
        if (first && this.is('{')) {
          this.funcBody(sym, d.paramSyms ?? []);
          return;
        }
      } else {
        this.globalVar(d.name!, d.type, d.span, spec, attrs);
      }
      first = false;
      if (this.accept(',')) continue;
      if (!this.is(';')) this.error(`expected ';' after top level declarator`, this.peek().kind === 'eof' ? this.prevEnd() : this.peek().span);
      this.advance();
      void start;
      return;
    }
  }

  private staticAssert(): void {
    const t = this.advance();
    this.expect('(');
    const e = this.assignExpr();
    let msg = '';
    if (this.accept(',')) msg = String.fromCharCode(...(this.advance().bytes ?? []));
    this.expect(')');
    this.expect(';');
    const v = this.sema.constValue(e);
    if (v === undefined) this.diags.error('sema-not-constant', 'static assertion expression is not an integral constant expression', e.span);
    else if (v === 0n) this.diags.error('sema-static-assert', `static assertion failed${msg ? ': ' + msg : ''}`, t.span);
  }

  private declareFunc(name: string, type: FuncType, span: Span, spec: DeclSpec, attrs: Attrs, params?: Sym[]): Sym {
    const prev = this.scopes[0]!.get(name);
    if (prev && prev.kind === 'func') {
      Object.assign(prev.attrs, attrs);
      if (params && !prev.body) { prev.params = params; prev.type = type; }
      return prev;
    }
    const sym: Sym = { id: nextSymId(), kind: 'func', name, type, span, global: true, isStatic: spec.storage === 'static', isInline: spec.inline, attrs, params };
    this.scopes[0]!.set(name, sym);
    this.funcs.push(sym);
    return sym;
  }

  private globalVar(name: string, type: Type, span: Span, spec: DeclSpec, attrs: Attrs): void {
    const sym: Sym = { id: nextSymId(), kind: 'var', name, type, span, global: true, isStatic: spec.storage === 'static', isExtern: spec.storage === 'extern', attrs, ...objectQuals(spec, type) };
    this.declare(sym);
    if (this.accept('=')) {
      // Helper declarations: `static T (*bpf_x)(...) = (void *) ID;`
      const init = this.initializer(sym.type, sym);
      if (isPtr(type) && type.to.k === 'func' && init.parts.length === 1) {
        const v = this.sema.constValue(init.parts[0]!.e);
        if (v !== undefined) sym.helperId = Number(v);
      }
      sym.init = init;
      if (sym.type.k === 'array' && sym.type.len === undefined) sym.type = { ...sym.type, len: init.arrayLen ?? 0 };
    }
    this.globals.push(sym);
  }

  private funcBody(sym: Sym, params: Sym[]): void {
    if (sym.body) this.diags.error('sema-redefinition', `redefinition of '${sym.name}'`, sym.span);
    this.curFunc = sym;
    sym.defIndex = this.defCount++;
    sym.params = params;
    this.pushScope();
    for (const p of params) {
      if (!p.name) continue;
      p.used = true; // parameters are exempt from unused warnings, like clang's default
      this.declare(p);
    }
    sym.body = this.block();
    this.popScope();
    this.curFunc = undefined;
  }

  // ---- declarations --------------------------------------------------------------
  /** `extern int f(void) __asm__("real_name");`: the symbol's assembler name, which BPF has no use for. */
  private asmLabel(): void {
    if (!(this.is('asm') || this.is('__asm__') || this.is('__asm')) || !this.is('(', 1)) return;
    this.advance();
    this.advance();
    while (this.peek().kind === 'str') this.advance();
    this.expect(')');
  }

  private attributes(into: Attrs = {}): Attrs {
    for (;;) {
      if (this.is('__attribute__') || this.is('__attribute')) {
        this.advance();
        this.expect('(');
        this.expect('(');
        while (!this.is(')') && this.peek().kind !== 'eof') {
          const name = this.advance().text.replace(/^__(.*)__$/, '$1');
          let args: Expr[] = [];
          let strArg: string | undefined;
          if (this.accept('(')) {
            args = [];
            // SEC(NAME) with NAME no macro: clang refuses it where the argument starts.
            if (name === 'section' && this.peek().kind !== 'str') this.diags.error('sema-attr-arg', "expected string literal as argument of 'section' attribute", this.peek().span);
            while (!this.is(')') && this.peek().kind !== 'eof') {
              if (this.peek().kind === 'str') strArg = this.stringLiteral().text;
              else if (this.peek().kind === 'id' && !KEYWORDS.has(this.peek().text) && !this.lookup(this.peek().text) && (this.is(',', 1) || this.is(')', 1))) this.advance();
              else args.push(this.assignExpr());
              if (!this.accept(',')) break;
            }
            this.expect(')');
          }
          if (name === 'section' && strArg !== undefined) into.section = strArg;
          else if (name === 'always_inline') into.alwaysInline = true;
          else if (name === 'noinline') into.noinline = true;
          else if (name === 'packed') into.packed = true;
          else if (name === 'aligned') {
            const v = args[0] ? this.sema.constValue(args[0]) : 8n;
            into.aligned = Number(v ?? 8n);
          }
          if (!this.accept(',')) break;
        }
        this.expect(')');
        this.expect(')');
        continue;
      }
      if (this.is('__extension__')) { this.advance(); continue; }
      return into;
    }
  }

  private declSpec(allowStorage = true): DeclSpec {
    const attrs: Attrs = {};
    let storage: DeclSpec['storage'];
    let inline = false;
    let base: Type | undefined;
    let signed: boolean | undefined;
    let short = 0, long = 0, int = 0, char = 0;
    let seen = false;
    let isConst = false, isVolatile = false;
    let floating: 'float' | 'double' | undefined;
    let int128 = false;
    const start = this.peek().span;
    for (;;) {
      const t = this.peek();
      if (t.kind !== 'id') break;
      const w = t.text;
      if (w === '__attribute__' || w === '__attribute' || w === '__extension__') { this.attributes(attrs); continue; }
      if (w === 'typedef' || w === 'static' || w === 'extern') {
        if (!allowStorage) this.error(`type name does not allow storage class to be specified`, t.span);
        this.advance(); storage = w; continue;
      }
      if (w === 'inline' || w === '__inline' || w === '__inline__') { this.advance(); inline = true; continue; }
      if (['const', 'volatile', 'restrict', '__restrict', '__restrict__', 'register', 'auto', '__volatile__', '__const', '__const__', '_Noreturn'].includes(w)) {
        if (w === 'const' || w === '__const' || w === '__const__') isConst = true;
        if (w === 'volatile' || w === '__volatile__') isVolatile = true;
        this.advance();
        continue;
      }
      if (w === 'float' || w === 'double') { this.advance(); floating = w; seen = true; continue; }
      if (w === '__int128' || w === '__int128_t' || w === '__uint128_t') { this.advance(); int128 = true; if (w === '__uint128_t') signed = false; seen = true; continue; }
      if (w === 'signed' || w === '__signed__') { this.advance(); signed = true; seen = true; continue; }
      if (w === 'unsigned') { this.advance(); signed = false; seen = true; continue; }
      if (w === 'short') { this.advance(); short++; seen = true; continue; }
      if (w === 'long') { this.advance(); long++; seen = true; continue; }
      if (w === 'int') { this.advance(); int++; seen = true; continue; }
      if (w === 'char') { this.advance(); char++; seen = true; continue; }
      if (base || seen) {
        // Only qualifiers and attributes may follow a complete type.
        break;
      }
      if (w === 'void') { this.advance(); base = T.void; continue; }
      // The BPF target's va_list is a plain pointer (vmlinux.h: typedef __builtin_va_list va_list;).
      if (w === '__builtin_va_list') { this.advance(); base = ptrTo(T.void); continue; }
      if (w === '_Bool') { this.advance(); base = T.bool; continue; }
      if (w === 'struct' || w === 'union') { base = this.structSpec(); continue; }
      if (w === 'enum') { base = this.enumSpec(); continue; }
      // typeof_unqual (C23, clang's __typeof_unqual__): the same here, where types carry no qualifiers.
      if (w === 'typeof' || w === '__typeof__' || w === '__typeof' || w === 'typeof_unqual' || w === '__typeof_unqual__' || w === '__typeof_unqual') {
        this.advance();
        this.expect('(');
        base = this.isTypeName() ? this.typeName() : this.sema.rvalue(this.expr()).ty;
        if (this.peek(-0).text !== ')') { /* handled by expect */ }
        this.expect(')');
        continue;
      }
      const sym = this.lookup(w);
      if (sym?.kind === 'typedef') { this.advance(); base = sym.type; continue; }
      break;
    }
    if (seen) {
      if (base) this.error(`cannot combine with previous '${typeName(base)}' declaration specifier`, start);
      if (floating) base = opaqueScalar(long ? 'long double' : floating, floating === 'float' ? 4 : long ? 16 : 8);
      else if (int128) base = opaqueScalar(signed === false ? 'unsigned __int128' : '__int128', 16);
      else if (char) base = signed === undefined ? T.char : signed ? T.schar : T.uchar;
      else if (short) base = signed === false ? T.ushort : T.short;
      else if (long >= 2) base = signed === false ? T.ullong : T.llong;
      else if (long === 1) base = signed === false ? T.ulong : T.long;
      else base = signed === false ? T.uint : T.int;
      void int;
    }
    if (!base) {
      const t = this.peek();
      if (storage || inline) {
        this.diags.error('sema-implicit-int', 'type specifier missing, defaults to \'int\'; ISO C99 and later do not support implicit int', t.span);
        base = T.int;
      } else if (t.kind === 'id' && !KEYWORDS.has(t.text) && this.peek(1).kind === 'id') {
        // Recover as clang does: report the unknown type, carry on as if it were int.
        this.diags.error('parse-unknown-type', `unknown type name '${t.text}'`, t.span);
        this.advance();
        base = T.int;
      } else this.error(t.kind === 'eof' ? 'expected a type' : `unknown type name '${t.text}'`, t.span, 'parse-unknown-type');
    }
    return { type: base!, storage, inline, attrs, isConst, isVolatile };
  }

  private structSpec(): Type {
    const kw = this.advance();
    const union = kw.text === 'union';
    const attrs = this.attributes();
    let tag: string | undefined;
    if (this.peek().kind === 'id' && !this.is('{')) tag = this.advance().text;
    if (!this.is('{')) {
      if (!tag) this.error(`declaration of anonymous ${kw.text} must be a definition`, kw.span);
      const found = this.lookupTag(tag!);
      if (found && found !== 'enum') return found;
      const s: StructType = { k: 'struct', tag, union, members: [], size: 0, align: 1, complete: false, packed: false, id: ++this.structIds };
      this.tagScopes[this.tagScopes.length - 1]!.set(tag!, s);
      return s;
    }
    let s: StructType;
    const existing = tag ? this.tagScopes[this.tagScopes.length - 1]!.get(tag) : undefined;
    if (existing && existing !== 'enum' && !existing.complete) s = existing;
    else {
      if (existing && existing !== 'enum' && existing.complete) this.diags.error('sema-redefinition', `redefinition of '${tag}'`, kw.span);
      s = { k: 'struct', tag, union, members: [], size: 0, align: 1, complete: false, packed: false, id: ++this.structIds };
      if (tag) this.tagScopes[this.tagScopes.length - 1]!.set(tag, s);
    }
    this.expect('{');
    this.enter();
    const members: Member[] = [];
    while (!this.is('}') && this.peek().kind !== 'eof') {
      try {
        const spec = this.declSpec(false);
        if (this.accept(';')) {
          if (spec.type.k === 'struct' && !spec.type.tag) members.push({ type: spec.type, offset: 0 });
          continue;
        }
        for (;;) {
          let d: { name?: string; type: Type; span: Span };
          if (this.is(':')) d = { type: spec.type, span: this.peek().span };
          else d = this.declarator(spec.type);
          let bitWidth: number | undefined;
          if (this.accept(':')) {
            const e = this.condExpr();
            const v = this.sema.constValue(e);
            if (v === undefined || v < 0n) this.diags.error('sema-bitfield-width', 'bit-field width is not a non-negative integer constant', e.span);
            else bitWidth = Number(v);
            if (!isInt(d.type)) this.diags.error('sema-bitfield-type', `bit-field '${d.name ?? ''}' has non-integral type '${typeName(d.type)}'`, d.span);
          }
          this.attributes();
          if (d.type.k === 'struct' && !d.type.complete) this.diags.error('sema-incomplete', `field has incomplete type '${typeName(d.type)}'`, d.span);
          if (members.some((m) => m.name !== undefined && m.name === d.name)) this.diags.error('sema-duplicate-member', `duplicate member '${d.name}'`, d.span);
          members.push({ name: d.name, type: d.type, offset: 0, bitWidth });
          if (!this.accept(',')) break;
        }
        this.expect(';');
      } catch (e) {
        if (!(e instanceof SyntaxRecover)) throw e;
        while (!this.is(';') && !this.is('}') && this.peek().kind !== 'eof') this.advance();
        this.accept(';');
      }
    }
    this.leave();
    this.expect('}');
    const after = this.attributes();
    s.members = members;
    s.packed = !!(attrs.packed || after.packed);
    const err = layoutStruct(s, attrs.aligned ?? after.aligned);
    if (err) this.diags.error('sema-bitfield-width', err, kw.span);
    return s;
  }

  private enumSpec(): Type {
    this.advance();
    const attrs = this.attributes();
    let tag: string | undefined;
    if (this.peek().kind === 'id' && !this.is('{')) tag = this.advance().text;
    if (tag && !this.is('{')) {
      if (!this.lookupTag(tag)) this.tagScopes[this.tagScopes.length - 1]!.set(tag, 'enum');
      for (let i = this.enumTypes.length - 1; i >= 0; i--) {
        const t = this.enumTypes[i]!.get(tag);
        if (t) return t;
      }
      return T.uint;
    }
    this.expect('{');
    if (tag) this.tagScopes[this.tagScopes.length - 1]!.set(tag, 'enum');
    let v = 0n;
    let lo = 0n, hi = 0n;
    const consts: Sym[] = [];
    const fitsInt = (x: bigint): boolean => x >= -(1n << 31n) && x < 1n << 31n;
    // An enumerator's type inside the body: int when its value fits, else its initialiser's type
    // (or, counting on from the previous one, that one's type), as clang types them.
    let wide: Type = T.long;
    while (!this.is('}') && this.peek().kind !== 'eof') {
      const nt = this.advance();
      if (nt.kind !== 'id') this.error('expected identifier', nt.span);
      this.attributes();
      if (this.accept('=')) {
        const e = this.condExpr();
        const c = this.sema.constValue(e);
        if (c === undefined) this.diags.error('sema-not-constant', 'expression is not an integer constant expression', e.span);
        else {
          v = c;
          if (isInt(e.ty) && e.ty.size >= 4) wide = e.ty;
        }
      }
      if (v < lo) lo = v;
      if (v > hi) hi = v;
      const sym: Sym = { id: nextSymId(), kind: 'enumconst', name: nt.text, type: fitsInt(v) ? T.int : wide, span: nt.span, global: this.scopes.length === 1, attrs: {}, value: v };
      consts.push(sym);
      this.declare(sym);
      v++;
      if (!this.accept(',')) break;
    }
    this.expect('}');
    this.attributes(attrs);
    // clang's choice: unsigned int when no enumerator is negative, int otherwise, 64 bits when
    // 32 do not hold them; a packed enum takes the narrowest type that holds them all (GCC's rule).
    const fits = (bits: number): boolean => (lo < 0n ? lo >= -(1n << BigInt(bits - 1)) && hi < 1n << BigInt(bits - 1) : hi < 1n << BigInt(bits));
    const neg = lo < 0n;
    let type: Type = fits(32) ? (neg ? T.int : T.uint) : neg ? T.long : T.ulong;
    if (attrs.packed) type = fits(8) ? (neg ? T.schar : T.uchar) : fits(16) ? (neg ? T.short : T.ushort) : type;
    // After the closing brace an enumerator that int does not hold has the enum's type (C23 6.7.2.2,
    // clang's rule): BPF_F_CURRENT_CPU = 0xffffffffULL is an unsigned long 0xffffffff, not int -1.
    for (const c of consts) if (!fitsInt(c.value ?? 0n)) c.type = type;
    if (tag) this.enumTypes[this.enumTypes.length - 1]!.set(tag, type);
    return type;
  }

  /** A declarator (possibly abstract). paramSyms are set for function declarators. */
  private declarator(base: Type, abstract = false): { name?: string; type: Type; span: Span; paramSyms?: Sym[] } {
    this.enter();
    try {
      let type = base;
      this.attributes();
      while (this.is('*')) {
        this.advance();
        type = ptrTo(type);
        while (['const', 'volatile', 'restrict', '__restrict', '__restrict__', '__const'].includes(this.peek().text) || this.is('__attribute__')) {
          if (this.is('__attribute__')) this.attributes();
          else this.advance();
        }
      }
      const t = this.peek();
      if (this.is('(') && (this.is('*', 1) || this.is('(', 1) || this.is('__attribute__', 1) || (!abstract && this.peek(1).kind === 'id' && !this.isTypeName(this.peek(1))))) {
        // Nested declarator: parse what follows it first, then the inside applied to that type.
        this.advance();
        const innerStart = this.k;
        this.holds++;
        try {
          let depth = 1;
          while (depth > 0 && this.peek().kind !== 'eof') {
            const x = this.advance();
            if (x.text === '(') depth++;
            else if (x.text === ')') depth--;
          }
          const outer = this.suffixes(type);
          const after = this.k;
          this.k = innerStart;
          const inner = this.declarator(outer.type, abstract);
          this.expect(')');
          this.k = after;
          return { ...inner, paramSyms: inner.paramSyms ?? outer.paramSyms };
        } finally {
          this.holds--;
        }
      }
      let name: string | undefined;
      let span = t.span;
      if (t.kind === 'id' && !KEYWORDS.has(t.text)) {
        if (abstract && this.isTypeName(t)) { /* a parameter type, not a name */ } else {
          name = this.advance().text;
          span = t.span;
        }
      } else if (!abstract) {
        this.error(t.kind === 'eof' ? 'expected identifier' : `expected identifier or '('`, t.kind === 'eof' ? this.prevEnd() : t.span);
      }
      const r = this.suffixes(type);
      return { name, type: r.type, span, paramSyms: r.paramSyms };
    } finally {
      this.leave();
    }
  }

  private suffixes(type: Type): { type: Type; paramSyms?: Sym[] } {
    if (this.accept('[')) {
      let len: number | undefined;
      while (['static', 'const', 'volatile', 'restrict'].includes(this.peek().text)) this.advance();
      if (!this.is(']')) {
        const e = this.assignExpr();
        const v = this.sema.constValue(e);
        if (v === undefined) this.diags.error('sema-vla', 'variable length arrays are not supported by BPF', e.span);
        else if (v < 0n) this.diags.error('sema-array-size', "array size is negative", e.span);
        // A length is only a type's until something of that type is stored (map definitions' __uint(max_entries, N)
        // is a pointer to int[N]: katran's and the selftests' xdp_lb_bench's rings have millions); what is stored is
        // bounded where it is placed (the stack, global data).
        else if (v > 0xffffffffn) this.diags.error('sema-array-size', 'array is too large', e.span);
        else len = Number(v);
      }
      this.expect(']');
      const inner = this.suffixes(type);
      if (inner.type.k === 'func') this.diags.error('sema-array-of-func', 'array of functions is not allowed', this.peek().span);
      return { type: { k: 'array', of: inner.type, len } };
    }
    if (this.is('(')) {
      this.advance();
      const params: { name?: string; type: Type }[] = [];
      const syms: Sym[] = [];
      let variadic = false;
      let oldStyle = false;
      if (this.is('void') && this.is(')', 1)) { this.advance(); }
      else if (this.is(')')) oldStyle = true;
      else {
        for (;;) {
          if (this.accept('...')) { variadic = true; break; }
          const spec = this.declSpec(false);
          const d = this.declarator(spec.type, true);
          this.attributes();
          let pt = d.type;
          if (pt.k === 'array') pt = ptrTo(pt.of);
          if (pt.k === 'func') pt = ptrTo(pt);
          params.push({ name: d.name, type: pt });
          syms.push({ id: nextSymId(), kind: 'var', name: d.name ?? '', type: pt, span: d.span, global: false, attrs: {}, ...(pt.k === 'ptr' && spec.isVolatile ? { pointsToVolatile: true } : {}) });
          if (!this.accept(',')) break;
        }
      }
      this.expect(')');
      // Attributes after the parameter list (`... ) __ksym;`) belong to the declaration: the caller reads them.
      const ret = this.suffixes(type).type;
      return { type: { k: 'func', ret, params, variadic, oldStyle }, paramSyms: syms };
    }
    return { type };
  }

  typeName(): Type {
    const spec = this.declSpec(false);
    return this.declarator(spec.type, true).type;
  }

  // ---- initializers ----------------------------------------------------------------
  private initializer(type: Type, sym?: Sym): Init & { arrayLen?: number } {
    const start = this.peek().span;
    const parts: InitPart[] = [];
    let arrayLen: number | undefined;
    if (this.is('{') && type.k === 'array' && isInt(type.of) && type.of.size === 1 && this.peek(1).kind === 'str') {
      // char s[] = { "abc" }: the braces may hold the string (C11 6.7.9p14).
      this.advance();
      const r = this.initializer(type, sym);
      this.accept(',');
      this.expect('}');
      return r;
    }
    if (this.is('{')) {
      const n = this.initList(type, 0, parts);
      if (type.k === 'array' && type.len === undefined) arrayLen = n;
      return { zero: true, parts, span: this.spanFrom(start), arrayLen };
    }
    // char s[] = ("abc"): clang takes a parenthesized string literal too (a macro's `(msg)`).
    let parens = 0;
    if (type.k === 'array' && isInt(type.of) && type.of.size === 1) while (this.is('(', parens)) parens++;
    if (type.k === 'array' && this.peek(parens).kind === 'str') {
      for (let i = 0; i < parens; i++) this.advance();
      const s = this.stringLiteral();
      for (let i = 0; i < parens; i++) this.expect(')');
      const bytes = [...s.bytes, 0];
      const len = type.len ?? bytes.length;
      if (type.len !== undefined && bytes.length - 1 > type.len) this.diags.warning('sema-init-overflow', 'initializer-string for char array is too long', s.span);
      for (let i = 0; i < Math.min(len, bytes.length); i++) parts.push({ offset: i, type: T.char, e: this.sema.num(BigInt(bytes[i]!), T.char, s.span) });
      if (type.len === undefined) arrayLen = bytes.length;
      return { zero: true, parts, span: s.span, arrayLen };
    }
    const e = this.assignExpr();
    if (type.k === 'struct' && e.ty === type) {
      parts.push({ offset: 0, type, e });
      return { zero: false, parts, span: e.span };
    }
    parts.push({ offset: 0, type, e: this.sema.convertForAssign(e, type, e.span, 'initializing') });
    void sym;
    return { zero: false, parts, span: e.span };
  }

  /** Parse `{ ... }` for an object of `type` at `base`; returns the number of array elements seen. */
  private initList(type: Type, base: number, parts: InitPart[]): number {
    this.enter();
    try {
      this.expect('{');
      let idx = 0;
      let maxIdx = 0;
      const fields = type.k === 'struct' ? type.members.filter((m) => m.name !== undefined || m.type.k === 'struct') : [];
      while (!this.is('}') && this.peek().kind !== 'eof') {
        let subType: Type | undefined;
        let off = base;
        let bit: Member | undefined;
        if (this.is('.') || this.is('[')) {
          // Designators: .a.b[2] = …
          let cur = type;
          let first = true;
          off = base;
          while (this.is('.') || this.is('[')) {
            if (this.accept('.')) {
              const nt = this.advance();
              if (cur.k !== 'struct') this.error(`member designator '${nt.text}' for non-struct type '${typeName(cur)}'`, nt.span);
              const f = findMember(cur as StructType, nt.text);
              if (!f) this.error(`field designator '${nt.text}' does not refer to any field in type '${typeName(cur)}'`, nt.span);
              if (first && cur === type) idx = fields.findIndex((m) => m === f!.m || (m.name === undefined && m.type.k === 'struct')) + 1;
              off += f!.offset;
              cur = f!.m.type;
              bit = f!.m.bitWidth !== undefined ? f!.m : undefined;
            } else {
              this.advance();
              const e = this.condExpr();
              const v = this.sema.constValue(e);
              this.expect(']');
              if (cur.k !== 'array') this.error(`array designator for non-array type '${typeName(cur)}'`, e.span);
              if (v === undefined || v < 0n || ((cur as { len?: number }).len !== undefined && v >= BigInt((cur as { len?: number }).len!))) this.error('array designator index is out of bounds', e.span);
              const at = cur as { of: Type };
              if (first && cur === type) idx = Number(v) + 1;
              off += Number(v) * sizeOf(at.of);
              cur = at.of;
            }
            first = false;
          }
          this.expect('=');
          subType = cur;
        } else if (type.k === 'array') {
          if (type.len !== undefined && idx >= type.len) {
            this.diags.warning('sema-excess-init', 'excess elements in array initializer', this.peek().span);
            this.assignExpr();
            if (!this.accept(',')) break;
            continue;
          }
          subType = type.of;
          off = base + idx * sizeOf(type.of);
          idx++;
        } else if (type.k === 'struct') {
          const m = fields[idx];
          if (!m || (type.union && idx > 0)) {
            this.diags.warning('sema-excess-init', 'excess elements in struct initializer', this.peek().span);
            this.assignExpr();
            if (!this.accept(',')) break;
            continue;
          }
          subType = m.type;
          off = base + m.offset;
          bit = m.bitWidth !== undefined ? m : undefined;
          idx++;
        } else {
          subType = type;
          if (idx++ > 0) this.diags.warning('sema-excess-init', 'excess elements in scalar initializer', this.peek().span);
        }
        maxIdx = Math.max(maxIdx, idx);
        if (this.is('{')) this.initList(subType, off, parts);
        else if (subType.k === 'array' && this.peek().kind === 'str') {
          const s = this.stringLiteral();
          const len = subType.len ?? s.bytes.length + 1;
          for (let i = 0; i < Math.min(len, s.bytes.length + 1); i++) parts.push({ offset: off + i, type: T.char, e: this.sema.num(BigInt(s.bytes[i] ?? 0), T.char, s.span) });
        } else if (subType.k === 'struct' || subType.k === 'array') {
          // Brace elision: the expression initialises the first scalar inside.
          const e = this.assignExpr();
          if (e.ty === subType) parts.push({ offset: off, type: subType, e });
          else {
            let t: Type = subType;
            let o = off;
            while (t.k === 'struct' || t.k === 'array') {
              if (t.k === 'array') t = t.of;
              else { const m: Member | undefined = t.members[0]; if (!m) break; o += m.offset; t = m.type; }
            }
            parts.push({ offset: o, type: t, e: this.sema.convertForAssign(e, t, e.span, 'initializing') });
          }
        } else {
          const e = this.assignExpr();
          parts.push({ offset: off, type: subType, e: this.sema.convertForAssign(e, subType, e.span, 'initializing'), bit });
        }
        if (!this.accept(',')) break;
      }
      this.expect('}');
      return maxIdx;
    } finally {
      this.leave();
    }
  }

  // ---- statements ------------------------------------------------------------------
  private block(): Stmt {
    const start = this.expect('{').span;
    this.enter();
    this.pushScope();
    const body: Stmt[] = [];
    while (!this.is('}') && this.peek().kind !== 'eof') {
      this.releaseConsumed();
      const at = this.k;
      try {
        body.push(...this.blockItem());
      } catch (e) {
        if (!(e instanceof SyntaxRecover)) throw e;
        this.recoverStmt();
      }
      if (this.k === at) this.advance();
    }
    this.popScope();
    this.leave();
    if (this.peek().kind === 'eof') this.diags.error('parse-expected', "expected '}'", this.prevEnd(), [{ code: 'note', severity: 'note', message: "to match this '{'", span: start }]);
    else this.advance();
    return { k: 'block', body, span: this.spanFrom(start) };
  }

  private recoverStmt(): void {
    let depth = 0;
    while (this.peek().kind !== 'eof') {
      if (this.is('}') && depth === 0) return;
      const t = this.advance();
      if (t.text === '{') depth++;
      else if (t.text === '}') { depth--; if (depth === 0) return; }
      else if (t.text === ';' && depth === 0) return;
    }
  }

  private blockItem(): Stmt[] {
    if (this.is('_Static_assert')) { this.staticAssert(); return []; }
    if (this.isTypeName()) return this.localDecl();
    // `foo_t x` with foo_t unknown: a declaration with a misspelt type, as clang reads it.
    const t = this.peek(), n = this.peek(1);
    if (t.kind === 'id' && !KEYWORDS.has(t.text) && !this.lookup(t.text) && n.kind === 'id' && !KEYWORDS.has(n.text)) return this.localDecl();
    return [this.stmt()];
  }

  private localDecl(): Stmt[] {
    const spec = this.declSpec();
    const out: Stmt[] = [];
    if (this.accept(';')) return out;
    for (;;) {
      const d = this.declarator(spec.type);
      this.asmLabel();
      const attrs = { ...spec.attrs, ...this.attributes() };
      if (spec.storage === 'typedef') {
        this.declare({ id: nextSymId(), kind: 'typedef', name: d.name!, type: d.type, span: d.span, global: false, attrs });
      } else if (d.type.k === 'func') {
        this.declareFunc(d.name!, d.type, d.span, spec, attrs, d.paramSyms);
      } else {
        const sym: Sym = { id: nextSymId(), kind: 'var', name: d.name!, type: d.type, span: d.span, global: spec.storage === 'static' || spec.storage === 'extern', isStatic: spec.storage === 'static', isExtern: spec.storage === 'extern', attrs, ...objectQuals(spec, d.type) };
        // A volatile local lives in memory, as clang keeps it (on the stack): every read and write of it
        // is an access the program makes (C11 5.1.2.3), which BPF code uses to make the verifier see
        // a spill, or a value it cannot fold.
        if (sym.isVolatile && !sym.global) sym.addressTaken = true;
        this.declare(sym);
        if (spec.storage === 'static' || spec.storage === 'extern') {
          // A static local is global data with a block-scoped name (bpf_printk's `static const char ____fmt[]`).
          if (this.accept('=')) {
            const i = this.initializer(sym.type, sym);
            if (sym.type.k === 'array' && sym.type.len === undefined) sym.type = { ...sym.type, len: i.arrayLen ?? 0 };
            sym.init = { zero: i.zero, parts: i.parts, span: i.span };
          }
          this.globals.push(sym);
          if (this.accept(',')) continue;
          this.expect(';', 'at end of declaration');
          return out;
        }
        let init: Init | undefined;
        if (this.accept('=')) {
          const i = this.initializer(sym.type, sym);
          if (sym.type.k === 'array' && sym.type.len === undefined) sym.type = { ...sym.type, len: i.arrayLen ?? 0 };
          init = { zero: i.zero, parts: i.parts, span: i.span };
        }
        if (sym.type.k === 'void') this.diags.error('sema-void-var', `variable has incomplete type 'void'`, d.span);
        else if (sym.type.k === 'struct' && !sym.type.complete) this.diags.error('sema-incomplete', `variable has incomplete type '${typeName(sym.type)}'`, d.span);
        else if (sym.type.k === 'array' && sym.type.len === undefined) this.diags.error('sema-incomplete', `definition of variable with array type needs an explicit size or an initializer`, d.span);
        out.push({ k: 'decl', sym, init, span: this.spanFrom(d.span) });
      }
      if (this.accept(',')) continue;
      this.expect(';', 'at end of declaration');
      return out;
    }
  }

  private takeUnroll(): number | 'full' | 'none' | undefined {
    const u = this.pendingUnroll;
    this.pendingUnroll = undefined;
    return u;
  }

  private stmt(): Stmt {
    this.enter();
    try {
      return this.stmtInner();
    } finally {
      this.leave();
    }
  }

  private stmtInner(): Stmt {
    const t = this.peek();
    const start = t.span;
    if (t.kind === 'pragma') {
      this.advance();
      this.pendingUnroll = t.text === 'nounroll' ? 'none' : t.value !== undefined ? Number(t.value) : 'full';
      return this.stmt();
    }
    if (t.kind === 'id') {
      switch (t.text) {
        case 'if': {
          this.advance();
          this.expect('(');
          const c = this.sema.condition(this.expr());
          this.expect(')');
          const th = this.subStmt();
          const el = this.accept('else') ? this.subStmt() : undefined;
          return { k: 'if', c, t: th, f: el, span: this.spanFrom(start) };
        }
        case 'while': {
          const unroll = this.takeUnroll();
          this.advance();
          this.expect('(');
          const c = this.sema.condition(this.expr());
          this.expect(')');
          const body = this.subStmt();
          return { k: 'while', c, body, unroll, span: this.spanFrom(start) };
        }
        case 'do': {
          const unroll = this.takeUnroll();
          this.advance();
          const body = this.subStmt();
          this.expect('while');
          this.expect('(');
          const c = this.sema.condition(this.expr());
          this.expect(')');
          this.expect(';');
          return { k: 'dowhile', c, body, unroll, span: this.spanFrom(start) };
        }
        case 'for': {
          const unroll = this.takeUnroll();
          this.advance();
          this.expect('(');
          this.pushScope();
          let init: Stmt | undefined;
          if (this.isTypeName()) {
            const ds = this.localDecl();
            init = ds.length === 1 ? ds[0] : { k: 'block', body: ds, span: start };
          } else if (!this.accept(';')) {
            const e = this.expr();
            init = { k: 'expr', e, span: e.span };
            this.expect(';');
          }
          const c = this.is(';') ? undefined : this.sema.condition(this.expr());
          this.expect(';');
          const step = this.is(')') ? undefined : this.expr();
          this.expect(')');
          const body = this.subStmt();
          this.popScope();
          return { k: 'for', init, c, step, body, unroll, span: this.spanFrom(start) };
        }
        case 'switch': {
          this.advance();
          this.expect('(');
          let e = this.sema.rvalue(this.expr());
          if (!isInt(e.ty)) this.diags.error('sema-switch-type', `statement requires expression of integer type ('${typeName(e.ty)}' invalid)`, e.span);
          else e = this.sema.cast(e, e.ty.size < 4 ? T.int : e.ty, true);
          this.expect(')');
          const body = this.subStmt();
          return { k: 'switch', e, body, span: this.spanFrom(start) };
        }
        case 'case': {
          this.advance();
          const e = this.condExpr();
          const v = this.sema.constValue(e);
          if (v === undefined) this.diags.error('sema-not-constant', 'expression is not an integer constant expression', e.span);
          this.expect(':');
          return { k: 'block', body: [{ k: 'case', value: v ?? 0n, span: start }, ...(this.is('}') ? [] : [this.stmt()])], span: start };
        }
        case 'default': {
          this.advance();
          this.expect(':');
          return { k: 'block', body: [{ k: 'default', span: start }, ...(this.is('}') ? [] : [this.stmt()])], span: start };
        }
        case 'break': this.advance(); this.expect(';'); return { k: 'break', span: start };
        case 'continue': this.advance(); this.expect(';'); return { k: 'continue', span: start };
        case 'goto': {
          this.advance();
          const nt = this.advance();
          if (nt.kind !== 'id') this.error('expected identifier', nt.span);
          this.expect(';');
          return { k: 'goto', name: nt.text, span: this.spanFrom(start) };
        }
        case 'return': {
          this.advance();
          const fn = this.curFunc?.type as FuncType | undefined;
          if (this.accept(';')) {
            if (fn && fn.ret.k !== 'void') this.diags.error('sema-return', `non-void function '${this.curFunc!.name}' should return a value`, start);
            return { k: 'return', span: start };
          }
          let e = this.expr();
          this.expect(';', 'after return statement');
          if (fn) {
            // `return f();` with f void: clang accepts it (a GNU extension); the value is nothing.
            if (fn.ret.k === 'void' && e.ty.k === 'void') return { k: 'block', body: [{ k: 'expr', e, span: e.span }, { k: 'return', span: start }], span: this.spanFrom(start) };
            if (fn.ret.k === 'void') this.diags.error('sema-return', `void function '${this.curFunc!.name}' should not return a value`, e.span);
            else e = this.sema.convertForAssign(e, fn.ret, e.span, 'returning');
          }
          return { k: 'return', e, span: this.spanFrom(start) };
        }
        case 'asm': case '__asm__': case '__asm': return this.asmStatement();
      }
      if (this.peek(1).text === ':' && this.peek(1).kind === 'punct' && !KEYWORDS.has(t.text)) {
        this.advance();
        this.advance();
        this.attributes();
        const lab: Stmt = { k: 'label', name: t.text, span: start };
        if (this.is('}')) return lab;
        return { k: 'block', body: [lab, ...this.blockItem()], span: start };
      }
    }
    if (this.is('{')) return this.block();
    if (this.accept(';')) return { k: 'empty', span: start };
    const e = this.expr();
    this.expect(';', 'after expression');
    return { k: 'expr', e, span: this.spanFrom(start) };
  }

  private subStmt(): Stmt {
    this.pushScope();
    try {
      return this.stmt();
    } finally {
      this.popScope();
    }
  }

  /**
   * `asm [volatile] ("template" : outputs : inputs : clobbers);` — GNU C's
   * extended asm, as clang's BPF target takes it. It becomes one expression
   * statement: the `__asm` builtin (the inputs are its arguments), then one
   * assignment per output from `__asm_out` — so every analysis sees the
   * inputs read and the outputs written where the asm stands. Only lowering
   * checks the template (x86 asm in a header's unused inline function is no
   * error); `asm goto` stays an opaque statement, an error where it is reached.
   */
  private asmStatement(): Stmt {
    const start = this.advance().span;
    let isGoto = false;
    while (['volatile', '__volatile__', 'goto', 'inline', '__inline__'].includes(this.peek().text)) if (this.advance().text === 'goto') isGoto = true;
    this.expect('(');
    const text = this.peek().kind === 'str' ? this.stringLiteral().text : undefined;
    const skip = (): Stmt => {
      let depth = 1;
      while (depth > 0 && this.peek().kind !== 'eof') { const x = this.advance(); if (x.text === '(') depth++; else if (x.text === ')') depth--; }
      this.expect(';');
      return { k: 'asm', text: text ?? '?', span: this.spanFrom(start) };
    };
    if (text === undefined || isGoto) return skip();
    const info: AsmInfo = { template: text, outputs: [], inputs: [], clobbers: [] };
    const outs: Expr[] = [], ins: Expr[] = [];
    const operand = (): { op: AsmOperand; e: Expr } => {
      let name: string | undefined;
      if (this.accept('[')) { name = this.advance().text; this.expect(']'); }
      if (this.peek().kind !== 'str') this.expect('"constraint"', 'in asm operand');
      const constraint = this.stringLiteral().text;
      this.expect('(');
      const e = this.expr();
      this.expect(')');
      return { op: name === undefined ? { constraint } : { name, constraint }, e };
    };
    for (let section = 0; section < 3 && this.accept(':'); section++) {
      if (this.is(':') || this.is(')')) continue;
      for (;;) {
        if (section === 2) info.clobbers.push(this.stringLiteral().text);
        else {
          const { op, e } = operand();
          if (section === 0) { info.outputs.push(op); outs.push(e); } else { info.inputs.push(op); ins.push(this.sema.rvalue(e)); }
        }
        if (!this.accept(',')) break;
      }
    }
    if (this.is(':')) return skip();
    this.expect(')');
    this.expect(';');
    const span = this.spanFrom(start);
    // A "+r" output is also an input, tied to it (GNU C numbers it once, as an output).
    info.outputs.forEach((o, i) => {
      if (!o.constraint.startsWith('+')) return;
      info.inputs.push({ constraint: String(i), implicit: true });
      ins.push(this.sema.rvalue(outs[i]!));
    });
    let e: Expr = { k: 'builtin', name: '__asm', args: ins, ty: T.void, span, asm: info };
    outs.forEach((l, i) => {
      const a = this.sema.assign('=', l, { k: 'builtin', name: '__asm_out', args: [], ty: l.ty, span: l.span, asmOut: i }, l.span);
      e = { k: 'comma', l: e, r: a, ty: a.ty, span };
    });
    return { k: 'expr', e, span };
  }

  // ---- expressions -----------------------------------------------------------------
  expr(): Expr {
    let e = this.assignExpr();
    while (this.is(',')) {
      const op = this.advance();
      const r = this.assignExpr();
      e = { k: 'comma', l: e, r: this.sema.rvalue(r), ty: this.sema.rvalue(r).ty, span: op.span };
    }
    return e;
  }

  private assignExpr(): Expr {
    this.enter();
    try {
      const l = this.condExpr();
      const t = this.peek();
      if (t.kind === 'punct' && ['=', '+=', '-=', '*=', '/=', '%=', '<<=', '>>=', '&=', '|=', '^='].includes(t.text)) {
        this.advance();
        const r = this.assignExpr();
        return this.sema.assign(t.text as '=', l, r, { ...t.span, line: l.span.line, col: l.span.col, endLine: r.span.endLine, endCol: r.span.endCol });
      }
      return l;
    } finally {
      this.leave();
    }
  }

  private condExpr(): Expr {
    const c = this.binExpr(0);
    if (this.is('?')) {
      const q = this.advance();
      const t = this.is(':') ? c : this.expr();
      this.expect(':');
      const f = this.condExpr();
      return this.sema.conditional(c, t, f, q.span);
    }
    return c;
  }

  private static PREC: Record<string, number> = { '||': 1, '&&': 2, '|': 3, '^': 4, '&': 5, '==': 6, '!=': 6, '<': 7, '>': 7, '<=': 7, '>=': 7, '<<': 8, '>>': 8, '+': 9, '-': 9, '*': 10, '/': 10, '%': 10 };

  private binExpr(minPrec: number): Expr {
    let l = this.castExpr();
    for (;;) {
      const t = this.peek();
      const p = t.kind === 'punct' ? Parser.PREC[t.text] : undefined;
      if (p === undefined || p < minPrec) return l;
      this.advance();
      const r = this.binExpr(p + 1);
      const span = { file: t.span.file, line: l.span.line, col: l.span.col, endLine: r.span.endLine, endCol: r.span.endCol };
      if (l.span.file !== r.span.file || r.span.line < l.span.line) Object.assign(span, t.span);
      const opSpan = t.span;
      l = t.text === '&&' || t.text === '||' ? this.sema.logical(t.text, l, r, opSpan) : this.sema.binary(t.text as '+', l, r, opSpan);
      void span;
    }
  }

  /**
   * `(type){ init }` (C11 6.5.2.5): an unnamed object of the enclosing block,
   * initialised each time the expression is evaluated, and an lvalue — the
   * expression `*({ type tmp = { init }; &tmp; })`, its stack slot kept to
   * the end of the block (stmtexpr.keepsStack). At file scope it would be
   * static data, which is not supported.
   */
  private compoundLiteral(ty: Type, start: Span): Expr {
    const sym: Sym = { id: nextSymId(), kind: 'var', name: '.compoundliteral', type: ty, span: start, global: false, attrs: {} };
    const i = this.initializer(ty, sym);
    const span = this.spanFrom(start);
    if (this.scopes.length === 1) this.error('compound literals at file scope are not supported', start, 'cc-compound-literal');
    if (sym.type.k === 'array' && sym.type.len === undefined) sym.type = { ...sym.type, len: i.arrayLen ?? 0 };
    if (sym.type.k === 'struct' && !sym.type.complete) this.diags.error('sema-incomplete', `variable has incomplete type '${typeName(sym.type)}'`, span);
    const ref = this.sema.addr({ k: 'var', sym, ty: sym.type, span }, span);
    const body: Stmt[] = [{ k: 'decl', sym, init: { zero: i.zero, parts: i.parts, span: i.span }, span }, { k: 'expr', e: ref, span }];
    return this.sema.deref({ k: 'stmtexpr', body, ty: ref.ty, span, keepsStack: true }, span);
  }

  private castExpr(): Expr {
    if (this.is('(') && this.isTypeName(this.peek(1))) {
      const start = this.advance().span;
      const spec = this.declSpec(false);
      const ty = this.declarator(spec.type, true).type;
      this.expect(')');
      if (this.is('{')) return this.postfix(this.compoundLiteral(ty, start));
      const e = this.castExpr();
      const span = this.spanFrom(start);
      const c = this.sema.cast(e, ty, false, span);
      // A pointer to volatile: marked, so no pass drops, merges or moves the loads made through it (clang keeps them).
      return spec.isVolatile && isPtr(ty) ? { k: 'cast', e: c, ty, implicit: false, span, volatile: true } : c;
    }
    return this.unaryExpr();
  }

  private unaryExpr(): Expr {
    this.enter();
    try {
      const t = this.peek();
      if (t.kind === 'punct') {
        switch (t.text) {
          case '-': case '+': case '~': case '!': {
            this.advance();
            const e = this.castExpr();
            return this.sema.unary(t.text, e, this.spanFrom(t.span));
          }
          case '*': this.advance(); return this.sema.deref(this.castExpr(), this.spanFrom(t.span));
          case '&': {
            this.advance();
            const e = this.castExpr();
            return this.sema.addr(e, this.spanFrom(t.span));
          }
          case '++': case '--': {
            this.advance();
            const e = this.unaryExpr();
            return this.sema.incdec(t.text, true, e, this.spanFrom(t.span));
          }
        }
      }
      if (t.kind === 'id' && (t.text === 'sizeof' || t.text === '_Alignof' || t.text === '__alignof__')) {
        this.advance();
        const isSize = t.text === 'sizeof';
        if (this.is('(') && this.isTypeName(this.peek(1))) {
          this.advance();
          const ty = this.typeName();
          this.expect(')');
          return isSize ? this.sema.sizeofType(ty, this.spanFrom(t.span)) : this.sema.alignofType(ty, this.spanFrom(t.span));
        }
        const e = this.unaryExpr();
        return isSize ? this.sema.sizeofType(e.ty, this.spanFrom(t.span)) : this.sema.alignofType(e.ty, this.spanFrom(t.span));
      }
      if (t.kind === 'id' && t.text === '__extension__') { this.advance(); return this.castExpr(); }
      return this.postfix(this.primary());
    } finally {
      this.leave();
    }
  }

  private postfix(e: Expr): Expr {
    for (;;) {
      const t = this.peek();
      if (t.kind !== 'punct') return e;
      if (t.text === '[') {
        this.advance();
        const i = this.expr();
        this.expect(']');
        const span = { ...e.span, endLine: this.prevEnd().line, endCol: this.prevEnd().col };
        const base = this.sema.rvalue(e);
        const idx = this.sema.rvalue(i);
        if (!isPtr(base.ty) && !isPtr(idx.ty)) {
          this.diags.error('sema-subscript', 'subscripted value is not an array, pointer, or vector', span);
          e = this.sema.num(0n, T.int, span);
          continue;
        }
        e = this.sema.deref(this.sema.binary('+', base, idx, span), span);
        continue;
      }
      if (t.text === '.' || t.text === '->') {
        this.advance();
        const nt = this.advance();
        if (nt.kind !== 'id') this.error('expected identifier', nt.span);
        let obj = e;
        if (t.text === '->') {
          const p = this.sema.rvalue(e);
          if (!isPtr(p.ty) || p.ty.to.k !== 'struct') {
            this.error(`member reference type '${typeName(p.ty)}' is not a pointer${isPtr(p.ty) ? ' to a structure' : ''}`, nt.span, 'sema-member');
          }
          obj = this.sema.deref(p, e.span);
        }
        if (obj.ty.k !== 'struct') this.error(`member reference base type '${typeName(obj.ty)}' is not a structure or union`, nt.span, 'sema-member');
        const st = obj.ty as StructType;
        if (!st.complete) this.error(`incomplete definition of type '${typeName(st)}'`, nt.span, 'sema-incomplete');
        const f = findMember(st, nt.text);
        if (!f) this.error(`no member named '${nt.text}' in '${typeName(st)}'`, nt.span, 'sema-no-member');
        e = { k: 'member', e: obj, m: f!.m, offset: f!.offset, ty: f!.m.type, span: { ...e.span, endLine: nt.span.endLine, endCol: nt.span.endCol } };
        continue;
      }
      if (t.text === '++' || t.text === '--') {
        this.advance();
        e = this.sema.incdec(t.text, false, e, this.spanFrom(e.span));
        continue;
      }
      if (t.text === '(') {
        e = this.call(e);
        continue;
      }
      return e;
    }
  }

  private call(fnExpr: Expr): Expr {
    const open = this.advance();
    const args: Expr[] = [];
    if (!this.is(')')) {
      for (;;) {
        args.push(this.assignExpr());
        if (!this.accept(',')) break;
      }
    }
    this.expect(')');
    const span = this.spanFrom(fnExpr.span);
    void open;
    let fty: FuncType | undefined;
    const f = this.sema.rvalue(fnExpr);
    if (isPtr(f.ty) && f.ty.to.k === 'func') fty = f.ty.to;
    if (!fty) {
      this.diags.error('sema-not-callable', `called object type '${typeName(fnExpr.ty)}' is not a function or function pointer`, fnExpr.span);
      return this.sema.num(0n, T.int, span);
    }
    const name = fnExpr.k === 'var' ? fnExpr.sym.name : 'function';
    if (!fty.oldStyle && (args.length < fty.params.length || (!fty.variadic && args.length > fty.params.length))) {
      this.diags.error('sema-call-args', `too ${args.length < fty.params.length ? 'few' : 'many'} arguments to function call, expected ${fty.params.length}, have ${args.length}`, span,
        fnExpr.k === 'var' ? [{ code: 'note', severity: 'note', message: `'${name}' declared here`, span: fnExpr.sym.span }] : undefined);
    }
    const conv = args.map((a, i) => {
      const p = fty!.params[i];
      if (p) return this.sema.convertForAssign(a, p.type, a.span, 'passing to parameter of type');
      const r = this.sema.rvalue(a);
      if (isInt(r.ty)) return this.sema.cast(r, r.ty.size < 4 ? T.int : r.ty, true);
      return r;
    });
    return { k: 'call', fn: f, args: conv, fty, ty: fty.ret, span };
  }

  private stringLiteral(): { text: string; bytes: number[]; span: Span } {
    const t = this.advance();
    const bytes = [...(t.bytes ?? [])];
    let span = t.span;
    while (this.peek().kind === 'str') {
      const n = this.advance();
      bytes.push(...(n.bytes ?? []));
      span = { ...span, endLine: n.span.endLine, endCol: n.span.endCol };
    }
    return { text: new TextDecoder().decode(new Uint8Array(bytes)), bytes, span };
  }

  private primary(): Expr {
    const t = this.peek();
    if (t.kind === 'num') {
      this.advance();
      const n = parseNumber(t.text);
      if (n.error) {
        if (/[.eEpP]/.test(t.text) && !/^0[xX]/.test(t.text)) this.diags.error('cc-float', 'floating point is not supported by BPF', t.span);
        else this.diags.error('lex-bad-number', n.error, t.span);
        return this.sema.num(0n, T.int, t.span);
      }
      // C11 6.4.4.1: the first type in the list that can represent the value.
      const v = n.value;
      const dec = !/^0/.test(t.text) || t.text === '0';
      let ty: Type;
      if (n.long === 0 && !n.unsigned && v <= 0x7fffffffn) ty = T.int;
      else if (n.long === 0 && (n.unsigned || !dec) && v <= 0xffffffffn) ty = T.uint;
      else if (!n.unsigned && v <= 0x7fffffffffffffffn) ty = n.long === 2 ? T.llong : T.long;
      else ty = n.long === 2 ? T.ullong : T.ulong;
      return this.sema.num(v, ty, t.span);
    }
    if (t.kind === 'char') {
      this.advance();
      return this.sema.num(t.value ?? 0n, T.int, t.span);
    }
    if (t.kind === 'str') {
      const s = this.stringLiteral();
      return { k: 'str', bytes: s.bytes, ty: { k: 'array', of: T.char, len: s.bytes.length + 1 }, span: s.span };
    }
    if (this.is('(')) {
      const open = this.advance();
      if (this.is('{')) {
        // GNU statement expression: the value is the last expression statement's.
        this.pushScope();
        const blk = this.block() as { body: Stmt[] };
        this.popScope();
        this.expect(')');
        const last = blk.body[blk.body.length - 1];
        const ty = last?.k === 'expr' ? this.sema.rvalue(last.e).ty : T.void;
        return { k: 'stmtexpr', body: blk.body, ty, span: this.spanFrom(open.span) };
      }
      const e = this.expr();
      this.expect(')');
      return e;
    }
    if (t.kind === 'id') {
      if (t.text === '__builtin_offsetof') return this.offsetofExpr();
      if (t.text === '__builtin_choose_expr') return this.chooseExpr();
      if (t.text === '_Generic') return this.genericSelection();
      if (CORE_BUILTINS.has(t.text)) return this.coreBuiltin();
      if (BUILTINS.has(t.text)) return this.builtin();
      if (LIBC_BUILTINS.has(t.text) && this.is('(', 1)) {
        // memcpy & co. are builtins to clang too: without a definition here they expand inline.
        const sym = this.lookup(t.text);
        if (!sym || (sym.kind === 'func' && !sym.body)) return this.builtin(`__builtin_${t.text}`);
      }
      if (KEYWORDS.has(t.text)) this.error(`expected expression`, t.span);
      if (this.curFunc && FUNC_NAME_IDS.has(t.text) && !this.lookup(t.text)) {
        // C99's predefined __func__ (and GCC's spellings): the enclosing function's name, as a string.
        this.advance();
        const bytes = [...new TextEncoder().encode(this.curFunc.name)];
        return { k: 'str', bytes, ty: { k: 'array', of: T.char, len: bytes.length + 1 }, span: t.span };
      }
      this.advance();
      const sym = this.lookup(t.text);
      if (!sym) {
        if (this.is('(')) this.diags.error('sema-implicit-function', `call to undeclared function '${t.text}'; ISO C99 and later do not support implicit function declarations`, t.span);
        else this.diags.error('sema-undeclared', `use of undeclared identifier '${t.text}'`, t.span);
        // Declare it to avoid repeating the same error.
        const dummy: Sym = { id: nextSymId(), kind: this.is('(') ? 'func' : 'var', name: t.text, type: this.is('(') ? { k: 'func', ret: T.int, params: [], variadic: true } : T.int, span: t.span, global: true, attrs: {}, used: true };
        this.scopes[0]!.set(t.text, dummy);
        return { k: 'var', sym: dummy, ty: dummy.type, span: t.span };
      }
      if (sym.kind === 'enumconst') return this.sema.num(sym.value ?? 0n, sym.type, t.span);
      if (sym.kind === 'typedef') this.error(`unexpected type name '${t.text}': expected expression`, t.span);
      sym.used = true;
      return { k: 'var', sym, ty: sym.type, span: t.span };
    }
    this.error(t.kind === 'eof' ? 'expected expression' : `expected expression`, t.kind === 'eof' ? this.prevEnd() : t.span, 'parse-expected-expr');
  }

  /**
   * CO-RE: clang records a relocation and libbpf answers it from the
   * kernel's BTF. Here the program is compiled against the kernel's own
   * types (the system headers or vmlinux.h of the machine it runs on), so
   * each question has its answer at compile time: field offsets, sizes and
   * existence from our layout, type ids from a stable numbering of types.
   */
  private coreBuiltin(): Expr {
    const t = this.advance();
    const name = t.text;
    this.expect('(');
    const arg: Expr | Type = this.isTypeName() ? this.typeName() : this.assignExpr();
    let kind = 0n;
    if (this.accept(',')) {
      const k = this.assignExpr();
      kind = this.sema.constValue(k) ?? 0n;
    }
    this.expect(')');
    const span = this.spanFrom(t.span);
    const s = this.sema;
    // An expression carries its type in `ty`; a type name is the type itself.
    const argTy = 'ty' in arg ? arg.ty : arg;
    switch (name) {
      case '__builtin_preserve_access_index': return 'ty' in arg ? (arg as Expr) : s.num(0n, T.int, span);
      case '__builtin_btf_type_id': {
        const key = typeName(argTy);
        let id = this.btfTypeIds.get(key);
        if (id === undefined) { id = (this.btfTypeIdBase + this.btfTypeIds.size) >>> 0; this.btfTypeIds.set(key, id); }
        return s.num(BigInt(id), T.uint, span);
      }
      case '__builtin_preserve_type_info':
        // BPF_TYPE_EXISTS = 0, BPF_TYPE_SIZE = 1, BPF_TYPE_MATCHES = 2
        return s.num(kind === 1n ? BigInt(sizeOf(argTy)) : 1n, T.uint, span);
      case '__builtin_preserve_enum_value': {
        // *(typeof(enum E) *)VALUE: BPF_ENUMVAL_EXISTS = 0, BPF_ENUMVAL_VALUE = 1.
        let e = 'ty' in arg ? (arg as Expr) : undefined;
        while (e && (e.k === 'deref' || e.k === 'cast')) e = e.e;
        const v = e ? s.constValue(e) ?? 0n : 0n;
        return s.num(kind === 1n ? v : 1n, T.ulong, span);
      }
      default: {
        // __builtin_preserve_field_info(s->f, kind): BYTE_OFFSET 0, BYTE_SIZE 1, EXISTS 2, SIGNED 3, LSHIFT_U64 4, RSHIFT_U64 5.
        const e = 'ty' in arg ? (arg as Expr) : undefined;
        let off = 0, size = sizeOf(argTy), bitOff = 0, bitWidth = size * 8;
        if (e && e.k === 'member') {
          let x: Expr = e;
          while (x.k === 'member') { off += x.offset; x = x.e; }
          if (e.m.bitWidth !== undefined) { size = sizeOf(e.m.type); bitOff = e.m.bitOffset ?? 0; bitWidth = e.m.bitWidth; }
        }
        const signed = isInt(argTy) && argTy.signed ? 1 : 0;
        const v = [off, size, 1, signed, 64 - (bitOff + bitWidth), 64 - bitWidth][Number(kind)] ?? 0;
        return s.num(BigInt(v), T.uint, span);
      }
    }
  }

  /** GCC's __builtin_choose_expr(const, a, b): a when the constant is not 0, else b, with the chosen one's type; the other is parsed, never evaluated. */
  private chooseExpr(): Expr {
    this.advance();
    this.expect('(');
    const c = this.assignExpr();
    this.expect(',');
    const a = this.assignExpr();
    this.expect(',');
    const b = this.assignExpr();
    this.expect(')');
    const v = this.sema.constValue(c);
    if (v === undefined) this.error("'__builtin_choose_expr' requires a constant expression", c.span);
    return v !== 0n ? a : b;
  }

  /**
   * C11 _Generic(e, type: a, …, default: d): the association whose type is
   * the controlling expression's (after array and function decay, its
   * qualifiers dropped), else default; only the chosen one is evaluated.
   */
  private genericSelection(): Expr {
    this.advance();
    this.expect('(');
    const ctl = this.sema.rvalue(this.assignExpr());
    let chosen: Expr | undefined;
    let fallback: Expr | undefined;
    while (this.accept(',')) {
      if (this.accept('default')) {
        this.expect(':');
        fallback = this.assignExpr();
        continue;
      }
      const ty = this.typeName();
      this.expect(':');
      const e = this.assignExpr();
      if (chosen === undefined && sameType(ty, ctl.ty)) chosen = e;
    }
    this.expect(')');
    const r = chosen ?? fallback;
    if (!r) this.error(`controlling expression type '${typeName(ctl.ty)}' not compatible with any generic association type`, ctl.span);
    return r;
  }

  private offsetofExpr(): Expr {
    const t = this.advance();
    this.expect('(');
    const ty = this.typeName();
    this.expect(',');
    let cur = ty;
    let off = 0;
    for (;;) {
      const nt = this.advance();
      if (cur.k !== 'struct') this.error(`offsetof requires struct, union, or class type, '${typeName(cur)}' invalid`, nt.span);
      const f = findMember(cur as StructType, nt.text);
      if (!f) this.error(`no member named '${nt.text}' in '${typeName(cur)}'`, nt.span, 'sema-no-member');
      off += f!.offset;
      cur = f!.m.type;
      while (this.accept('[')) {
        const e = this.expr();
        this.expect(']');
        const v = this.sema.constValue(e) ?? 0n;
        if (cur.k === 'array') { off += Number(v) * sizeOf(cur.of); cur = cur.of; }
      }
      if (!this.accept('.')) break;
    }
    this.expect(')');
    return this.sema.num(BigInt(off), T.ulong, this.spanFrom(t.span));
  }

  private builtin(as?: string): Expr {
    const t = this.advance();
    const name = as ?? t.text;
    this.expect('(');
    const args: Expr[] = [];
    if (!this.is(')')) for (;;) { args.push(this.assignExpr()); if (!this.accept(',')) break; }
    this.expect(')');
    const span = this.spanFrom(t.span);
    const need = (n: number): boolean => {
      if (args.length !== n) {
        this.diags.error('sema-call-args', `too ${args.length < n ? 'few' : 'many'} arguments to function call, expected ${n}, have ${args.length}`, span);
        return false;
      }
      return true;
    };
    const s = this.sema;
    switch (name) {
      case '__builtin_constant_p':
        if (!need(1)) return s.num(0n, T.int, span);
        {
          // Constant now: 1. A plain variable or parameter may become one after inlining, as in
          // clang (`if (!__builtin_constant_p(len)) __throw_build_bug();` in a helper's body):
          // codegen decides. Anything else (side effects, calls): 0, as clang answers too.
          const a = s.rvalue(args[0]!);
          if (s.constValue(a) !== undefined) return s.num(1n, T.int, span);
          const pure = (x: Expr): boolean => x.k === 'var' || x.k === 'num' || ((x.k === 'cast' || x.k === 'unary') && pure(x.e)) || (x.k === 'binary' && pure(x.l) && pure(x.r));
          return pure(a) && isInt(a.ty) ? { k: 'builtin', name, args: [a], ty: T.int, span } : s.num(0n, T.int, span);
        }
      case '__builtin_expect':
        if (!need(2)) return s.num(0n, T.long, span);
        return s.cast(args[0]!, T.long, true);
      case '__builtin_bswap16': case '__builtin_bswap32': case '__builtin_bswap64': {
        const ty = name.endsWith('16') ? T.ushort : name.endsWith('32') ? T.uint : T.ulong;
        if (!need(1)) return s.num(0n, ty, span);
        const a = s.convertForAssign(args[0]!, ty, args[0]!.span, 'passing to parameter of type');
        const c = s.constValue(a);
        if (c !== undefined) {
          let r = 0n;
          for (let i = 0; i < (ty as { size: number }).size; i++) r = (r << 8n) | ((c >> BigInt(8 * i)) & 0xffn);
          return s.num(r, ty, span);
        }
        return { k: 'builtin', name, args: [a], ty, span };
      }
      case '__builtin_memcpy': case '__builtin_memmove': case '__builtin_memset': {
        if (!need(3)) return s.num(0n, ptrTo(T.void), span);
        // The size may become constant only after inlining (a helper's `len` parameter): codegen checks it.
        const n = s.convertForAssign(args[2]!, T.ulong, args[2]!.span, 'passing to parameter of type');
        const dst = s.rvalue(args[0]!);
        const src = s.rvalue(args[1]!);
        if (!isPtr(dst.ty)) this.diags.error('sema-incompatible', `passing '${typeName(dst.ty)}' to parameter of incompatible type 'void *'`, dst.span);
        if (name !== '__builtin_memset' && !isPtr(src.ty)) this.diags.error('sema-incompatible', `passing '${typeName(src.ty)}' to parameter of incompatible type 'const void *'`, src.span);
        return { k: 'builtin', name, args: [dst, name === '__builtin_memset' ? s.cast(src, T.int, true) : src, n], ty: dst.ty, span };
      }
      case '__builtin_memcmp': case '__builtin_bcmp': {
        if (!need(3)) return s.num(0n, T.int, span);
        const a = s.rvalue(args[0]!), b = s.rvalue(args[1]!);
        for (const x of [a, b]) if (!isPtr(x.ty)) this.diags.error('sema-incompatible', `passing '${typeName(x.ty)}' to parameter of incompatible type 'const void *'`, x.span);
        return { k: 'builtin', name: '__builtin_memcmp', args: [a, b, s.convertForAssign(args[2]!, T.ulong, args[2]!.span, 'passing to parameter of type')], ty: T.int, span };
      }
      case '__builtin_unreachable': case '__builtin_trap':
        return { k: 'builtin', name, args: [], ty: T.void, span };
      default: {
        // __sync_* atomics on a pointer to a 32- or 64-bit integer.
        const cas = name === '__sync_val_compare_and_swap' || name === '__sync_bool_compare_and_swap';
        if (!need(cas ? 3 : 2)) return s.num(0n, T.long, span);
        const p = s.rvalue(args[0]!);
        if (!isPtr(p.ty) || !isInt(p.ty.to) || (p.ty.to.size !== 4 && p.ty.to.size !== 8)) {
          this.diags.error('cc-atomic-type', `address argument to atomic builtin must be a pointer to a 4- or 8-byte integer ('${typeName(p.ty)}' invalid)`, p.span);
          return s.num(0n, T.long, span);
        }
        const vt = p.ty.to;
        const rest = args.slice(1).map((a) => s.convertForAssign(a, vt, a.span, 'passing to parameter of type'));
        return { k: 'builtin', name, args: [p, ...rest], ty: name === '__sync_bool_compare_and_swap' ? T.bool : vt, span };
      }
    }
  }
}

/** Unwinds to the nearest recovery point after a syntax error was reported. */
class SyntaxRecover extends Error {}

export function isAggregateInit(t: Type): boolean {
  return !isScalar(t);
}
