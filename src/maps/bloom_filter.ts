/**
 * BPF_MAP_TYPE_BLOOM_FILTER (kernel/bpf/bloom_filter.c) as a program and
 * user space see it: no keys, a bit array and nr_hash_funcs hashes of each
 * value. bpf_map_push_elem sets a value's bits, bpf_map_peek_elem answers 0
 * when all of them are set (the value may have been pushed) and -ENOENT when
 * one is clear (it certainly was not); nothing is ever removed (pop is
 * -EOPNOTSUPP). The bit array is sized, the hashes chosen and the bits
 * numbered as the kernel does, so a value sets the same bits here as in a
 * kernel filter created with BPF_F_ZERO_SEED.
 */
import type { MapSpec } from '../isa/spec';
import type { BpfMap } from './index';
import { HelperOnlyMap } from './base';
import { EINVAL, ENOENT, EOPNOTSUPP, EPERM } from '../isa/errno';
import { jhash, jhash2 } from './jhash';

/** map_extra's low 4 bits hold nr_hash_funcs; 0 means this many. */
export const BLOOM_DEFAULT_HASH_FUNCS = 5;
/** map_extra bits a bloom filter accepts (the kernel refuses any other with EINVAL). */
export const BLOOM_MAP_EXTRA_MASK = 0xf;
/** BPF_F_ZERO_SEED: hash with seed 0 instead of a random one. */
export const BPF_F_ZERO_SEED = 1 << 6;
/** BITS_PER_LONG on x86_64: the smallest bit array. */
const BITS_PER_LONG = 64;
const U32_MAX = 0xffffffff;

export interface BloomGeometry {
  nrHashFuncs: number;
  /** Bits in the array (2^32 when the sizing overflows). */
  nrBits: number;
  /** bitset_mask: nrBits - 1, a hash's bit number is hash & mask. */
  bitsetMask: number;
  /** The bitset's bytes as the kernel allocates them (rounded up to a whole unsigned long). */
  bitsetBytes: number;
}

/** nr_hash_funcs from map_extra (its low 4 bits; 0 is the default, 5). */
export function bloomHashFuncs(mapExtra: number): number {
  return mapExtra % 16 || BLOOM_DEFAULT_HASH_FUNCS;
}

/**
 * bloom_map_alloc's sizing: max_entries * nr_hash_funcs / ln 2 bits (7/5
 * standing in for 1/ln 2), at least a long, rounded up to a power of two so
 * a hash is masked rather than divided; u32 overflow (or more than 2^31)
 * gives the whole 2^32-bit range.
 */
export function bloomGeometry(maxEntries: number, mapExtra: number): BloomGeometry {
  const nrHashFuncs = bloomHashFuncs(mapExtra);
  // Exact in doubles (both factors < 2^32), so the overflow checks are check_mul_overflow's.
  const product = maxEntries * nrHashFuncs;
  const scaled = product > U32_MAX ? Infinity : Math.floor(product / 5) * 7;
  if (scaled > U32_MAX || scaled > 2 ** 31) {
    // The kernel sizes this as BITS_TO_BYTES(U32_MAX) (2^32 bits would overflow its u32).
    return { nrHashFuncs, nrBits: 2 ** 32, bitsetMask: U32_MAX, bitsetBytes: roundup8(Math.ceil(U32_MAX / 8)) };
  }
  const nrBits = scaled <= BITS_PER_LONG ? BITS_PER_LONG : roundupPowOfTwo(scaled);
  return { nrHashFuncs, nrBits, bitsetMask: nrBits - 1, bitsetBytes: roundup8(nrBits / 8) };
}

const roundup8 = (n: number): number => Math.ceil(n / 8) * 8;
/** roundup_pow_of_two (n <= 2^31 here), by doubling: exact where a logarithm could round. */
function roundupPowOfTwo(n: number): number {
  let p = 1;
  while (p < n) p *= 2;
  return p;
}

export class BloomFilterMap extends HelperOnlyMap implements BpfMap {
  readonly geometry: BloomGeometry;
  /**
   * hash_seed. The kernel draws a random one unless BPF_F_ZERO_SEED; the lab
   * is deterministic, so it is always 0, as BPF_F_ZERO_SEED gives: a random
   * seed changes only which never-pushed values are false positives.
   */
  private readonly seed = 0;
  private readonly bitset: Uint8Array;
  private setBits = 0;

  constructor(spec: MapSpec, nCpus: number) {
    super({ ...spec, key_size: 0 }, nCpus);
    this.geometry = bloomGeometry(spec.max_entries, spec.map_extra ?? 0);
    // createMap charged bitsetBytes to the memory budget first: a 2^32-bit array never gets here.
    this.bitset = new Uint8Array(this.geometry.bitsetBytes);
  }

  /** The bit hash function `index` picks for the value's first valueSize bytes. */
  private bit(value: Uint8Array, index: number): number {
    const vs = this.valueSize;
    // jhash2 when the value is whole u32 words (faster in the kernel; the same hash on little-endian bytes).
    const h = vs % 4 === 0 ? jhash2(value, vs / 4, (this.seed + index) >>> 0) : jhash(value, vs, (this.seed + index) >>> 0);
    return (h & this.geometry.bitsetMask) >>> 0;
  }

  /** bloom_map_push_elem: set the value's bits; only BPF_ANY is a valid flag. */
  push(value: Uint8Array, flags: number): number {
    if (flags !== 0) return -EINVAL;
    for (let i = 0; i < this.geometry.nrHashFuncs; i++) {
      const b = this.bit(value, i);
      const mask = 1 << (b & 7);
      const byte = b >>> 3;
      if (!(this.bitset[byte]! & mask)) {
        this.bitset[byte] = this.bitset[byte]! | mask;
        this.setBits++;
      }
    }
    return 0;
  }

  /** bloom_map_peek_elem: 0 when every bit of the value is set, else -ENOENT. */
  peekElem(value: Uint8Array): number {
    for (let i = 0; i < this.geometry.nrHashFuncs; i++) {
      const b = this.bit(value, i);
      if (!(this.bitset[b >>> 3]! & (1 << (b & 7)))) return -ENOENT;
    }
    return 0;
  }

  /** bloom_map_pop_elem: a bloom filter cannot give values back. */
  pop(): number {
    return -EOPNOTSUPP;
  }

  /** How full the array is, for the map views. */
  bitsetStats(): { nrBits: number; setBits: number; nrHashFuncs: number } {
    return { nrBits: this.geometry.nrBits, setBits: this.setBits, nrHashFuncs: this.geometry.nrHashFuncs };
  }

  /** The bit array, copied. */
  saveState(): Uint8Array {
    return this.bitset.slice();
  }

  /** Take a saved bit array of a filter with the same geometry (another size is ignored: it would mean other bits). */
  restoreState(state: Uint8Array): void {
    if (state.length !== this.bitset.length) return;
    this.bitset.set(state);
    let n = 0;
    for (const b of state) for (let x = b; x; x &= x - 1) n++;
    this.setBits = n;
  }

  /** BPF_MAP_UPDATE_ELEM from user space pushes the value (its key is ignored: the map has none). */
  userUpdate(_key: Uint8Array, value: Uint8Array, flags = 0): number {
    if (this.frozen) return -EPERM;
    if (value.length !== this.valueSize) return -EINVAL;
    return this.push(value, flags);
  }

  /** Membership is asked with a value (peekElem); a key finds nothing. */
  userLookup(): Uint8Array[] | undefined {
    return undefined;
  }

  /** No keys, so the dump lists nothing: what was pushed cannot be read back from the bits. */
  keys(): Uint8Array[] {
    return [];
  }

}
