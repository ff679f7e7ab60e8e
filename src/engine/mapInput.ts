/**
 * Map keys and values typed as C values of the map's key and value types
 * (the compiler's type description in spec.btf): "17", "0x11", "021",
 * "'A'", "-1" for a signed type, each range-checked and stored little
 * endian like the program's own stores; structs, unions and arrays as C
 * initializers ("{ .rx_packets = 3, .rx_bytes = 180 }", "{ 1, 2, 3 }",
 * designated or positional, members left out are zero, bit-fields
 * included; a char array also takes "a string"); or raw bytes in hex, as
 * bpftool takes them. Stored values decode back to the same C syntax.
 */
import type { TypeDesc } from '../cc/maps';
import { hexToBytes, type ParsedSpec } from '../isa';

export type InputFormat = 'c' | 'hex';

/** The C types of map `index`'s key and value, when the compiler described them. */
export function mapTypes(parsed: ParsedSpec, index: number): { key?: TypeDesc; value?: TypeDesc } {
  const btf = parsed.spec.btf;
  if (typeof btf !== 'object' || btf === null || !('maps' in btf) || !Array.isArray(btf.maps)) return {};
  const m: unknown = btf.maps[index];
  if (typeof m !== 'object' || m === null) return {};
  const desc = (t: unknown): TypeDesc | undefined => (typeof t === 'object' && t !== null && 'kind' in t && typeof t.kind === 'string' && 'size' in t && typeof t.size === 'number' ? (t as TypeDesc) : undefined);
  return { key: 'key' in m ? desc(m.key) : undefined, value: 'value' in m ? desc(m.value) : undefined };
}

/** Arrays longer than this are left to hex: a 256-element initializer is not a way to read or type a value. */
const MAX_ARRAY_C = 64;
/** Types nest at most this deep in a C value (describeType stops at 8). */
const MAX_DEPTH = 8;

/** Can a C value be typed for t: integers, pointers (as integers), and structs/unions/arrays of those. */
function typeable(t: TypeDesc, depth = 0): boolean {
  if (depth > MAX_DEPTH) return false;
  switch (t.kind) {
    case 'int': return t.size >= 1 && t.size <= 8;
    case 'ptr': return true;
    case 'array': return t.len > 0 && t.len <= MAX_ARRAY_C && typeable(t.elem, depth + 1);
    case 'struct': case 'union': return t.size > 0 && t.members.length > 0 && t.members.every((m) => typeable(m.type, depth + 1));
    default: return false;
  }
}

function typeName(t: TypeDesc): string {
  switch (t.kind) {
    case 'int': return t.name;
    case 'ptr': return 'void *';
    case 'array': return `${typeName(t.elem)}[${t.len}]`;
    case 'struct': case 'union': return `${t.kind} ${t.name ?? '{…}'}`;
    default: return 'void';
  }
}

/** The C type's name when a C value can be typed for it, else undefined. */
export function cTypeName(t: TypeDesc | undefined): string | undefined {
  return t && typeable(t) ? typeName(t) : undefined;
}

/** A C integer literal: decimal, 0x hex, 0b binary, leading-0 octal, u/l suffixes, a character constant; optional sign. */
function parseCInteger(text: string): bigint | string {
  const s = text.trim();
  const ch = /^(-?)'(\\?.)'$/.exec(s);
  if (ch) {
    const esc: Record<string, number> = { '\\n': 10, '\\t': 9, '\\r': 13, '\\0': 0, "\\'": 39, '\\\\': 92 };
    const c = ch[2]!;
    const v = c.length === 2 ? esc[c] : c.charCodeAt(0);
    if (v === undefined || v > 255) return `${s} is not a character constant this lab knows`;
    return ch[1] ? -BigInt(v) : BigInt(v);
  }
  const m = /^([+-]?)(0[xX][0-9a-fA-F]+|0[bB][01]+|0[0-7]*|[1-9][0-9]*)([uU]?[lL]{0,2}|[lL]{0,2}[uU]?)$/.exec(s);
  if (!m) return `"${s}" is not a C integer (e.g. 17, 0x11, 021, 'A')`;
  const body = m[2]!;
  const v = /^0[bB]/.test(body) ? BigInt(body) : /^0[xX]/.test(body) ? BigInt(body) : body.length > 1 && body.startsWith('0') ? BigInt(`0o${body.slice(1)}`) : BigInt(body);
  return m[1] === '-' ? -v : v;
}

/** A C value of type t as the bytes the map stores, or why the text is not one. */
export function encodeC(text: string, t: TypeDesc): Uint8Array | string {
  const name = cTypeName(t);
  if (!name) return `a ${t.kind} cannot be typed as a C value here: give its ${t.size} bytes in hex`;
  if (t.kind === 'int') {
    const out = new Uint8Array(t.size);
    const err = storeInt(text, t, out, 0);
    return err ?? out;
  }
  const parsed = parseInit(text);
  if (typeof parsed === 'string') return parsed;
  const out = new Uint8Array(t.size);
  const err = storeInit(parsed, t, out, 0, '');
  return err ?? out;
}

/** An integer of type t (or a pointer, as a u64) from text, stored little endian at out[off]. */
function storeInt(text: string, t: TypeDesc, out: Uint8Array, off: number, bits?: { bitOffset: number; bitWidth: number }): string | undefined {
  const name = t.kind === 'int' ? t.name : 'void *';
  const signed = t.kind === 'int' && t.signed;
  const v = parseCInteger(text);
  if (typeof v === 'string') return v;
  const width = BigInt(bits ? bits.bitWidth : t.size * 8);
  const lo = signed ? -(1n << (width - 1n)) : 0n;
  const hi = signed ? (1n << (width - 1n)) - 1n : (1n << width) - 1n;
  if (v < lo || v > hi) return `${text.trim()} is out of range for ${bits ? `a ${bits.bitWidth}-bit field of ` : ''}${name} (${lo} to ${hi})`;
  if (bits) {
    // A bit-field: read-modify-write the bits it spans, little endian (bit 0 is the lowest bit of the first byte).
    let u = BigInt.asUintN(Number(width), v);
    for (let b = 0; b < bits.bitWidth; b++, u >>= 1n) {
      const at = bits.bitOffset + b;
      const byte = off + (at >> 3);
      out[byte] = (u & 1n ? out[byte]! | (1 << (at & 7)) : out[byte]! & ~(1 << (at & 7))) & 0xff;
    }
    return undefined;
  }
  let u = BigInt.asUintN(Number(width), v);
  for (let i = 0; i < t.size; i++) {
    out[off + i] = Number(u & 0xffn);
    u >>= 8n;
  }
  return undefined;
}

/** A parsed C initializer: a scalar's text, a string literal, or a brace list of (optionally designated) items. */
type Init = { k: 'scalar'; text: string } | { k: 'string'; bytes: number[] } | { k: 'list'; items: { field?: string; index?: number; init: Init }[] };

/** Parse "{ .a = 1, .b = { 2, 3 }, [4] = 5 }", "17", "\"eth0\"". */
function parseInit(text: string): Init | string {
  let i = 0;
  const ws = () => { while (i < text.length && /\s/.test(text[i]!)) i++; };
  const fail = (what: string): string => `expected ${what} at column ${i + 1} of "${text.trim()}"`;
  const value = (depth: number): Init | string => {
    ws();
    if (depth > MAX_DEPTH) return 'the initializer nests too deeply';
    if (text[i] === '{') {
      i++;
      const items: { field?: string; index?: number; init: Init }[] = [];
      for (;;) {
        ws();
        if (text[i] === '}') { i++; return { k: 'list', items }; }
        let field: string | undefined;
        let index: number | undefined;
        const d = /^\.\s*([A-Za-z_]\w*)\s*=/.exec(text.slice(i)) ?? undefined;
        const x = d ? undefined : /^\[\s*(\d+)\s*\]\s*=/.exec(text.slice(i)) ?? undefined;
        if (d) { field = d[1]; i += d[0].length; }
        else if (x) { index = Number(x[1]); i += x[0].length; }
        const init = value(depth + 1);
        if (typeof init === 'string') return init;
        items.push({ ...(field !== undefined ? { field } : {}), ...(index !== undefined ? { index } : {}), init });
        ws();
        if (text[i] === ',') { i++; continue; }
        if (text[i] === '}') continue;
        return fail("',' or '}'");
      }
    }
    if (text[i] === '"') {
      const bytes: number[] = [];
      i++;
      while (i < text.length && text[i] !== '"') {
        const c = text[i]!;
        if (c === '\\') {
          const e = text[i + 1];
          const map: Record<string, number> = { n: 10, t: 9, r: 13, '0': 0, '"': 34, '\\': 92, "'": 39 };
          if (e === undefined || map[e] === undefined) return fail('an escape (\\n, \\t, \\0, \\", \\\\)');
          bytes.push(map[e]!);
          i += 2;
        } else {
          const code = c.charCodeAt(0);
          if (code > 126 || code < 32) return 'only printable ASCII goes in a string here';
          bytes.push(code);
          i++;
        }
      }
      if (text[i] !== '"') return fail('a closing quote');
      i++;
      return { k: 'string', bytes };
    }
    const m = /^[^,{}]+/.exec(text.slice(i));
    if (!m) return fail('a value');
    i += m[0].length;
    return { k: 'scalar', text: m[0].trim() };
  };
  const v = value(0);
  if (typeof v === 'string') return v;
  ws();
  return i === text.length ? v : fail('the end');
}

/** Store initializer `init` for type t at out[off]; `path` names the member for messages. */
function storeInit(init: Init, t: TypeDesc, out: Uint8Array, off: number, path: string, bits?: { bitOffset: number; bitWidth: number }): string | undefined {
  const pre = path ? `${path}: ` : '';
  if (t.kind === 'int' || t.kind === 'ptr') {
    if (init.k !== 'scalar') return `${pre}${typeName(t)} takes a number, not ${init.k === 'list' ? 'a { } list' : 'a string'}`;
    const err = storeInt(init.text, t, out, off, bits);
    return err && (path ? `${path}: ${err}` : err);
  }
  if (t.kind === 'array') {
    if (init.k === 'string') {
      const charLike = t.elem.kind === 'int' && t.elem.size === 1;
      if (!charLike) return `${pre}a string only initializes a char array`;
      if (init.bytes.length > t.len) return `${pre}"${String.fromCharCode(...init.bytes)}" is ${init.bytes.length} bytes, ${typeName(t)} holds ${t.len}`;
      init.bytes.forEach((b, k) => (out[off + k] = b));
      return undefined;
    }
    if (init.k !== 'list') return `${pre}${typeName(t)} takes { … }`;
    const stride = t.elem.size;
    let next = 0;
    for (const it of init.items) {
      if (it.field !== undefined) return `${pre}.${it.field} names a member, but ${typeName(t)} is an array (use [i] = or positions)`;
      const k = it.index ?? next;
      if (k >= t.len) return `${pre}index ${k} is past the end of ${typeName(t)}`;
      const err = storeInit(it.init, t.elem, out, off + k * stride, `${path}[${k}]`);
      if (err) return err;
      next = k + 1;
    }
    return undefined;
  }
  if (t.kind === 'struct' || t.kind === 'union') {
    if (init.k !== 'list') return `${pre}${typeName(t)} takes { … } (e.g. ${templateC(t)})`;
    let next = 0;
    for (const it of init.items) {
      if (it.index !== undefined) return `${pre}[${it.index}] = is for arrays; ${typeName(t)} takes .member =`;
      let k = next;
      if (it.field !== undefined) {
        k = t.members.findIndex((m) => m.name === it.field);
        if (k < 0) return `${pre}${typeName(t)} has no member .${it.field} (members: ${t.members.map((m) => (m.name ? `.${m.name}` : '(anonymous)')).join(', ')})`;
      }
      const m = t.members[k];
      if (!m) return `${pre}more values than ${typeName(t)} has members`;
      const mpath = `${path}.${m.name ?? `#${k}`}`;
      const err = storeInit(it.init, m.type, out, off + m.offset, mpath, m.bitWidth !== undefined ? { bitOffset: m.bitOffset ?? 0, bitWidth: m.bitWidth } : undefined);
      if (err) return err;
      next = k + 1;
    }
    return undefined;
  }
  return `${pre}a ${t.kind} cannot be typed as a C value`;
}

/** Decode stored bytes as a C value of type t (the syntax encodeC takes), or undefined when t cannot be typed. */
export function decodeC(bytes: Uint8Array, t: TypeDesc | undefined): string | undefined {
  if (!t || !cTypeName(t) || bytes.length !== t.size) return undefined;
  return decodeAt(bytes, t, 0);
}

function readInt(bytes: Uint8Array, off: number, size: number, signed: boolean, bits?: { bitOffset: number; bitWidth: number }): bigint {
  if (bits) {
    let u = 0n;
    for (let b = bits.bitWidth - 1; b >= 0; b--) {
      const at = bits.bitOffset + b;
      u = (u << 1n) | BigInt((bytes[off + (at >> 3)]! >> (at & 7)) & 1);
    }
    return signed ? BigInt.asIntN(bits.bitWidth, u) : u;
  }
  let u = 0n;
  for (let i = size - 1; i >= 0; i--) u = (u << 8n) | BigInt(bytes[off + i]!);
  return signed ? BigInt.asIntN(size * 8, u) : u;
}

function decodeAt(bytes: Uint8Array, t: TypeDesc, off: number, bits?: { bitOffset: number; bitWidth: number }): string {
  switch (t.kind) {
    case 'int': return readInt(bytes, off, t.size, t.signed, bits).toString();
    case 'ptr': return `0x${readInt(bytes, off, 8, false).toString(16)}`;
    case 'array': return `{ ${Array.from({ length: t.len }, (_, k) => decodeAt(bytes, t.elem, off + k * t.elem.size)).join(', ')} }`;
    case 'struct': case 'union': {
      // A union shows its first member, as a C initializer without a designator sets it.
      const members = t.kind === 'union' ? t.members.slice(0, 1) : t.members;
      return `{ ${members.map((m) => `${m.name ? `.${m.name} = ` : ''}${decodeAt(bytes, m.type, off + m.offset, m.bitWidth !== undefined ? { bitOffset: m.bitOffset ?? 0, bitWidth: m.bitWidth } : undefined)}`).join(', ')} }`;
    }
    default: return '';
  }
}

/** A zero value of t in C syntax, as an example of what to type. */
export function templateC(t: TypeDesc): string {
  return decodeAt(new Uint8Array(t.size), t, 0);
}

/** The text of a key or value in the given format, as the bytes to store (size-checked), or why not. */
export function parseMapInput(text: string, format: InputFormat, t: TypeDesc | undefined, size: number, what: 'key' | 'value'): Uint8Array | string {
  if (format === 'c') {
    if (!t) return `the ${what}'s C type is not known (no type information for this map): give it in hex`;
    const b = encodeC(text, t);
    return typeof b === 'string' ? `${what}: ${b}` : b;
  }
  const b = hexToBytes(text.replace(/\s+/g, ''));
  if (typeof b === 'string') return `${what}: ${b}`;
  if (b.length !== size) return `the ${what} must be ${size} bytes (${size * 2} hex digits), got ${b.length}`;
  return b;
}
