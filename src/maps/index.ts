/**
 * BPF maps with the kernel's semantics, as a program and as user space see
 * them: array, percpu_array, hash, percpu_hash, lru_hash, devmap,
 * devmap_hash, xskmap, cpumap, prog_array, queue and stack (no key; the
 * program pushes, pops and peeks: kernel/bpf/queue_stack_maps.c),
 * array_of_maps and hash_of_maps (values are the indices of the program's
 * inner maps, where the kernel takes fds; what goes in must match the
 * template as kernel/bpf/map_in_map.c's map_meta_equal wants: checkMapInMaps,
 * bindMapInMaps), and (in ./bloom_filter.ts) bloom_filter. Update flags (BPF_ANY,
 * BPF_NOEXIST, BPF_EXIST) and the kernel's negative errno results
 * (-EEXIST, -ENOENT, -E2BIG, -EINVAL) follow kernel/bpf/arraymap.c,
 * hashtab.c, devmap.c, cpumap.c and xskmap.c. Values are live byte buffers:
 * a program's lookup returns the buffer itself, so its stores are the map's.
 * `dump()` gives the oracle's JSON shape (arrays list non-zero entries only).
 *
 * Limits are the kernel's (key and value sizes per map type, E2BIG/EINVAL)
 * plus a memory cap standing in for the memory cgroup a map is charged to:
 * each map's footprint, computed as the kernel sizes it (preallocated
 * elements included), must fit a per-map and a total budget (MapMemory;
 * 64 MiB and 256 MiB by default) or creation fails with ENOMEM. Array
 * storage is allocated lazily in chunks, so a large but legal array costs
 * nothing until its elements are touched.
 */
import { isMapInMap, type MapSpec, type MapType } from '../isa/spec';
import { bytesToHex } from '../isa/insn';
import { LpmTrie } from './lpm';
import { HelperOnlyMap, MapBase, PERCPU, stride } from './base';
import { BLOOM_MAP_EXTRA_MASK, BPF_F_ZERO_SEED, BloomFilterMap, bloomGeometry } from './bloom_filter';

export const BPF_ANY = 0;
export const BPF_NOEXIST = 1;
export const BPF_EXIST = 2;
export const BPF_F_LOCK = 4;

/** Map flags (BPF_MAP_CREATE's map_flags). */
export const BPF_F_NO_PREALLOC = 1;
export const BPF_F_RDONLY_PROG = 0x80;
export const BPF_F_WRONLY_PROG = 0x100;
export const BPF_F_MMAPABLE = 0x400;
/** QUEUE_STACK_CREATE_FLAG_MASK: BPF_F_NUMA_NODE and BPF_F_ACCESS_MASK (RDONLY, WRONLY, RDONLY_PROG, WRONLY_PROG). */
const QUEUE_STACK_CREATE_FLAGS = 0x4 | 0x8 | 0x10 | BPF_F_RDONLY_PROG | 0x100;
/** BLOOM_CREATE_FLAG_MASK: the queue/stack flags and BPF_F_ZERO_SEED. */
const BLOOM_CREATE_FLAGS = QUEUE_STACK_CREATE_FLAGS | BPF_F_ZERO_SEED;

export { E2BIG, EBADF, EEXIST, EINVAL, ENOENT, ENOMEM, EOPNOTSUPP, EPERM } from '../isa/errno';
import { E2BIG, EBADF, EEXIST, EINVAL, ENOENT, EPERM } from '../isa/errno';

/** KMALLOC_MAX_SIZE on x86_64 (4 KiB pages, MAX_PAGE_ORDER 10): the largest single value. */
export const KMALLOC_MAX_SIZE = 4 << 20;
/** PCPU_MIN_UNIT_SIZE: the largest per-cpu value. */
export const PCPU_MIN_UNIT_SIZE = 32 << 10;
/** MAX_BPF_STACK: a hash key must fit on the program's stack. */
export const MAX_BPF_STACK = 512;
/** sizeof(struct htab_elem) on x86_64, which the kernel adds to every preallocated element. */
const HTAB_ELEM_SIZE = 48;

export const MAP_MEMORY_PER_MAP = 64 << 20;
export const MAP_MEMORY_TOTAL = 256 << 20;

/**
 * The memory budget maps are charged to (a memory cgroup's limit, as the
 * kernel charges map memory to the creating task's cgroup): one per program
 * instance, shared by its maps.
 */
export class MapMemory {
  used = 0;
  constructor(
    readonly perMap = MAP_MEMORY_PER_MAP,
    readonly total = MAP_MEMORY_TOTAL,
  ) {}
}

const mib = (n: number): string => (n >= 1 << 20 ? `${+(n / (1 << 20)).toFixed(1)} MiB` : `${n} bytes`);
const round8 = (n: number): number => Math.ceil(n / 8) * 8;

/** The bytes the kernel allocates for a map up front (element storage; per-map overhead ignored). */
export function mapFootprint(spec: MapSpec, nCpus: number): number {
  const { type, key_size: ks, value_size: vs, max_entries: n } = spec;
  const perCpu = PERCPU.has(type) ? nCpus : 1;
  switch (type) {
    case 'array':
    case 'percpu_array':
      return round8(vs) * n * perCpu;
    case 'hash':
    case 'percpu_hash':
    case 'lru_hash':
    case 'lru_percpu_hash':
      // Preallocated unless BPF_F_NO_PREALLOC (then charged as elements are added; counted here at the maximum too).
      return n * (HTAB_ELEM_SIZE + round8(ks) + (perCpu > 1 ? 8 : round8(vs))) + (perCpu > 1 ? n * round8(vs) * perCpu : 0);
    case 'ringbuf':
      return n;
    case 'lpm_trie':
      return n * (HTAB_ELEM_SIZE + ks + vs);
    case 'queue':
    case 'stack':
      // One slot more than max_entries (a full ring keeps head != tail).
      return (n + 1) * vs;
    case 'bloom_filter':
      // The bit array only (2^32 bits, 512 MiB, when the sizing overflows: the budget refuses it).
      return bloomGeometry(n, spec.map_extra ?? 0).bitsetBytes;
    default:
      // devmap, cpumap, xskmap, prog_array, perf_event_array, map-in-map: one pointer-sized slot per entry.
      return n * 8;
  }
}
const ARRAY_LIKE: ReadonlySet<MapType> = new Set(['array', 'percpu_array', 'prog_array', 'devmap', 'cpumap', 'xskmap', 'array_of_maps']);
/** Maps a program reaches only through helpers (perf_event_output, ringbuf_*): no elements to look up. */
const EVENT_MAPS: ReadonlySet<MapType> = new Set(['perf_event_array', 'ringbuf']);

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
  /** map_flags (BPF_F_RDONLY_PROG, BPF_F_WRONLY_PROG, BPF_F_MMAPABLE, BPF_F_NO_PREALLOC). */
  readonly flags: number;
  /** After BPF_MAP_FREEZE user space may no longer write (EPERM); the program still may, unless BPF_F_RDONLY_PROG. */
  frozen: boolean;
  /** The program's view: the live value buffer (this cpu's, for per-cpu maps), or undefined. */
  lookup(key: Uint8Array, cpu: number): Uint8Array | undefined;
  /** Arrays: lookup by index (the JIT's inline lookups). */
  lookupIndex?(i: number, cpu: number): Uint8Array | undefined;
  /**
   * Hash maps: the program's lookup of the key at bytes[at, at+keySize)
   * without copying it, as its element's slot (-1: absent); LRU maps mark
   * it used. slotValue gives the slot's live value for a cpu (the JIT's
   * inline lookups keep the slot's pointer by slot).
   */
  lookupSlot?(bytes: Uint8Array, at: number): number;
  /** devmap, xskmap, cpumap, prog_array: which indices hold an entry (1), live (the JIT's inline lookups check it). */
  readonly presence?: Uint8Array;
  slotValue?(slot: number, cpu: number): Uint8Array;
  /**
   * Set by a caller that wraps lookup/lookupIndex to observe every lookup
   * (the simulator's cost model counts them): the JIT must then call the
   * lookup each time instead of inlining the array access.
   */
  observed?: boolean;
  /**
   * Set by a caller that counts the program's lookups without wrapping them
   * (the simulator's cost model): every lookup the program makes, through
   * the helper or inlined by the JIT, adds one. Unlike `observed`, the JIT
   * keeps inlining the array access (it bumps the counter itself).
   */
  lookupCounter?: { n: number };
  /** The program's bpf_map_update_elem: 0 or a negative errno. */
  update(key: Uint8Array, value: Uint8Array, flags: number, cpu: number): number;
  /** bpf_map_delete_elem: 0 or a negative errno. */
  delete(key: Uint8Array): number;
  /** User space's view (BPF_MAP_UPDATE_ELEM): a single value is copied to every cpu. */
  userUpdate(key: Uint8Array, value: Uint8Array, flags?: number): number;
  /**
   * Map-in-maps: whether user space may put this value (an inner map's
   * index) in, 0 or a negative errno (bindMapInMaps sets it, knowing the
   * program's other maps and the template).
   */
  innerCheck?: (value: Uint8Array) => number;
  /** User space's lookup: one value per cpu for per-cpu maps. */
  userLookup(key: Uint8Array): Uint8Array[] | undefined;
  /** Queue and stack maps: bpf_map_push_elem (0 or a negative errno). */
  push?(value: Uint8Array, flags: number): number;
  /** Queue and stack maps: bpf_map_pop_elem / bpf_map_peek_elem into `out` (zeroed and -ENOENT when empty). Bloom filters: -EOPNOTSUPP. */
  pop?(out: Uint8Array, remove: boolean): number;
  /**
   * Bloom filters: bpf_map_peek_elem, which READS the value (the program's
   * and user space's membership test): 0 when it may be present, -ENOENT.
   */
  peekElem?(value: Uint8Array): number;
  /** Bloom filters: the bit array's size, how many bits are set, and the hashes per value (for the map views). */
  bitsetStats?(): { nrBits: number; setBits: number; nrHashFuncs: number };
  /**
   * Maps whose contents keys() and userLookup() cannot carry (a bloom
   * filter's bits): their state as bytes, and a fresh map of the same spec
   * taking it, so a copy (the inspector's re-run) sees what the original holds.
   */
  saveState?(): Uint8Array;
  restoreState?(state: Uint8Array): void;
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
  if (vs === 0 && type !== 'devmap' && type !== 'devmap_hash' && type !== 'ringbuf') return `map ${type}: value_size must be > 0 (EINVAL)`;
  if (type === 'queue' || type === 'stack') {
    // queue_stack_map_alloc_check: no key, a value, and only BPF_F_NUMA_NODE and the access flags.
    if (ks !== 0) return `map ${type}: key_size must be 0 (EINVAL)`;
    if ((spec.flags ?? 0) & ~QUEUE_STACK_CREATE_FLAGS) return `map ${type}: flags 0x${(spec.flags ?? 0).toString(16)} not allowed (EINVAL)`;
    if (vs > KMALLOC_MAX_SIZE) return `map ${type}: value_size ${vs} is larger than ${KMALLOC_MAX_SIZE} (E2BIG)`;
  }
  const extra = spec.map_extra ?? 0;
  if (type === 'bloom_filter') {
    // bloom_map_alloc_check: no key, a value, its flags, and map_extra's low 4 bits only (the hash count).
    if (ks !== 0) return `map ${type}: key_size must be 0 (EINVAL)`;
    if ((spec.flags ?? 0) & ~BLOOM_CREATE_FLAGS) return `map ${type}: flags 0x${(spec.flags ?? 0).toString(16)} not allowed (EINVAL)`;
    if (extra > BLOOM_MAP_EXTRA_MASK) return `map ${type}: map_extra 0x${extra.toString(16)} uses more than its low 4 bits (the number of hash functions) (EINVAL)`;
    if (vs > KMALLOC_MAX_SIZE) return `map ${type}: value_size ${vs} is larger than ${KMALLOC_MAX_SIZE} (E2BIG)`;
  } else if (extra !== 0) {
    // map_create: map_extra means something only to a bloom filter (and arenas, not modelled).
    return `map ${type}: map_extra must be 0 (EINVAL)`;
  }
  if (ks === 0 && type !== 'ringbuf' && type !== 'queue' && type !== 'stack' && type !== 'bloom_filter') return `map ${type}: key_size must be > 0 (EINVAL)`;
  if ((type === 'devmap' || type === 'devmap_hash') && vs !== 4 && vs !== 8) return `map ${type}: value_size must be 4 or 8 (EINVAL)`;
  if ((type === 'cpumap') && vs !== 4 && vs !== 8) return `map cpumap: value_size must be 4 or 8 (EINVAL)`;
  if ((type === 'xskmap' || type === 'prog_array' || type === 'perf_event_array' || isMapInMap(type)) && vs !== 4) return `map ${type}: value_size must be 4 (EINVAL)`;
  if (type === 'perf_event_array' && ks !== 4) return 'map perf_event_array: key_size must be 4 (EINVAL)';
  if (type === 'ringbuf' && (ks !== 0 || vs !== 0)) return 'map ringbuf: key_size and value_size must be 0 (EINVAL)';
  if (type === 'ringbuf' && (n < 4096 || (n & (n - 1)) !== 0)) return `map ringbuf: max_entries ${n} must be a power of 2 and a multiple of the page size (EINVAL)`;
  if (type === 'devmap_hash' && ks !== 4) return 'map devmap_hash: key_size must be 4 (EINVAL)';
  if (type === 'cpumap' && n > 8192) return 'map cpumap: max_entries too large (EINVAL)';
  const flags = spec.flags ?? 0;
  if (!Number.isInteger(flags) || flags < 0) return `map ${type}: flags must be a non-negative integer (EINVAL)`;
  if ((flags & BPF_F_RDONLY_PROG) && (flags & BPF_F_WRONLY_PROG)) return `map ${type}: BPF_F_RDONLY_PROG and BPF_F_WRONLY_PROG together (EINVAL)`;
  if ((flags & BPF_F_MMAPABLE) && type !== 'array' && type !== 'ringbuf') return `map ${type}: BPF_F_MMAPABLE is for arrays (EINVAL)`;
  if (type === 'lpm_trie' && !(flags & BPF_F_NO_PREALLOC)) return 'map lpm_trie: needs BPF_F_NO_PREALLOC (EINVAL)';
  if (type === 'lpm_trie' && (ks <= 4 || ks > 4 + 256)) return `map lpm_trie: key_size ${ks} must be 5 to 260 (EINVAL)`;
  const percpu = PERCPU.has(type);
  if ((type === 'array' || type === 'percpu_array') && vs > (percpu ? PCPU_MIN_UNIT_SIZE : KMALLOC_MAX_SIZE)) {
    return `map ${type}: value_size ${vs} is larger than ${percpu ? PCPU_MIN_UNIT_SIZE : KMALLOC_MAX_SIZE} (E2BIG)`;
  }
  if (type === 'hash' || type === 'percpu_hash' || type === 'lru_hash' || type === 'lru_percpu_hash') {
    if (ks > MAX_BPF_STACK) return `map ${type}: key_size ${ks} is larger than ${MAX_BPF_STACK} (E2BIG)`;
    if (percpu && vs > PCPU_MIN_UNIT_SIZE) return `map ${type}: value_size ${vs} is larger than ${PCPU_MIN_UNIT_SIZE} (E2BIG)`;
    if (vs >= KMALLOC_MAX_SIZE - MAX_BPF_STACK - HTAB_ELEM_SIZE) return `map ${type}: value_size ${vs} is too large (E2BIG)`;
  }
  void nCpus;
  return undefined;
}

/** BPF_F_INNER_MAP: maps of this template may have other max_entries (array_map_meta_equal). */
export const BPF_F_INNER_MAP = 0x1000;

/**
 * A program's map-in-maps against the other maps: each names a template
 * (inner_map, as BPF_MAP_CREATE takes inner_map_fd; not itself a
 * map-in-map: bpf_map_meta_alloc), and each inner map user space puts in
 * (an init value: the inner map's index) must match it as the kernel's
 * map_meta_equal wants: type, key and value size, flags, and for arrays
 * max_entries unless the template has BPF_F_INNER_MAP (EINVAL otherwise).
 */
export function checkMapInMaps(specs: readonly MapSpec[]): string | undefined {
  for (const spec of specs) {
    const outer = isMapInMap(spec.type);
    const name = spec.name ?? spec.type;
    if (!outer) {
      if (spec.inner_map !== undefined) return `map ${name}: inner_map is for array_of_maps and hash_of_maps maps`;
      continue;
    }
    const meta = spec.inner_map === undefined ? undefined : specs[spec.inner_map];
    if (!meta) return `map ${name}: a map-in-map needs inner_map, the index of its inner map's template (EBADF)`;
    if (isMapInMap(meta.type)) return `map ${name}: its inner map may not be a map-in-map itself (EINVAL)`;
    for (const [i, e] of (spec.init ?? []).entries()) {
      const idx = e.value.length === 8 ? u32(hexBytes(e.value) ?? new Uint8Array(4)) : -1;
      const inner = specs[idx];
      if (!inner) return `map ${name}: init[${i}].value must be the index of one of the program's maps (EBADF)`;
      if (!mapMetaEqual(meta, inner)) {
        return `map ${name}: init[${i}]: map ${inner.name ?? idx} does not match the inner map template (type, key_size, value_size, flags${meta.type === 'array' || meta.type === 'percpu_array' ? ', max_entries' : ''}) (EINVAL)`;
      }
    }
  }
  return undefined;
}

/** map_meta_equal (bpf_map_meta_equal, array_map_meta_equal): may `inner` stand where the template `meta` was verified? */
function mapMetaEqual(meta: MapSpec, inner: MapSpec): boolean {
  const isArray = meta.type === 'array' || meta.type === 'percpu_array';
  const sameMaxEntries = !isArray || inner.max_entries === meta.max_entries || ((meta.flags ?? 0) & BPF_F_INNER_MAP) !== 0;
  return inner.type === meta.type && inner.key_size === meta.key_size && inner.value_size === meta.value_size && (inner.flags ?? 0) === (meta.flags ?? 0) && sameMaxEntries;
}

/**
 * User space's later updates of a program's map-in-maps (the engine's map
 * editor, a scenario's setup) go through the same checks as the initial
 * ones: the value is the index of a map that matches the template
 * (bpf_map_fd_get_ptr: EBADF for no such map, EINVAL for a mismatch).
 */
export function bindMapInMaps(maps: readonly BpfMap[], specs: readonly MapSpec[]): void {
  specs.forEach((spec, i) => {
    const meta = spec.inner_map === undefined ? undefined : specs[spec.inner_map];
    const m = maps[i];
    if (!meta || !m || (spec.type !== 'array_of_maps' && spec.type !== 'hash_of_maps')) return;
    m.innerCheck = (value) => {
      const inner = specs[u32(value)];
      if (!inner) return -EBADF;
      return mapMetaEqual(meta, inner) ? 0 : -EINVAL;
    };
  });
}

/** Charge a map's footprint to the budget; the kernel's ENOMEM as one line when it does not fit. */
function chargeMemory(spec: MapSpec, nCpus: number, mem: MapMemory): string | undefined {
  const bytes = mapFootprint(spec, nCpus);
  const name = spec.name ?? spec.type;
  if (bytes > mem.perMap) return `map ${name}: needs ${mib(bytes)}, more than the ${mib(mem.perMap)} a map may use (ENOMEM: Cannot allocate memory)`;
  if (mem.used + bytes > mem.total) return `map ${name}: needs ${mib(bytes)}, but only ${mib(mem.total - mem.used)} of the ${mib(mem.total)} for all maps is left (ENOMEM: Cannot allocate memory)`;
  mem.used += bytes;
  return undefined;
}

export function createMap(spec: MapSpec, opts: { nCpus?: number; memory?: MapMemory } = {}): BpfMap | { error: string } {
  const nCpus = opts.nCpus ?? 1;
  const err = checkMapSpec(spec, nCpus) ?? chargeMemory(spec, nCpus, opts.memory ?? new MapMemory());
  if (err) return { error: err };
  const m: BpfMap = ARRAY_LIKE.has(spec.type)
    ? new ArrayMap(spec, nCpus)
    : spec.type === 'lpm_trie'
      ? new LpmTrie(spec, nCpus)
      : EVENT_MAPS.has(spec.type)
        ? new EventMap(spec, nCpus)
        : spec.type === 'queue' || spec.type === 'stack'
          ? new QueueStackMap(spec, nCpus)
          : spec.type === 'bloom_filter'
            ? new BloomFilterMap(spec, nCpus)
            : new HashMap(spec, nCpus);
  // prog_array: the slots user space fills with the object's programs (their indices in ProgramSpec.programs).
  for (const ps of spec.prog_slots ?? []) {
    if (spec.type !== 'prog_array') return { error: `map ${spec.name ?? spec.type}: prog_slots is for prog_array maps` };
    const r = m.userUpdate(u32Bytes(ps.slot), u32Bytes(ps.prog), BPF_ANY);
    if (r < 0) return { error: `map ${spec.name ?? spec.type}: prog_slots slot ${ps.slot} rejected (errno ${-r})` };
  }
  for (const [i, e] of (spec.init ?? []).entries()) {
    const k = hexBytes(e.key);
    const v = hexBytes(e.value);
    if (!k || k.length !== spec.key_size) return { error: `map ${spec.name ?? spec.type}: init[${i}].key must be ${spec.key_size} bytes of hex` };
    if (!v || (v.length !== spec.value_size && v.length !== stride(spec.value_size) * nCpus)) return { error: `map ${spec.name ?? spec.type}: init[${i}].value must be ${spec.value_size} bytes of hex` };
    const r = m.userUpdate(k, v, BPF_ANY);
    if (r < 0) return { error: `map ${spec.name ?? spec.type}: init[${i}] rejected (errno ${-r})` };
  }
  if (spec.freeze) m.frozen = true;
  return m;
}

function hexBytes(h: string): Uint8Array | undefined {
  if (typeof h !== 'string' || h.length % 2 || /[^0-9a-fA-F]/.test(h)) return undefined;
  const out = new Uint8Array(h.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(h.substr(2 * i, 2), 16);
  return out;
}

const u32Bytes = (n: number): Uint8Array => new Uint8Array([n & 0xff, (n >>> 8) & 0xff, (n >>> 16) & 0xff, n >>> 24]);

const u32 = (k: Uint8Array): number => (k[0]! | (k[1]! << 8) | (k[2]! << 16) | (k[3]! << 24)) >>> 0;
/** A program's update: the value's first dst.length bytes into the element (a loop: no view made per packet). */
function copyValue(dst: Uint8Array, src: Uint8Array): void {
  for (let i = 0; i < dst.length; i++) dst[i] = src[i]!;
}

/**
 * Element storage of an array, allocated in chunks on first touch: each
 * chunk is one buffer plus a view per element (made with the chunk, so a
 * lookup returns the same live view every time and allocates nothing).
 */
class LazyPlane {
  private readonly chunks: (Uint8Array[] | undefined)[] = [];
  readonly shift: number;
  /** (1 << shift) - 1: an element's index in its chunk (at() runs per lookup, devmap redirects included). */
  private readonly mask: number;
  constructor(
    readonly valueSize: number,
    readonly maxEntries: number,
  ) {
    // Chunks of up to 1024 elements and about 64 KiB.
    let shift = 10;
    while (shift > 0 && (1 << shift) * valueSize > 65536) shift--;
    this.shift = shift;
    this.mask = (1 << shift) - 1;
  }
  /** The live view of element i (allocating its chunk if needed); i must be < maxEntries. */
  at(i: number): Uint8Array {
    const c = i >>> this.shift;
    const views = this.chunks[c] ?? this.alloc(c);
    return views[i & this.mask]!;
  }
  /** Element i if its chunk exists (all-zero otherwise), without allocating. */
  peek(i: number): Uint8Array | undefined {
    return this.chunks[i >>> this.shift]?.[i & this.mask];
  }
  /** Indices of allocated chunks' elements, in order. */
  *touched(): Generator<number> {
    for (let c = 0; c < this.chunks.length; c++) {
      if (!this.chunks[c]) continue;
      const first = c << this.shift;
      const last = Math.min(this.maxEntries, first + (1 << this.shift));
      for (let i = first; i < last; i++) yield i;
    }
  }
  private alloc(c: number): Uint8Array[] {
    const first = c << this.shift;
    const count = Math.min(1 << this.shift, this.maxEntries - first);
    const vs = this.valueSize;
    const backing = new Uint8Array(vs * count);
    // Appended one by one, not new Array(count): a packed array, whose loads in at() need no hole check.
    const views: Uint8Array[] = [];
    for (let k = 0; k < count; k++) views.push(backing.subarray(k * vs, (k + 1) * vs));
    this.chunks[c] = views;
    return views;
  }
}

/** array, percpu_array and the index-keyed special maps (devmap, cpumap, xskmap, prog_array). */
class ArrayMap extends MapBase implements BpfMap {
  /** values[cpu]; non-percpu maps use cpu 0 only. */
  private readonly values: LazyPlane[];
  /** values[0]: the only plane of a map that is not per-CPU (lookupIndex runs per packet: devmap redirects, inlined array lookups). */
  private readonly plane0: LazyPlane;
  /** For devmap/cpumap/xskmap/prog_array: which slots hold an entry. */
  private readonly present: Uint8Array | undefined;
  private readonly special: boolean;

  constructor(spec: MapSpec, nCpus: number) {
    super(spec, nCpus);
    this.special = spec.type !== 'array' && spec.type !== 'percpu_array';
    const planes = this.percpu ? nCpus : 1;
    this.values = Array.from({ length: planes }, () => new LazyPlane(this.valueSize, this.maxEntries));
    this.plane0 = this.values[0]!;
    this.present = this.special ? new Uint8Array(this.maxEntries) : undefined;
  }

  lookup(key: Uint8Array, cpu: number): Uint8Array | undefined {
    const i = u32(key);
    if (i >= this.maxEntries) return undefined;
    if (this.present && !this.present[i]) return undefined;
    return this.values[this.percpu ? cpu % this.nCpus : 0]!.at(i);
  }

  /** lookup by index (the JIT's inline array lookup); undefined when absent. */
  get presence(): Uint8Array | undefined {
    return this.present;
  }

  lookupIndex(i: number, cpu: number): Uint8Array | undefined {
    if (i >= this.maxEntries) return undefined;
    const present = this.present;
    if (present !== undefined && present[i] === 0) return undefined;
    return (this.percpu ? this.values[cpu % this.nCpus]! : this.plane0).at(i);
  }

  update(key: Uint8Array, value: Uint8Array, flags: number, cpu: number): number {
    // Programs may not update the special maps (the verifier refuses); user space may.
    if (this.special) return -EINVAL;
    const r = this.checkFlags(key, flags);
    if (r) return r;
    copyValue(this.values[this.percpu ? cpu % this.nCpus : 0]!.at(u32(key)), value);
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
    this.values[0]!.peek(i)?.fill(0);
    return 0;
  }

  userUpdate(key: Uint8Array, value: Uint8Array, flags = BPF_ANY): number {
    if (this.frozen) return -EPERM;
    const r = this.checkFlags(key, flags);
    if (r) return r;
    const vals = this.perCpuValues(value);
    if (!vals) return -EINVAL;
    const bad = this.innerCheck?.(value);
    if (bad) return bad;
    const i = u32(key);
    if (this.special) {
      if (flags === BPF_NOEXIST && this.present![i]) return -EEXIST;
      this.present![i] = 1;
    }
    vals.forEach((v, c) => this.values[c]!.at(i).set(v));
    return 0;
  }

  userLookup(key: Uint8Array): Uint8Array[] | undefined {
    const i = u32(key);
    if (i >= this.maxEntries || (this.present && !this.present[i])) return undefined;
    return this.values.map((plane) => plane.peek(i) ?? new Uint8Array(this.valueSize));
  }

  keys(): Uint8Array[] {
    const out: Uint8Array[] = [];
    const key = (i: number): Uint8Array => new Uint8Array([i & 0xff, (i >>> 8) & 0xff, (i >>> 16) & 0xff, i >>> 24]);
    if (this.present) {
      for (let i = 0; i < this.maxEntries; i++) if (this.present[i]) out.push(key(i));
    } else if (this.maxEntries <= 4096) {
      for (let i = 0; i < this.maxEntries; i++) out.push(key(i));
    } else {
      // Too many to list: the elements of touched chunks (every other element is all zero).
      const seen = new Set<number>();
      for (const plane of this.values) for (const i of plane.touched()) seen.add(i);
      for (const i of [...seen].sort((a, b) => a - b)) out.push(key(i));
    }
    return out;
  }
}

/**
 * hash, percpu_hash, lru_hash, lru_percpu_hash, devmap_hash, hash_of_maps,
 * preallocated as the kernel's htab is by default (htab_map_alloc with
 * prealloc_init): max_entries element slots whose keys live in one buffer
 * and whose values are live views of lazily allocated chunks (LazyPlane),
 * a slot's views the same objects for the map's life. An element deleted
 * frees its slot for a later insert, as the kernel's freelist reuses
 * preallocated elements, so a program that runs for millions of packets
 * inserting and deleting allocates nothing and its value buffers (and the
 * VM's regions over them) stay max_entries at most. Keys are found by an
 * open-addressing index (linear probing, backward-shift deletion) over a
 * hash of the key bytes. Iteration is insertion order; LRU maps keep recency
 * order and evict the least recently used (the kernel's LRU is approximate;
 * this is exact).
 */
class HashMap extends MapBase implements BpfMap {
  private readonly lru: boolean;
  /** Slot keys, keySize bytes each. */
  private readonly keyStore: Uint8Array;
  /** Values per plane (one per cpu for per-cpu maps), a live view per slot. */
  private readonly planes: LazyPlane[];
  /** The slots in use, oldest (LRU: least recently used) first: a doubly linked list; -1 ends it. */
  private readonly prev: Int32Array;
  private readonly next: Int32Array;
  private head = -1;
  private tail = -1;
  /** Free slots, a stack; freeTop of them. */
  private readonly free: Int32Array;
  private freeTop: number;
  private count = 0;
  /** Open-addressing index: slot + 1, 0 empty; a power of two, at most half full. */
  private index: Int32Array;

  constructor(spec: MapSpec, nCpus: number) {
    super(spec, nCpus);
    this.lru = spec.type === 'lru_hash' || spec.type === 'lru_percpu_hash';
    const n = this.maxEntries;
    this.keyStore = new Uint8Array(n * this.keySize);
    this.planes = Array.from({ length: this.percpu ? nCpus : 1 }, () => new LazyPlane(this.valueSize, n));
    this.prev = new Int32Array(n);
    this.next = new Int32Array(n);
    this.free = new Int32Array(n);
    // Slot 0 is taken first.
    for (let i = 0; i < n; i++) this.free[i] = n - 1 - i;
    this.freeTop = n;
    this.index = new Int32Array(16);
  }

  /**
   * A hash of the keySize bytes of `bytes` at `at` (the index's probe
   * start): four bytes at a time multiplied in and rotated, then murmur3's
   * finalizer, so every key bit reaches the low bits the index masks.
   */
  private hash(bytes: Uint8Array, at: number): number {
    const ks = this.keySize;
    let h = ks;
    let i = 0;
    for (; i + 4 <= ks; i += 4) {
      const w = bytes[at + i]! | (bytes[at + i + 1]! << 8) | (bytes[at + i + 2]! << 16) | (bytes[at + i + 3]! << 24);
      h = Math.imul(h ^ w, 0x9e3779b1);
      h = (h << 13) | (h >>> 19);
    }
    for (; i < ks; i++) h = Math.imul(h ^ bytes[at + i]!, 0x9e3779b1);
    h ^= h >>> 16;
    h = Math.imul(h, 0x85ebca6b);
    h ^= h >>> 13;
    h = Math.imul(h, 0xc2b2ae35);
    return (h ^ (h >>> 16)) >>> 0;
  }

  private sameKey(slot: number, bytes: Uint8Array, at: number): boolean {
    const ks = this.keySize;
    const store = this.keyStore;
    const base = slot * ks;
    for (let i = 0; i < ks; i++) if (store[base + i] !== bytes[at + i]) return false;
    return true;
  }

  /** The slot holding the key at bytes[at, at+keySize), or -1. */
  private find(bytes: Uint8Array, at: number): number {
    const index = this.index;
    const mask = index.length - 1;
    for (let p = this.hash(bytes, at) & mask; ; p = (p + 1) & mask) {
      const e = index[p]!;
      if (e === 0) return -1;
      if (this.sameKey(e - 1, bytes, at)) return e - 1;
    }
  }

  lookupSlot(bytes: Uint8Array, at: number): number {
    const slot = this.find(bytes, at);
    if (slot >= 0) this.touch(slot);
    return slot;
  }

  slotValue(slot: number, cpu: number): Uint8Array {
    return this.planes[this.percpu ? cpu % this.nCpus : 0]!.at(slot);
  }

  private indexInsert(index: Int32Array, slot: number): void {
    const mask = index.length - 1;
    let p = this.hash(this.keyStore, slot * this.keySize) & mask;
    while (index[p] !== 0) p = (p + 1) & mask;
    index[p] = slot + 1;
  }

  /** Remove slot's entry from the index, shifting later entries of its probe run back (no tombstones). */
  private indexRemove(slot: number): void {
    const index = this.index;
    const mask = index.length - 1;
    let p = this.hash(this.keyStore, slot * this.keySize) & mask;
    while (index[p] !== slot + 1) p = (p + 1) & mask;
    let hole = p;
    for (let q = (p + 1) & mask; index[q] !== 0; q = (q + 1) & mask) {
      const s = index[q]! - 1;
      const home = this.hash(this.keyStore, s * this.keySize) & mask;
      // Move q into the hole unless its home lies cyclically in (hole, q].
      if (hole <= q ? home <= hole || home > q : home <= hole && home > q) {
        index[hole] = index[q]!;
        hole = q;
      }
    }
    index[hole] = 0;
  }

  private unlink(slot: number): void {
    const p = this.prev[slot]!;
    const n = this.next[slot]!;
    if (p >= 0) this.next[p] = n;
    else this.head = n;
    if (n >= 0) this.prev[n] = p;
    else this.tail = p;
  }

  private append(slot: number): void {
    this.prev[slot] = this.tail;
    this.next[slot] = -1;
    if (this.tail >= 0) this.next[this.tail] = slot;
    else this.head = slot;
    this.tail = slot;
  }

  private remove(slot: number): void {
    this.indexRemove(slot);
    this.unlink(slot);
    this.free[this.freeTop++] = slot;
    this.count--;
  }

  /** A free slot for key (the index grown first when it would be over half full), in the index and at the list's end. */
  private insert(key: Uint8Array): number {
    if ((this.count + 1) * 2 > this.index.length) {
      const bigger = new Int32Array(this.index.length * 2);
      for (let s = this.head; s >= 0; s = this.next[s]!) this.indexInsert(bigger, s);
      this.index = bigger;
    }
    const slot = this.free[--this.freeTop]!;
    const ks = this.keySize;
    for (let i = 0; i < ks; i++) this.keyStore[slot * ks + i] = key[i]!;
    this.indexInsert(this.index, slot);
    this.append(slot);
    this.count++;
    // A reused slot starts zeroed, as a fresh element.
    for (let p = 0; p < this.planes.length; p++) this.planes[p]!.at(slot).fill(0);
    return slot;
  }

  private touch(slot: number): void {
    if (this.lru && slot !== this.tail) {
      this.unlink(slot);
      this.append(slot);
    }
  }

  lookup(key: Uint8Array, cpu: number): Uint8Array | undefined {
    const slot = this.find(key, 0);
    if (slot < 0) return undefined;
    // LRU: mark as recently used.
    this.touch(slot);
    return this.planes[this.percpu ? cpu % this.nCpus : 0]!.at(slot);
  }

  /** Insert or replace key's element: -errno, or the slot, whose values `fill` then writes (fresh: all planes zero). */
  private put(key: Uint8Array, flags: number): number {
    if ((flags & ~BPF_F_LOCK) > BPF_EXIST) return -EINVAL;
    const old = this.find(key, 0);
    if (old >= 0 && flags === BPF_NOEXIST) return -EEXIST;
    if (old < 0 && flags === BPF_EXIST) return -ENOENT;
    if (old >= 0) {
      this.touch(old);
      return old;
    }
    if (this.count >= this.maxEntries) {
      if (!this.lru) return -E2BIG;
      // Evict the least recently used entry.
      this.remove(this.head);
    }
    return this.insert(key);
  }

  update(key: Uint8Array, value: Uint8Array, flags: number, cpu: number): number {
    const slot = this.put(key, flags);
    if (slot < 0) return slot;
    // A program writes only its own cpu's copy; a new element's other copies are zero.
    copyValue(this.planes[this.percpu ? cpu % this.nCpus : 0]!.at(slot), value);
    return 0;
  }

  delete(key: Uint8Array): number {
    const slot = this.find(key, 0);
    if (slot < 0) return -ENOENT;
    this.remove(slot);
    return 0;
  }

  userUpdate(key: Uint8Array, value: Uint8Array, flags = BPF_ANY): number {
    if (this.frozen) return -EPERM;
    const vals = this.perCpuValues(value);
    if (!vals || key.length !== this.keySize) return -EINVAL;
    const bad = this.innerCheck?.(value);
    if (bad) return bad;
    const slot = this.put(key, flags);
    if (slot < 0) return slot;
    vals.forEach((v, c) => this.planes[c]!.at(slot).set(v));
    return 0;
  }

  userLookup(key: Uint8Array): Uint8Array[] | undefined {
    if (key.length !== this.keySize) return undefined;
    const slot = this.find(key, 0);
    return slot < 0 ? undefined : this.planes.map((plane) => plane.at(slot));
  }

  keys(): Uint8Array[] {
    const out: Uint8Array[] = [];
    for (let s = this.head; s >= 0; s = this.next[s]!) out.push(this.keyStore.slice(s * this.keySize, (s + 1) * this.keySize));
    return out;
  }
}

/**
 * perf_event_array and ringbuf: programs write to them only through their
 * helpers (the records land in the VM's event log), so there is nothing to
 * look up, update or dump (the oracle dumps them empty too).
 */
class EventMap extends HelperOnlyMap implements BpfMap {
  userUpdate(): number {
    return -EINVAL;
  }
  userLookup(): Uint8Array[] | undefined {
    return undefined;
  }
  keys(): Uint8Array[] {
    return [];
  }
}

/**
 * queue (FIFO) and stack (LIFO): max_entries values and no key. A push to a
 * full map fails with -E2BIG unless the flags hold BPF_EXIST, which drops
 * the oldest value to make room (for a stack too); BPF_NOEXIST or any
 * other flag is -EINVAL. A pop or peek of an empty map zeroes the value and
 * fails with -ENOENT. User space's update pushes, its lookup peeks; the dump
 * lists the values oldest first, each with an empty key.
 */
class QueueStackMap extends HelperOnlyMap implements BpfMap {
  /** Oldest first. */
  private readonly items: Uint8Array[] = [];
  private readonly lifo: boolean;
  constructor(spec: MapSpec, nCpus: number) {
    super(spec, nCpus);
    this.lifo = spec.type === 'stack';
  }
  push(value: Uint8Array, flags: number): number {
    if (flags & BPF_NOEXIST || flags > BPF_EXIST) return -EINVAL;
    if (this.items.length >= this.maxEntries) {
      if (!(flags & BPF_EXIST)) return -E2BIG;
      this.items.shift();
    }
    this.items.push(value.slice(0, this.valueSize));
    return 0;
  }
  pop(out: Uint8Array, remove: boolean): number {
    if (this.items.length === 0) {
      out.fill(0, 0, this.valueSize);
      return -ENOENT;
    }
    const v = this.lifo ? this.items[this.items.length - 1]! : this.items[0]!;
    out.set(v);
    if (remove) {
      if (this.lifo) this.items.pop();
      else this.items.shift();
    }
    return 0;
  }
  userUpdate(_key: Uint8Array, value: Uint8Array, flags = BPF_ANY): number {
    if (this.frozen) return -EPERM;
    if (value.length !== this.valueSize) return -EINVAL;
    return this.push(value, flags);
  }
  userLookup(): Uint8Array[] | undefined {
    const v = new Uint8Array(this.valueSize);
    return this.pop(v, false) === 0 ? [v] : undefined;
  }
  keys(): Uint8Array[] {
    return [];
  }
  override dump(): { type: MapType; entries: MapDumpEntry[] } {
    return { type: this.type, entries: this.items.map((v) => ({ key: '', value: bytesToHex(v) })) };
  }
}
