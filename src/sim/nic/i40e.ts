/**
 * i40e's native XDP path (Intel XL710/X710, seed 002's xdp_redirect_map
 * ports; drivers/net/ethernet/intel/i40e/i40e_txrx.c): the rx model of
 * ./xdp_page_driver.ts with i40e's costs (its hardware profile) and what is
 * i40e's own here: rx page reuse (i40e_reuse_rx_page: a page whose
 * refcount bias comes back is posted again instead of freed; the model
 * keeps reusable pages per ring, up to 2 x NAPI_BUDGET, the bound mlx4's
 * cache has), pages returned by the devmap target reused the same way, and
 * generic (skb-mode) XDP. The AF_XDP zero-copy path is ./i40e_xsk.ts.
 */
import type { Cpu, Machine } from '../machine';
import { PAGE_SIZE as PAGE_SIZE_, PageLoc as PageLocEnum } from '../page_alloc';
import { XDP_ABORTED, XDP_DROP, XDP_PASS, XDP_REDIRECT, XDP_TX, type XdpHook } from '../program';
import { NAPI_BUDGET, type RxRing } from './rx_ring';
import { bpf_prog_run_xdp as runXdp, xdp_prepare_buff as prepareBuff } from './xdp_run';
import { XdpPageDriver } from './xdp_page_driver';
import type { DevmapTargetOptions } from '../devmap';
import { column } from '../column';

// Numbers read per packet, as file-local const enums: the transpiler writes each use as a
// literal (an imported binding is a getter under tsx/vitest; a module-level object is a load
// and checks). tests/unit/sim-const-enums.test.ts holds each to its definition.
const enum S { page_cache_put = 9, page_cache_get = 10, free_order0 = 15, dma_unmap = 19, skb_build = 26, xdp_redirect = 30, copy_line = 33, skb_free = 41, generic_xdp = 42, pskb_expand_head = 43 }
const enum K { xdp_run = 6, xdp_exception = 7, xdp_drop = 8, xdp_pass = 9, xdp_redirect = 11, xdp_unknown = 12, page_cache_put = 13, page_cache_get = 14 }
const PAGE_SIZE = PAGE_SIZE_;
const LOC_PAGE_CACHE = PageLocEnum.PAGE_CACHE;
const bpf_prog_run_xdp = runXdp;
const xdp_prepare_buff = prepareBuff;

/** Reusable rx pages kept per ring (the model's bound: 2 x NAPI_BUDGET). */
export const I40E_RX_REUSE_SIZE = 2 * NAPI_BUDGET;
/** Write the XDP tx ring's tail once this many frames are pending (the model uses mlx4's batching). */
export const I40E_XDP_TX_DOORBELL_BUDGET = 8;

export class I40e extends XdpPageDriver {
  readonly kind = 'i40e' as const;
  /** Per rx ring: pages waiting to be posted again (a stack of page numbers in a plain array, ../column.ts, and its depth). */
  readonly reuse: { readonly buf: number[]; index: number }[];
  /** m.cfg.pageCache (fixed for the simulation's life), read for every recycled page. */
  private readonly pageReuse: boolean;

  constructor(m: Machine) {
    super(m, I40E_XDP_TX_DOORBELL_BUDGET);
    this.pageReuse = m.cfg.pageCache;
    this.reuse = this.rings.map(() => ({ buf: column(I40E_RX_REUSE_SIZE, 0), index: 0 }));
    this.start();
  }

  cacheView(i: number): { kind: 'i40e_page_reuse'; size: number; level: number; pages: number[] } {
    const c = this.reuse[i]!;
    return { kind: 'i40e_page_reuse', size: I40E_RX_REUSE_SIZE, level: c.index, pages: c.buf.slice(0, c.index) };
  }

  /** i40e_can_reuse_rx_page + i40e_reuse_rx_page: keep the page for the ring if there is room. */
  protected rx_recycle(cpu: Cpu, r: RxRing, page: number, packet: number): boolean {
    if (!this.pageReuse) return false;
    const store = this.reuse[r.index]!;
    const index = store.index;
    if (index >= I40E_RX_REUSE_SIZE) {
      r.c.cache_full++;
      return false;
    }
    const m = this.m;
    m.charge(cpu, S.page_cache_put);
    store.buf[index] = page;
    store.index = index + 1;
    const a = m.alloc;
    a.loc[page] = LOC_PAGE_CACHE;
    a.owner[page] = r.index;
    r.c.cache_put++;
    const tr = m.trace;
    if (tr.on) tr.emit(K.page_cache_put, cpu.now, cpu.id, r.index, -1, packet, page, index + 1);
    return true;
  }

  /** i40e_alloc_mapped_page's shortcut: a reusable page is posted again without allocating. */
  protected rx_recycled_page(r: RxRing, s: number, cpu: Cpu | null): number {
    const store = this.reuse[r.index]!;
    const index = store.index - 1;
    if (index < 0) return -1;
    const page = store.buf[index]!;
    store.index = index;
    r.c.cache_get++;
    if (cpu) this.m.charge(cpu, S.page_cache_get);
    const tr = this.m.trace;
    if (tr.on) tr.emit(K.page_cache_get, cpu ? cpu.now : 0, r.cpu.id, r.index, s, -1, page, index);
    return page;
  }

  protected rx_recycle_drain(r: RxRing): void {
    const store = this.reuse[r.index]!;
    while (store.index > 0) this.m.alloc.free(store.buf[--store.index]!);
  }

  protected rx_recycle_pages(r: RxRing, visit: (page: number, loc: PageLocEnum, what: string) => void): void {
    const store = this.reuse[r.index]!;
    for (let i = 0; i < store.index; i++) visit(store.buf[i]!, LOC_PAGE_CACHE, `page cache ${r.index}`);
  }

  /** The devmap target's finished frames come back to i40e_reuse_rx_page (their refcount bias returns). */
  protected override devmapReturnFrame(): DevmapTargetOptions['returnFrame'] {
    return (cpu, page) => this.i40e_reuse_rx_page(cpu, page);
  }

  /** i40e_reuse_rx_page: a frame returned by the redirect target goes back to its rx ring's reuse, else is freed. */
  private i40e_reuse_rx_page(cpu: Cpu, page: number): void {
    const m = this.m;
    const r = this.rings[m.alloc.owner[page]!] ?? this.rings[0]!;
    if (this.rx_recycle(cpu, r, page, -1)) return;
    m.charge2(cpu, S.dma_unmap, S.free_order0);
    m.alloc.free(page);
  }

  /**
   * Generic (skb-mode) XDP: the driver builds an skb
   * (i40e_build_skb), netif_receive_skb reaches do_xdp_generic, which needs
   * XDP_PACKET_HEADROOM and so copies the frame (pskb_expand_head), runs the
   * program and acts on the skb. XDP_REDIRECT goes out one skb at a time
   * (xdp_do_generic_redirect): no bulk queue, a doorbell per packet.
   */
  protected override do_xdp_generic(cpu: Cpu, r: RxRing, prog: XdpHook, page: number, packet: number, base: number, len: number, s: number): void {
    const m = this.m;
    const tr = m.trace;
    m.charge(cpu, S.skb_build);
    m.charge(cpu, S.generic_xdp);
    m.charge(cpu, S.pskb_expand_head);
    m.chargeTimes(cpu, S.copy_line, (len + 63) >> 6);
    const x = this.xdp;
    xdp_prepare_buff(x, m.alloc.memory, base, base + this.headroom, len, PAGE_SIZE, r.index);
    let act = bpf_prog_run_xdp(m, cpu, prog, x);
    if (x.fault !== undefined) {
      this.warnOnce(-2, `program fault: ${x.fault} (treated as XDP_ABORTED)`);
      act = XDP_ABORTED;
    }
    if (tr.on) tr.emit(K.xdp_run, cpu.now, cpu.id, r.index, s, packet, page, act);
    switch (act) {
      case XDP_PASS:
        r.c.xdp_pass++;
        if (tr.on) tr.emit(K.xdp_pass, cpu.now, cpu.id, r.index, s, packet, page, 0);
        this.deliverSkb(cpu, r, page, packet, x.data, x.dataEnd - x.data, true);
        return;
      case XDP_REDIRECT:
        r.c.xdp_redirect++;
        m.charge(cpu, S.xdp_redirect);
        if (tr.on) tr.emit(K.xdp_redirect, cpu.now, cpu.id, r.index, s, packet, page, x.redirectIfindex);
        if (this.devmap && this.devmap.opts.xdpCapable) {
          // The skb path needs no XDP support in the target: dev_queue_xmit works on any device.
          // The target may write the page (see XdpPageDriver.dmaKeep).
          m.alloc.dmaFrame[page] = null;
          this.devmap.genericXmit(cpu, page, packet, x.dataEnd - x.data);
          this.reapDevmap(r);
          return;
        }
        r.c.xdp_redirect_err++;
        if (tr.on) tr.emit(K.xdp_exception, cpu.now, cpu.id, r.index, s, packet, page, XDP_REDIRECT);
        break;
      case XDP_TX:
        // generic_xdp_tx is not modelled on this driver: say so, and count the frame as a tx drop.
        r.c.xdp_tx++;
        r.c.tx_dropped++;
        this.warnOnce(-4, 'generic XDP_TX is not modelled on the i40e driver: frames counted as tx_dropped');
        break;
      case XDP_ABORTED:
        r.c.xdp_aborted++;
        if (tr.on) tr.emit(K.xdp_exception, cpu.now, cpu.id, r.index, s, packet, page, XDP_ABORTED);
        break;
      case XDP_DROP:
        r.c.xdp_drop++;
        if (tr.on) tr.emit(K.xdp_drop, cpu.now, cpu.id, r.index, s, packet, page, 0);
        break;
      default:
        r.c.xdp_unknown++;
        this.warnOnce(act, `Illegal XDP return value ${act}, expect packet loss`);
        if (tr.on) tr.emit(K.xdp_unknown, cpu.now, cpu.id, r.index, s, packet, page, act);
    }
    m.charge(cpu, S.skb_free);
    this.dropBuffer(cpu, r, page, packet);
  }
}
