/**
 * The driver simulator (src/sim) behind the engine's SimPort: settings are
 * translated to a SimConfig, the simulator's snapshot to the UI's, and rates
 * are sampled in virtual time so the charts show what the machine did, not
 * how fast the browser happened to run it.
 */
import { Simulation, HARDWARE_PROFILES, SEED2016_E5, resolveConfig, type SimConfig, type SimSnapshot as DriverSnapshot, type TraceEvent } from '../sim';
import { hotPath, type HotPath } from './hotPath';
import type { FlowSourceSpec, PcapRecord, TrafficSpec } from '../net';
import type { ParsedSpec } from '../isa';
import type { Attach, SimPort } from './toolchain';
import { RUNS_KEPT, type ProgramInstance, type RunRecord } from './vmHook';
import { journeyEnd, lifecycleOf } from './journey';
import type { TypeDesc } from '../cc/maps';
import { cTypeName, decodeC, mapTypes, parseMapInput, templateC, type InputFormat } from './mapInput';
import { XdpDumpCapture, type XdpDumpStatus } from './xdpdump';
import { replayRun, type PacketDetail } from './inspect';
import type { MapView } from './simTypes';
import { hexToBytes } from '../isa';
import { isMapInMap } from '../isa/spec';
import { redirectCounts, redirectView } from './views/redirect';
import { installRedirectEntries, loadTargetPrograms, type TargetPrograms } from './redirectSetup';
import { xskView } from './views/xsk';
import { XSK_TEACHING, xsk_socket__update_xskmap } from './xskSocket';
import { pageMapView } from './views/pages';
import type { CounterView, GaugeView, RingView, SeriesPoint, SimSettings, SimSnapshot, SlotLegend, StepUnit } from './simTypes';

/**
 * Turns a verified program into something the driver can run (the VM).
 * nCpus: the machine's CPUs, so per-CPU maps get a slot for each.
 */
export type HookFactory = (program: ParsedSpec, nCpus: number) => ProgramInstance | { error: string };

/** Points kept for the rate chart. */
export const SERIES_POINTS = 240;
/** Trace records kept for the packet inspector (older ones are discarded). */
export const TRACE_KEEP = 20_000;
/** Packets the inspector follows at once (the oldest is let go). */
export const MAX_FOLLOWED = 16;
/** "Follow to the end" runs at most this many events, checking every FOLLOW_CHUNK. */
const FOLLOW_MAX_EVENTS = 200_000;
const FOLLOW_CHUNK = 500;
/** Trace records pre-rendered in each snapshot. */
const RECENT = 12;

const RX_LEGEND: SlotLegend[] = [
  { state: 'empty', owner: 'none', label: 'empty (no buffer)' },
  { state: 'hw', owner: 'hw', label: 'posted to NIC' },
  { state: 'sw', owner: 'sw', label: 'completed, awaiting driver' },
];
const TX_LEGEND: SlotLegend[] = [
  { state: 'empty', owner: 'none', label: 'tx free' },
  { state: 'pending', owner: 'sw', label: 'tx written, no doorbell' },
  { state: 'hw', owner: 'hw', label: 'tx owned by NIC' },
  { state: 'done', owner: 'sw', label: 'tx sent, awaiting completion' },
];
const RX_INDEX: Record<string, number> = { empty: 0, hw: 1, sw: 2 };
const TX_INDEX: Record<string, number> = { empty: 0, pending: 1, hw: 2, done: 3 };

const MIX_SOURCES: { key: keyof SimSettings['traffic']['mix']; l3: FlowSourceSpec['l3']; l4: FlowSourceSpec['l4'] }[] = [
  { key: 'udp', l3: 'ipv4', l4: 'udp' },
  { key: 'tcp', l3: 'ipv4', l4: 'tcp' },
  { key: 'icmp', l3: 'ipv4', l4: 'icmp' },
  { key: 'ipv6', l3: 'ipv6', l4: 'udp' },
];

/** Traffic profiles the UI offers, as pktgen-like source shapes. */
export const TRAFFIC_PROFILES: Record<string, { shape: Partial<FlowSourceSpec> }> = {
  steady: { shape: {} },
  flows: { shape: { srcCount: 256, sportCount: 16, randomFlows: true } },
  bursts: { shape: { burst: 64 } },
};

export function trafficSpec(s: SimSettings, linkGbps: number, pcap: Uint8Array[] | null): TrafficSpec {
  const t = s.traffic;
  if (pcap) {
    const gap = 1e9 / t.ratePps;
    const records: PcapRecord[] = pcap.map((data, i) => ({ sec: 0, nsec: 0, tsNs: i * gap, data, origLen: data.length }));
    return { linkGbps, pcap: { records, ratePps: t.ratePps, loop: false } };
  }
  const shape = TRAFFIC_PROFILES[t.profile]?.shape ?? {};
  const total = MIX_SOURCES.reduce((a, m) => a + Math.max(0, t.mix[m.key]), 0) || 1;
  const sources: FlowSourceSpec[] = MIX_SOURCES.filter((m) => t.mix[m.key] > 0).map((m) => ({
    name: m.key,
    ...shape,
    ratePps: (t.ratePps * t.mix[m.key]) / total,
    frameLen: t.frameSize,
    l3: m.l3,
    l4: m.l4,
  }));
  return { linkGbps, sources: sources.length ? sources : [{ ratePps: t.ratePps, frameLen: t.frameSize }] };
}

/** The simulator's configuration for the UI's settings (ring sizes, driver model, redirect target, AF_XDP socket). */
export function simConfig(settings: SimSettings, pcap: Uint8Array[] | null): SimConfig {
  const d = settings.driver;
  const hw = HARDWARE_PROFILES[d.model] ?? SEED2016_E5;
  return {
    hw: hw.name,
    driver: d.nic,
    queues: d.queues,
    rxRingSize: d.ringSize,
    txRingSize: d.ringSize,
    mtu: d.mtu,
    pageCache: d.pageCache,
    xdpMode: d.xdpMode,
    redirectTarget: d.redirect,
    devmapProg: (d.entryProg ?? 'none') !== 'none',
    devmapFlushPatch: d.entryProg !== 'enqueue',
    xsk: d.xsk === 'off' ? undefined : { mode: d.xsk, ...XSK_TEACHING, app: d.xskApp ?? XSK_TEACHING.app },
    traffic: trafficSpec(settings, hw.linkGbps, pcap),
    trace: true,
    keepTrace: true,
  };
}

/** The machine shape of DEFAULT_SETTINGS (driver model, queues, XDP mode, redirect target, AF_XDP socket). */
function defaultMachine(settings: SimSettings): SimSettings {
  return { ...settings, driver: { ...settings.driver, model: SEED2016_E5.name, nic: 'mlx4', xdpMode: 'native', redirect: 'none', entryProg: 'none', xsk: 'off', queues: 1 } };
}

/** The CPUs a machine built from these settings has (one per queue; an AF_XDP socket adds its application's). */
function machineCpus(settings: SimSettings): number {
  return settings.driver.queues + (settings.driver.xsk === 'off' ? 0 : 1);
}

/** The full configuration: the settings' plus the redirect target's programs. Throws Error with one line. */
function machineConfig(settings: SimSettings, pcap: Uint8Array[] | null, targets: TargetPrograms): SimConfig {
  // The simulator builds this machine, but only vmxnet3 has a cpumap: elsewhere every redirect would fail unexplained.
  if (settings.driver.redirect === 'cpumap-drop' && settings.driver.nic !== 'vmxnet3') throw new Error("redirect target 'cpumap-drop' is modelled on the vmxnet3 driver only");
  return { ...simConfig(settings, pcap), devmapProgram: targets.devmapProgram?.hook, vethPeerProgram: targets.vethPeerProgram?.hook };
}

/**
 * The machine the settings describe; when they describe an impossible one
 * (resolveConfig's one-line reason), the default machine, the reason, and
 * the settings actually running.
 */
function buildSimulation(settings: SimSettings, pcap: Uint8Array[] | null, load: HookFactory): { sim: Simulation; settings: SimSettings; targets: TargetPrograms; error: string | null } {
  try {
    const targets = loadTargetPrograms(settings.driver, load, machineCpus(settings));
    if ('error' in targets) throw new Error(targets.error);
    return { sim: new Simulation(machineConfig(settings, pcap, targets)), settings, targets, error: null };
  } catch (e) {
    const fallback = defaultMachine(settings);
    return { sim: new Simulation(simConfig(fallback, pcap)), settings: fallback, targets: {}, error: `the machine cannot be built as set: ${(e as Error).message}` };
  }
}

/** Why the simulator would refuse these settings (resolveConfig's one line), or null when it would build them. */
export function refuseSettings(settings: SimSettings, load: HookFactory): string | null {
  try {
    const targets = loadTargetPrograms(settings.driver, load, machineCpus(settings));
    if ('error' in targets) return targets.error;
    resolveConfig(machineConfig(settings, null, targets));
    return null;
  } catch (e) {
    return (e as Error).message.split('\n')[0]!;
  }
}

export class DriverSim implements SimPort {
  private sim!: Simulation;
  private settings!: SimSettings;
  private attachedName: string | null = null;
  private program: ProgramInstance | null = null;
  private detachedReason = 'no program';
  /** Why the machine the settings describe could not be built (the default machine runs instead). */
  private setupError: string | null = null;
  /** The redirect target's programs (the devmap entry's, the veth peer's), loaded like the user's. */
  private targets: TargetPrograms = {};
  private series: SeriesPoint[] = [];
  /** Per rx ring: its page cache / page_pool level at each sample. */
  private cacheHistory: number[][] = [];
  private freeHistory: number[] = [];
  private last = { ns: 0, processed: 0, xdpDropped: 0, lost: 0 };
  /** Counters at the previous sample, and each counter's rate over the last sample period. */
  private lastCounters: Record<string, number> = {};
  private rates: Record<string, number> = {};
  /** Sample the rates every this many virtual ns (adapts so the chart spans a useful window). */
  private sampleNs = 20_000;
  private nextSampleNs = 20_000;
  /** Packets the inspector follows (oldest first): their trace records beyond the window, and their program run's bytes. */
  private followed = new Map<number, { events: TraceEvent[]; run?: RunRecord }>();
  /** xdpdump's capture (./xdpdump.ts), kept after it stops until the machine restarts or a new one starts. */
  private capture: XdpDumpCapture | null = null;

  constructor(private readonly hook: HookFactory) {}

  /** Why these settings would be refused (the running machine is left alone), or null. */
  check(settings: SimSettings): string | null {
    return refuseSettings(settings, this.hook);
  }

  reset(settings: SimSettings, attach: Attach, pcap: Uint8Array[] | null): void {
    const built = buildSimulation(settings, pcap, this.hook);
    this.sim = built.sim;
    this.settings = built.settings;
    this.targets = built.targets;
    this.setupError = built.error;
    this.attachedName = null;
    this.program = null;
    if (this.setupError) this.detachedReason = this.setupError;
    else if ('reason' in attach) this.detachedReason = attach.reason;
    else {
      const inst = this.hook(attach.program, this.sim.machine.cpus.length);
      if ('error' in inst) this.detachedReason = `the program could not be loaded: ${inst.error}`;
      else {
        // What the setup's user space installs before attaching (xdp_redirect_map: tx_port[0] = ifindex_out).
        installRedirectEntries(inst.maps, this.settings.driver.redirect);
        const r = this.sim.attach(inst.hook);
        if (r.ok) {
          this.attachedName = inst.hook.name;
          this.program = inst;
          if (this.sim.cfg.xsk) xsk_socket__update_xskmap(inst.maps, 0); // as libbpf's xsk_socket__create does; key 0 always fits (max_entries >= 1)
        } else this.detachedReason = r.message;
      }
    }
    this.followed = new Map();
    this.capture = null;
    this.series = [];
    this.cacheHistory = [];
    this.freeHistory = [];
    this.last = { ns: 0, processed: 0, xdpDropped: 0, lost: 0 };
    this.lastCounters = {};
    this.rates = {};
    this.sampleNs = 20_000;
    this.nextSampleNs = this.sampleNs;
  }

  advance(unit: StepUnit, count: number): number {
    // Sample rates at virtual-time boundaries: step in pieces no longer than the sample period.
    let done = 0;
    if (unit !== 'event') {
      done = this.sim.step(unit === 'napi' ? 'poll' : unit, count);
      this.sample();
    } else {
      while (done < count) {
        const n = this.sim.step('event', Math.min(count - done, 512));
        done += n;
        this.sample();
        if (n === 0) break;
      }
    }
    const tr = this.sim.machine.trace;
    if (this.capture?.capturing) this.capture.see(tr.slice(Math.max(tr.base, this.capture.traceSeq)));
    if (tr.count - tr.base > TRACE_KEEP * 2) {
      // Followed packets keep their records.
      if (this.followed.size) for (const e of tr.slice(tr.base, tr.count - TRACE_KEEP)) this.followed.get(e.packet)?.events.push(e);
      tr.discardBefore(tr.count - TRACE_KEEP);
    }
    return done;
  }

  private sample(): void {
    const nowNs = this.sim.now() / this.sim.machine.cyclesPerNs;
    if (nowNs < this.nextSampleNs) return;
    const c = this.sim.counters();
    const processed = c.rx_packets;
    // Two lines, each a sum of named counters: what the program dropped, and what was lost around it (a
    // full ring at line rate misses frames with no program attached at all).
    const xdpDropped = c.xdp_drop + c.xdp_aborted;
    const lost = c.rx_missed + c.tx_dropped + c.stack_dropped;
    const dt = nowNs - this.last.ns;
    if (dt > 0) {
      this.series.push({ t: nowNs, pps: ((processed - this.last.processed) * 1e9) / dt, xdpDropPps: ((xdpDropped - this.last.xdpDropped) * 1e9) / dt, lostPps: ((lost - this.last.lost) * 1e9) / dt });
      this.sim.nic.rings.forEach((r, i) => (this.cacheHistory[i] ??= []).push(this.sim.nic.cacheView(r.index).level));
      this.freeHistory.push(this.sim.machine.alloc.freePages);
      const now: Record<string, number> = { ...c, offered: this.sim.offered, tx_packets: netdevTxPackets(this.sim, c.tx_packets) };
      for (const [k, v] of Object.entries(redirectCounts(this.sim))) now[`redirect.${k}`] = v;
      for (const k of Object.keys(now)) this.rates[k] = ((now[k]! - (this.lastCounters[k] ?? 0)) * 1e9) / dt;
      this.lastCounters = now;
    }
    if (this.series.length > SERIES_POINTS) {
      // Keep the whole run on the chart: halve the resolution, double the period.
      this.series = this.series.filter((_, i) => i % 2 === 1);
      this.cacheHistory = this.cacheHistory.map((h) => h.filter((_, i) => i % 2 === 1));
      this.freeHistory = this.freeHistory.filter((_, i) => i % 2 === 1);
      this.sampleNs *= 2;
    }
    this.last = { ns: nowNs, processed, xdpDropped, lost };
    this.nextSampleNs = nowNs + this.sampleNs;
  }

  eventCount(): number {
    return this.sim.steps;
  }

  hotPath(): HotPath | { error: string } {
    if (!this.program) return { error: `no program is attached (${this.detachedReason})` };
    if (this.program.runs.count === 0) return { error: 'the program has not run yet: run or step the simulation first' };
    return hotPath(this.program.parsed, this.program.runs, this.program.maps);
  }

  /** One packet's life from the kept trace and journey log, and its program run (see inspect.ts); inspecting a packet follows it. */
  inspect(packet: number | null): PacketDetail | { error: string } {
    const tr = this.sim.machine.trace;
    const kept = tr.slice(tr.base);
    let id = packet;
    if (id === null) {
      // The latest packet the program ran on (or, without a program, the latest one seen).
      for (let i = kept.length - 1; i >= 0 && id === null; i--) if (kept[i]!.kind === 'xdp_run' || (kept[i]!.kind === 'skb_build' && !this.program)) id = kept[i]!.packet;
      if (id === null) return { error: 'no packet has been handled yet: run or step the simulation first' };
    }
    const pinned = this.followed.get(id);
    const events = [...(pinned?.events ?? []), ...kept.filter((e) => e.packet === id)];
    const lifecycle = lifecycleOf(events, this.sim.machine.journey.of(id), this.sim.machine.cyclesPerNs);
    if (lifecycle.length === 0) return { error: `packet #${id} is not in the recent trace (the last ${TRACE_KEEP.toLocaleString('en')} events are kept)` };
    const end = journeyEnd(lifecycle);
    const detail: PacketDetail = { packet: id, lifecycle, ended: end !== null, ...(end?.how === 'lost' ? { lostAt: end.at } : {}) };
    const run = kept.find((e) => e.packet === id && e.kind === 'xdp_run');
    let rec = pinned?.run;
    if (!rec && run && this.program) {
      const later = kept.filter((e) => e.kind === 'xdp_run' && e.seq > run.seq).length;
      const n = this.program.runs.count - 1 - later;
      rec = n >= 0 && this.program.runs.count - n <= RUNS_KEPT ? this.program.runs.ring[n % RUNS_KEPT] : undefined;
    }
    this.follow(id, rec);
    if (!this.program) detail.note = 'no XDP program is attached, so no program ran on this packet';
    else if (rec) detail.run = replayRun(this.program.parsed, rec, this.program.maps);
    else if (!run && !pinned) detail.note = 'the program has not run on this packet (yet)';
    else detail.note = `the bytes of packet #${id} are no longer kept (the last ${RUNS_KEPT} program runs are)`;
    return detail;
  }

  /** Follow a packet: its records and bytes are kept while it is one of the last MAX_FOLLOWED inspected. */
  private follow(id: number, run: RunRecord | undefined): void {
    const had = this.followed.get(id);
    this.followed.delete(id);
    this.followed.set(id, { events: had?.events ?? [], run: had?.run ?? run });
    this.sim.machine.journey.follow(id);
    for (const old of this.followed.keys()) {
      if (this.followed.size <= MAX_FOLLOWED) break;
      this.followed.delete(old);
      this.sim.machine.journey.unfollow(old);
    }
  }

  /**
   * Run the machine until packet `id`'s journey ends (its buffer is back or
   * the frame is lost), at most `maxEvents` events; then inspect it.
   */
  followToEnd(id: number, maxEvents = FOLLOW_MAX_EVENTS): PacketDetail | { error: string } {
    let d = this.inspect(id);
    let ran = 0;
    while (!('error' in d) && !d.ended && ran < maxEvents) {
      const n = this.advance('event', Math.min(FOLLOW_CHUNK, maxEvents - ran));
      if (n === 0) break;
      ran += n;
      d = this.inspect(id);
    }
    if (!('error' in d) && !d.ended) d.note = `${d.note ? `${d.note}; ` : ''}the journey has not ended after ${ran.toLocaleString('en')} more events`;
    return d;
  }

  /** xdpdump: start a new capture, stop the running one, or say how it stands. */
  xdpdump(cmd: 'start' | 'stop' | 'status'): XdpDumpStatus | { error: string } {
    const tr = this.sim.machine.trace;
    if (cmd === 'start') {
      if (!this.program) return { error: 'xdpdump needs an attached XDP program: build one the verifier accepts' };
      const cap = new XdpDumpCapture(tr.count);
      this.capture = cap;
      this.program.tap.onRun = (rec) => cap.run(rec);
      return cap.status();
    }
    const cap = this.capture;
    if (!cap) return { capturing: false, packets: 0, full: false };
    if (cap.capturing) cap.see(tr.slice(Math.max(tr.base, cap.traceSeq)));
    if (cmd === 'stop') {
      cap.capturing = false;
      if (this.program) this.program.tap.onRun = undefined;
    }
    return cap.status();
  }

  /** The capture as a pcapng (entry and exit frames, a comment with each verdict) or classic pcap file. */
  xdpdumpFile(format: 'pcapng' | 'pcap'): { ok: true; bytes: Uint8Array; packets: number; name: string } | { ok: false; reason: string } {
    const st = this.xdpdump('status');
    if ('error' in st || !this.capture) return { ok: false, reason: 'nothing captured: start xdpdump, then run or step the machine' };
    const program = this.attachedName ?? 'xdp';
    const f = this.capture.file(format, { ifname: this.settings.driver.nic, program, cyclesPerNs: this.sim.machine.cyclesPerNs });
    if (f.packets === 0) return { ok: false, reason: 'the capture is empty: run or step the machine while xdpdump captures' };
    return { ok: true, bytes: f.bytes, packets: f.packets, name: `xdpdump-${program}.${format}` };
  }

  drainPrintk(): string[] {
    return this.program ? this.program.printk.splice(0) : [];
  }

  /** The maps as bpftool dumps them; `typed`: with the C types and keys as C values (the app's view; the golden record has none). */
  maps(typed = false): MapView[] {
    const parsed = this.program?.parsed;
    return (this.program?.maps ?? []).map((m, index) => {
      const types = parsed && typed ? mapTypes(parsed, index) : {};
      const keyType = cTypeName(types.key);
      const valueType = cTypeName(types.value);
      return {
        index,
        name: m.name,
        type: m.type,
        keySize: m.keySize,
        valueSize: m.valueSize,
        maxEntries: m.maxEntries,
        percpu: m.percpu,
        ...(keyType && types.key ? { keyType, keyTemplate: templateC(types.key) } : {}),
        ...(valueType && types.value ? { valueType, valueTemplate: templateC(types.value) } : {}),
        ...(m.bitsetStats ? { bloom: m.bitsetStats() } : {}),
        entries: m.dump().entries.slice(0, 512).map((e) => {
          const value = Array.isArray(e.value) ? e.value : [e.value];
          const keyC = keyType ? cValue(e.key, types.key) : undefined;
          const valueC = valueType ? value.map((v) => cValue(v, types.value) ?? v) : undefined;
          const innerMap = isMapInMap(m.type) ? this.program?.maps[leU32(value[0]!)]?.name : undefined;
          return { key: e.key, value, ...(keyC !== undefined ? { keyC } : {}), ...(valueC ? { valueC } : {}), ...(innerMap !== undefined ? { innerMap } : {}) };
        }),
      };
    });
  }

  /**
   * User space's BPF_MAP_UPDATE_ELEM: 0 or a negative errno, or a reason the
   * input is wrong. Key and value are hex bytes, or C values of the map's
   * key and value types ('c', see mapInput.ts).
   */
  updateMap(index: number, keyText: string, valueText: string, formats: { key?: InputFormat; value?: InputFormat } = {}): { ok: true } | { ok: false; reason: string } {
    const m = this.program?.maps[index];
    if (!m || !this.program) return { ok: false, reason: 'no such map (is a program attached?)' };
    const types = mapTypes(this.program.parsed, index);
    const key = parseMapInput(keyText, formats.key ?? 'hex', types.key, m.keySize, 'key');
    if (typeof key === 'string') return { ok: false, reason: key };
    const value = parseMapInput(valueText, formats.value ?? 'hex', types.value, m.valueSize, 'value');
    if (typeof value === 'string') return { ok: false, reason: value };
    const err = m.userUpdate(key, value);
    return err === 0 ? { ok: true } : { ok: false, reason: `bpf_map_update_elem failed: errno ${-err}` };
  }

  /** Trace records for one packet that are still kept, oldest first. */
  packetEvents(packet: number): TraceEvent[] {
    const tr = this.sim.machine.trace;
    return tr.slice(tr.base).filter((e) => e.packet === packet);
  }

  snapshot(): SimSnapshot {
    const d = this.sim.snapshot();
    const per = (name: string) => this.rates[name] ?? 0;
    return {
      nowNs: d.timeNs,
      events: d.steps,
      packets: d.counters.rx_packets,
      napiPolls: d.counters.polls,
      attached: this.attachedName ? { ok: true, name: this.attachedName } : { ok: false, reason: this.detachedReason },
      rings: rings(d),
      gauges: gauges(d, this.cacheHistory, this.freeHistory),
      actions: (['aborted', 'drop', 'pass', 'tx', 'redirect'] as const).map((a) => ({
        name: a.toUpperCase(),
        value: d.counters[`xdp_${a}`],
        rate: per(`xdp_${a}`),
      })),
      counters: driverCounters(d, netdevTxPackets(this.sim, d.counters.tx_packets), per),
      series: this.series,
      profile: d.profile.map((p) => ({ symbol: p.symbol, percent: p.percent })),
      recent: this.sim.events(Math.max(0, d.traceCount - RECENT)).map((e) => ({ seq: e.seq, text: describe(e, this.sim.machine.cyclesPerNs), packetId: e.packet >= 0 ? e.packet : undefined })),
      settings: this.settings,
      canStepBack: d.steps > 0,
      redirect: redirectView(this.sim, { entryRuns: this.targets.devmapProgram?.runs.count, rate: (name) => per(`redirect.${name}`) }),
      xsk: xskView(this.sim),
      pageMap: pageMapView(this.sim),
    };
  }
}

function rings(d: DriverSnapshot): RingView[] {
  const out: RingView[] = [];
  for (const q of d.queues) {
    out.push({
      id: `rx${q.index}`,
      label: `rx ring ${q.index} (CPU ${q.cpu})`,
      kind: 'rx',
      size: q.rx.size,
      slots: q.rx.slots.map((s) => RX_INDEX[s.state] ?? 0),
      legend: RX_LEGEND,
      pointers: [
        { name: 'prod', index: q.rx.prod % q.rx.size },
        { name: 'hw', index: q.rx.hw % q.rx.size },
        { name: 'cons', index: q.rx.cons % q.rx.size },
      ],
    });
    out.push({
      id: `tx${q.index}`,
      label: `XDP tx ring ${q.index}`,
      kind: 'tx',
      size: q.tx.size,
      slots: q.tx.slots.map((s) => TX_INDEX[s.state] ?? 0),
      legend: TX_LEGEND,
      pointers: [
        { name: 'prod', index: q.tx.prod % q.tx.size },
        { name: 'doorbell', index: q.tx.doorbell % q.tx.size },
        { name: 'cons', index: q.tx.cons % q.tx.size },
      ],
    });
  }
  return out;
}

/**
 * One recycling gauge per rx ring (mlx4's page cache, or the page_pool), labelled by ring and CPU,
 * then host memory. Ring 0 keeps the plain id ('page-cache' / 'page-pool'); ring n gets '-n'.
 */
function gauges(d: DriverSnapshot, cache: number[][], free: number[]): GaugeView[] {
  const out: GaugeView[] = [];
  for (const q of d.queues) {
    // A zero-copy AF_XDP ring has no page cache or pool (its buffers are UMEM chunks): no "0 / 0" gauge.
    if (q.cache.size === 0) continue;
    const pool = q.cache.kind === 'page_pool';
    out.push({
      id: `${pool ? 'page-pool' : 'page-cache'}${q.index ? `-${q.index}` : ''}`,
      label: `${pool ? 'page_pool' : 'page cache'} (rx ring ${q.index}, CPU ${q.cpu})`,
      value: q.cache.level,
      capacity: q.cache.size,
      history: cache[q.index] ?? [],
    });
  }
  out.push({ id: 'free-pages', label: 'free pages', value: d.pages.free, capacity: d.pages.total, history: free });
  return out;
}

/** Hex bytes as a C value of type t, when they are bytes of it. */
function cValue(hex: string, t: TypeDesc | undefined): string | undefined {
  const b = hexToBytes(hex);
  return typeof b === 'string' ? undefined : decodeC(b, t);
}

/**
 * tx_packets as `ip -s link` reports it: the driver's XDP_TX frames sent plus,
 * with an AF_XDP socket, the socket's frames the NIC sent (i40e counts the
 * zero-copy tx on the same netdev, and copy mode's skbs are ordinary tx). The
 * simulator's own tx_packets stays XDP_TX only: its invariants account XDP_TX.
 */
function netdevTxPackets(sim: Simulation, xdpTxSent: number): number {
  const sock = sim.nic.afXdp();
  return xdpTxSent + (sock ? sock.cq.producer : 0);
}

function driverCounters(d: DriverSnapshot, txPackets: number, per: (name: string) => number): CounterView[] {
  const c = d.counters;
  const rows: [string, number][] = [
    ['offered', c.offered],
    ['rx_packets', c.rx_packets],
    ['rx_missed', c.rx_missed],
    ['stack_dropped', c.stack_dropped],
    ['rx_no_xdp', c.rx_no_xdp],
    ['tx_packets', txPackets],
    ['tx_dropped', c.tx_dropped],
    ['stack_rx', c.stack_rx],
    ['cache_get', c.cache_get],
    ['cache_empty', c.cache_empty],
    ['polls', c.polls],
  ];
  return rows.map(([name, value]) => ({ name, value, rate: per(name) }));
}

/** One trace record in a line, perf-script style. */
export function describe(e: TraceEvent, cyclesPerNs: number): string {
  const ns = e.cycle / cyclesPerNs;
  const parts = [`${(ns / 1000).toFixed(3).padStart(10)} µs`, `cpu${e.cpu}`, e.kind];
  if (e.queue >= 0) parts.push(`q${e.queue}`);
  if (e.slot >= 0) parts.push(`slot ${e.slot}`);
  if (e.packet >= 0) parts.push(`pkt #${e.packet}`);
  if (e.page >= 0) parts.push(`page ${e.page}`);
  if (e.detail) parts.push(`(${(DETAIL_LABEL[e.kind] ?? ((d: number) => `detail ${d}`))(e.detail)})`);
  return parts.join(' ');
}

/** What a trace record's detail number is, per kind (src/sim/trace.ts), so no line ends in a bare number. */
const DETAIL_LABEL: Partial<Record<TraceEvent['kind'], (d: number) => string>> = {
  nic_rx: (d) => `${d} B`,
  rx_missed: (d) => `${d} B`,
  dma_sync: (d) => `${d} B`,
  tx_post: (d) => `${d} B`,
  napi_poll: (d) => `budget ${d}`,
  napi_complete: (d) => `${d} packets`,
  xdp_run: (d) => `returned ${d}`,
  xdp_exception: (d) => (d < 0 ? `errno ${d}` : `action ${d}`),
  xdp_drop: (d) => `verdict ${d}`,
  xdp_redirect: (d) => (d > 0 ? `ifindex ${d}` : 'via a map'),
  xdp_unknown: (d) => `value ${d}`,
  page_cache_put: (d) => `cached after: ${d}`,
  page_cache_get: (d) => `cached after: ${d}`,
  page_alloc: (d) => `order ${d}`,
  page_free: (d) => `order ${d}`,
  rx_doorbell: (d) => `producer ${d}`,
  tx_doorbell: (d) => `${d} frames`,
};

/** A little-endian u32 from hex bytes (a map-in-map's value: the inner map's index). */
function leU32(hex: string): number {
  let v = 0;
  for (let i = Math.min(hex.length, 8) - 2; i >= 0; i -= 2) v = v * 256 + parseInt(hex.slice(i, i + 2), 16);
  return v;
}
