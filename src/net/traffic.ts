/**
 * Traffic: pktgen-like flow sources (sizes, MAC/IP/port ranges, rates up to
 * line rate, bursts) and pcap replay, merged onto one wire. The generator is
 * the NIC's view of the world: "the next frame arrives at time t", worked
 * out a few hundred frames ahead (AHEAD) so the simulation never
 * materializes a packet list. Frames come from prebuilt templates (one per
 * flow), so generating a packet allocates nothing. Flows whose frames are
 * byte for byte the same (pktgen threads sending one flow each) share one
 * template array, and no template is ever written: the same array is the
 * same bytes, which a driver may use to skip a DMA its page already holds.
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
  /**
   * The sender's timing noise, 0..1 (default 0): this fraction of each
   * pause after a burst is drawn (exponential, seeded) instead of fixed, with
   * the same mean, so the average rate is kept and only the spacing varies.
   */
  jitter?: number;
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
  jitter: number;
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
function burstNext(s: SourceState, at: number, bare: number, rng: Rng): number {
  s.inBurst++;
  if (s.inBurst < s.burst) return at + bare;
  s.inBurst = 0;
  return at + burstPause(s, bare, rng);
}

/**
 * The pause from a burst's last frame to the next burst's first: fixed, or
 * with `jitter` of it exponential (1 - u is in (0, 1], so the log is finite
 * and the pause positive). Drawn once per burst, not per frame.
 */
function burstPause(s: SourceState, bare: number, rng: Rng): number {
  const pause = s.gapNs * s.burst - (s.burst - 1) * bare;
  const j = s.jitter;
  return j > 0 ? pause * (1 - j) - pause * j * Math.log(1 - rng.float()) : pause;
}

/** Offered rate of a source when it does not say (line rate for its first size). */
export function sourceRate(s: FlowSourceSpec, linkGbps: number): number {
  return s.ratePps ?? lineRatePps(linkGbps, s.sizes?.[0] ?? s.frameLen ?? ETH_ZLEN);
}

/** Frames the generator works out at a time (TrafficGenerator.fill). */
const AHEAD = 256;

export class TrafficGenerator {
  /** Arrival time of the next frame at the NIC, in ns (Infinity when the traffic has ended). */
  nextNs = 0;
  nextFrame: Uint8Array = new Uint8Array(0);
  nextHash = 0;
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
  /** Flow sources of one template each (pktgen threads, one flow each: seeds 000, 001 and 002): fill's burst runs. */
  private readonly singles: boolean;
  /** Every frame the same array (one template, or identical ones shared): advance sets only the time. */
  private readonly sameFrame: boolean;
  /**
   * The frames worked out ahead of advance, in order: arrival (ns), source,
   * template. fill() computes AHEAD at a time with the heap and the wire in
   * locals; one at a time, each frame's heap step and wire arithmetic went
   * through the object's fields, a chain of dependent loads and stores that
   * cost 6-14 ns a frame (~12% of mlx4 xdp1's simulation). Nothing else
   * draws on the sources or their RNG, so the frames are the ones advance
   * would have made one by one.
   */
  private readonly qNs: number[] = Array.from({ length: AHEAD }, () => 0.5);
  private readonly qSrc: number[] = Array.from({ length: AHEAD }, () => 0);
  private readonly qIdx: number[] = Array.from({ length: AHEAD }, () => 0);
  private qAt = 0;
  private qLen = 0;
  /** Frames worked out so far (handed out or queued): maxPackets bounds these. */
  private computed = 0;

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
      const jitter = s.jitter ?? 0;
      if (!(jitter >= 0 && jitter <= 1)) throw new Error(`traffic: source ${s.name ?? ''} has jitter ${jitter}; it is a fraction of the pause, 0 to 1`);
      const st: SourceState = {
        templates,
        hashes: templates.map((t) => rssHash(t) >>> 0),
        wire: templates.map((t) => wireNs(t.length, spec.linkGbps, spec.perFrameNs)),
        wireBare: templates.map((t) => wireNs(t.length, spec.linkGbps)),
        gapNs: 1e9 / rate,
        burst,
        jitter,
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
        jitter: 0,
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
    this.singles = this.sources.every((s) => !s.times && s.templates.length === 1);
    this.sameFrame = this.singles && this.sources.every((s) => s.templates[0] === this.sources[0]!.templates[0]);
    if (this.sameFrame) {
      this.nextFrame = this.sources[0]!.templates[0]!;
      this.nextHash = this.sources[0]!.hashes[0]!;
    }
    this.advance();
  }

  /** Offered rate summed over sources (pps), before the wire's limit. */
  offeredPps(): number {
    return this.sources.reduce((a, s) => a + 1e9 / s.gapNs, 0);
  }

  /** The source of the next frame (the last one handed out). */
  get nextSource(): number {
    return this.qSrc[this.qAt > 0 ? this.qAt - 1 : 0]!;
  }

  /** Move on to the next frame: the earliest source's, serialized onto the wire (Infinity when the traffic has ended). */
  advance(): void {
    if (this.qAt === this.qLen && this.fill() === 0) {
      this.nextNs = Infinity;
      return;
    }
    const i = this.qAt++;
    this.nextNs = this.qNs[i]!;
    if (!this.sameFrame) this.take(i);
    this.produced++;
  }

  /** The queued frame i's bytes and hash become the next frame's. */
  private take(i: number): void {
    const s = this.sources[this.qSrc[i]!]!;
    const idx = this.qIdx[i]!;
    const frame = s.templates[idx]!;
    // A pointer store only on a change: an unchanged one still pays V8's write barrier.
    if (this.nextFrame !== frame) this.nextFrame = frame;
    this.nextHash = s.hashes[idx]!;
  }

  /** Work out the next frames (at most AHEAD, none past maxPackets); how many (0: the traffic has ended). */
  private fill(): number {
    const lim = Math.min(AHEAD, this.maxPackets - this.computed);
    if (lim <= 0) return 0;
    const n = this.singles ? this.fillSingles(lim) : this.fillGeneral(lim);
    if (n > 0) {
      // Left as they were when nothing came: nextSource still names the last frame's source.
      this.qAt = 0;
      this.qLen = n;
      this.computed += n;
    }
    return n;
  }

  /**
   * fill() for sources of one template each: the earliest source sends
   * frames (a burst back to back, then its pause) for as long as its next
   * one stays ahead of every other source's, which do not move meanwhile:
   * one heap step per run, not per frame. The same times as one frame at a
   * time: burstNext's arithmetic, written out on a local place in the burst
   * (calling burstNext-like helpers here cost ~10 instructions a packet);
   * only the pause after a burst is a call (burstPause, once per burst).
   */
  private fillSingles(lim: number): number {
    const next = this.srcNext;
    const h = this.heap;
    const qNs = this.qNs;
    const qSrc = this.qSrc;
    const qIdx = this.qIdx;
    let wireFree = this.wireFreeNs;
    let k = 0;
    while (k < lim) {
      const best = h[0]!;
      let at = next[best]!;
      if (at === Infinity) break;
      // The earliest of the others is one of the root's children (heap order: time, then index).
      let other = Infinity;
      let otherSrc = h.length;
      if (h.length > 1) {
        other = next[h[1]!]!;
        otherSrc = h[1]!;
        if (h.length > 2) {
          const r = h[2]!;
          const rNs = next[r]!;
          if (rNs < other || (rNs === other && r < otherSrc)) {
            other = rNs;
            otherSrc = r;
          }
        }
      }
      const s = this.sources[best]!;
      const wire = s.wire[0]!;
      const bare = s.wireBare[0]!;
      const burst = s.burst;
      let inBurst = s.inBurst;
      do {
        const t = at > wireFree ? at : wireFree;
        wireFree = t + wire;
        qNs[k] = t;
        qSrc[k] = best;
        qIdx[k] = 0;
        k++;
        inBurst++;
        if (inBurst < burst) at = at + bare;
        else {
          inBurst = 0;
          at = at + burstPause(s, bare, this.rng);
        }
      } while (k < lim && (at < other || (at === other && best < otherSrc)));
      s.inBurst = inBurst;
      s.nextNs = at;
      next[best] = at;
      this.siftDown();
    }
    this.wireFreeNs = wireFree;
    return k;
  }

  /** fill() in general: a template per frame (in turn, or at random), pcap times. */
  private fillGeneral(lim: number): number {
    const next = this.srcNext;
    let k = 0;
    while (k < lim) {
      const best = this.heap[0]!;
      const bestNs = next[best]!;
      if (bestNs === Infinity) break;
      const s = this.sources[best]!;
      const idx = s.random ? this.rng.below(s.templates.length) : s.flow;
      // Onto the wire when it is free.
      const t = bestNs > this.wireFreeNs ? bestNs : this.wireFreeNs;
      this.wireFreeNs = t + s.wire[idx]!;
      this.qNs[k] = t;
      this.qSrc[k] = best;
      this.qIdx[k] = idx;
      k++;
      // Schedule this source's following packet.
      if (s.times) {
        s.flow++;
        if (s.flow >= s.templates.length) {
          if (!s.loop) {
            s.nextNs = Infinity;
            next[best] = Infinity;
            this.siftDown();
            continue;
          }
          s.flow = 0;
          s.times = s.times.map((x) => x + s.spanNs!);
        }
        s.nextNs = s.times[s.flow]!;
      } else {
        s.flow = s.flow + 1 >= s.templates.length ? 0 : s.flow + 1;
        s.nextNs = burstNext(s, bestNs, s.wireBare[idx]!, this.rng);
      }
      next[best] = s.nextNs;
      this.siftDown();
    }
    return k;
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
