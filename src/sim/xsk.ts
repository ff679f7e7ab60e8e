/**
 * AF_XDP (net/xdp/): the UMEM, the four single-producer/single-consumer
 * rings, the descriptor address encoding and the checks the kernel applies
 * to everything user space hands it.
 *
 *   UMEM      user memory split into chunks of 2048 or 4096 bytes, with a
 *             headroom; aligned mode (an address is masked down to its
 *             chunk) or unaligned mode (XDP_UMEM_UNALIGNED_CHUNK_FLAG: a
 *             buffer may start anywhere, and may cross a page boundary only
 *             when the next page is physically contiguous, e.g. hugepages).
 *   address   aligned: a plain offset into the UMEM. Unaligned: the low 48
 *             bits are the base address, the high 16 bits an offset added
 *             to it (XSK_UNALIGNED_BUF_OFFSET_SHIFT), which is how the
 *             kernel hands back "base + headroom" without losing the base.
 *   rings     fill (user → kernel: addresses to receive into), rx (kernel →
 *             user: descriptors {addr, len, options}), tx (user → kernel),
 *             completion (kernel → user: addresses sent). Each has a
 *             producer and a consumer index; entries live in one buffer
 *             in the kernel's layout (u64 for addresses; 16-byte struct
 *             xdp_desc), as if mmapped, read and written as u32 words.
 *   checks    xp_check_aligned / xp_check_unaligned for fill-ring
 *             addresses, xp_aligned_validate_desc / xp_unaligned_validate_desc
 *             for tx descriptors (xskq_cons_is_valid_desc). A bad entry is
 *             skipped and counted in the ring's invalid_descs, which
 *             XDP_STATISTICS reports (rx_invalid_descs, tx_invalid_descs).
 *
 * Addresses stay exact without BigInt: a u64 is two u32 halves (lo, hi),
 * and an unaligned base is < 2^48 so it fits a double. The per-packet code
 * passes the halves as two numbers; XskAddr records are for everyone else.
 */
import { column } from './column';

export const XDP_UMEM_UNALIGNED_CHUNK_FLAG = 1 << 0;
export const XSK_UNALIGNED_BUF_OFFSET_SHIFT = 48;
/** 2^48: the unaligned base address range. */
const ADDR_LIMIT = 2 ** 48;
const TWO32 = 2 ** 32;
export const XSK_PAGE_SIZE = 4096;
/** XDP_UMEM_MIN_CHUNK_SIZE; the largest chunk is PAGE_SIZE in aligned mode. */
export const XDP_UMEM_MIN_CHUNK_SIZE = 2048;
/** The size of struct xdp_desc in the rx and tx rings. */
export const XDP_DESC_SIZE = 16;

/** An address as the rings carry it: two u32 halves of a u64. */
export interface XskAddr {
  hi: number;
  lo: number;
}

/** Unaligned mode: the 64-bit ring address for base + offset (offset < 2^16). */
export function xsk_umem_encode_addr(base: number, offset: number, out: XskAddr = { hi: 0, lo: 0 }): XskAddr {
  if (!(Number.isInteger(base) && base >= 0 && base < ADDR_LIMIT)) throw new Error(`base address ${base} does not fit 48 bits`);
  if (!(Number.isInteger(offset) && offset >= 0 && offset < 1 << 16)) throw new Error(`offset ${offset} does not fit 16 bits`);
  out.hi = ((offset << 16) | Math.floor(base / TWO32)) >>> 0;
  out.lo = base % TWO32 >>> 0;
  return out;
}

// The per-packet code reads a ring entry as its two u32 halves into locals
// (no record to fill and read back); these take the halves, the XskAddr
// forms below wrap them.

/** The whole u64 (lo, hi) as a number (exact below 2^53; larger values are beyond any UMEM anyway). */
export function addr_value(lo: number, hi: number): number {
  // hi 0 (every UMEM address here): lo as it is, a u32 the callers' masks and compares take without a float conversion.
  return hi === 0 ? lo : hi * TWO32 + lo;
}

/** xsk_umem_extract_addr on (lo, hi): the low 48 bits. */
export function addr_base(lo: number, hi: number): number {
  return (hi & 0xffff) * TWO32 + lo;
}

/** xp_unaligned_add_offset_to_addr on (lo, hi): the low 48 bits plus the high 16. */
export function addr_with_offset(lo: number, hi: number): number {
  return (hi & 0xffff) * TWO32 + lo + (hi >>> 16);
}

/** The low u32 of an address below 2^53 (below 2^32, every UMEM's, the address itself: no floating-point remainder). */
export function addr_lo(v: number): number {
  return v >= 0 && v < TWO32 ? v : v % TWO32;
}

/** The high u32 of an address below 2^53 (below 2^32: 0, without a division). */
export function addr_hi(v: number): number {
  return v >= 0 && v < TWO32 ? 0 : Math.floor(v / TWO32);
}

/** xsk_umem_extract_addr: the low 48 bits. */
export function xsk_umem_extract_addr(a: XskAddr): number {
  return addr_base(a.lo, a.hi);
}

/** xsk_umem_extract_offset: the high 16 bits. */
export function xsk_umem_extract_offset(a: XskAddr): number {
  return a.hi >>> 16;
}

/** xp_unaligned_add_offset_to_addr: where the buffer really starts. */
export function xp_unaligned_add_offset_to_addr(a: XskAddr): number {
  return addr_with_offset(a.lo, a.hi);
}

export interface UmemConfig {
  /** UMEM size in bytes (a multiple of the page size). */
  size: number;
  /** 2048 or 4096 (aligned mode: a power of two, at most PAGE_SIZE). */
  chunkSize: number;
  /** XDP_UMEM headroom (frame_headroom) in front of every received frame. */
  headroom: number;
  unaligned: boolean;
  /**
   * Which pages are followed by a physically contiguous page
   * (XSK_NEXT_PG_CONTIG_MASK): all of them for hugepages; for 4 KiB pages
   * whatever the pinning gave. Default: every page (hugepages).
   */
  nextPageContig?: (page: number) => boolean;
}

/** xdp_umem_reg's checks, with the kernel's reason for each refusal. */
export function xdp_umem_reg(c: UmemConfig): { ok: true } | { ok: false; message: string } {
  if (c.chunkSize < XDP_UMEM_MIN_CHUNK_SIZE || c.chunkSize > XSK_PAGE_SIZE) return { ok: false, message: `chunk size ${c.chunkSize} outside ${XDP_UMEM_MIN_CHUNK_SIZE}..${XSK_PAGE_SIZE} (EINVAL)` };
  if (!c.unaligned && (c.chunkSize & (c.chunkSize - 1)) !== 0) return { ok: false, message: `chunk size ${c.chunkSize} is not a power of two: needs XDP_UMEM_UNALIGNED_CHUNK_FLAG (EINVAL)` };
  if (c.size <= 0 || c.size % XSK_PAGE_SIZE !== 0) return { ok: false, message: `UMEM size ${c.size} is not a multiple of the page size (EINVAL)` };
  if (c.size >= ADDR_LIMIT) return { ok: false, message: 'UMEM larger than 2^48 bytes (EINVAL)' };
  if (c.headroom < 0 || c.headroom >= c.chunkSize - 256) return { ok: false, message: `headroom ${c.headroom} leaves no room for a frame in a ${c.chunkSize}-byte chunk (EINVAL)` };
  return { ok: true };
}

/**
 * Bytes in XdpUmem.data after each chunk, aligned mode: one cache line.
 * Only the host's caches see it (UMEM addresses, the rings and the program
 * see none of it). Chunks end to end at 2 or 4 KiB put every frame's
 * headers at one offset modulo 4 KiB, which the host's L1 and L2 map to a
 * few sets: the NIC's DMA and the application's first read of a frame
 * missed in them (AF_XDP l2fwd: ~10% of the simulation's time). A line per
 * chunk spreads the headers over 64 colours (as PageAllocator's PAGE_STRIDE
 * does for pages).
 */
const CHUNK_PAD = 64;

export class XdpUmem {
  readonly size: number;
  readonly chunkSize: number;
  readonly headroom: number;
  readonly unaligned: boolean;
  /** Aligned mode: ~(chunk_size - 1). */
  readonly chunkMask: number;
  /** chunkOffset by the low bits: the chunk size is a power of two (always in aligned mode). */
  private readonly chunkPow2: boolean;
  readonly chunks: number;
  /** The UMEM's bytes (frames are copied here in copy mode, DMA'd here in zero-copy mode); address a at xp_mem(a). */
  readonly data: Uint8Array;
  /** The same bytes as `data`, for the application's multi-byte reads and writes of a frame (xdpsock's MAC swap). */
  readonly view: DataView;
  private readonly contig: Uint8Array;
  /** xp_mem's shift and pad: aligned mode log2(chunk size) and CHUNK_PAD; unaligned mode no pad. */
  private readonly memShift: number;
  private readonly memPad: number;

  constructor(c: UmemConfig) {
    const r = xdp_umem_reg(c);
    if (!r.ok) throw new Error(r.message);
    this.size = c.size;
    this.chunkSize = c.chunkSize;
    this.headroom = c.headroom;
    this.unaligned = c.unaligned;
    this.chunkMask = ~(c.chunkSize - 1);
    this.chunkPow2 = (c.chunkSize & (c.chunkSize - 1)) === 0;
    this.chunks = Math.floor(c.size / c.chunkSize);
    this.memShift = c.unaligned ? 0 : Math.log2(c.chunkSize);
    this.memPad = c.unaligned ? 0 : CHUNK_PAD;
    this.data = new Uint8Array(this.xp_mem(c.size));
    this.view = new DataView(this.data.buffer);
    const pages = c.size / XSK_PAGE_SIZE;
    this.contig = new Uint8Array(pages);
    for (let p = 0; p < pages; p++) this.contig[p] = p + 1 < pages && (c.nextPageContig ? c.nextPageContig(p) : true) ? 1 : 0;
  }

  /**
   * Where UMEM address a is in `data`. Aligned mode: after a CHUNK_PAD per
   * chunk before a's (a buffer never crosses its chunk, so each chunk's
   * bytes stay contiguous); unaligned mode, where a buffer may cross chunks
   * and pages: a itself.
   */
  xp_mem(a: number): number {
    return a + (a >>> this.memShift) * this.memPad;
  }

  /** xp_desc_crosses_non_contig_pg: [addr, addr+len) spills into a page that is not physically next. */
  xp_desc_crosses_non_contig_pg(addr: number, len: number): boolean {
    const inPage = addr % XSK_PAGE_SIZE;
    if (inPage + len <= XSK_PAGE_SIZE) return false;
    // A buffer spans at most two pages (len <= chunk size <= PAGE_SIZE).
    return this.contig[Math.floor(addr / XSK_PAGE_SIZE)] !== 1;
  }

  // The checks take an address as its ring halves (lo, hi). Each mode has
  // its own method, as in the kernel: the per-packet callers then inline
  // only the mode's few lines (TurboFan's inlining budget counts the
  // bytecode of whole functions, cold branches included).

  /**
   * A fill-ring address: xp_check_aligned masks it to its chunk;
   * xp_check_unaligned adds the offset and wants a whole chunk inside the
   * UMEM that does not cross into a non-contiguous page. Returns the
   * buffer's start, or -1 (invalid).
   */
  xp_check_addr(lo: number, hi: number): number {
    return this.unaligned ? this.xp_check_unaligned(lo, hi) : this.xp_check_aligned(lo, hi);
  }

  private xp_check_aligned(lo: number, hi: number): number {
    const v = addr_value(lo, hi);
    const addr = v - this.chunkOffset(v);
    return addr < this.size ? addr : -1;
  }

  private xp_check_unaligned(lo: number, hi: number): number {
    const addr = addr_with_offset(lo, hi);
    if (addr >= this.size || addr + this.chunkSize > this.size || this.xp_desc_crosses_non_contig_pg(addr, this.chunkSize)) return -1;
    return addr;
  }

  /**
   * xp_validate_desc (xp_aligned_validate_desc / xp_unaligned_validate_desc):
   * a tx descriptor's buffer start (unaligned mode: base + offset), or -1
   * when the kernel rejects it. Like xp_check_addr, one number: the tx path
   * inlines it whole.
   */
  xp_validate_desc(lo: number, hi: number, len: number, options: number): number {
    // No option bits are defined for a single-buffer descriptor.
    if (options !== 0) return -1;
    if (this.unaligned) return this.xp_unaligned_validate_desc(lo, hi, len);
    // xp_aligned_validate_desc, written here: the per-packet tx path inlines this method, and a call from it stayed
    // a call (its caller's inlining budget is spent). The frame may not cross its chunk, and the chunk must be in the UMEM.
    const v = addr_value(lo, hi);
    return this.chunkOffset(v) + len > this.chunkSize || v >= this.size ? -1 : v;
  }

  private xp_unaligned_validate_desc(lo: number, hi: number, len: number): number {
    const addr = addr_with_offset(lo, hi);
    // At most a chunk long, inside the UMEM, and not spilling into a page that is not physically next.
    if (len > this.chunkSize || addr >= this.size || addr + len > this.size || this.xp_desc_crosses_non_contig_pg(addr, len)) return -1;
    return addr;
  }

  /** The buffer a ring entry (lo, hi) names: aligned mode the address itself, unaligned mode base + offset (xp_raw_get_data's address). */
  xp_raw_addr(lo: number, hi: number): number {
    return this.unaligned ? addr_with_offset(lo, hi) : addr_value(lo, hi);
  }

  /**
   * v % chunkSize for a buffer address v (a non-negative integer): by the low
   * bits when v fits 32 bits and the chunk size is a power of two (decided
   * once, at registration), the same value without a floating-point
   * remainder, which costs a runtime call per packet (addresses are
   * doubles: a hi * 2^32 + lo sum). A registered chunk size is at most
   * PAGE_SIZE.
   */
  chunkOffset(v: number): number {
    return this.chunkPow2 && v >= 0 && v < TWO32 ? (v >>> 0) & (this.chunkSize - 1) : v % this.chunkSize;
  }

  /** The chunk (frame index) a buffer address belongs to, for ownership tracking. */
  chunkOf(addr: number): number {
    return Math.floor(addr / this.chunkSize);
  }
}

/**
 * One AF_XDP ring: producer and consumer indices (free-running u32s, as in
 * struct xdp_ring) over a power-of-two array of entries in the kernel's
 * layout. The consumer side keeps a cached producer (xskq_cons_peek) so a
 * batch is read with one look at the shared index.
 */
export class XskQueue {
  readonly mask: number;
  readonly entrySize: number;
  /**
   * The entries as u32 words: an address is its low word then its high
   * word (a u64 in the kernel's little-endian layout); a descriptor adds
   * len and options. A plain array (./column.ts says why), each store
   * made a u32 with `>>> 0` as a Uint32Array's would make it.
   */
  readonly words: number[];
  /** log2 of an entry's words (2 or 4). */
  private readonly shift: number;
  producer = 0;
  consumer = 0;
  /** Entries the consumer rejected (XDP_STATISTICS). */
  invalid_descs = 0;

  constructor(
    readonly name: 'fill' | 'rx' | 'tx' | 'completion',
    readonly size: number,
  ) {
    if (!(size >= 2 && (size & (size - 1)) === 0)) throw new Error(`${name} ring size must be a power of two, got ${size}`);
    this.mask = size - 1;
    this.entrySize = name === 'rx' || name === 'tx' ? XDP_DESC_SIZE : 8;
    this.words = column((size * this.entrySize) >> 2, 0);
    this.shift = this.entrySize === XDP_DESC_SIZE ? 2 : 1;
  }

  get entries(): number {
    return (this.producer - this.consumer) >>> 0;
  }

  get free(): number {
    // entries written out, not read through its getter: one flat getter V8 inlines into the per-packet loops.
    return this.size - ((this.producer - this.consumer) >>> 0);
  }

  /** Where entry i (absolute index) starts in words. */
  at(i: number): number {
    return (i & this.mask) << this.shift;
  }

  /** Producer: an address (fill, completion). False when full. */
  produceAddr(a: XskAddr): boolean {
    return this.xskq_prod_reserve_addr(a.lo, a.hi);
  }

  /** Producer: a descriptor (rx, tx). False when full. */
  produceDesc(a: XskAddr, len: number, options = 0): boolean {
    return this.xskq_prod_reserve_desc(a.lo, a.hi, len, options);
  }

  /** produceAddr with the address as its halves (the per-packet callers: no record in between). */
  xskq_prod_reserve_addr(lo: number, hi: number): boolean {
    if (this.free === 0) return false;
    const o = this.at(this.producer);
    this.words[o] = lo >>> 0;
    this.words[o + 1] = hi >>> 0;
    this.producer = (this.producer + 1) >>> 0;
    return true;
  }

  /** produceDesc with the address as its halves. */
  xskq_prod_reserve_desc(lo: number, hi: number, len: number, options: number): boolean {
    if (this.free === 0) return false;
    const o = this.at(this.producer);
    const w = this.words;
    w[o] = lo >>> 0;
    w[o + 1] = hi >>> 0;
    w[o + 2] = len >>> 0;
    w[o + 3] = options >>> 0;
    this.producer = (this.producer + 1) >>> 0;
    return true;
  }

  /** Entry i (absolute index) without consuming it. */
  peekAddr(i: number): XskAddr {
    return { lo: this.peekLo(i), hi: this.peekHi(i) };
  }

  /** The low and high u32 of entry i's address (the per-packet readers take them as two numbers). */
  peekLo(i: number): number {
    return this.words[this.at(i)]!;
  }

  peekHi(i: number): number {
    return this.words[this.at(i) + 1]!;
  }

  peekLen(i: number): number {
    return this.words[this.at(i) + 2]!;
  }

  peekOptions(i: number): number {
    return this.words[this.at(i) + 3]!;
  }

  release(n = 1): void {
    this.consumer = (this.consumer + n) >>> 0;
  }
}

/**
 * xskq_cons_read_addr on the fill ring: the next valid buffer address,
 * skipping (and counting) invalid ones. -1 when the ring is empty.
 */
export function xskq_cons_read_addr(fq: XskQueue, umem: XdpUmem): number {
  while (fq.entries > 0) {
    const i = fq.consumer;
    const lo = fq.peekLo(i);
    const hi = fq.peekHi(i);
    fq.release();
    const addr = umem.xp_check_addr(lo, hi);
    if (addr >= 0) return addr;
    fq.invalid_descs++;
  }
  return -1;
}

/**
 * xskq_cons_peek_desc on the tx ring: the next valid descriptor, skipping
 * (and counting in tx_invalid_descs) bad ones. Null when the ring is empty.
 * The descriptor is consumed: the caller owns it.
 */
export function xskq_cons_peek_desc(tx: XskQueue, umem: XdpUmem, out: XskDesc = { addr: 0, len: 0 }): XskDesc | null {
  while (tx.entries > 0) {
    // struct xdp_desc read in place (this module's layout): the tx path is inlined whole, and four accessor calls would not fit its budget.
    const w = tx.words;
    const o = tx.at(tx.consumer);
    const lo = w[o]!;
    const hi = w[o + 1]!;
    const len = w[o + 2]!;
    const addr = umem.xp_validate_desc(lo, hi, len, w[o + 3]!);
    tx.release();
    if (addr >= 0) {
      out.addr = addr;
      out.len = len;
      return out;
    }
    tx.invalid_descs++;
  }
  return null;
}

/** A tx descriptor as xskq_cons_peek_desc hands it out (the per-packet callers pass one to fill). */
export interface XskDesc {
  /** The buffer's start (unaligned mode: base + offset). */
  addr: number;
  len: number;
}

/** XDP_STATISTICS as getsockopt returns it. */
export function xsk_statistics(q: { fq: XskQueue; rx: XskQueue; tx: XskQueue; rxDropped: number }): { rx_dropped: number; rx_invalid_descs: number; tx_invalid_descs: number } {
  // Bad fill-ring addresses are what the rx side rejects; they are reported with the rx ring's own.
  return { rx_dropped: q.rxDropped, rx_invalid_descs: q.rx.invalid_descs + q.fq.invalid_descs, tx_invalid_descs: q.tx.invalid_descs };
}

/** Where a UMEM chunk is (the AF_XDP conservation invariant: exactly one place each). */
export const XSK_CHUNK_LOCS = ['fill ring', 'NIC rx ring', 'rx ring', 'app', 'tx ring', 'NIC tx ring', 'completion ring'] as const;
export type XskChunkLoc = (typeof XSK_CHUNK_LOCS)[number];

/**
 * Check that every chunk the application owns is in exactly one place.
 * `holders` lists what each place holds (buffer addresses); the rings are
 * read between their consumer and producer. Returns problems, never throws.
 */
export function checkUmemChunks(umem: XdpUmem, rings: { fq: XskQueue; rx: XskQueue; tx: XskQueue; cq: XskQueue }, held: Partial<Record<XskChunkLoc, Iterable<number>>>, expectedChunks: number): string[] {
  const errs: string[] = [];
  const where = new Int8Array(umem.chunks).fill(-1);
  const claim = (addr: number, loc: XskChunkLoc) => {
    if (!(addr >= 0 && addr < umem.size)) {
      errs.push(`${loc}: address ${addr} outside the UMEM`);
      return;
    }
    const c = umem.chunkOf(addr);
    const li = XSK_CHUNK_LOCS.indexOf(loc);
    if (where[c]! >= 0) errs.push(`chunk ${c} is in two places: ${XSK_CHUNK_LOCS[where[c]!]} and ${loc}`);
    where[c] = li;
  };
  const ringAddrs = (q: XskQueue, loc: XskChunkLoc) => {
    for (let i = q.consumer; i !== q.producer; i = (i + 1) >>> 0) {
      claim(umem.xp_raw_addr(q.peekLo(i), q.peekHi(i)), loc);
    }
  };
  ringAddrs(rings.fq, 'fill ring');
  ringAddrs(rings.rx, 'rx ring');
  ringAddrs(rings.tx, 'tx ring');
  ringAddrs(rings.cq, 'completion ring');
  for (const [loc, addrs] of Object.entries(held) as [XskChunkLoc, Iterable<number>][]) for (const a of addrs) claim(a, loc);
  let n = 0;
  for (let c = 0; c < umem.chunks; c++) if (where[c]! >= 0) n++;
  if (n !== expectedChunks) errs.push(`UMEM: ${expectedChunks} chunks in use but ${n} accounted for`);
  return errs;
}
