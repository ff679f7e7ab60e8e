/**
 * One packet's journey as the inspector lists it: the trace's records for
 * the packet and the simulator's journey log (src/sim/journey.ts: doorbell,
 * wire, bulk queue, flush, egress, completion, page return, AF_XDP rings)
 * merged in simulated time, each line in kernel names with every number
 * labelled. `journeyEnd` says whether the frame's buffer is back where
 * buffers come from (page cache, page_pool, allocator, fill ring) or the
 * frame was lost, so "follow to the end" knows when to stop.
 */
import { PAGE_LOC_NAMES, XDP_ACTION_NAMES, type JourneyRecord, type TraceEvent } from '../sim';

export interface LifecycleStep {
  seq: number;
  kind: string;
  ns: number;
  text: string;
}

const action = (v: number): string => XDP_ACTION_NAMES[v] ?? `unknown action ${v}`;
const loc = (v: number): string => PAGE_LOC_NAMES[v] ?? `location ${v}`;

/** What a trace record means for its packet, every number named. */
function traceText(e: TraceEvent): string {
  const q = e.queue >= 0 ? ` q${e.queue}` : '';
  const slot = e.slot >= 0 ? ` slot ${e.slot}` : '';
  const page = e.page >= 0 ? `page ${e.page}` : 'the buffer';
  switch (e.kind) {
    case 'nic_rx': return `nic_rx${q}: the NIC DMA'd the frame (${e.detail} B) into rx${slot}, ${page}`;
    case 'rx_missed': return `rx_missed${q}: no rx buffer posted, the NIC dropped the frame (${e.detail} B)`;
    case 'dma_sync': return `dma_sync_single_for_cpu${q}: ${e.detail} B of ${page} made visible to the CPU`;
    case 'xdp_run': return `bpf_prog_run_xdp${q}: the program returned ${e.detail} (${action(e.detail)})`;
    case 'xdp_tx': return `XDP_TX${q}: bounce the frame out of the port it came in on (${page})`;
    case 'xdp_redirect': return e.detail > 0 ? `xdp_do_redirect${q}: bpf_redirect to ifindex ${e.detail}` : `xdp_do_redirect${q}: to the target in the map bpf_redirect_map named`;
    case 'xdp_pass': return `XDP_PASS${q}: on to the network stack`;
    case 'xdp_drop': return e.detail ? `xdp_drop: dropped (the verdict there was ${e.detail}, ${action(e.detail)})` : `XDP_DROP${q}: ${page} goes back for reuse`;
    case 'xdp_exception': return e.detail < 0 ? `trace_xdp_exception: dropped (errno ${e.detail})` : `trace_xdp_exception${q}: dropped (action ${e.detail}, ${action(e.detail)})`;
    case 'xdp_unknown': return `bpf_warn_invalid_xdp_action: unknown action value ${e.detail}, dropped`;
    case 'tx_post': return `tx_post (xmit_frame)${q}: descriptor in XDP tx ring${slot}, length ${e.detail} B, ${page}`;
    case 'tx_dropped': return `tx_dropped${q}: the XDP tx ring is full, frame dropped`;
    case 'tx_done': return `tx_done (tx completion)${q}: tx ring${slot} reaped, ${page} released by the NIC`;
    case 'page_cache_put': return `page_cache_put${q}: ${page} back into the rx ring's page cache (pages cached after: ${e.detail})`;
    case 'page_free': return `page_free${q}: ${page} back to the page allocator (order ${e.detail})`;
    case 'skb_build': return `build_skb${q}: an skb around ${page}`;
    case 'stack_free': return `kfree_skb: the stack released the skb and ${page}`;
    default: return `${e.kind}${q}${slot}${e.page >= 0 ? ` page ${e.page}` : ''}${e.detail ? ` (detail ${e.detail})` : ''}`;
  }
}

/** What a journey record means, every number named. */
function journeyText(r: JourneyRecord): string {
  const page = r.page >= 0 ? `page ${r.page}` : 'the frame';
  switch (r.stage) {
    case 'tx_doorbell': return `tx doorbell (MMIO): the NIC told about tx ring slot ${r.b} (frames in this doorbell: ${r.a})`;
    case 'xmit': return `transmit: the NIC finished sending the frame on the wire (length ${r.a} B, tx ring slot ${r.b})`;
    case 'tx_clean': return `i40e_clean_tx_irq: tx completion of the egress port's tx ring slot ${r.a}`;
    case 'bq_enqueue': return `dev_map_enqueue → bq_enqueue: into this CPU's devmap bulk queue (frames queued: ${r.a} of ${r.b})`;
    case 'bq_xmit_all': return `${r.b ? 'bq_enqueue (queue full)' : 'xdp_do_flush → __dev_flush'} → bq_xmit_all: the bulk leaves the queue (frames in the bulk: ${r.a})`;
    case 'ndo_xdp_xmit': return `ndo_xdp_xmit on the egress device: descriptor in its tx ring slot ${r.a}, ${page}`;
    case 'xdp_return_frame': return `xdp_return_frame: ${page} goes back to ${RETURNS[r.b] ?? 'its owner'} (page location now: ${loc(r.a)})`;
    case 'veth_xdp_rcv': return `veth_xdp_rcv: the veth peer's program returned ${r.a} (${action(r.a)}) on its ring slot ${r.b}`;
    case 'xdp_drop_frame': return r.a === 2 ? 'bq_xmit_all: ndo_xdp_xmit failed with -ENXIO, frame dropped' : "ndo_xdp_xmit: the egress ring is full, frame dropped";
    case 'cpu_map_enqueue': return `cpu_map_enqueue → bq_enqueue: into this rx ring's cpumap bulk queue (frames queued: ${r.a} of ${r.b})`;
    case 'bq_flush_to_queue': return `${r.b ? 'bq_enqueue (queue full)' : 'xdp_do_flush → __cpu_map_flush'} → bq_flush_to_queue: the bulk onto the remote CPU's ptr_ring (frames in the bulk: ${r.a})`;
    case 'cpu_map_kthread_run': return "cpu_map_kthread_run: the remote CPU's kthread takes the frame off its ptr_ring and drops it (xdp_redirect_cpu -e drop)";
    case 'xsk_rcv': return `xsk_rcv: descriptor on the socket's rx ring (UMEM chunk at 0x${r.a.toString(16)}, rx ring entries: ${r.b})`;
    case 'xsk_rx_consume': return `xsk_ring_cons__peek: the application takes the frame off the rx ring (chunk 0x${r.a.toString(16)}, ${r.b ? 'l2fwd' : 'rxdrop'})`;
    case 'xsk_tx_produce': return `xsk_ring_prod__submit (tx): MACs swapped, descriptor on the socket's tx ring (chunk 0x${r.a.toString(16)}, tx ring entries: ${r.b})`;
    case 'xsk_xmit': return `i40e_xmit_zc / xsk_generic_xmit: the driver puts chunk 0x${r.a.toString(16)} on the NIC's tx ring (slot ${r.b})`;
    case 'xsk_cq': return `xsk_tx_completed: chunk 0x${r.a.toString(16)} on the completion ring (entries: ${r.b})`;
    case 'xsk_fq': return `xsk_ring_prod__submit (fill): the application returns chunk 0x${r.a.toString(16)} to the fill ring (entries: ${r.b})`;
    default: return r.stage;
  }
}

const RETURNS = ['the page allocator', "the rx ring's page reuse", 'its page_pool'];
const usAt = (ns: number) => `${(ns / 1000).toFixed(3).padStart(10)} µs`;
/** cpu -1: the NIC; -2: the cpumap's remote CPU (its kthread is not modelled as busy: no clock of its own). */
const where = (cpu: number) => (cpu >= 0 ? `cpu${cpu}` : cpu === -2 ? 'remote cpu' : 'NIC');

/**
 * Trace records and journey records of one packet in the order the machine
 * made them (cause before effect: each CPU has its own clock, so times
 * alone can interleave two CPUs' work wrongly), each with its own time.
 */
export function lifecycleOf(events: readonly TraceEvent[], journey: readonly JourneyRecord[], cyclesPerNs: number): LifecycleStep[] {
  const rows = [
    ...events.map((e, i) => ({ at: e.seq + 0.5, order: i, step: { seq: e.seq, kind: e.kind, ns: e.cycle / cyclesPerNs, text: `${usAt(e.cycle / cyclesPerNs)} ${where(e.cpu)} ${traceText(e)}` } })),
    ...journey.map((r, i) => ({ at: r.after, order: events.length + i, step: { seq: -1 - r.seq, kind: r.stage, ns: r.cycle / cyclesPerNs, text: `${usAt(r.cycle / cyclesPerNs)} ${where(r.cpu)} ${journeyText(r)}` } })),
  ];
  rows.sort((a, b) => a.at - b.at || a.order - b.order);
  return rows.map((r) => r.step);
}

/** Stages after which the frame is gone and its buffer back where buffers come from. */
const FINAL = new Set(['page_cache_put', 'page_free', 'stack_free', 'xdp_return_frame', 'xsk_fq']);
/**
 * Stages at which the frame itself is lost: nothing more happens to it. Its
 * buffer may be reused in place with no record of its own (i40e's rx buffer
 * reuse after a failed redirect into a copy-mode socket), so these end the
 * journey too.
 */
const LOST = new Set(['rx_missed', 'xdp_exception', 'xdp_unknown', 'tx_dropped', 'xdp_drop_frame']);

/**
 * Has the packet's journey ended, and how: `returned` (its buffer is back),
 * or `lost` with the stage that lost the frame; null while in flight.
 */
export function journeyEnd(steps: readonly LifecycleStep[]): { how: 'returned' } | { how: 'lost'; at: string } | null {
  if (steps.some((s) => FINAL.has(s.kind))) return { how: 'returned' };
  const lost = steps.find((s) => LOST.has(s.kind));
  return lost ? { how: 'lost', at: lost.kind } : null;
}

