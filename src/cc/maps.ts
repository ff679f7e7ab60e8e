/**
 * Map definitions, read the way libbpf reads them: BTF-style definitions in
 * SEC(".maps") (`__uint(type, …)` is a pointer to an array whose length is
 * the value; `__type(key, T)` a pointer to T), and the legacy
 * `struct bpf_map_def` in SEC("maps"). Also the pretty-printing type
 * description each map carries in spec.btf.
 */
import type { Sym } from './ast';
import type { DiagnosticBag } from './diagnostics';
import { constOf } from './codegen/tree';
import { isMapInMap, MAP_TYPES, type MapSpec, type MapType } from '../isa/spec';
import { findMember, sizeOf, type Type } from './types';

/**
 * spec.btf, our shape: for each map (same order as spec.maps) the C types of
 * its key and value, enough to print entries as C values.
 */
export interface BtfInfo {
  maps: { name: string; key: TypeDesc; value: TypeDesc }[];
}
export type TypeDesc =
  | { kind: 'int'; name: string; size: number; signed: boolean }
  | { kind: 'ptr'; size: 8 }
  | { kind: 'array'; elem: TypeDesc; len: number; size: number }
  | { kind: 'struct' | 'union'; name?: string; size: number; members: { name?: string; offset: number; bitOffset?: number; bitWidth?: number; type: TypeDesc }[] }
  | { kind: 'void'; size: 0 };

export function describeType(t: Type, depth = 0): TypeDesc {
  if (depth > 8) return { kind: 'void', size: 0 };
  switch (t.k) {
    case 'int': return { kind: 'int', name: t.name, size: t.size, signed: t.signed };
    case 'ptr': return { kind: 'ptr', size: 8 };
    case 'array': return { kind: 'array', elem: describeType(t.of, depth + 1), len: t.len ?? 0, size: sizeOf(t) };
    case 'struct': return { kind: t.union ? 'union' : 'struct', name: t.tag, size: t.size, members: t.members.map((m) => ({ name: m.name, offset: m.offset, ...(m.bitWidth !== undefined ? { bitOffset: m.bitOffset, bitWidth: m.bitWidth } : {}), type: describeType(m.type, depth + 1) })) };
    default: return { kind: 'void', size: 0 };
  }
}

const TYPE_BY_ID = new Map<number, MapType>(Object.entries(MAP_TYPES).map(([k, v]) => [v, k as MapType]));

export interface MapDef {
  sym: Sym;
  spec: MapSpec;
  key?: Type;
  value?: Type;
  /** Map-in-map: the inner map's template (`__array(values, struct {...})`). */
  inner?: MapDef;
}

/** libbpf sizes a PERF_EVENT_ARRAY without max_entries by the possible CPUs; ours is a fixed machine. */
const PERF_EVENT_ARRAY_DEFAULT_ENTRIES = 64;

/** `opts.unused`: no XDP code names the map (an unsupported type is then a warning, and the map is left out). */
export function readMapDef(sym: Sym, diags: DiagnosticBag, depth = 0, opts: { unused?: boolean } = {}): MapDef | undefined {
  const t = sym.type;
  const sec = depth > 0 ? '.maps' : sym.attrs.section;
  if (t.k !== 'struct') {
    diags.error('cc-map-def', `map '${sym.name}' in section "${sec}" must be a struct`, sym.span);
    return undefined;
  }
  let type: number | undefined, keySize: number | undefined, valueSize: number | undefined, maxEntries: number | undefined, flags = 0, mapExtra = 0;
  let key: Type | undefined, value: Type | undefined;
  let innerDef: MapDef | undefined;
  if (sec === '.maps') {
    const arrLen = (name: string): number | undefined => {
      const m = findMember(t, name);
      if (!m) return undefined;
      const mt = m.m.type;
      if (mt.k === 'ptr' && mt.to.k === 'array') return mt.to.len;
      diags.error('cc-map-def', `map '${sym.name}': field '${name}' must be declared with __uint(${name}, …)`, sym.span);
      return undefined;
    };
    const pointee = (name: string): Type | undefined => {
      const m = findMember(t, name);
      if (!m) return undefined;
      return m.m.type.k === 'ptr' ? m.m.type.to : undefined;
    };
    type = arrLen('type');
    maxEntries = arrLen('max_entries');
    flags = arrLen('map_flags') ?? 0;
    // A bloom filter's hash count (libbpf passes it to BPF_MAP_CREATE as map_extra; the legacy bpf_map_def has no such field).
    mapExtra = arrLen('map_extra') ?? 0;
    key = pointee('key');
    value = pointee('value');
    keySize = key ? sizeOf(key) : arrLen('key_size');
    valueSize = value ? sizeOf(value) : arrLen('value_size');
    // __array(values, T): `T *values[]` — the inner map template of a map-in-map, or a prog_array's programs.
    const vals = findMember(t, 'values');
    if (vals && vals.m.type.k === 'array' && vals.m.type.of.k === 'ptr') {
      const inner = vals.m.type.of.to;
      valueSize ??= 4;
      if (inner.k === 'struct' && depth === 0) {
        innerDef = readMapDef({ ...sym, name: `${sym.name}.inner`, type: inner, init: undefined }, diags, depth + 1);
        if (!innerDef) return undefined;
      }
    }
  } else {
    // struct bpf_map_def: type, key_size, value_size, max_entries, map_flags (u32 each).
    const field = (off: number): number | undefined => {
      const p = sym.init?.parts.find((x) => x.offset === off);
      if (!p) return sym.init?.zero ? 0 : undefined;
      const v = constOf(p.e);
      return v === undefined ? undefined : Number(v);
    };
    type = field(0);
    keySize = field(4);
    valueSize = field(8);
    maxEntries = field(12);
    flags = field(16) ?? 0;
  }
  const typeName = type !== undefined ? TYPE_BY_ID.get(type) : undefined;
  if (type === undefined) { diags.error('cc-map-def', `map '${sym.name}' has no type`, sym.span); return undefined; }
  if (!typeName) {
    // A map only another program type of the file uses (a reuseport sockarray beside its sk_reuseport program):
    // libbpf creates it, the XDP program never sees it, so it is left out; one the code names is an error.
    if (opts.unused) diags.warning('cc-map-type', `map '${sym.name}': map type ${type} is not supported here; no XDP code of this file uses it, so it is left out`, sym.span);
    else diags.error('cc-map-type', `map '${sym.name}': map type ${type} is not supported here (supported: ${[...TYPE_BY_ID.values()].join(', ')})`, sym.span);
    return undefined;
  }
  // devmap, cpumap and xskmap values are fixed by the kernel; their key is a u32.
  if (keySize === undefined && ['devmap', 'devmap_hash', 'cpumap', 'xskmap', 'array', 'percpu_array', 'prog_array'].includes(typeName)) keySize = 4;
  if (valueSize === undefined && ['devmap', 'devmap_hash', 'xskmap', 'prog_array'].includes(typeName)) valueSize = 4;
  if (valueSize === undefined && typeName === 'cpumap') valueSize = 4;
  if (typeName === 'perf_event_array') {
    keySize ??= 4;
    valueSize ??= 4;
    maxEntries ??= PERF_EVENT_ARRAY_DEFAULT_ENTRIES;
  }
  if (typeName === 'ringbuf') { keySize ??= 0; valueSize ??= 0; }
  // Queues, stacks and bloom filters have no key (BPF_MAP_CREATE wants key_size 0).
  if (typeName === 'queue' || typeName === 'stack' || typeName === 'bloom_filter') keySize ??= 0;
  if (isMapInMap(typeName) && !innerDef) {
    diags.error('cc-map-def', `map '${sym.name}': a map-in-map needs its inner map's definition: __array(values, struct { ... })`, sym.span);
    return undefined;
  }
  if (keySize === undefined || valueSize === undefined || maxEntries === undefined) {
    const missing = [keySize === undefined ? 'a key (__type(key, __u32) or __uint(key_size, 4))' : '', valueSize === undefined ? 'a value (__type(value, …) or __uint(value_size, …))' : '',
      maxEntries === undefined ? `max_entries (__uint(max_entries, ${typeName === 'ringbuf' ? '4096' : '64'}))` : ''].filter(Boolean);
    // A definition without max_entries is sized by its loader at run time (libbpf's bpf_map__set_max_entries); here nothing runs before the load.
    const why = maxEntries === undefined && missing.length === 1 ? ': its project sizes it from user space before loading, and XDP Lab loads the object as it is' : '';
    diags.error('cc-map-def', `map '${sym.name}' needs ${missing.join(', ')}${why}`, sym.span);
    return undefined;
  }
  const spec: MapSpec = { name: sym.name, type: typeName, key_size: keySize, value_size: valueSize, max_entries: maxEntries };
  if (flags) spec.flags = flags;
  if (mapExtra) spec.map_extra = mapExtra;
  return { sym, spec, key, value, ...(innerDef ? { inner: innerDef } : {}) };
}
