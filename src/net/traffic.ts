/**
 * Traffic: pktgen-like flow sources (sizes, MAC/IP/port ranges, rates up to
 * line rate, bursts) and pcap replay, merged onto one wire. The generator is
 * the NIC's view of the world: "the next frame arrives at time t", computed
 * lazily one packet ahead so the simulation never materializes a packet
 * list. Frames come from prebuilt templates (one per flow), so generating a
 * packet allocates nothing. Flows whose frames are byte for byte the same
 * (pktgen threads sending one flow each) share one template array, and no
 * template is ever written: the same array is the same bytes, which a
 * driver may use to skip a DMA its page already holds.
 */
import { formatIPv4, parseIPv4, parseIPv6, formatIPv6 } from './addr';
import { buildPacket, ETH_ZLEN, lineRatePps, type PacketSpec } from './packet';
import { rssHash } from './rss';
import { Rng } from './rng';
import type { PcapRecord } from './pcap';

export interface FlowSourceSpec {
  name?: string;
  /** Offered packets per second (default: line rate for this source's size). */
  ratePps?: number;
  /** Frame length without FCS (default 60: the 64-byte wire minimum). Ignored when `sizes` is set. */
  frameLen?: number;
  /** Frame lengths used in turn (an IMIX, say). */
  sizes?: number[];
  l3?: 'ipv4' | 'ipv6' | 'arp';
  l4?: 'udp' | 'tcp' | 'icmp';
  vlans?: number[];
  srcMac?: string;
  dstMac?: string;
  src?: string;
  dst?: string;
  /** How many consecutive addresses/ports to cycle through, starting at the given one. */
  srcCount?: number;
  dstCount?: number;
  sport?: number;
  sportCount?: number;
  dport?: number;
  dportCount?: number;
  /** Packets sent back to back at wire speed, then a pause that keeps the average rate. */
  burst?: number;
  /** Pick flows at random (seeded) instead of in order. */
  randomFlows?: boolean;
}

export interface TrafficSpec {
  /** Link speed in Gbit/s: the wire never carries more than line rate. */
  linkGbps: number;
  /** Fixed time per frame on the link beyond its bytes (a virtual NIC's backend, say), ns. */
  perFrameNs?: number;
  sources?: FlowSourceSpec[];
  /** Replay captured frames (timestamps kept, relative to the first, unless ratePps is set). */
  pcap?: { records: PcapRecord[]; ratePps?: number; loop?: boolean };
  /** Stop after this many packets (default: unbounded). */
  maxPackets?: number;
}

/** Most flow templates a source prebuilds; ranges beyond this repeat. */
export const MAX_TEMPLATES = 4096;

// The per-template and per-source numbers advance reads for every frame are
// plain arrays, not typed ones: V8 checks a typed array's buffer for
// detachment on each access once any ArrayBuffer in the process has been
// detached (under tsx one always has); a packed array costs a map and a
// bounds check. They hold the same numbers (hashes made u32 as before).
interface SourceState {
  templates: Uint8Array[];
  hashes: number[];
  /** Per template, its time on the wire (wireNs with the link's per-frame time), computed once: advance runs per packet. */
  wire: number[];
  /** The same without the per-frame time (the gap inside a burst). */
  wireBare: number[];
  gapNs: number;
  burst: number;
  inBurst: number;
  nextNs: number;
  flow: number;
  random: boolean;
  /** pcap: the per-record times (ns, relative) when replaying captured timing. */
  times?: Float64Array;
  loop?: boolean;
  spanNs?: number;
}

const MIN_FRAME = ETH_ZLEN;
function wireNs(len: number, gbps: number, perFrameNs = 0): number {
  return perFrameNs + ((Math.max(len, MIN_FRAME) + 24) * 8) / gbps;
}

function ipAt(base: string, i: number, v6: boolean): string {
  if (!v6) return formatIPv4((parseIPv4(base) + i) >>> 0);
  const b = parseIPv6(base);
  let carry = i;
  for (let k = 15; k >= 0 && carry > 0; k--) {
    const v = b[k]! + (carry & 0xff);
    b[k] = v & 0xff;
    carry = (carry >>> 8) + (v >> 8);
  }
  return formatIPv6(b);
}

/** Build the per-flow frame templates of one source. Throws Error (one line) on bad addresses. */
export function buildTemplates(s: FlowSourceSpec): Uint8Array[] {
  const sizes = s.sizes?.length ? s.sizes : [s.frameLen ?? ETH_ZLEN];
  const counts = [s.srcCount ?? 1, s.dstCount ?? 1, s.sportCount ?? 1, s.dportCount ?? 1, sizes.length];
  const total = Math.min(MAX_TEMPLATES, counts.reduce((a, c) => a * Math.max(1, c), 1));
  const v6 = s.l3 === 'ipv6';
  const out: Uint8Array[] = [];
  for (let i = 0; i < total; i++) {
    // Mixed radix over (dport, sport, dst, src, size): like pktgen's flow increments.
    let k = i;
    const pick = (n: number) => {
      const r = k % Math.max(1, n);
      k = Math.floor(k / Math.max(1, n));
      return r;
    };
    const dp = pick(counts[3]!);
    const sp = pick(counts[2]!);
    const d = pick(counts[1]!);
    const sr = pick(counts[0]!);
    const sz = pick(counts[4]!);
    const spec: PacketSpec = {
      srcMac: s.srcMac,
      dstMac: s.dstMac,
      vlans: s.vlans,
      l3: s.l3,
      l4: s.l4,
      src: ipAt(s.src ?? (v6 ? 'fd00::1' : '198.18.0.1'), sr, v6),
      dst: ipAt(s.dst ?? (v6 ? 'fd00::2' : '198.19.0.1'), d, v6),
      sport: ((s.sport ?? 9) + sp) & 0xffff,
      dport: ((s.dport ?? 9) + dp) & 0xffff,
      frameLen: sizes[sz],
    };
    out.push(buildPacket(spec));
  }
  return out;
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * A flow source's next frame after the one it offered at `at` (`bare`: that
 * frame's time on the wire without the per-frame time): back to back within
 * a burst, then the pause that keeps the source's average rate (the burst
 * starts are gap*burst apart).
 */
function burstNext(s: SourceState, at: number, bare: number): number {
  s.inBurst++;
  if (s.inBurst < s.burst) return at + bare;
  s.inBurst = 0;
  return at + s.gapNs * s.burst - (s.burst - 1) * bare;
}

/** Offered rate of a source when it does not say (line rate for its first size). */
export function sourceRate(s: FlowSourceSpec, linkGbps: number): number {
  return s.ratePps ?? lineRatePps(linkGbps, s.sizes?.[0] ?? s.frameLen ?? ETH_ZLEN);
}

export class TrafficGenerator {
  /** Arrival time of the next frame at the NIC, in ns (Infinity when the traffic has ended). */
  nextNs = 0;
  nextFrame: Uint8Array = new Uint8Array(0);
  nextHash = 0;
  nextSource = 0;
  /** Packets handed out so far (the next one gets this id). */
  produced = 0;
  private wireFreeNs = 0;
  /** spec.maxPackets, or no limit (read per packet: a number, not an optional field). */
  private readonly maxPackets: number;
  private readonly sources: SourceState[] = [];
  /** Each source's nextNs side by side (kept with it), one contiguous array instead of an object per source: the heap below orders these. */
  private readonly srcNext: number[];
  /**
   * The sources as a binary min-heap on (srcNext, index): the root is the
   * one a scan of every source would pick (the earliest, the lowest index
   * on a tie). Only the picked source's time moves, so each frame costs one
   * sift-down from the root, not a scan (seed 002's pktgen has ten threads).
   */
  private readonly heap: number[];
  private readonly rng: Rng;
  /** The only source, when there is one flow source with one template (advanceOne); null otherwise. */
  private readonly one: SourceState | null;
  /** Several flow sources, each with one template (advance's shortcut). */
  private readonly singles: boolean;

  constructor(
    readonly spec: TrafficSpec,
    seed: number,
  ) {
    this.rng = new Rng(seed ^ 0x7a3f);
    this.maxPackets = spec.maxPackets ?? Infinity;
    if (!(spec.linkGbps > 0)) throw new Error('traffic: linkGbps must be positive');
    // Templates by a hash of their bytes, to share one array between identical frames.
    const known = new Map<number, Uint8Array[]>();
    const shared = (t: Uint8Array): Uint8Array => {
      let h = 0x811c9dc5;
      for (let i = 0; i < t.length; i++) h = Math.imul(h ^ t[i]!, 0x01000193);
      const bucket = known.get(h);
      if (!bucket) {
        known.set(h, [t]);
        return t;
      }
      for (const u of bucket) if (sameBytes(u, t)) return u;
      bucket.push(t);
      return t;
    };
    for (const s of spec.sources ?? []) {
      const templates = buildTemplates(s).map(shared);
      const rate = sourceRate(s, spec.linkGbps);
      if (!(rate > 0)) throw new Error(`traffic: source ${s.name ?? ''} has no positive rate`);
      const burst = Math.max(1, s.burst ?? 1);
      const st: SourceState = {
        templates,
        hashes: templates.map((t) => rssHash(t) >>> 0),
        wire: templates.map((t) => wireNs(t.length, spec.linkGbps, spec.perFrameNs)),
        wireBare: templates.map((t) => wireNs(t.length, spec.linkGbps)),
        gapNs: 1e9 / rate,
        burst,
        inBurst: 0,
        nextNs: 0,
        flow: 0,
        random: !!s.randomFlows,
      };
      // pktgen threads start unsynchronized: a seeded phase within one period.
      st.nextNs = this.rng.float() * st.gapNs * burst;
      this.sources.push(st);
    }
    if (spec.pcap) {
      const recs = spec.pcap.records;
      if (recs.length === 0) throw new Error('traffic: the pcap holds no packets');
      const r0 = recs[0]!;
      // Differences in sec/nsec stay exact where absolute ns would not fit a double.
      const rel = (r: PcapRecord) => Math.max(0, (r.sec - r0.sec) * 1e9 + (r.nsec - r0.nsec));
      const times = spec.pcap.ratePps ? Float64Array.from(recs, (_, i) => (i * 1e9) / spec.pcap!.ratePps!) : Float64Array.from(recs, rel);
      const last = times[times.length - 1]!;
      this.sources.push({
        templates: recs.map((r) => r.data),
        hashes: recs.map((r) => rssHash(r.data) >>> 0),
        wire: recs.map((r) => wireNs(r.data.length, spec.linkGbps, spec.perFrameNs)),
        wireBare: recs.map((r) => wireNs(r.data.length, spec.linkGbps)),
        gapNs: spec.pcap.ratePps ? 1e9 / spec.pcap.ratePps : last / Math.max(1, recs.length - 1),
        burst: 1,
        inBurst: 0,
        nextNs: 0,
        flow: 0,
        random: false,
        times,
        loop: spec.pcap.loop,
        spanNs: last + (spec.pcap.ratePps ? 1e9 / spec.pcap.ratePps : wireNs(recs[recs.length - 1]!.data.length, spec.linkGbps)),
      });
    }
    if (this.sources.length === 0) throw new Error('traffic: no sources and no pcap');
    this.srcNext = this.sources.map((s) => s.nextNs);
    const next = this.srcNext;
    // Sorted by (time, index): a sorted array is a heap.
    this.heap = Array.from(this.sources.keys()).sort((a, b) => next[a]! - next[b]! || a - b);
    const only = this.sources.length === 1 ? this.sources[0]! : undefined;
    this.one = only && !only.times && only.templates.length === 1 ? only : null;
    this.singles = this.sources.every((s) => !s.times && s.templates.length === 1);
    if (this.one) {
      this.nextFrame = this.one.templates[0]!;
      this.nextHash = this.one.hashes[0]!;
      this.nextSource = 0;
    }
    this.advance();
  }

  /** Offered rate summed over sources (pps), before the wire's limit. */
  offeredPps(): number {
    return this.sources.reduce((a, s) => a + 1e9 / s.gapNs, 0);
  }

  /** Compute the next frame: the earliest source, serialized onto the wire. */
  advance(): void {
    if (this.produced >= this.maxPackets) {
      this.nextNs = Infinity;
      return;
    }
    if (this.one !== null) {
      this.advanceOne(this.one);
      return;
    }
    const next = this.srcNext;
    const best = this.heap[0]!;
    const bestNs = next[best]!;
    if (bestNs === Infinity) {
      this.nextNs = Infinity;
      return;
    }
    const s = this.sources[best]!;
    // Sources of one frame each (pktgen threads, one flow each: seeds 000 and 002): no template to pick, no flow to move on.
    if (this.singles) {
      this.send(s, best, 0, bestNs);
      next[best] = s.nextNs = burstNext(s, bestNs, s.wireBare[0]!);
      this.siftDown();
      return;
    }
    const idx = s.random ? this.rng.below(s.templates.length) : s.flow;
    this.send(s, best, idx, bestNs);
    // Schedule this source's following packet.
    if (s.times) {
      s.flow++;
      if (s.flow >= s.templates.length) {
        if (!s.loop) {
          s.nextNs = Infinity;
          next[best] = Infinity;
          this.siftDown();
          return;
        }
        s.flow = 0;
        s.times = s.times.map((x) => x + s.spanNs!);
      }
      s.nextNs = s.times[s.flow]!;
      next[best] = s.nextNs;
      this.siftDown();
      return;
    }
    s.flow = s.flow + 1 >= s.templates.length ? 0 : s.flow + 1;
    next[best] = s.nextNs = burstNext(s, bestNs, s.wireBare[idx]!);
    this.siftDown();
  }

  /** The next frame is source `best`'s template idx, ready at bestNs: onto the wire when it is free. */
  private send(s: SourceState, best: number, idx: number, bestNs: number): void {
    const t = bestNs > this.wireFreeNs ? bestNs : this.wireFreeNs;
    this.wireFreeNs = t + s.wire[idx]!;
    this.nextNs = t;
    const frame = s.templates[idx]!;
    // A pointer store only on a change (one template: never): an unchanged one still pays V8's write barrier.
    if (this.nextFrame !== frame) this.nextFrame = frame;
    this.nextHash = s.hashes[idx]!;
    this.nextSource = best;
    this.produced++;
  }

  /**
   * advance() for one flow source sending one frame (AF_XDP's and cpumap's
   * pktgen, say): no heap to keep and no template to pick, the frame, its
   * hash and its source set once; the same times as the general step.
   */
  private advanceOne(s: SourceState): void {
    const bestNs = s.nextNs;
    const t = bestNs > this.wireFreeNs ? bestNs : this.wireFreeNs;
    this.wireFreeNs = t + s.wire[0]!;
    this.nextNs = t;
    this.produced++;
    s.nextNs = burstNext(s, bestNs, s.wireBare[0]!);
  }

  /** The root's time moved later: move it down to its place (heap order: time, then index). */
  private siftDown(): void {
    const h = this.heap;
    const n = h.length;
    if (n === 1) return;
    const next = this.srcNext;
    const top = h[0]!;
    const topNs = next[top]!;
    let i = 0;
    for (;;) {
      let c = 2 * i + 1;
      if (c >= n) break;
      let child = h[c]!;
      let childNs = next[child]!;
      if (c + 1 < n) {
        const r = h[c + 1]!;
        const rNs = next[r]!;
        if (rNs < childNs || (rNs === childNs && r < child)) {
          c++;
          child = r;
          childNs = rNs;
        }
      }
      if (topNs < childNs || (topNs === childNs && top < child)) break;
      h[i] = child;
      i = c;
    }
    h[i] = top;
  }
}
