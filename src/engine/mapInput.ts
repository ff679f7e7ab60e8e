/**
 * Map keys and values typed as C values of the map's key and value types
 * (the compiler's type description in spec.btf): "17", "0x11", "021",
 * "'A'", "-1" for a signed type, each range-checked and stored little
 * endian like the program's own stores; or raw bytes in hex, as bpftool
 * takes them. Integer types only take C values; anything else (structs,
 * arrays) takes hex.
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

/** The C type's name when a C value can be typed for it (integers), else undefined. */
export function cTypeName(t: TypeDesc | undefined): string | undefined {
  return t?.kind === 'int' && t.size >= 1 && t.size <= 8 ? t.name : undefined;
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
  if (!name || t.kind !== 'int') return `a ${t.kind} cannot be typed as a C value here: give its ${t.size} bytes in hex`;
  const v = parseCInteger(text);
  if (typeof v === 'string') return v;
  const bits = BigInt(t.size * 8);
  const lo = t.signed ? -(1n << (bits - 1n)) : 0n;
  const hi = t.signed ? (1n << (bits - 1n)) - 1n : (1n << bits) - 1n;
  if (v < lo || v > hi) return `${text.trim()} is out of range for ${name} (${lo} to ${hi})`;
  let u = BigInt.asUintN(Number(bits), v);
  const out = new Uint8Array(t.size);
  for (let i = 0; i < t.size; i++) {
    out[i] = Number(u & 0xffn);
    u >>= 8n;
  }
  return out;
}

/** Decode stored bytes as a C value of type t (integers), else undefined. */
export function decodeC(bytes: Uint8Array, t: TypeDesc | undefined): string | undefined {
  if (!t || !cTypeName(t) || t.kind !== 'int' || bytes.length !== t.size) return undefined;
  let u = 0n;
  for (let i = bytes.length - 1; i >= 0; i--) u = (u << 8n) | BigInt(bytes[i]!);
  return (t.signed ? BigInt.asIntN(t.size * 8, u) : u).toString();
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
