/**
 * The host's page allocator and the DMA API, reduced to what a NIC driver
 * touches: order-0 (4 KiB) and order-3 (32 KiB) allocations from a buddy
 * allocator over a fixed pool, free-page accounting, out-of-memory as a
 * failed allocation (never an exception), dma map/unmap state per page.
 *
 * Every page has an id (its pfn) and a location, so the UI can follow one
 * page from the rx ring to the program, the tx ring, the page cache and
 * back, and the invariant checker can prove each page is in one place.
 * Page contents live in one ArrayBuffer, page pfn at pageAddr(pfn) (pages a
 * cache line apart: see PAGE_STRIDE): that is what the VM runs the program
 * on, in place. Per page it can also say which frame a driver last DMA'd
 * into it, while those bytes are known to be unchanged (dmaFrame), so
 * re-receiving the same frame needs no copy. The per-page state is in plain
 * arrays, not typed ones (./column.ts says why).
 */
import { column } from './column';

export const PAGE_SHIFT = 12;
export const PAGE_SIZE = 1 << PAGE_SHIFT;
export const MAX_ORDER = 3;
/**
 * Bytes from one page to the next in `memory`: the page and one cache line.
 * Only the host's caches see it (no simulated address or cost depends on
 * it). Laid end to end at 4 KiB, every page's headers sit at the same
 * offset modulo 4 KiB, which the host's L1 and L2 map to a handful of
 * sets, and a ring's thousand pages evicted each other's packet headers
 * (mlx4 xdp1: ~7% of the simulation's time); a line per page spreads them
 * over 64 colours. A compound page (order 3: an mlx4 fragment page) is
 * still one contiguous buffer from its head: its 32 KiB end before the next
 * max-order block's first page (8 x PAGE_STRIDE), over its own tail pages'
 * places, which hold nothing else.
 */
export const PAGE_STRIDE = PAGE_SIZE + 64;

/** Where page pfn's bytes start in PageAllocator.memory (a compound page's: its head's, then contiguous). */
export function pageAddr(pfn: number): number {
  return pfn * PAGE_STRIDE;
}

/** Where a page (or the head of a compound page) is. */
export const enum PageLoc {
  FREE = 0,
  /** Posted on (or completed in) an rx ring slot. */
  RX_RING = 1,
  /** In an rx ring's page cache (still dma-mapped). */
  PAGE_CACHE = 2,
  /** On an XDP tx ring, waiting for the NIC or for its completion. */
  TX_RING = 3,
  /** Owned by an skb in the network stack. */
  STACK = 4,
  /** Being processed by a CPU (between the rx descriptor and the action). */
  IN_FLIGHT = 5,
  /** An order-3 page split into rx fragments: shared, counted by refcount. */
  FRAGS = 6,
  /** Tail page of a compound page (its head carries the state). */
  TAIL = 7,
  /** Queued for a redirect target (a cpumap/devmap bulk queue or the remote CPU's ring). */
  REDIRECT = 8,
}

export const PAGE_LOC_NAMES = ['free', 'rx_ring', 'page_cache', 'tx_ring', 'stack', 'in_flight', 'frags', 'tail', 'redirect'] as const;
export type PageLocName = (typeof PAGE_LOC_NAMES)[number];

export const enum DmaDir {
  NONE = 0,
  FROM_DEVICE = 1,
  TO_DEVICE = 2,
  BIDIRECTIONAL = 3,
}

export class PageAllocator {
  readonly memory: Uint8Array;
  /** PageLoc per page. */
  readonly loc: number[];
  readonly order: number[];
  readonly refcount: number[];
  /** DmaDir per page. */
  readonly dma: number[];
  /** Which rx queue's ring or cache holds the page (-1 none). */
  readonly owner: number[];
  /**
   * Per page: the frame a driver DMA'd into it at memory offset dmaAt, while
   * memory there still holds exactly the frame's bytes (frames are never
   * modified), else null. Only a driver that proves nothing else writes the
   * page sets it (XdpPageDriver.rx_dma); it clears it before any other
   * writer may get the page, and allocation clears it, so a page another
   * user had is never taken for holding a frame.
   */
  readonly dmaFrame: (Uint8Array | null)[];
  readonly dmaAt: number[];
  /** Some dmaFrame may be set (allocation skips the clearing until then). */
  dmaTagged = false;
  /** For free heads: the order of the free block, else -1. */
  private readonly freeOrder: number[];
  private readonly next: number[];
  private readonly prev: number[];
  private readonly heads: number[];
  freePages: number;
  allocFailures = 0;
  allocs = [0, 0, 0, 0];
  frees = [0, 0, 0, 0];

  constructor(readonly totalPages: number) {
    if (totalPages % (1 << MAX_ORDER) !== 0) throw new Error(`page pool must be a multiple of ${1 << MAX_ORDER} pages`);
    this.memory = new Uint8Array(totalPages * PAGE_STRIDE);
    this.loc = column(totalPages, PageLoc.FREE);
    this.order = column(totalPages, 0);
    this.refcount = column(totalPages, 0);
    this.dma = column(totalPages, DmaDir.NONE);
    this.owner = column(totalPages, -1);
    this.freeOrder = column(totalPages, -1);
    this.next = column(totalPages, -1);
    this.prev = column(totalPages, -1);
    this.heads = column(MAX_ORDER + 1, -1);
    this.dmaFrame = new Array<Uint8Array | null>(totalPages).fill(null);
    this.dmaAt = column(totalPages, 0);
    this.freePages = 0;
    // Free from the top down so the first allocations get low pfns (easier to read in the UI).
    for (let pfn = totalPages - (1 << MAX_ORDER); pfn >= 0; pfn -= 1 << MAX_ORDER) this.pushFree(pfn, MAX_ORDER);
    for (let pfn = 0; pfn < totalPages; pfn++) this.loc[pfn] = pfn % 8 === 0 ? PageLoc.FREE : PageLoc.TAIL;
  }

  private pushFree(pfn: number, order: number): void {
    const h = this.heads[order]!;
    this.next[pfn] = h;
    this.prev[pfn] = -1;
    if (h >= 0) this.prev[h] = pfn;
    this.heads[order] = pfn;
    this.freeOrder[pfn] = order;
    this.freePages += 1 << order;
  }

  private unlinkFree(pfn: number, order: number): void {
    const n = this.next[pfn]!;
    const p = this.prev[pfn]!;
    if (p >= 0) this.next[p] = n;
    else this.heads[order] = n;
    if (n >= 0) this.prev[n] = p;
    this.freeOrder[pfn] = -1;
    this.freePages -= 1 << order;
  }

  /** alloc_pages(order): the head pfn, or -1 when no block is free (OOM). */
  alloc(order: number): number {
    let o = order;
    while (o <= MAX_ORDER && this.heads[o]! < 0) o++;
    if (o > MAX_ORDER) {
      this.allocFailures++;
      return -1;
    }
    const pfn = this.heads[o]!;
    this.unlinkFree(pfn, o);
    // Split: keep the low half, return the high halves to the free lists.
    while (o > order) {
      o--;
      const buddy = pfn + (1 << o);
      this.pushFree(buddy, o);
      this.loc[buddy] = PageLoc.FREE;
    }
    this.order[pfn] = order;
    this.refcount[pfn] = 1;
    this.loc[pfn] = PageLoc.IN_FLIGHT;
    this.owner[pfn] = -1;
    for (let i = 1; i < 1 << order; i++) this.loc[pfn + i] = PageLoc.TAIL;
    if (this.dmaTagged) for (let i = 0; i < 1 << order; i++) this.dmaFrame[pfn + i] = null;
    this.allocs[order]!++;
    return pfn;
  }

  /** __free_pages: return a block, merging buddies. */
  free(pfn: number): void {
    let order = this.order[pfn]!;
    if (this.loc[pfn] === PageLoc.FREE) throw new Error(`double free of page ${pfn}`);
    this.frees[order]!++;
    this.refcount[pfn] = 0;
    this.dma[pfn] = DmaDir.NONE;
    this.owner[pfn] = -1;
    for (let i = 0; i < 1 << order; i++) this.loc[pfn + i] = PageLoc.TAIL;
    while (order < MAX_ORDER) {
      const buddy = pfn ^ (1 << order);
      if (this.freeOrder[buddy] !== order) break;
      this.unlinkFree(buddy, order);
      this.loc[buddy] = PageLoc.TAIL;
      pfn = Math.min(pfn, buddy);
      order++;
    }
    this.pushFree(pfn, order);
    this.loc[pfn] = PageLoc.FREE;
    this.order[pfn] = order;
  }

  /** Forget every page's DMA'd frame (a writer the driver cannot vouch for may come). */
  clearDmaFrames(): void {
    if (!this.dmaTagged) return;
    this.dmaFrame.fill(null);
    this.dmaTagged = false;
  }

  /** Is pfn the head of a free block? (for the invariant checker) */
  isFreeHead(pfn: number): boolean {
    return this.freeOrder[pfn]! >= 0;
  }

  /** Count of pages in free blocks by walking the free lists (for the invariant checker). */
  countFreeListPages(): number {
    let n = 0;
    for (let o = 0; o <= MAX_ORDER; o++) for (let p = this.heads[o]!; p >= 0; p = this.next[p]!) n += 1 << o;
    return n;
  }

  /**
   * Every page's location into `out` (length totalPages), tails resolved to
   * their head's: a compound block (free or allocated) is aligned and
   * contiguous, and only its head is marked, so a tail's head is the nearest
   * page before it that is not a tail. Read-only; one pass, no allocation.
   */
  resolvedLocations(out: Uint8Array): Uint8Array {
    let head = PageLoc.FREE as number;
    for (let pfn = 0; pfn < this.totalPages; pfn++) {
      const l = this.loc[pfn]!;
      if (l !== PageLoc.TAIL) head = l;
      out[pfn] = head;
    }
    return out;
  }

  bytesOf(pfn: number): number {
    return PAGE_SIZE << this.order[pfn]!;
  }
}
