/**
 * The C lexer: source text to preprocessing tokens. Every token keeps its
 * span, whether it starts a line (for directives) and whether whitespace
 * precedes it (for macro definitions and stringizing). It never throws: a
 * stray character becomes an 'other' token that the parser reports.
 * lex() makes a token list; lexTape() the same tokens as a compact TokenTape
 * (a big main file), made into tokens only as they are read.
 */
import type { DiagnosticBag, Span } from './diagnostics';

export type TokKind = 'id' | 'num' | 'char' | 'str' | 'punct' | 'other' | 'pragma' | 'eof';

export interface Token {
  kind: TokKind;
  text: string;
  span: Span;
  /** First token on its line. */
  bol: boolean;
  /** Whitespace before it. */
  space: boolean;
  /** Macro names this token came out of (no re-expansion inside them). */
  hide?: ReadonlySet<string>;
  /** For 'str': the decoded bytes (no terminating NUL). */
  bytes?: number[];
  /** For 'num'/'char': the value and the C type suffix. */
  value?: bigint;
  suffix?: { unsigned: boolean; long: number };
  /**
   * A lexical error in this token (unterminated literal…), reported by the
   * preprocessor only if the token is used: clang accepts an apostrophe in
   * `#error don't` or in a group skipped by #if 0, and so must we.
   */
  bad?: { code: string; message: string };
  /** A placemarker (C11 6.10.3.3): an empty argument next to ##, removed once pasting is done. */
  placemarker?: boolean;
}

/**
 * A token with the common fields present, in one order: tokens then share
 * one hidden class in V8, which keeps the preprocessor's and parser's
 * property reads fast (a third faster on the system headers than tokens of
 * many shapes). The rare fields (bytes, value, suffix, bad, placemarker)
 * are left out: on a big source the tokens are the largest structure, and
 * five always-undefined fields were 40 of a token's ~110 bytes. A token
 * that needs one is made whole by fullToken, the only other shape.
 */
export function makeToken(kind: TokKind, text: string, span: Span, bol: boolean, space: boolean): Token {
  return { kind, text, span, bol, space, hide: undefined };
}

/** A token with every field present (string and character literals, pragmas, placemarkers, copies of those). */
export function fullToken(kind: TokKind, text: string, span: Span, bol: boolean, space: boolean, rare: Pick<Token, 'bytes' | 'value' | 'suffix' | 'bad' | 'placemarker'>): Token {
  return { kind, text, span, bol, space, hide: undefined, bytes: rare.bytes, value: rare.value, suffix: rare.suffix, bad: rare.bad, placemarker: rare.placemarker };
}

/** Whether t carries any of the rare fields (then copies of it are made with fullToken). */
export function hasRareFields(t: Token): boolean {
  return t.bytes !== undefined || t.value !== undefined || t.suffix !== undefined || t.bad !== undefined || t.placemarker !== undefined;
}

const PUNCTS = [
  '...', '<<=', '>>=',
  '->', '++', '--', '<<', '>>', '<=', '>=', '==', '!=', '&&', '||', '*=', '/=', '%=', '+=', '-=', '&=', '^=', '|=', '##',
  '[', ']', '(', ')', '{', '}', '.', '&', '*', '+', '-', '~', '!', '/', '%', '<', '>', '^', '|', '?', ':', ';', '=', ',', '#',
];

function isIdStart(c: string): boolean {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c === '_' || c === '$';
}
function isIdChar(c: string): boolean {
  return isIdStart(c) || (c >= '0' && c <= '9');
}

/** Decode one escape sequence starting after the backslash; returns [value, next index]. */
function readEscape(s: string, i: number): [number, number] {
  const c = s[i];
  switch (c) {
    case 'n': return [10, i + 1];
    case 't': return [9, i + 1];
    case 'r': return [13, i + 1];
    case '0': case '1': case '2': case '3': case '4': case '5': case '6': case '7': {
      let v = 0;
      let j = i;
      while (j < i + 3 && s[j]! >= '0' && s[j]! <= '7') v = v * 8 + (s.charCodeAt(j++) - 48);
      return [v & 0xff, j];
    }
    case 'x': {
      let v = 0;
      let j = i + 1;
      while (j < s.length && /[0-9a-fA-F]/.test(s[j]!)) v = (v * 16 + parseInt(s[j++]!, 16)) & 0xff;
      return [v, j];
    }
    case 'a': return [7, i + 1];
    case 'b': return [8, i + 1];
    case 'f': return [12, i + 1];
    case 'v': return [11, i + 1];
    case 'e': return [27, i + 1];
    case undefined: return [92, i];
    default: return [c.charCodeAt(0) & 0xff, i + 1];
  }
}

function utf8(s: string): number[] {
  return [...new TextEncoder().encode(s)];
}

/** Parse the text of a pp-number as a C integer constant. */
export function parseNumber(text: string): { value: bigint; unsigned: boolean; long: number; error?: string } {
  const m = /^(0[xX][0-9a-fA-F]+|0[bB][01]+|[0-9]+)([uUlL]*)$/.exec(text);
  if (!m) return { value: 0n, unsigned: false, long: 0, error: `invalid integer constant '${text}'` };
  let digits = m[1]!;
  let value: bigint;
  if (/^0[bB]/.test(digits)) value = BigInt(digits);
  else if (/^0[xX]/.test(digits)) value = BigInt(digits);
  else if (digits.length > 1 && digits[0] === '0') {
    if (/[89]/.test(digits)) return { value: 0n, unsigned: false, long: 0, error: `invalid digit in octal constant '${text}'` };
    digits = digits.replace(/^0+/, '') || '0';
    value = BigInt('0o' + digits);
  } else value = BigInt(digits);
  const suf = m[2]!.toLowerCase();
  if (!/^(u?l{0,2}|l{1,2}u)$/.test(suf)) return { value: 0n, unsigned: false, long: 0, error: `invalid suffix '${m[2]}' on integer constant` };
  if (value > 0xffffffffffffffffn) return { value: value & 0xffffffffffffffffn, unsigned: true, long: 2, error: 'integer literal is too large to be represented in any integer type' };
  return { value, unsigned: suf.includes('u'), long: (suf.match(/l/g) ?? []).length };
}

/** Punctuators by first character, longest first. */
const PUNCT_BY_CHAR = new Map<string, string[]>();
for (const p of PUNCTS) {
  const l = PUNCT_BY_CHAR.get(p[0]!) ?? [];
  l.push(p);
  PUNCT_BY_CHAR.set(p[0]!, l);
}
for (const l of PUNCT_BY_CHAR.values()) l.sort((a, b) => b.length - a.length);

export function lex(src: string, file: string, diags: DiagnosticBag): Token[] {
  const out: Token[] = [];
  lexInto(src, file, diags, (kind, text, line, col, endLine, endCol, bol, space, extra) => {
    const span: Span = { file, line, col, endLine, endCol };
    out.push(extra ? fullToken(kind, text, span, bol, space, extra) : makeToken(kind, text, span, bol, space));
  });
  return out;
}

/** Where lexInto hands each token (the span as numbers: a tape keeps no object per token). */
type TokenSink = (kind: TokKind, text: string, line: number, col: number, endLine: number, endCol: number, bol: boolean, space: boolean, extra?: Pick<Token, 'bytes' | 'value' | 'bad'>) => void;

const KIND_CODES: readonly TokKind[] = ['id', 'num', 'char', 'str', 'punct', 'other', 'pragma', 'eof'];
const KIND_CODE = new Map<TokKind, number>(KIND_CODES.map((k, i) => [k, i]));

/**
 * A lexed file held compactly: a byte of kind and flags, the (interned)
 * text and four numbers of span a token, instead of a token object and a
 * span object (~26 bytes instead of ~140). The preprocessor reads a big
 * main file from one: at(i) makes the token when it is read, and it dies
 * young once the parser has it, where a list of every token of the file
 * stayed alive (and was promoted) for the whole of preprocessing.
 * Tokens with a rare field (string and character literals) are kept whole.
 */
export class TokenTape {
  private n = 0;
  private kinds: Uint8Array;
  private texts: string[] = [];
  private pos: Int32Array;
  private rare = new Map<number, Token>();
  constructor(readonly file: string, capacity: number) {
    this.kinds = new Uint8Array(Math.max(16, capacity));
    this.pos = new Int32Array(this.kinds.length * 4);
  }
  get length(): number {
    return this.n;
  }
  push(kind: TokKind, text: string, line: number, col: number, endLine: number, endCol: number, bol: boolean, space: boolean, extra?: Pick<Token, 'bytes' | 'value' | 'bad'>): void {
    const i = this.n++;
    if (i === this.kinds.length) {
      const k = new Uint8Array(i * 2);
      k.set(this.kinds);
      this.kinds = k;
      const p = new Int32Array(i * 8);
      p.set(this.pos);
      this.pos = p;
    }
    this.kinds[i] = KIND_CODE.get(kind)! | (bol ? 16 : 0) | (space ? 32 : 0);
    this.texts.push(text);
    this.pos[4 * i] = line;
    this.pos[4 * i + 1] = col;
    this.pos[4 * i + 2] = endLine;
    this.pos[4 * i + 3] = endCol;
    if (extra) this.rare.set(i, fullToken(kind, text, { file: this.file, line, col, endLine, endCol }, bol, space, extra));
  }
  /** Token i, made afresh (undefined past the end). */
  at(i: number): Token | undefined {
    if (i >= this.n || i < 0) return undefined;
    const r = this.rare.get(i);
    if (r) return r;
    const k = this.kinds[i]!;
    const p = 4 * i;
    return makeToken(KIND_CODES[k & 15]!, this.texts[i]!, { file: this.file, line: this.pos[p]!, col: this.pos[p + 1]!, endLine: this.pos[p + 2]!, endCol: this.pos[p + 3]! }, (k & 16) !== 0, (k & 32) !== 0);
  }
}

/** Lex into a TokenTape (see there). */
export function lexTape(src: string, file: string, diags: DiagnosticBag): TokenTape {
  const tape = new TokenTape(file, src.length >> 2);
  lexInto(src, file, diags, (kind, text, line, col, endLine, endCol, bol, space, extra) => tape.push(kind, text, line, col, endLine, endCol, bol, space, extra));
  return tape;
}

function lexInto(src: string, file: string, diags: DiagnosticBag, sink: TokenSink): void {
  let i = 0;
  let line = 1;
  let lineStart = 0;
  let bol = true;
  let space = false;
  const n = src.length;
  let start = 0, sl = 1, sls = 0;
  // Identifiers and numbers repeat: one string per distinct spelling, not one
  // per token, keeps a 5 MB source's token texts from costing ~30 bytes each.
  const interned = new Map<string, string>();
  const intern = (s: string): string => {
    const k = interned.get(s);
    if (k !== undefined) return k;
    interned.set(s, s);
    return s;
  };
  const span = (): Span => ({ file, line: sl, col: start - sls + 1, endLine: line, endCol: i - lineStart + 1 });
  const push = (kind: TokKind, text: string, extra?: Pick<Token, 'bytes' | 'value' | 'bad'>): void => {
    sink(kind, text, sl, start - sls + 1, line, i - lineStart + 1, bol, space, extra);
    bol = false;
    space = false;
  };
  while (i < n) {
    const c = src[i]!;
    if (c === '\n') {
      i++; line++; lineStart = i; bol = true; space = false;
      continue;
    }
    if (c === ' ' || c === '\t' || c === '\r' || c === '\f' || c === '\v') { i++; space = true; continue; }
    if (c === '\\' && (src[i + 1] === '\n' || (src[i + 1] === '\r' && src[i + 2] === '\n'))) {
      i += src[i + 1] === '\n' ? 2 : 3; line++; lineStart = i; space = true;
      continue;
    }
    if (c === '/' && src[i + 1] === '/') {
      // A line comment may be continued with a backslash; honour that like cpp.
      while (i < n && src[i] !== '\n') {
        if (src[i] === '\\' && src[i + 1] === '\n') { i += 2; line++; lineStart = i; continue; }
        i++;
      }
      space = true;
      continue;
    }
    start = i; sl = line; sls = lineStart;
    if (c === '/' && src[i + 1] === '*') {
      i += 2;
      while (i < n && !(src[i] === '*' && src[i + 1] === '/')) {
        if (src[i] === '\n') { line++; lineStart = i + 1; }
        i++;
      }
      if (i >= n) diags.error('lex-unterminated-comment', 'unterminated /* comment', span());
      else i += 2;
      space = true;
      continue;
    }
    // A prefixed character constant (L'\0', u'x', U'x', u8'x'; glibc's bits/wchar.h tests L'\0' - 1 > 0): lexed
    // below as a character constant whose value is the character's code (wchar_t is int on BPF, char16_t and
    // char32_t unsigned and smaller), not its bytes.
    const prefix = c === 'L' || c === 'U' || c === 'u' ? (src[i + 1] === "'" ? 1 : c === 'u' && src[i + 1] === '8' && src[i + 2] === "'" ? 2 : 0) : 0;
    if (!prefix && isIdStart(c)) {
      while (i < n && isIdChar(src[i]!)) i++;
      // Prefixed string literals (L"", u8"") are not used in BPF C; lex the prefix as an identifier.
      push('id', intern(src.slice(start, i)));
      continue;
    }
    if ((c >= '0' && c <= '9') || (c === '.' && src[i + 1]! >= '0' && src[i + 1]! <= '9')) {
      // pp-number: digits, letters, dots, and exponent signs.
      i++;
      while (i < n) {
        const d = src[i]!;
        if ((d === '+' || d === '-') && /[eEpP]/.test(src[i - 1]!) && !/^0[xX]/.test(src.slice(start, i))) { i++; continue; }
        if (isIdChar(d) || d === '.') { i++; continue; }
        break;
      }
      push('num', intern(src.slice(start, i)));
      continue;
    }
    if (prefix || c === '"' || c === "'") {
      const q = prefix ? "'" : c;
      i += prefix + 1;
      const bytes: number[] = [];
      let closed = false;
      while (i < n && src[i] !== '\n') {
        const d = src[i]!;
        if (d === q) { i++; closed = true; break; }
        if (d === '\\') {
          if (src[i + 1] === '\n') { i += 2; line++; lineStart = i; continue; }
          const [v, j] = readEscape(src, i + 1);
          bytes.push(v); i = j;
          continue;
        }
        const cp = src.codePointAt(i)!;
        if (cp < 128) { bytes.push(cp); i++; continue; }
        const ch = String.fromCodePoint(cp);
        bytes.push(...utf8(ch));
        i += ch.length;
      }
      const bad = !closed ? { code: 'lex-unterminated', message: `missing terminating ${q} character` } : undefined;
      if (q === '"') push('str', src.slice(start, i), bad ? { bytes, bad } : { bytes });
      else {
        const badChar = bad ?? (bytes.length === 0 ? { code: 'lex-empty-char', message: 'empty character constant' } : undefined);
        // Multi-char constants are implementation defined; clang packs big-endian into an int.
        let v = 0n;
        for (const b of bytes.slice(-4)) v = (v << 8n) | BigInt(b);
        if (bytes.length === 1 && bytes[0]! >= 128) v = BigInt(bytes[0]! - 256); // char is signed on BPF
        if (prefix) v = BigInt(bytes.length === 1 ? bytes[0]! : (new TextDecoder().decode(Uint8Array.from(bytes)).codePointAt(0) ?? 0));
        push('char', src.slice(start, i), badChar ? { value: v, bad: badChar } : { value: v });
      }
      continue;
    }
    let p: string | undefined;
    const cands = PUNCT_BY_CHAR.get(c);
    if (cands) for (const q of cands) if (q.length === 1 || src.startsWith(q, i)) { p = q; break; }
    if (p) {
      i += p.length;
      push('punct', p);
      continue;
    }
    const cp = src.codePointAt(i)!;
    i += String.fromCodePoint(cp).length;
    push('other', String.fromCodePoint(cp));
  }
  sink('eof', '', line, i - lineStart + 1, line, i - lineStart + 1, true, false);
}
