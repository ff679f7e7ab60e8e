/**
 * The AF_XDP socket as the UI draws it: the UMEM's chunks by owner and the
 * fill, rx, tx and completion rings (see XskView).
 *
 * A chunk's owner is read from where its address is: an entry between a
 * ring's consumer and producer, an i40e rx or tx descriptor, or xdpsock's
 * free list; a chunk found nowhere is xdpsock's and unused (the model's
 * xdpsock posts only as many frames as the fill ring holds). The simulator's
 * conservation invariant (checkUmemChunks) guarantees one place per chunk,
 * so the first claim wins here and the view never throws.
 *
 * Cheap enough for 60 snapshots a second: one pass over each ring's live
 * entries and the driver's descriptors, one byte per chunk.
 */
import { type AfXdpSocket, type Simulation, type XdpUmem, type XskQueue } from '../../sim';
import type { CounterView, RingView, SlotLegend, UmemOwner, XskView } from '../simTypes';

/**
 * Owners in the order a frame travels in xdpsock l2fwd: fill → NIC rx →
 * rx → (xdpsock swaps MACs) → tx → NIC tx → completion → fill.
 */
export const UMEM_OWNERS: readonly UmemOwner[] = [
  { id: 'free', label: 'free in xdpsock (on no ring)' },
  { id: 'fill', label: 'fill ring (waiting for the kernel)' },
  { id: 'nic_rx', label: 'posted to an i40e rx descriptor' },
  { id: 'rx', label: 'rx ring (waiting for xdpsock)' },
  { id: 'tx', label: 'tx ring (waiting for the kernel)' },
  { id: 'nic_tx', label: 'in flight on an i40e tx descriptor' },
  { id: 'completion', label: 'completion ring (waiting for xdpsock)' },
];
const OWNER = { free: 0, fill: 1, nic_rx: 2, rx: 3, tx: 4, nic_tx: 5, completion: 6 } as const;

/** Who writes and who reads each ring: the producer fills a slot, the consumer frees it. */
const RINGS: { q: 'fq' | 'rx' | 'tx' | 'cq'; id: string; label: string; kind: RingView['kind']; entry: string; owner: number }[] = [
  { q: 'fq', id: 'xsk-fill', label: 'fill ring (xdpsock → kernel)', kind: 'fill', entry: 'address for the kernel to receive into', owner: OWNER.fill },
  { q: 'rx', id: 'xsk-rx', label: 'rx ring (kernel → xdpsock)', kind: 'xsk_rx', entry: 'received frame for xdpsock', owner: OWNER.rx },
  { q: 'tx', id: 'xsk-tx', label: 'tx ring (xdpsock → kernel)', kind: 'xsk_tx', entry: 'frame for the kernel to send', owner: OWNER.tx },
  { q: 'cq', id: 'xsk-completion', label: 'completion ring (kernel → xdpsock)', kind: 'completion', entry: 'sent frame back to xdpsock', owner: OWNER.completion },
];

/**
 * One legend for the four rings: a slot is empty (consumed) or holds its
 * ring's kind of entry. Sharing it gives each ring's entries their own
 * colour (the UI colours legend states in order), the one its chunks have
 * in the UMEM grid.
 */
const RING_LEGEND: SlotLegend[] = [
  { state: 'empty', owner: 'none', label: 'empty (consumed)' },
  ...RINGS.map((r): SlotLegend => ({ state: r.kind, owner: 'sw', label: `produced, not yet consumed: ${r.entry}` })),
];

/** The buffer start a ring entry names (unaligned mode: base + the offset in the high 16 bits). */
function entryAddr(umem: XdpUmem, q: XskQueue, i: number): number {
  return umem.xp_raw_addr(q.peekLo(i), q.peekHi(i));
}

function ringView(q: XskQueue, r: (typeof RINGS)[number], k: number): RingView {
  const slots = new Array<number>(q.size).fill(0);
  for (let i = q.consumer; i !== q.producer; i = (i + 1) >>> 0) slots[i & q.mask] = 1 + k;
  return {
    id: r.id,
    label: r.label,
    kind: r.kind,
    size: q.size,
    slots,
    legend: RING_LEGEND,
    // The model's consumers read and release in one go, so there is no cached consumer to show apart from cons.
    pointers: [
      { name: 'prod', index: q.producer & q.mask },
      { name: 'cons', index: q.consumer & q.mask },
    ],
  };
}

/** Counter values at the previous rate sample, per simulation (views are otherwise stateless). */
const samples = new WeakMap<Simulation, { ns: number; values: Record<string, number>; rates: Record<string, number> }>();
/** Shortest virtual-time window a rate is computed over, ns (shorter ones keep the previous rates). */
const RATE_WINDOW_NS = 20_000;

function counters(sim: Simulation, nic: AfXdpSocket): CounterView[] {
  const st = nic.statistics();
  const rows: [string, number][] = [
    // What xdpsock's loop sees: descriptors received and sent, addresses recycled.
    ['rx', nic.rx.producer],
    ['tx', nic.tx.consumer],
    ['fill', nic.fq.producer],
    ['completion', nic.cq.producer],
    // XDP_STATISTICS. The model counts a full rx ring and (copy mode) an empty fill ring together in rx_dropped.
    ['rx_dropped', st.rx_dropped],
    ['rx_invalid_descs', st.rx_invalid_descs],
    ['tx_invalid_descs', st.tx_invalid_descs],
  ];
  // Zero-copy: i40e_alloc_rx_buffers_zc found the fill ring empty (xp_alloc counts it in the fill queue).
  if (nic.xsk.mode === 'zc') rows.push(['rx_fill_ring_empty_descs', nic.fillRingEmpty()]);
  const ns = sim.now() / sim.machine.cyclesPerNs;
  let s = samples.get(sim);
  if (!s || ns < s.ns) samples.set(sim, (s = { ns, values: Object.fromEntries(rows), rates: {} }));
  else if (ns - s.ns >= RATE_WINDOW_NS) {
    const dt = ns - s.ns;
    for (const [name, v] of rows) s.rates[name] = ((v - (s.values[name] ?? 0)) * 1e9) / dt;
    s.values = Object.fromEntries(rows);
    s.ns = ns;
  }
  const rates = s.rates;
  return rows.map(([name, value]) => ({ name, value, rate: rates[name] ?? 0 }));
}

/** Each chunk's owner (an index into UMEM_OWNERS), in address order. */
export function umemOwners(nic: AfXdpSocket): Uint8Array {
  const umem = nic.umem;
  const owner = new Uint8Array(umem.chunks);
  const claim = (addr: number, o: number) => {
    if (!(addr >= 0 && addr < umem.size)) return; // a bad address the kernel will skip: it names no chunk
    const c = umem.chunkOf(addr);
    if (owner[c] === OWNER.free) owner[c] = o;
  };
  for (const r of RINGS) {
    const q = nic[r.q];
    for (let i = q.consumer; i !== q.producer; i = (i + 1) >>> 0) claim(entryAddr(umem, q, i), r.owner);
  }
  nic.forEachHeldChunk((addr, where) => claim(addr, where === 'app' ? OWNER.free : OWNER[where]));
  return owner;
}

/** null when the machine has no AF_XDP socket. */
export function xskView(sim: Simulation): XskView | null {
  const nic = sim.nic.afXdp();
  if (!nic) return null;
  const umem = nic.umem;
  return {
    mode: nic.xsk.mode,
    app: nic.xsk.app,
    umem: {
      frames: umem.chunks,
      chunkSize: umem.chunkSize,
      headroom: umem.headroom,
      unaligned: umem.unaligned,
      chunks: Array.from(umemOwners(nic)),
      owners: UMEM_OWNERS.slice(),
    },
    rings: RINGS.map((r, k) => ringView(nic[r.q], r, k)),
    counters: counters(sim, nic),
  };
}
