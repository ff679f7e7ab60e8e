/**
 * The page pool's layout in PageAllocator.memory (pageAddr): pages a
 * cache line apart so that the host's caches spread their headers, and a
 * compound (order-3) page still one contiguous buffer over its own pages'
 * places. Nothing simulated depends on it; a wrong layout would let two
 * pages share bytes, which these tests catch.
 */
import { describe, expect, it } from 'vitest';
import { MAX_ORDER, PAGE_SIZE, PageAllocator, pageAddr } from '../../src/sim/page_alloc';
import { MAX_MEMORY_PAGES } from '../../src/sim/config';
import { MAX_FRAME_BUFFER } from '../../src/sim/program';

describe('page layout (pageAddr)', () => {
  it('no two pages overlap, every page is inside memory, and headers fall on 64 different colours', () => {
    const a = new PageAllocator(1024);
    const colours = new Set<number>();
    for (let p = 0; p < a.totalPages; p++) {
      if (p > 0) expect(pageAddr(p) - pageAddr(p - 1)).toBeGreaterThanOrEqual(PAGE_SIZE);
      expect(pageAddr(p) + PAGE_SIZE).toBeLessThanOrEqual(a.memory.length);
      colours.add((pageAddr(p) + 256) % 4096);
    }
    expect(colours.size).toBe(64);
  });

  it('an order-3 page is one buffer from its head that ends before the next block, where the allocator puts it', () => {
    const a = new PageAllocator(64);
    const head = a.alloc(MAX_ORDER);
    expect(head).toBeGreaterThanOrEqual(0);
    expect(head % (1 << MAX_ORDER)).toBe(0);
    expect(pageAddr(head) + (PAGE_SIZE << MAX_ORDER)).toBeLessThanOrEqual(pageAddr(head + (1 << MAX_ORDER)));
    // Bytes written across the whole compound page land in it and nowhere else.
    const other = head === 0 ? 8 : 0;
    a.memory.fill(0xaa, pageAddr(other), pageAddr(other) + PAGE_SIZE);
    a.memory.fill(0x55, pageAddr(head), pageAddr(head) + (PAGE_SIZE << MAX_ORDER));
    expect(a.memory.subarray(pageAddr(other), pageAddr(other) + PAGE_SIZE).every((b) => b === 0xaa)).toBe(true);
  });

  it('the largest pool fits the frame buffer the VM addresses', () => {
    expect(MAX_MEMORY_PAGES % (1 << MAX_ORDER)).toBe(0);
    expect(new PageAllocator(MAX_MEMORY_PAGES).memory.length).toBeLessThanOrEqual(MAX_FRAME_BUFFER);
  });
});
