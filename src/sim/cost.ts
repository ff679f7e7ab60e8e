/**
 * The cost model's bookkeeping: each driver step (a CostStep) charges cycles
 * to one or more kernel function names, the way `perf report` would see them.
 * A hardware profile gives the cycles per step; this module compiles that
 * table into flat arrays so charging a step on the per-packet path is a few
 * array adds, and turns the accumulated cycles into a profile by symbol.
 */

/** Every step of the driver and stack that costs CPU time. */
export const COST_STEPS = [
  'irq', // hard interrupt: the NIC's event queue, return from interrupt
  'idle_wake', // leaving a cpuidle state to run the softirq
  'napi_poll', // one napi->poll() call from net_rx_action
  'napi_complete', // napi_complete_done and re-arming the completion queue (MMIO)
  'rx_cqe', // reading one rx completion and the driver's per-packet work
  'dma_sync_cpu', // dma_sync_single_for_cpu before the CPU reads the frame
  'xdp_run', // entering the program (bpf_prog_run_xdp), fixed part
  'xdp_insn', // per executed eBPF instruction (JITed), multiplied by the VM's count
  'map_lookup', // one bpf_map_lookup_elem call (array/percpu array)
  'page_cache_put', // mlx4_en_rx_recycle: page into the ring's cache
  'page_cache_get', // refilling a slot from the ring's page cache
  'rx_alloc_frag', // carving one fragment of an order-3 page for a slot (legacy mlx4)
  'rx_alloc_page', // driver work to post a fresh order-0 page on a slot
  'order0_page_miss', // first touch of a fresh order-0 page's struct page and data (cold)
  'alloc_order0', // page allocator: one order-0 page
  'free_order0',
  'alloc_order3', // page allocator: one order-3 (32 KiB) compound page
  'free_order3',
  'dma_map', // dma_map_page of a fresh page
  'dma_unmap',
  'rx_frag_free', // mlx4_en_free_frag: dropping the driver's reference to a frag
  'rx_doorbell', // publishing the new rx producer index
  'tx_post', // writing one XDP_TX descriptor (incl. dma_sync_single_for_device)
  'tx_doorbell', // MMIO write telling the NIC to fetch pending tx descriptors
  'tx_cq_poll', // polling the XDP tx completion queue once
  'tx_complete', // per completed tx frame: recycle to the rx ring's page cache
  'skb_build', // stack: allocate and build the skb, copy headers
  'stack_rx', // stack: GRO, __netif_receive_skb_core, ip_rcv, netfilter hook
  'stack_drop', // stack: kfree_skb after the iptables raw DROP
  'stack_deliver', // stack: udp_rcv and socket queueing (the socket sink)
  'xdp_redirect', // xdp_do_redirect's per-packet part
  // vmxnet3 (seed 004), page_pool, generic XDP, cpumap
  'vmx_rx_complete', // vmxnet3_rq_rx_complete: one rx completion descriptor
  'pkt_line_miss', // first touch of one 64-byte line of a DMA'd frame
  'copy_line', // memcpy of one 64-byte line (data ring copy, pskb_expand_head)
  'pp_alloc_fast', // page_pool_alloc_pages served from the alloc cache
  'pp_refill', // page_pool_refill_alloc_cache: one page from the ptr_ring into the cache
  'pp_alloc_slow', // __page_pool_alloc_pages_slow: a fresh page (plus alloc_order0, dma_map)
  'pp_recycle_direct', // page_pool_recycle_direct: back into the alloc cache (NAPI context)
  'pp_put_ring', // page_pool_put_page from outside NAPI: into the ptr_ring
  'skb_alloc', // __netdev_alloc_skb / napi_alloc_skb for a copied or fresh rx buffer
  'build_skb', // napi_build_skb around an XDP buffer (native XDP_PASS)
  'skb_free', // kfree_skb / consume_skb of an skb the driver or XDP generic dropped
  'generic_xdp', // netif_receive_generic_xdp + bpf_prog_run_generic_xdp, fixed part
  'pskb_expand_head', // making the 256-byte XDP headroom in an skb (copy charged per line)
  'generic_xdp_tx', // generic_xdp_tx: the qdisc-less dev_queue_xmit path
  'vmx_skb_xmit', // vmxnet3_xmit_frame for an skb (header parse, copy to the tx data ring)
  'vmx_xdp_xmit', // vmxnet3_xdp_xmit_frame for an xdp_frame
  'vmx_tx_complete', // vmxnet3_tq_tx_complete per frame
  'vmx_tx_line', // the hypervisor reading one 64-byte line of a queued tx frame, in the vCPU's context (TXPROD trap)
  'xdp_return_frame', // xdp_return_frame_bulk per frame
  'cpumap_enqueue', // cpu_map_enqueue: into the per-CPU bulk queue (8)
  'cpumap_flush', // bq_flush_to_queue: one frame onto the remote CPU's ptr_ring
  'cpumap_generic_wake', // cpu_map_generic_redirect: wake_up_process of the remote kthread, once per skb (generic XDP has no bulk queue)
  'xdp_do_flush', // xdp_do_flush at the end of the poll
  'devmap_enqueue', // dev_map_enqueue / bq_enqueue: into the per-CPU devmap bulk queue (16)
  'devmap_xmit', // bq_xmit_all: one ndo_xdp_xmit call for a bulk
  'devmap_xmit_frame', // the target driver's per-frame work in ndo_xdp_xmit
  // seed 002: devmap programs, the flush patch, veth, generic redirect
  'devmap_prog_enqueue', // dev_map_run_prog at enqueue (before the flush patch): xdp_frame -> xdp_buff and back, per frame
  'devmap_prog_flush', // dev_map_bpf_prog_run over the bulk at flush (after the patch), per frame
  'devmap_bq_prepatch', // bq_enqueue before the patch: dev_rx/xdp_prog/flush_node checked and set per frame
  'veth_xdp_xmit_frame', // veth_xdp_xmit: one frame onto the peer's ptr_ring
  'veth_poll', // veth_poll: one NAPI poll of the veth peer's ptr_ring
  'veth_xdp_rcv_one', // veth_xdp_rcv_one: one xdp_frame from the ptr_ring, xdp_buff set up
  'generic_dev_xmit', // generic redirect to a NIC: dev_map_generic_redirect, dev_queue_xmit, the driver's xmit of an skb
  'generic_veth_xmit', // generic redirect to a veth: veth_xmit, the peer's veth_xdp_rcv_skb
  // seed 001: AF_XDP
  'rx_cqe_zc', // i40e_clean_rx_irq_zc: one rx descriptor whose buffer is a UMEM chunk
  'xsk_rcv_zc', // xsk_rcv, zero-copy: an rx descriptor for the chunk the NIC filled
  'xsk_rcv_copy', // xsk_rcv, copy mode (and xsk_generic_rcv): fill-ring address, descriptor (the copy is charged per line)
  'xsk_unaligned_addr', // unaligned mode: offset encoding/extraction and the page-crossing check, per descriptor
  'xsk_fill_get', // i40e_alloc_rx_buffers_zc: one fill-ring address onto an rx descriptor
  'xsk_xmit_zc', // i40e_xmit_zc: one tx-ring descriptor onto the HW tx ring
  'xsk_skb_tx_complete', // copy/skb mode tx completion: consume_skb, xsk_destruct_skb, completion ring
  'xsk_generic_xmit', // xsk_generic_xmit per descriptor: sock_alloc_send_skb, dev_direct_xmit, the driver's xmit
  'xsk_sendto', // the application's sendto() kick (syscall entry/exit)
  'xsk_app_batch', // xdpsock: one batch (ring index reads and the producer/consumer updates)
  'xsk_app_pkt', // xdpsock: one frame (descriptor copy; l2fwd swaps MACs in the UMEM)
  'xsk_app_recycle', // xdpsock: one completion-ring address back to the fill ring
  'xsk_app_spin', // xdpsock's busy loop finding nothing to do
] as const;
export type CostStep = (typeof COST_STEPS)[number];

/** A step's cost: [kernel symbol, cycles] pairs, charged in order. */
export type CostTable = Partial<Record<CostStep, readonly (readonly [string, number])[]>>;

/** Symbols that mean "the CPU had nothing to do". */
export const IDLE_SYMBOLS = ['intel_idle', 'poll_idle'] as const;

export interface ProfileEntry {
  symbol: string;
  cycles: number;
  percent: number;
}

/**
 * A CostTable compiled for the hot path: for step s, parts
 * [start[s], start[s+1]) of partSym/partCycles, and the total.
 */
export class CompiledCosts {
  readonly symbols: string[] = [...IDLE_SYMBOLS];
  readonly total: Float64Array;
  readonly start: Int32Array;
  readonly partSym: Int32Array;
  readonly partCycles: Float64Array;
  readonly stepIndex: Record<CostStep, number>;

  constructor(table: CostTable) {
    const symIndex = new Map<string, number>(this.symbols.map((s, i) => [s, i]));
    const syms: number[] = [];
    const cyc: number[] = [];
    this.start = new Int32Array(COST_STEPS.length + 1);
    this.total = new Float64Array(COST_STEPS.length);
    this.stepIndex = {} as Record<CostStep, number>;
    COST_STEPS.forEach((step, i) => {
      this.stepIndex[step] = i;
      this.start[i] = syms.length;
      for (const [sym, c] of table[step] ?? []) {
        let k = symIndex.get(sym);
        if (k === undefined) {
          k = this.symbols.length;
          this.symbols.push(sym);
          symIndex.set(sym, k);
        }
        syms.push(k);
        cyc.push(c);
        this.total[i]! += c;
      }
    });
    this.start[COST_STEPS.length] = syms.length;
    this.partSym = Int32Array.from(syms);
    this.partCycles = Float64Array.from(cyc);
  }

  symbolId(name: string): number {
    return this.symbols.indexOf(name);
  }
}

/** Step ids as constants, for the per-packet path (no string lookups). */
export const S = Object.fromEntries(COST_STEPS.map((s, i) => [s, i])) as Record<CostStep, number>;

/** Turn per-symbol cycles into a perf-report-like list, largest first. */
export function profileFrom(symbols: readonly string[], cycles: Float64Array, minPercent = 0): ProfileEntry[] {
  let total = 0;
  for (let i = 0; i < cycles.length; i++) total += cycles[i]!;
  if (total <= 0) return [];
  const out: ProfileEntry[] = [];
  for (let i = 0; i < cycles.length; i++) {
    const c = cycles[i]!;
    if (c <= 0) continue;
    const percent = (100 * c) / total;
    if (percent >= minPercent) out.push({ symbol: symbols[i]!, cycles: c, percent });
  }
  return out.sort((a, b) => b.cycles - a.cycles || (a.symbol < b.symbol ? -1 : 1));
}
