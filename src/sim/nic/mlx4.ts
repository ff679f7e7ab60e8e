/**
 * An mlx4-like driver (ConnectX-3, the 2016 XDP series, seed 000/003): the
 * rx model of ./xdp_page_driver.ts (rx descriptor rings with a completion
 * queue, interrupt moderation, the XDP hook and its actions, the dedicated
 * XDP tx ring per rx ring with doorbell batching, order-3 fragments without
 * XDP and one order-0 page per packet with it) plus what is mlx4's own: the
 * per-ring page cache of seed 000 patch 07 — the recycle path
 * (mlx4_en_rx_recycle) that keeps dropped and transmitted pages dma-mapped
 * for the next refill, MLX4_EN_CACHE_SIZE of them per ring.
 *
 * Methods carry the kernel's function names so the code reads next to
 * drivers/net/ethernet/mellanox/mlx4/en_rx.c and en_tx.c. The NAPI poll
 * loop is the shared one (./napi.ts).
 */
import type { Cpu, Machine } from '../machine';
import { PageLoc as PageLocEnum } from '../page_alloc';
import { NAPI_BUDGET, type RxRing } from './rx_ring';
import { XdpPageDriver } from './xdp_page_driver';
import { column } from '../column';

// Numbers read per packet, as file-local const enums: the transpiler writes each use as a
// literal (an imported binding is a getter under tsx/vitest; a module-level object is a load
// and checks). tests/unit/sim-const-enums.test.ts holds each to its definition.
const enum S { page_cache_put = 9, page_cache_get = 10 }
const enum K { page_cache_put = 13, page_cache_get = 14 }
const LOC_PAGE_CACHE = PageLocEnum.PAGE_CACHE;

/** mlx4's page cache: 2 x the NAPI budget (MLX4_EN_CACHE_SIZE). */
export const MLX4_EN_CACHE_SIZE = 2 * NAPI_BUDGET;
/** Ring the XDP tx doorbell once this many frames are pending. */
export const MLX4_EN_DOORBELL_BUDGET = 8;

/** One rx ring's page cache (struct mlx4_en_page_cache); its pages in a plain array (../column.ts says why). */
export interface Mlx4PageCache {
  readonly buf: number[];
  index: number;
}

export class Mlx4En extends XdpPageDriver {
  readonly kind = 'mlx4' as const;
  /** Per rx ring: its page cache. */
  readonly pageCache: Mlx4PageCache[];

  constructor(m: Machine) {
    super(m, MLX4_EN_DOORBELL_BUDGET);
    this.pageCache = this.rings.map(() => ({ buf: column(MLX4_EN_CACHE_SIZE, 0), index: 0 }));
    this.start();
  }

  cacheView(i: number): { kind: 'mlx4_page_cache'; size: number; level: number; pages: number[] } {
    const c = this.pageCache[i]!;
    return { kind: 'mlx4_page_cache', size: MLX4_EN_CACHE_SIZE, level: c.index, pages: c.buf.slice(0, c.index) };
  }

  protected rx_recycle(cpu: Cpu, r: RxRing, page: number, packet: number): boolean {
    return this.mlx4_en_rx_recycle(cpu, r, page, packet);
  }

  /** mlx4_en_rx_recycle: keep a dma-mapped page in the ring's cache if there is room. */
  mlx4_en_rx_recycle(cpu: Cpu, r: RxRing, page: number, packet: number): boolean {
    if (!this.m.cfg.pageCache) return false;
    const cache = this.pageCache[r.index]!;
    if (cache.index >= MLX4_EN_CACHE_SIZE) {
      r.c.cache_full++;
      return false;
    }
    this.m.charge(cpu, S.page_cache_put);
    cache.buf[cache.index++] = page;
    const a = this.m.alloc;
    a.loc[page] = LOC_PAGE_CACHE;
    a.owner[page] = r.index;
    r.c.cache_put++;
    const tr = this.m.trace;
    if (tr.on) tr.emit(K.page_cache_put, cpu.now, cpu.id, r.index, -1, packet, page, cache.index);
    return true;
  }

  /** mlx4_en_prepare_rx_desc's first choice: a page from the ring's cache. */
  protected rx_recycled_page(r: RxRing, s: number, cpu: Cpu | null): number {
    const cache = this.pageCache[r.index]!;
    if (cache.index === 0) return -1;
    const page = cache.buf[--cache.index]!;
    r.c.cache_get++;
    if (cpu) this.m.charge(cpu, S.page_cache_get);
    const tr = this.m.trace;
    if (tr.on) tr.emit(K.page_cache_get, cpu?.now ?? 0, r.cpu.id, r.index, s, -1, page, cache.index);
    return page;
  }

  protected rx_recycle_drain(r: RxRing): void {
    const cache = this.pageCache[r.index]!;
    while (cache.index > 0) this.m.alloc.free(cache.buf[--cache.index]!);
  }

  protected rx_recycle_pages(r: RxRing, visit: (page: number, loc: PageLocEnum, what: string) => void): void {
    const cache = this.pageCache[r.index]!;
    for (let i = 0; i < cache.index; i++) visit(cache.buf[i]!, LOC_PAGE_CACHE, `page cache ${r.index}`);
  }
}
