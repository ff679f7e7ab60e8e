/**
 * The names the built-in headers define, for the editor's completion:
 * helpers with their prototypes, macros, enum constants, typedefs, and
 * structs with their fields. Read from the header texts the compiler uses
 * (src/cc HEADERS), through its own preprocessor and parser, so the list
 * cannot drift from what compiles. Computed once, on first use (the module
 * is loaded lazily by the completion provider: it pulls in the compiler's
 * front end, which the page does not need to start).
 */
import { HEADERS } from '../../cc';
import { DiagnosticBag } from '../../cc/diagnostics';
import type { Token } from '../../cc/lexer';
import { Parser } from '../../cc/parser';
import { Preprocessor } from '../../cc/preprocessor';
import { typeName, type FuncType, type Type } from '../../cc/types';

export type HeaderNameKind = 'helper' | 'macro' | 'enum' | 'typedef' | 'struct' | 'field';

export interface HeaderName {
  label: string;
  kind: HeaderNameKind;
  /** One line: a prototype, a type, a value. */
  detail: string;
  /** Where it comes from, and for helpers their id. */
  documentation: string;
  /** For fields: the struct they belong to. */
  struct?: string;
}

/** Spaced the way C is written: "void *map", "__u32 index". */
function declText(t: Type, name: string | undefined): string {
  const ty = typeName(t);
  if (!name) return ty;
  return ty.endsWith('*') ? `${ty}${name}` : `${ty} ${name}`;
}

/**
 * A helper's prototype as the header spells it (`const void *key`, `__u32`):
 * `static long (*bpf_x)(args) = (void *) N;` read as `long bpf_x(args)`.
 * Falls back to the parsed types when the line is not in that shape.
 */
function helperPrototype(name: string, file: string, line: number, f: FuncType): string {
  const text = HEADERS[file]?.split('\n')[line - 1] ?? '';
  const m = new RegExp(`^\\s*static\\s+(.*?)\\(\\s*\\*\\s*${name}\\s*\\)\\s*(\\(.*\\))\\s*=`).exec(text);
  if (!m) return prototype(name, f);
  const ret = m[1]!.trim();
  return `${ret}${ret.endsWith('*') ? '' : ' '}${name}${m[2]}`;
}

/** A struct member as the header declares it (`__be16 h_proto`), else from its parsed type. */
function memberText(body: string, name: string, fallback: string): string {
  for (const raw of body.split('\n')) {
    const line = raw.replace(/\/\*.*?\*\//g, '').trim();
    // A declaration with its type on the same line (not `version:4;`, the rest of `__u8 ihl:4,`).
    if (new RegExp(`^[A-Za-z_][\\w\\s]*[\\s*]${name}\\s*(\\[[^\\]]*\\]\\s*)?(:\\s*\\d+\\s*)?;$`).test(line) && !/[{}]/.test(line)) return line.replace(/\s*;$/, '');
  }
  return fallback;
}

/** The text between `struct tag {` and its closing brace, in the header that defines it. */
function structBody(file: string | undefined, tag: string): string {
  const text = file ? HEADERS[file] ?? '' : '';
  const at = text.search(new RegExp(`\\b(struct|union)\\s+${tag}\\s*\\{`));
  if (at < 0) return '';
  let depth = 0;
  for (let i = text.indexOf('{', at); i < text.length; i++) {
    if (text[i] === '{') depth++;
    else if (text[i] === '}' && --depth === 0) return text.slice(at, i);
  }
  return '';
}

function prototype(name: string, f: FuncType): string {
  const params = f.params.map((p) => declText(p.type, p.name));
  if (f.variadic) params.push('...');
  return `${declText(f.ret, name)}(${params.length ? params.join(', ') : 'void'})`;
}

/** Which header defines each macro, and its parameters and body, from the #define lines. */
function macros(): HeaderName[] {
  const out: HeaderName[] = [];
  for (const [file, text] of Object.entries(HEADERS)) {
    let guard: string | null = null;
    for (const line of text.split('\n')) {
      const ifndef = /^\s*#\s*ifndef\s+(\w+)/.exec(line);
      if (ifndef) {
        guard = ifndef[1]!;
        continue;
      }
      const m = /^\s*#\s*define\s+(\w+)(\([^)]*\))?\s*(.*)$/.exec(line);
      // The include guard's own #define names nothing a program uses.
      if (m && !(m[1] === guard && !m[2] && !m[3])) {
        const body = m[3]!.trim();
        out.push({ label: m[1]!, kind: 'macro', detail: `#define ${m[1]}${m[2] ?? ''}${body ? ' ' + body : ''}`, documentation: `macro from <${file}>` });
      }
      guard = null;
    }
  }
  return out;
}

/** The preprocessed tokens of every header, and which header each came from. */
function headerTokens(probe: string): Token[] {
  const includes = Object.keys(HEADERS).map((h) => `#include <${h}>`).join('\n');
  return new Preprocessor(new DiagnosticBag(1000), HEADERS).run(`${includes}\n${probe}`, 'completion-probe.c');
}

const isId = (t: Token | undefined): boolean => t?.kind === 'id';

/** Enum constants (with their values where the header spells them) and struct tags, from the token stream. */
function scan(toks: Token[]): { enums: HeaderName[]; tags: Map<string, string>; typedefs: HeaderName[] } {
  const enums: HeaderName[] = [];
  const tags = new Map<string, string>();
  const typedefs: HeaderName[] = [];
  for (let i = 0; i < toks.length; i++) {
    const t = toks[i]!;
    const file = t.span.file;
    if ((t.text === 'struct' || t.text === 'union') && isId(toks[i + 1]) && toks[i + 2]?.text === '{') tags.set(toks[i + 1]!.text, file);
    if (t.text === 'typedef') {
      let j = i + 1;
      while (j < toks.length && toks[j]!.text !== ';' && toks[j]!.text !== '{') j++;
      if (toks[j]?.text === ';' && isId(toks[j - 1])) {
        const name = toks[j - 1]!.text;
        typedefs.push({ label: name, kind: 'typedef', detail: `typedef ${toks.slice(i + 1, j - 1).map((x) => x.text).join(' ')} ${name}`, documentation: `type from <${file}>` });
      }
    }
    if (t.text !== 'enum') continue;
    let j = i + 1;
    const tag = isId(toks[j]) ? toks[j++]!.text : null;
    if (toks[j]?.text !== '{') continue;
    let next: bigint | null = 0n;
    for (j++; j < toks.length && toks[j]!.text !== '}'; j++) {
      const name = toks[j]!;
      if (!isId(name)) continue;
      let value: bigint | null = next;
      if (toks[j + 1]?.text === '=') {
        const lit = toks[j + 2];
        value = lit?.kind === 'num' && /^(0x[0-9a-f]+|\d+)$/i.test(lit.text) && toks[j + 3] && /^[,}]$/.test(toks[j + 3]!.text) ? BigInt(lit.text) : null;
      }
      next = value === null ? null : value + 1n;
      enums.push({ label: name.text, kind: 'enum', detail: `${tag ? `enum ${tag}` : 'enum'}${value !== null ? ` = ${value}` : ''}`, documentation: `constant from <${file}>` });
      while (j < toks.length && toks[j]!.text !== ',' && toks[j]!.text !== '}') j++;
      if (toks[j]?.text === '}') break;
    }
  }
  return { enums, tags, typedefs };
}

let cached: HeaderName[] | null = null;

/** Every name the built-in headers define, helpers first (computed once). */
export function headerNames(): readonly HeaderName[] {
  if (cached) return cached;
  const { enums, tags, typedefs } = scan(headerTokens(''));
  // One variable per struct tag: the parser lays each struct out, fields and all.
  const probeName = (tag: string) => `__xdp_lab_probe_${tag}`;
  const probe = [...tags.keys()].map((tag) => `struct ${tag} ${probeName(tag)};`).join('\n');
  const unit = new Parser(headerTokens(probe), new DiagnosticBag(1000)).parseUnit();
  const helpers: HeaderName[] = [];
  const structs: HeaderName[] = [];
  const fields: HeaderName[] = [];
  for (const g of unit.globals) {
    if (g.helperId !== undefined && g.type.k === 'ptr' && g.type.to.k === 'func') {
      helpers.push({ label: g.name, kind: 'helper', detail: helperPrototype(g.name, g.span.file, g.span.line, g.type.to), documentation: `BPF helper #${g.helperId}, from <${g.span.file}>` });
    }
    if (!g.name.startsWith('__xdp_lab_probe_') || g.type.k !== 'struct') continue;
    const s = g.type;
    const tag = s.tag!;
    structs.push({ label: tag, kind: 'struct', detail: `${s.union ? 'union' : 'struct'} ${tag} (${s.size} bytes)`, documentation: `from <${tags.get(tag)}>` });
    const body = structBody(tags.get(tag), tag);
    for (const m of s.members) {
      if (!m.name) continue;
      const parsed = `${declText(m.type, m.name)}${m.bitWidth !== undefined ? ` : ${m.bitWidth}` : ''}`;
      fields.push({ label: m.name, kind: 'field', struct: tag, detail: memberText(body, m.name, parsed), documentation: `${s.union ? 'union' : 'struct'} ${tag}, offset ${m.offset}` });
    }
  }
  cached = [...helpers, ...macros(), ...enums, ...typedefs, ...structs, ...fields];
  return cached;
}

/** The fields of one struct (by tag), or none when the headers do not define it. */
export function structFields(tag: string): HeaderName[] {
  return headerNames().filter((n) => n.kind === 'field' && n.struct === tag);
}
