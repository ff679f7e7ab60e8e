/**
 * Bob Jenkins' lookup3 hash as the kernel has it (include/linux/jhash.h):
 * jhash over bytes (lookup3's hashlittle) and jhash2 over u32 words
 * (lookup3's hashword). Results are unsigned 32-bit numbers, bit for bit the
 * kernel's on a little-endian host, so whatever hashes with them (the bloom
 * filter's bit choice) lands where the kernel's would for the same seed.
 * All arithmetic is 32-bit: only adds, subtractions, xors and rotations
 * (no multiplication, so no Math.imul), each step wrapped with `| 0`, the
 * result made unsigned with `>>> 0`.
 */

/** JHASH_INITVAL: an arbitrary start, lookup3's 0xdeadbeef. */
export const JHASH_INITVAL = 0xdeadbeef;

const rol32 = (w: number, s: number): number => (w << s) | (w >>> (32 - s));

/** The state (a, b, c), mixed in place. */
type State = Int32Array;
/** One state for every call (hashing never re-enters itself): a bloom filter hashes per packet, and this allocates nothing. */
const scratch: State = new Int32Array(3);

/** __jhash_mix: mix three 32-bit values reversibly. */
function jhashMix(s: State): void {
  let a = s[0]!, b = s[1]!, c = s[2]!;
  a = (a - c) | 0; a ^= rol32(c, 4); c = (c + b) | 0;
  b = (b - a) | 0; b ^= rol32(a, 6); a = (a + c) | 0;
  c = (c - b) | 0; c ^= rol32(b, 8); b = (b + a) | 0;
  a = (a - c) | 0; a ^= rol32(c, 16); c = (c + b) | 0;
  b = (b - a) | 0; b ^= rol32(a, 19); a = (a + c) | 0;
  c = (c - b) | 0; c ^= rol32(b, 4); b = (b + a) | 0;
  s[0] = a; s[1] = b; s[2] = c;
}

/** __jhash_final: final mixing of three 32-bit values into c. */
function jhashFinal(s: State): void {
  let a = s[0]!, b = s[1]!, c = s[2]!;
  c ^= b; c = (c - rol32(b, 14)) | 0;
  a ^= c; a = (a - rol32(c, 11)) | 0;
  b ^= a; b = (b - rol32(a, 25)) | 0;
  c ^= b; c = (c - rol32(b, 16)) | 0;
  a ^= c; a = (a - rol32(c, 4)) | 0;
  b ^= a; b = (b - rol32(a, 14)) | 0;
  c ^= b; c = (c - rol32(b, 24)) | 0;
  s[0] = a; s[1] = b; s[2] = c;
}

/** A little-endian u32 at k[i..i+4) (the kernel's __get_unaligned_cpu32 on x86). */
const le32 = (k: Uint8Array, i: number): number => k[i]! | (k[i + 1]! << 8) | (k[i + 2]! << 16) | (k[i + 3]! << 24);

/** jhash(key, length, initval): hash `length` bytes of k from `at`. */
export function jhash(k: Uint8Array, length: number, initval: number, at = 0): number {
  const s = scratch;
  s.fill((JHASH_INITVAL + length + initval) | 0);
  let p = at;
  let n = length;
  while (n > 12) {
    s[0] = (s[0]! + le32(k, p)) | 0;
    s[1] = (s[1]! + le32(k, p + 4)) | 0;
    s[2] = (s[2]! + le32(k, p + 8)) | 0;
    jhashMix(s);
    n -= 12;
    p += 12;
  }
  if (n === 0) return s[2]! >>> 0;
  // The kernel's fall-through switch on the 1..12 bytes left: byte j goes to word j/4 at bit 8*(j%4).
  for (let j = n - 1; j >= 0; j--) s[j >> 2] = (s[j >> 2]! + (k[p + j]! << (8 * (j & 3)))) | 0;
  jhashFinal(s);
  return s[2]! >>> 0;
}

/** jhash2(k, length, initval): hash `length` u32 words (read little-endian from bytes k at `at`). */
export function jhash2(k: Uint8Array, length: number, initval: number, at = 0): number {
  const s = scratch;
  s.fill((JHASH_INITVAL + (length << 2) + initval) | 0);
  let p = at;
  let n = length;
  while (n > 3) {
    s[0] = (s[0]! + le32(k, p)) | 0;
    s[1] = (s[1]! + le32(k, p + 4)) | 0;
    s[2] = (s[2]! + le32(k, p + 8)) | 0;
    jhashMix(s);
    n -= 3;
    p += 12;
  }
  if (n === 0) return s[2]! >>> 0;
  for (let j = n - 1; j >= 0; j--) s[j] = (s[j]! + le32(k, p + 4 * j)) | 0;
  jhashFinal(s);
  return s[2]! >>> 0;
}
