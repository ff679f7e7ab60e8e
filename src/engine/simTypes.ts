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
  pps: number;
  dropPps: number;
}

export interface ProfileRow {
  symbol: string;
  percent: number;
}

export type StepUnit = 'event' | 'packet' | 'napi';

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
    model: string;
    ringSize: number;
    pageCache: boolean;
    mtu: number;
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
}

export const DEFAULT_SETTINGS: SimSettings = {
  traffic: { profile: 'steady', ratePps: 2_000_000, frameSize: 60, mix: { udp: 1, tcp: 0, icmp: 0, ipv6: 0 } },
  driver: { model: 'seed2016-e5-1630v3-cx3', ringSize: 128, pageCache: true, mtu: 1500 },
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
  /** Present entries (arrays: non-zero ones), at most 512. */
  entries: { key: string; value: string[] }[];
}
