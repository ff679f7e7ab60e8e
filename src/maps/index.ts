/**
 * BPF maps with the kernel's semantics, as a program and as user space see
 * them: array, percpu_array, hash, percpu_hash, lru_hash, devmap,
 * devmap_hash, xskmap, cpumap, prog_array. Update flags (BPF_ANY,
 * BPF_NOEXIST, BPF_EXIST) and the kernel's negative errno results
 * (-EEXIST, -ENOENT, -E2BIG, -EINVAL) follow kernel/bpf/arraymap.c,
 * hashtab.c, devmap.c, cpumap.c and xskmap.c. Values are live byte buffers:
 * a program's lookup returns the buffer itself, so its stores are the map's.
 * `dump()` gives the oracle's JSON shape (arrays list non-zero entries only).
 */
import type { MapSpec, MapType } from '../isa/spec';
import { bytesToHex } from '../isa/insn';

export const BPF_ANY = 0;
export const BPF_NOEXIST = 1;
export const BPF_EXIST = 2;
export const BPF_F_LOCK = 4;

export const EPERM = 1;
export const ENOENT = 2;
export const E2BIG = 7;
export const ENOMEM = 12;
export const EEXIST = 17;
export const EINVAL = 22;
export const EOPNOTSUPP = 95;

const PERCPU: ReadonlySet<MapType> = new Set(['percpu_array', 'percpu_hash']);
const ARRAY_LIKE: ReadonlySet<MapType> = new Set(['array', 'percpu_array', 'prog_array', 'devmap', 'cpumap', 'xskmap']);

export interface MapDumpEntry {
  key: string;
  value: string | string[];
}

export interface BpfMap {
  readonly type: MapType;
  readonly name: string;
  readonly keySize: number;
  readonly valueSize: number;
  readonly maxEntries: number;
  readonly nCpus: number;
  readonly percpu: boolean;
  /** The program's view: the live value buffer (this cpu's, for per-cpu maps), or undefined. */
  lookup(key: Uint8Array, cpu: number): Uint8Array | undefined;
  /** The program's bpf_map_update_elem: 0 or a negative errno. */
  update(key: Uint8Array, value: Uint8Array, flags: number, cpu: number): number;
  /** bpf_map_delete_elem: 0 or a negative errno. */
  delete(key: Uint8Array): number;
  /** User space's view (BPF_MAP_UPDATE_ELEM): a single value is copied to every cpu. */
  userUpdate(key: Uint8Array, value: Uint8Array, flags?: number): number;
  /** User space's lookup: one value per cpu for per-cpu maps. */
  userLookup(key: Uint8Array): Uint8Array[] | undefined;
  /** Every present key, in iteration order. */
  keys(): Uint8Array[];
  /** The oracle's JSON shape. */
  dump(): { type: MapType; entries: MapDumpEntry[] };
}

/** What the kernel checks at BPF_MAP_CREATE; undefined when the spec is fine. */
export function checkMapSpec(spec: MapSpec, nCpus: number): string | undefined {
  const { type, key_size: ks, value_size: vs, max_entries: n } = spec;
  if (n === 0) return `map ${type}: max_entries must be > 0 (EINVAL)`;
  if (ARRAY_LIKE.has(type) && ks !== 4) return `map ${type}: key_size must be 4 (EINVAL)`;
  if (vs === 0 && type !== 'devmap' && type !== 'devmap_hash') return `map ${type}: value_size must be > 0 (EINVAL)`;
  if (ks === 0) return `map ${type}: key_size must be > 0 (EINVAL)`;
  if ((type === 'devmap' || type === 'devmap_hash') && vs !== 4 && vs !== 8) return `map ${type}: value_size must be 4 or 8 (EINVAL)`;
  if ((type === 'cpumap') && vs !== 4 && vs !== 8) return `map cpumap: value_size must be 4 or 8 (EINVAL)`;
  if ((type === 'xskmap' || type === 'prog_array') && vs !== 4) return `map ${type}: value_size must be 4 (EINVAL)`;
  if (type === 'devmap_hash' && ks !== 4) return 'map devmap_hash: key_size must be 4 (EINVAL)';
  if (type === 'cpumap' && n > 8192) return 'map cpumap: max_entries too large (EINVAL)';
  void nCpus;
  return undefined;
}

export function createMap(spec: MapSpec, opts: { nCpus?: number } = {}): BpfMap | { error: string } {
  const nCpus = opts.nCpus ?? 1;
  const err = checkMapSpec(spec, nCpus);
  if (err) return { error: err };
  const m = ARRAY_LIKE.has(spec.type) ? new ArrayMap(spec, nCpus) : new HashMap(spec, nCpus);
  for (const [i, e] of (spec.init ?? []).entries()) {
    const k = hexBytes(e.key);
    const v = hexBytes(e.value);
    if (!k || k.length !== spec.key_size) return { error: `map ${spec.name ?? spec.type}: init[${i}].key must be ${spec.key_size} bytes of hex` };
    if (!v || (v.length !== spec.value_size && v.length !== stride(spec.value_size) * nCpus)) return { error: `map ${spec.name ?? spec.type}: init[${i}].value must be ${spec.value_size} bytes of hex` };
    const r = m.userUpdate(k, v, BPF_ANY);
    if (r < 0) return { error: `map ${spec.name ?? spec.type}: init[${i}] rejected (errno ${-r})` };
  }
  return m;
}

function hexBytes(h: string): Uint8Array | undefined {
  if (typeof h !== 'string' || h.length % 2 || /[^0-9a-fA-F]/.test(h)) return undefined;
  const out = new Uint8Array(h.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(h.substr(2 * i, 2), 16);
  return out;
}

/** Per-cpu values are laid out 8-byte aligned, as the kernel copies them. */
const stride = (vs: number): number => Math.ceil(vs / 8) * 8;
const u32 = (k: Uint8Array): number => (k[0]! | (k[1]! << 8) | (k[2]! << 16) | (k[3]! << 24)) >>> 0;
const keyStr = (k: Uint8Array): string => bytesToHex(k);
const isZero = (b: Uint8Array): boolean => b.every((x) => x === 0);

abstract class MapBase {
  readonly type: MapType;
  readonly name: string;
  readonly keySize: number;
  readonly valueSize: number;
  readonly maxEntries: number;
  readonly percpu: boolean;
  constructor(
    spec: MapSpec,
    readonly nCpus: number,
  ) {
    this.type = spec.type;
    this.name = spec.name ?? spec.type;
    this.keySize = spec.key_size;
    this.valueSize = spec.value_size;
    this.maxEntries = spec.max_entries;
    this.percpu = PERCPU.has(spec.type);
  }
  abstract keys(): Uint8Array[];
  abstract userLookup(key: Uint8Array): Uint8Array[] | undefined;

  /** Split a user-space value into per-cpu values (one value fills every cpu). */
  protected perCpuValues(value: Uint8Array): Uint8Array[] | undefined {
    if (!this.percpu) return value.length === this.valueSize ? [value] : undefined;
    if (value.length === this.valueSize) return Array.from({ length: this.nCpus }, () => value);
    const s = stride(this.valueSize);
    if (value.length !== s * this.nCpus) return undefined;
    return Array.from({ length: this.nCpus }, (_, c) => value.subarray(c * s, c * s + this.valueSize));
  }

  dump(): { type: MapType; entries: MapDumpEntry[] } {
    const entries: MapDumpEntry[] = [];
    const arrays = this.type === 'array' || this.type === 'percpu_array';
    for (const k of this.keys()) {
      const vals = this.userLookup(k);
      if (!vals) continue;
      if (arrays && vals.every(isZero)) continue;
      entries.push({ key: keyStr(k), value: this.percpu ? vals.map((v) => bytesToHex(v)) : bytesToHex(vals[0]!) });
    }
    return { type: this.type, entries };
  }
}

/** array, percpu_array and the index-keyed special maps (devmap, cpumap, xskmap, prog_array). */
class ArrayMap extends MapBase implements BpfMap {
  /** values[cpu][index]; non-percpu maps use cpu 0 only. */
  private readonly values: Uint8Array[][];
  /** For devmap/cpumap/xskmap/prog_array: which slots hold an entry. */
  private readonly present: Uint8Array | undefined;
  private readonly special: boolean;

  constructor(spec: MapSpec, nCpus: number) {
    super(spec, nCpus);
    this.special = spec.type !== 'array' && spec.type !== 'percpu_array';
    const planes = this.percpu ? nCpus : 1;
    this.values = Array.from({ length: planes }, () => {
      const backing = new Uint8Array(this.valueSize * this.maxEntries);
      return Array.from({ length: this.maxEntries }, (_, i) => backing.subarray(i * this.valueSize, (i + 1) * this.valueSize));
    });
    this.present = this.special ? new Uint8Array(this.maxEntries) : undefined;
  }

  lookup(key: Uint8Array, cpu: number): Uint8Array | undefined {
    const i = u32(key);
    if (i >= this.maxEntries) return undefined;
    if (this.present && !this.present[i]) return undefined;
    return this.values[this.percpu ? cpu % this.nCpus : 0]![i];
  }

  update(key: Uint8Array, value: Uint8Array, flags: number, cpu: number): number {
    // Programs may not update the special maps (the verifier refuses); user space may.
    if (this.special) return -EINVAL;
    const r = this.checkFlags(key, flags);
    if (r) return r;
    this.values[this.percpu ? cpu % this.nCpus : 0]![u32(key)]!.set(value.subarray(0, this.valueSize));
    return 0;
  }

  private checkFlags(key: Uint8Array, flags: number): number {
    if ((flags & ~BPF_F_LOCK) > BPF_EXIST) return -EINVAL;
    if (u32(key) >= this.maxEntries) return -E2BIG;
    // Every element of an array always exists.
    if (!this.special && (flags & ~BPF_F_LOCK) === BPF_NOEXIST) return -EEXIST;
    return 0;
  }

  delete(key: Uint8Array): number {
    if (!this.special) return -EINVAL;
    const i = u32(key);
    if (i >= this.maxEntries) return -EINVAL;
    if (!this.present![i]) return -ENOENT;
    this.present![i] = 0;
    this.values[0]![i]!.fill(0);
    return 0;
  }

  userUpdate(key: Uint8Array, value: Uint8Array, flags = BPF_ANY): number {
    const r = this.checkFlags(key, flags);
    if (r) return r;
    const vals = this.perCpuValues(value);
    if (!vals) return -EINVAL;
    const i = u32(key);
    if (this.special) {
      if (flags === BPF_NOEXIST && this.present![i]) return -EEXIST;
      this.present![i] = 1;
    }
    vals.forEach((v, c) => this.values[c]![i]!.set(v));
    return 0;
  }

  userLookup(key: Uint8Array): Uint8Array[] | undefined {
    const i = u32(key);
    if (i >= this.maxEntries || (this.present && !this.present[i])) return undefined;
    return this.values.map((plane) => plane[i]!);
  }

  keys(): Uint8Array[] {
    const out: Uint8Array[] = [];
    for (let i = 0; i < this.maxEntries; i++) {
      if (this.present && !this.present[i]) continue;
      out.push(new Uint8Array([i & 0xff, (i >>> 8) & 0xff, (i >>> 16) & 0xff, i >>> 24]));
    }
    return out;
  }
}

interface HashEntry {
  key: Uint8Array;
  /** One buffer per cpu for percpu_hash, else one. */
  values: Uint8Array[];
}

/** hash, percpu_hash, lru_hash, devmap_hash. Iteration is insertion order (LRU: recency order). */
class HashMap extends MapBase implements BpfMap {
  private readonly table = new Map<string, HashEntry>();
  private readonly lru: boolean;

  constructor(spec: MapSpec, nCpus: number) {
    super(spec, nCpus);
    this.lru = spec.type === 'lru_hash';
  }

  lookup(key: Uint8Array, cpu: number): Uint8Array | undefined {
    const k = keyStr(key.subarray(0, this.keySize));
    const e = this.table.get(k);
    if (!e) return undefined;
    if (this.lru) {
      // Mark as recently used: re-insert at the young end.
      this.table.delete(k);
      this.table.set(k, e);
    }
    return e.values[this.percpu ? cpu % this.nCpus : 0];
  }

  private put(key: Uint8Array, flags: number, fill: (e: HashEntry, fresh: boolean) => void): number {
    if ((flags & ~BPF_F_LOCK) > BPF_EXIST) return -EINVAL;
    const k = keyStr(key.subarray(0, this.keySize));
    const old = this.table.get(k);
    if (old && flags === BPF_NOEXIST) return -EEXIST;
    if (!old && flags === BPF_EXIST) return -ENOENT;
    if (old) {
      fill(old, false);
      if (this.lru) {
        this.table.delete(k);
        this.table.set(k, old);
      }
      return 0;
    }
    if (this.table.size >= this.maxEntries) {
      if (!this.lru) return -E2BIG;
      // Evict the least recently used entry (the kernel's LRU is approximate; this is exact).
      const victim = this.table.keys().next().value as string;
      this.table.delete(victim);
    }
    const e: HashEntry = { key: key.slice(0, this.keySize), values: Array.from({ length: this.percpu ? this.nCpus : 1 }, () => new Uint8Array(this.valueSize)) };
    fill(e, true);
    this.table.set(k, e);
    return 0;
  }

  update(key: Uint8Array, value: Uint8Array, flags: number, cpu: number): number {
    return this.put(key, flags, (e) => {
      // A program writes only its own cpu's copy; a new element's other copies are zero.
      e.values[this.percpu ? cpu % this.nCpus : 0]!.set(value.subarray(0, this.valueSize));
    });
  }

  delete(key: Uint8Array): number {
    return this.table.delete(keyStr(key.subarray(0, this.keySize))) ? 0 : -ENOENT;
  }

  userUpdate(key: Uint8Array, value: Uint8Array, flags = BPF_ANY): number {
    const vals = this.perCpuValues(value);
    if (!vals || key.length !== this.keySize) return -EINVAL;
    return this.put(key, flags, (e) => vals.forEach((v, c) => e.values[c]!.set(v)));
  }

  userLookup(key: Uint8Array): Uint8Array[] | undefined {
    return this.table.get(keyStr(key))?.values;
  }

  keys(): Uint8Array[] {
    return [...this.table.values()].map((e) => e.key);
  }
}
