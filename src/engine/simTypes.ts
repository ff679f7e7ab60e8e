/**
 * What the UI sees of the simulated machine: a snapshot record, complete on
 * its own (no deltas), small enough to send 60 times a second. The sim
 * adapter in ./stages.ts fills it from src/sim; renderers are functions of it.
 */

/** XDP actions in the kernel's enum xdp_action order. */
export const XDP_ACTIONS = ['ABORTED', 'DROP', 'PASS', 'TX', 'REDIRECT'] as const;
export type XdpAction = (typeof XDP_ACTIONS)[number];

/** How a slot state is drawn: who owns the descriptor and what it means. */
export interface SlotLegend {
  state: string;
  owner: 'hw' | 'sw' | 'none';
  label: string;
}

export interface RingView {
  id: string;
  label: string;
  kind: 'rx' | 'tx' | 'fill' | 'completion' | 'xsk_rx' | 'xsk_tx';
  size: number;
  /** One index into `legend` per descriptor slot. */
  slots: number[];
  legend: SlotLegend[];
  /** Named positions on the ring (producer, consumer, next_to_clean, …). */
  pointers: { name: string; index: number }[];
}

export interface GaugeView {
  id: string;
  label: string;
  value: number;
  capacity: number;
  /** Recent values, oldest first. */
  history: number[];
}

export interface CounterView {
  name: string;
  value: number;
  /** Per second of simulated time, over the last sampling window. */
  rate: number;
}

export interface SeriesPoint {
  /** Simulated time, ns. */
  t: number;
  /** rx_packets per second: frames the driver took from the ring. */
  pps: number;
  /** The program's drops per second: XDP_DROP + XDP_ABORTED. */
  xdpDropPps: number;
  /** Frames lost outside the program per second: rx_missed (no posted buffer) + tx_dropped + stack_dropped. */
  lostPps: number;
}

export interface ProfileRow {
  symbol: string;
  percent: number;
}

export type StepUnit = 'event' | 'packet' | 'napi';

/** The NIC driver models the simulator has (src/sim/nic). */
export type NicModel = 'mlx4' | 'vmxnet3' | 'i40e';
/**
 * Where XDP_REDIRECT goes (src/sim/config.ts RedirectTarget): nowhere (the
 * redirect fails), a cpumap whose CPU drops, or a devmap entry: a second
 * port of the same NIC, an i40e port, or a veth whose peer runs XDP_DROP.
 */
export type RedirectSetup = 'none' | 'cpumap-drop' | 'devmap-port' | 'devmap-i40e' | 'devmap-veth';
/** An AF_XDP socket on queue 0 (i40e only) and its binding mode; 'off': none. */
export type XskSetup = 'off' | 'zc' | 'copy' | 'skb';
/** xdpsock's -l / -r / -t. */
export type XskApp = 'l2fwd' | 'rxdrop' | 'txonly';

/** Driver and traffic knobs the UI exposes. */
export interface SimSettings {
  traffic: {
    profile: string;
    /** Offered load, packets per second. */
    ratePps: number;
    /** Frame size in bytes (without FCS). */
    frameSize: number;
    /** Protocol mix, weights summing to 1. */
    mix: { udp: number; tcp: number; icmp: number; ipv6: number };
  };
  driver: {
    /** Hardware profile (src/sim/hw.ts HARDWARE_PROFILES): CPU, NIC, link, costs. */
    model: string;
    /** Driver model. */
    nic: NicModel;
    /** rx queues, one per CPU; RSS spreads flows over them. */
    queues: number;
    ringSize: number;
    pageCache: boolean;
    mtu: number;
    /** Native (in the driver) or generic (skb mode) XDP; generic is modelled on vmxnet3 and i40e. */
    xdpMode: 'native' | 'generic';
    redirect: RedirectSetup;
    /** A program on the devmap entry (BPF_XDP_DEVMAP, seed 002): run at flush (after the 2021 patch) or at enqueue (before); absent: none. */
    entryProg?: 'none' | 'flush' | 'enqueue';
    /** The xdpsock application on the AF_XDP socket: forward (l2fwd), receive and drop (rxdrop), or only send (txonly). */
    xskApp?: XskApp;
    xsk: XskSetup;
  };
}

export interface SimSnapshot {
  /** Simulated time, ns. */
  nowNs: number;
  events: number;
  packets: number;
  napiPolls: number;
  /** The program attached, or why none is. */
  attached: { ok: true; name: string } | { ok: false; reason: string };
  rings: RingView[];
  gauges: GaugeView[];
  actions: CounterView[];
  counters: CounterView[];
  series: SeriesPoint[];
  profile: ProfileRow[];
  /** The last few trace events, newest last, pre-rendered. */
  recent: { seq: number; text: string; packetId?: number }[];
  settings: SimSettings;
  /** Whether stepping back is possible (there is history to replay). */
  canStepBack: boolean;
  /** The XDP_REDIRECT target and its per-CPU bulk queues, when the setup has one. */
  redirect: RedirectView | null;
  /** The AF_XDP socket (UMEM and its four rings), when the setup has one. */
  xsk: XskView | null;
  /** Host memory page by page, by location. */
  pageMap: PageMapView | null;
}

/** Host memory as a grid: each page's location, and the locations' names. */
export interface PageMapView {
  /** One index into `locations` per page (order-3 tails carry their head's). */
  pages: Uint8Array;
  locations: { id: string; label: string; count: number }[];
}

/** One CPU's bulk queue in front of a redirect target (devmap: DEV_MAP_BULK_SIZE 16). */
export interface BulkQueueView {
  cpu: number;
  /** Frames waiting for xdp_do_flush. */
  n: number;
  size: number;
  /** Packet ids of the waiting frames, oldest first (for linking to the inspector). */
  packets: number[];
}

export interface RedirectView {
  kind: 'devmap' | 'cpumap';
  /** The target device or CPU, as the user would name it ('i40e port 2', 'veth0', 'cpu 1'). */
  target: string;
  /** Whether a program runs on the devmap entry, and when ('enqueue' before seed 002's patch, 'flush' after). */
  entryProgram: { name: string; runsAt: 'enqueue' | 'flush' } | null;
  bulk: BulkQueueView[];
  /** The target's transmit ring (ndo_xdp_xmit fills it), when it has one. */
  txRing: RingView | null;
  /** How many frames each flush carried: count of flushes per bulk size 1..16. */
  flushSizes: { size: number; count: number }[];
  counters: CounterView[];
}

/** Who holds a UMEM chunk right now (one entry of XskView.umem.owners). */
export interface UmemOwner {
  id: string;
  label: string;
}

export interface XskView {
  mode: 'zc' | 'copy' | 'skb';
  /** The xdpsock application: rxdrop, txonly or l2fwd. */
  app: string;
  umem: {
    frames: number;
    chunkSize: number;
    headroom: number;
    unaligned: boolean;
    /** One index into `owners` per chunk, in address order. */
    chunks: number[];
    owners: UmemOwner[];
  };
  /** Fill, rx, tx and completion rings, in that order (kinds 'fill', 'xsk_rx', 'xsk_tx', 'completion'). */
  rings: RingView[];
  /** Socket statistics (XDP_STATISTICS: rx_dropped, rx_invalid_descs, tx_invalid_descs, rx_ring_full, rx_fill_ring_empty_descs, …). */
  counters: CounterView[];
}

export const DEFAULT_SETTINGS: SimSettings = {
  traffic: { profile: 'steady', ratePps: 2_000_000, frameSize: 60, mix: { udp: 1, tcp: 0, icmp: 0, ipv6: 0 } },
  driver: { model: 'seed2016-e5-1630v3-cx3', nic: 'mlx4', queues: 1, ringSize: 128, pageCache: true, mtu: 1500, xdpMode: 'native', redirect: 'none', xsk: 'off', entryProg: 'none', xskApp: 'l2fwd' },
};

/** Traffic profiles the settings offer (shapes in simAdapter.ts). */
export const TRAFFIC_PROFILE_LABELS: Record<string, string> = {
  steady: 'steady flood (one flow)',
  flows: '256 flows, random order',
  bursts: 'bursts of 64',
};

/** A BPF map as user space dumps it (bpftool map dump): hex keys, one hex value per CPU. */
export interface MapView {
  index: number;
  name: string;
  type: string;
  keySize: number;
  valueSize: number;
  maxEntries: number;
  percpu: boolean;
  /** The key's and value's C type names when C values can be typed for them (integers, pointers, structs/unions/arrays of those; from the compiler's type info). */
  keyType?: string;
  valueType?: string;
  /** A zero key / value of those types in C syntax (a struct's members named), as an example of what to type. */
  keyTemplate?: string;
  valueTemplate?: string;
  /**
   * Present entries (arrays: non-zero ones), at most 512; keyC / valueC: the key and (per CPU) value as C values of keyType / valueType;
   * innerMap: a map-in-map's value named (the program's map it holds; user space writes its index).
   */
  entries: { key: string; value: string[]; keyC?: string; valueC?: string[]; innerMap?: string }[];
  /** A bloom filter, which has no entries to list: its bit array's size, the bits set, and the hashes each value sets. */
  bloom?: { nrBits: number; setBits: number; nrHashFuncs: number };
}
