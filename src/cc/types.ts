/**
 * C types as the BPF target (LP64, little endian, signed char) lays them
 * out: sizes, alignment, struct layout with bitfields (the SysV rule clang
 * uses: a bitfield shares its declared type's storage unit unless it would
 * straddle it), and the usual arithmetic conversions.
 */

export type IntKind = 'bool' | 'char' | 'short' | 'int' | 'long' | 'llong';

export interface IntType { k: 'int'; kind: IntKind; size: 1 | 2 | 4 | 8; signed: boolean; name: string }
export interface VoidType { k: 'void' }
export interface PtrType { k: 'ptr'; to: Type }
export interface ArrayType { k: 'array'; of: Type; len?: number }
export interface FuncType { k: 'func'; ret: Type; params: { name?: string; type: Type }[]; variadic: boolean; oldStyle?: boolean }
export interface Member { name?: string; type: Type; offset: number; bitOffset?: number; bitWidth?: number }
export interface StructType {
  k: 'struct';
  tag?: string;
  union: boolean;
  members: Member[];
  size: number;
  align: number;
  complete: boolean;
  packed: boolean;
  /** Map fields of a BTF-style map definition: set when used in SEC(".maps"). */
  id: number;
  /**
   * A scalar BPF cannot compute with (float, double, long double, __int128):
   * laid out as an opaque blob of its size, so headers that declare such
   * members or variables still compile; any arithmetic on it is an error.
   */
  opaque?: string;
}
export type Type = IntType | VoidType | PtrType | ArrayType | FuncType | StructType;

const mk = (kind: IntKind, size: 1 | 2 | 4 | 8, signed: boolean, name: string): IntType => ({ k: 'int', kind, size, signed, name });
export const T = {
  void: { k: 'void' } as VoidType,
  bool: mk('bool', 1, false, '_Bool'),
  char: mk('char', 1, true, 'char'),
  schar: mk('char', 1, true, 'signed char'),
  uchar: mk('char', 1, false, 'unsigned char'),
  short: mk('short', 2, true, 'short'),
  ushort: mk('short', 2, false, 'unsigned short'),
  int: mk('int', 4, true, 'int'),
  uint: mk('int', 4, false, 'unsigned int'),
  long: mk('long', 8, true, 'long'),
  ulong: mk('long', 8, false, 'unsigned long'),
  llong: mk('llong', 8, true, 'long long'),
  ullong: mk('llong', 8, false, 'unsigned long long'),
};

/** An opaque scalar type (see StructType.opaque). */
export function opaqueScalar(name: string, size: number): StructType {
  return { k: 'struct', union: false, members: [], size, align: Math.min(size, 16), complete: true, packed: false, id: 0, opaque: name };
}

export const ptrTo = (to: Type): PtrType => ({ k: 'ptr', to });

export function isInt(t: Type): t is IntType {
  return t.k === 'int';
}
export function isPtr(t: Type): t is PtrType {
  return t.k === 'ptr';
}
export function isScalar(t: Type): boolean {
  return t.k === 'int' || t.k === 'ptr';
}
export function isAggregate(t: Type): boolean {
  return t.k === 'struct' || t.k === 'array';
}

export function sizeOf(t: Type): number {
  switch (t.k) {
    case 'int': return t.size;
    case 'ptr': return 8;
    case 'void': return 1; // GNU: sizeof(void) == 1, pointer arithmetic on void *
    case 'func': return 1;
    case 'array': return (t.len ?? 0) * sizeOf(t.of);
    case 'struct': return t.size;
  }
}

export function alignOf(t: Type): number {
  switch (t.k) {
    case 'int': return t.size;
    case 'ptr': return 8;
    case 'array': return alignOf(t.of);
    case 'struct': return t.align;
    default: return 1;
  }
}

/** Lay out members in place; returns an error message for impossible bitfields. */
export function layoutStruct(s: StructType, attrAlign?: number): string | undefined {
  let bit = 0; // next free bit
  let size = 0;
  let align = 1;
  let err: string | undefined;
  for (const m of s.members) {
    const msize = sizeOf(m.type);
    const malign = s.packed ? 1 : alignOf(m.type);
    if (m.bitWidth !== undefined) {
      const unitBits = msize * 8;
      if (m.bitWidth > unitBits) err ??= `width of bit-field '${m.name ?? ''}' (${m.bitWidth} bits) exceeds the width of its type (${unitBits} bits)`;
      if (s.union) {
        m.offset = 0; m.bitOffset = 0;
        size = Math.max(size, msize);
      } else if (m.bitWidth === 0) {
        bit = Math.ceil(bit / unitBits) * unitBits;
        continue;
      } else {
        if (!s.packed && Math.floor(bit / unitBits) !== Math.floor((bit + m.bitWidth - 1) / unitBits)) bit = Math.ceil(bit / unitBits) * unitBits;
        // The member's offset names its storage unit's start; bitOffset is within that unit.
        const unitStart = s.packed ? Math.floor(bit / 8) : Math.floor(bit / unitBits) * msize;
        m.offset = unitStart;
        m.bitOffset = bit - unitStart * 8;
        bit += m.bitWidth;
      }
      if (m.name !== undefined || !s.packed) align = Math.max(align, malign);
      continue;
    }
    if (s.union) {
      m.offset = 0;
      size = Math.max(size, msize);
    } else {
      let off = Math.ceil(bit / 8);
      off = Math.ceil(off / malign) * malign;
      m.offset = off;
      bit = (off + msize) * 8;
    }
    align = Math.max(align, malign);
  }
  if (attrAlign) align = Math.max(align, attrAlign);
  if (!s.union) size = Math.ceil(bit / 8);
  s.size = Math.ceil(size / align) * align;
  s.align = align;
  s.complete = true;
  return err;
}

/** Integer promotion (C11 6.3.1.1). */
export function promote(t: Type): Type {
  if (t.k === 'int' && t.size < 4) return T.int;
  return t;
}

function rank(t: IntType): number {
  return { bool: 0, char: 1, short: 2, int: 3, long: 4, llong: 5 }[t.kind];
}

/** The usual arithmetic conversions (C11 6.3.1.8) for two integer types. */
export function usualArith(a: IntType, b: IntType): IntType {
  const x = promote(a) as IntType;
  const y = promote(b) as IntType;
  if (x === y || (x.size === y.size && x.signed === y.signed && rank(x) === rank(y))) return x;
  if (x.signed === y.signed) return rank(x) >= rank(y) ? x : y;
  const [u, s] = x.signed ? [y, x] : [x, y];
  if (rank(u) >= rank(s)) return u;
  if (s.size > u.size) return s;
  return s.kind === 'long' ? T.ulong : s.kind === 'llong' ? T.ullong : T.uint;
}

export function typeName(t: Type): string {
  switch (t.k) {
    case 'void': return 'void';
    case 'int': return t.name;
    case 'ptr': return t.to.k === 'func' ? `${typeName(t.to.ret)} (*)(${t.to.params.map((p) => typeName(p.type)).join(', ')})` : `${typeName(t.to)} *`;
    case 'array': return `${typeName(t.of)}[${t.len ?? ''}]`;
    case 'func': return `${typeName(t.ret)} (${t.params.map((p) => typeName(p.type)).join(', ')}${t.variadic ? ', ...' : ''})`;
    case 'struct': return t.opaque ?? `${t.union ? 'union' : 'struct'} ${t.tag ?? '(anonymous)'}`;
  }
}

/** Wrap a value to the width and signedness of an integer type. */
export function wrapTo(v: bigint, t: Type): bigint {
  if (t.k === 'int') {
    if (t.kind === 'bool') return v !== 0n ? 1n : 0n;
    return t.signed ? BigInt.asIntN(t.size * 8, v) : BigInt.asUintN(t.size * 8, v);
  }
  return BigInt.asUintN(64, v);
}

export function sameType(a: Type, b: Type): boolean {
  if (a === b) return true;
  if (a.k !== b.k) return false;
  switch (a.k) {
    case 'int': return a.size === (b as IntType).size && a.signed === (b as IntType).signed && a.kind === (b as IntType).kind;
    case 'ptr': return sameType(a.to, (b as PtrType).to);
    case 'array': return a.len === (b as ArrayType).len && sameType(a.of, (b as ArrayType).of);
    case 'void': return true;
    case 'struct': return a === b;
    case 'func': return sameType(a.ret, (b as FuncType).ret) && a.params.length === (b as FuncType).params.length;
  }
}

/** Find a member by name, descending into anonymous structs/unions; offsets accumulate. */
export function findMember(s: StructType, name: string): { m: Member; offset: number } | undefined {
  for (const m of s.members) {
    if (m.name === name) return { m, offset: m.offset };
    if (m.name === undefined && m.type.k === 'struct') {
      const r = findMember(m.type, name);
      if (r) return { m: r.m, offset: m.offset + r.offset };
    }
  }
  return undefined;
}
