/**
 * The event trace: every step of the driver as a record (kind, cycle time,
 * cpu, queue, slot, packet id, page id, detail). Records are kept in
 * parallel typed arrays that grow by doubling, so tracing costs no object
 * per event; `get(i)` materializes one for the UI. Tracing off skips the
 * writes entirely (the driver checks `trace.on` before calling emit).
 * A running FNV-1a hash over every field makes "same seed, same stream"
 * checkable bit for bit, even when records are not kept.
 */

/** A record column (one typed array per field). */
export type RecordColumn = Uint8Array | Int8Array | Int16Array | Int32Array | Float64Array;

/** A copy of `old` with room for `cap` records, of the same element type (the trace and the journey log grow their columns by doubling). */
export function grown<T extends RecordColumn>(old: T, cap: number): T {
  const n = new (old.constructor as new (length: number) => T)(cap);
  n.set(old);
  return n;
}

export const TRACE_KINDS = [
  'nic_rx', // NIC DMA'd a frame into a posted rx buffer and wrote a CQE
  'rx_missed', // no posted buffer: the NIC dropped the frame
  'irq', // completion-queue interrupt (after moderation)
  'napi_poll', // napi->poll() begins (detail: budget)
  'napi_complete', // poll ended under budget: CQ re-armed (detail: packets)
  'dma_sync', // dma_sync_single_for_cpu on the frame
  'xdp_run', // program ran (detail: return value)
  'xdp_exception', // XDP_ABORTED, or an action the driver cannot perform (detail: action)
  'xdp_drop',
  'xdp_pass',
  'xdp_tx',
  'xdp_redirect',
  'xdp_unknown', // an action value the kernel does not know: warn once, drop (detail: value)
  'page_cache_put', // recycled into the ring's page cache (detail: cache level after)
  'page_cache_get', // refill took a page from the cache (detail: level after)
  'page_alloc', // page allocator (detail: order)
  'page_free', // back to the allocator (detail: order)
  'rx_refill', // slot posted to the NIC
  'rx_doorbell', // rx producer index published (detail: producer)
  'tx_post', // XDP_TX descriptor written (slot is the tx ring slot)
  'tx_doorbell', // MMIO doorbell (detail: frames)
  'tx_done', // NIC finished sending; completion processed
  'tx_dropped', // XDP tx ring full
  'skb_build', // XDP_PASS or no program: an skb around the page
  'stack_free', // the stack released the skb and its page
  'oom', // allocation failed: the slot stays empty
] as const;
export type TraceKind = (typeof TRACE_KINDS)[number];
export const K = Object.fromEntries(TRACE_KINDS.map((k, i) => [k, i])) as Record<TraceKind, number>;

export interface TraceEvent {
  seq: number;
  kind: TraceKind;
  /** Virtual time in CPU cycles. */
  cycle: number;
  cpu: number;
  queue: number;
  slot: number;
  packet: number;
  page: number;
  detail: number;
}

const FNV_PRIME = 0x01000193;

export class Trace {
  on: boolean;
  /** Keep records (off: only count and hash). */
  keep: boolean;
  count = 0;
  hash = 0x811c9dc5;
  private cap = 0;
  private kind = new Uint8Array(0);
  private cycle = new Float64Array(0);
  private cpu = new Int8Array(0);
  private queue = new Int16Array(0);
  private slot = new Int32Array(0);
  private packet = new Float64Array(0);
  private page = new Int32Array(0);
  private detail = new Float64Array(0);
  /** Records before this seq have been dropped (ring-buffer style) by `discardBefore`. */
  base = 0;

  /** Most records kept: older ones are dropped in halves (the UI keeps a window, not all history). */
  readonly limit: number;

  constructor(on: boolean, keep = true, limit = 1 << 20) {
    this.on = on;
    this.keep = keep;
    this.limit = Math.max(1024, limit);
  }

  emit(kind: number, cycle: number, cpu: number, queue: number, slot: number, packet: number, page: number, detail: number): void {
    let h = this.hash;
    h = Math.imul(h ^ kind, FNV_PRIME);
    h = Math.imul(h ^ (cycle * 16 >>> 0), FNV_PRIME); // 1/16-cycle resolution
    h = Math.imul(h ^ ((cycle / 268435456) >>> 0), FNV_PRIME);
    h = Math.imul(h ^ (queue << 8) ^ cpu, FNV_PRIME);
    h = Math.imul(h ^ slot, FNV_PRIME);
    h = Math.imul(h ^ (packet >>> 0), FNV_PRIME);
    h = Math.imul(h ^ page, FNV_PRIME);
    h = Math.imul(h ^ (detail >>> 0), FNV_PRIME);
    this.hash = h >>> 0;
    if (this.keep) {
      let i = this.count - this.base;
      if (i >= this.cap) {
        if (this.cap >= this.limit) {
          this.discardBefore(this.count - (this.limit >> 1));
          i = this.count - this.base;
        } else this.grow();
      }
      this.kind[i] = kind;
      this.cycle[i] = cycle;
      this.cpu[i] = cpu;
      this.queue[i] = queue;
      this.slot[i] = slot;
      this.packet[i] = packet;
      this.page[i] = page;
      this.detail[i] = detail;
    }
    this.count++;
  }

  private grow(): void {
    const cap = Math.min(this.limit, Math.max(1024, this.cap * 2));
    this.kind = grown(this.kind, cap);
    this.cycle = grown(this.cycle, cap);
    this.cpu = grown(this.cpu, cap);
    this.queue = grown(this.queue, cap);
    this.slot = grown(this.slot, cap);
    this.packet = grown(this.packet, cap);
    this.page = grown(this.page, cap);
    this.detail = grown(this.detail, cap);
    this.cap = cap;
  }

  /** Materialize record `seq` (undefined if not kept). */
  get(seq: number): TraceEvent | undefined {
    const i = seq - this.base;
    if (!this.keep || i < 0 || seq >= this.count) return undefined;
    return {
      seq,
      kind: TRACE_KINDS[this.kind[i]!]!,
      cycle: this.cycle[i]!,
      cpu: this.cpu[i]!,
      queue: this.queue[i]!,
      slot: this.slot[i]!,
      packet: this.packet[i]!,
      page: this.page[i]!,
      detail: this.detail[i]!,
    };
  }

  /** Records [from, to) that are still kept. */
  slice(from: number, to = this.count): TraceEvent[] {
    const out: TraceEvent[] = [];
    for (let s = Math.max(from, this.base); s < Math.min(to, this.count); s++) out.push(this.get(s)!);
    return out;
  }

  /** Forget records before `seq` (the UI keeps what it needs). */
  discardBefore(seq: number): void {
    const drop = Math.min(seq, this.count) - this.base;
    if (drop <= 0 || !this.keep) return;
    const n = this.count - this.base - drop;
    for (const a of [this.kind, this.cycle, this.cpu, this.queue, this.slot, this.packet, this.page, this.detail]) a.copyWithin(0, drop, drop + n);
    this.base += drop;
  }
}
