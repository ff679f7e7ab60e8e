/**
 * page_pool (net/core/page_pool.c), reduced to its recycling structure: an
 * alloc cache of PP_ALLOC_CACHE_SIZE pages usable only from the pool's NAPI
 * context (direct recycling, no locks), a ptr_ring for pages returned from
 * anywhere else, refilled into the cache in bulk, and the page allocator
 * behind both. Pages in the pool stay dma-mapped.
 */
import type { PageAllocator } from './page_alloc';
import { column } from './column';

// Numbers read per packet, as file-local const enums: the transpiler writes each use as a
// literal (an imported binding is a getter under tsx/vitest; a module-level object is a load
// and checks). tests/unit/sim-const-enums.test.ts holds each to its definition.
const enum DmaDir { BIDIRECTIONAL = 3 }
const enum PageLoc { PAGE_CACHE = 2 }

export const PP_ALLOC_CACHE_SIZE = 128;
export const PP_ALLOC_CACHE_REFILL = 64;

export const enum PpSource {
  /** From the alloc cache. */
  CACHE = 0,
  /** The cache was refilled from the ptr_ring first. */
  RING = 1,
  /** A fresh page from the page allocator. */
  SLOW = 2,
  /** Out of memory. */
  FAIL = 3,
}

export class PagePool {
  // The alloc cache and the ptr_ring: plain arrays of page numbers (./column.ts says why).
  readonly cache = column(PP_ALLOC_CACHE_SIZE, 0);
  cacheCount = 0;
  readonly ring: number[];
  ringHead = 0;
  ringTail = 0;
  /** Pages moved from the ptr_ring into the cache by the last alloc (for costing). */
  lastRefill = 0;
  /** Where the last allocPage found its page (a field, not a returned record: this runs per packet). */
  lastSrc: PpSource = PpSource.CACHE;
  allocs = 0;
  slowAllocs = 0;
  recycledDirect = 0;
  recycledRing = 0;
  released = 0;

  constructor(
    readonly alloc: PageAllocator,
    readonly owner: number,
    readonly ringSize: number,
  ) {
    this.ring = column(ringSize, 0);
  }

  get ringCount(): number {
    return this.ringTail - this.ringHead;
  }

  /** page_pool_dev_alloc_pages: the page (-1: none); where it came from is left in lastSrc. */
  allocPage(): number {
    this.lastRefill = 0;
    let src = PpSource.CACHE;
    if (this.cacheCount === 0) {
      while (this.ringCount > 0 && this.cacheCount < PP_ALLOC_CACHE_REFILL) {
        this.cache[this.cacheCount++] = this.ring[this.ringHead++ % this.ringSize]!;
        this.lastRefill++;
      }
      src = PpSource.RING;
    }
    if (this.cacheCount > 0) {
      const page = this.cache[--this.cacheCount]!;
      this.allocs++;
      this.lastSrc = src;
      return page;
    }
    const page = this.alloc.alloc(0);
    if (page < 0) {
      this.lastSrc = PpSource.FAIL;
      return page;
    }
    this.alloc.dma[page] = DmaDir.BIDIRECTIONAL;
    this.allocs++;
    this.slowAllocs++;
    this.lastSrc = PpSource.SLOW;
    return page;
  }

  /** Return a page: `direct` (the pool's own NAPI context) may use the cache. Returns false when freed. */
  put(page: number, direct: boolean): 'cache' | 'ring' | 'freed' {
    const a = this.alloc;
    if (direct && this.cacheCount < PP_ALLOC_CACHE_SIZE) {
      this.cache[this.cacheCount++] = page;
      a.loc[page] = PageLoc.PAGE_CACHE;
      a.owner[page] = this.owner;
      this.recycledDirect++;
      return 'cache';
    }
    if (this.ringCount < this.ringSize) {
      this.ring[this.ringTail++ % this.ringSize] = page;
      a.loc[page] = PageLoc.PAGE_CACHE;
      a.owner[page] = this.owner;
      this.recycledRing++;
      return 'ring';
    }
    this.released++;
    a.free(page);
    return 'freed';
  }

  /** Every page the pool holds (cache and ptr_ring). */
  held(): number[] {
    const out = this.cache.slice(0, this.cacheCount);
    for (let i = this.ringHead; i < this.ringTail; i++) out.push(this.ring[i % this.ringSize]!);
    return out;
  }

  /** page_pool_destroy: release everything. */
  drain(): void {
    for (const p of this.held()) this.alloc.free(p);
    this.cacheCount = 0;
    this.ringHead = this.ringTail = 0;
  }
}
