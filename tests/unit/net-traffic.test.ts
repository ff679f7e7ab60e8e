import { describe, expect, it } from 'vitest';
import { decodePacket, TrafficGenerator, lineRatePps, type TrafficSpec } from '../../src/net';

function take(spec: TrafficSpec, n: number, seed = 1) {
  const g = new TrafficGenerator(spec, seed);
  const out: { t: number; frame: Uint8Array; src: number }[] = [];
  for (let i = 0; i < n && g.nextNs !== Infinity; i++) {
    out.push({ t: g.nextNs, frame: g.nextFrame, src: g.nextSource });
    g.advance();
  }
  return out;
}

describe('traffic generator', () => {
  it('a source at a given rate produces that rate', () => {
    const p = take({ linkGbps: 10, sources: [{ ratePps: 1e6 }] }, 10001);
    expect(p[10000]!.t - p[0]!.t).toBeCloseTo(10_000_000, 0); // 10k packets at 1 Mpps = 10 ms
  });

  it('the wire caps the rate at line rate (64 B at 10G: 14.88 Mpps)', () => {
    const p = take({ linkGbps: 10, sources: [{ ratePps: 100e6 }] }, 100001);
    const pps = 100000 / ((p[100000]!.t - p[0]!.t) / 1e9);
    expect(pps / lineRatePps(10, 60)).toBeCloseTo(1, 6);
  });

  it('four pktgen threads interleave and sum their rates', () => {
    const p = take({ linkGbps: 40, sources: [0, 1, 2, 3].map(() => ({ ratePps: 5.05e6, burst: 32 })) }, 40001);
    const pps = 40000 / ((p[40000]!.t - p[0]!.t) / 1e9);
    expect(pps / 20.2e6).toBeCloseTo(1, 2);
    expect(new Set(p.map((x) => x.src)).size).toBe(4);
    expect(p.every((x, i) => i === 0 || x.t >= p[i - 1]!.t)).toBe(true);
  });

  it('ten threads of different rates each get their share, in time order, with the wire not saturated', () => {
    const rates = Array.from({ length: 10 }, (_, i) => (i + 1) * 1e5);
    const n = 55_000;
    const p = take({ linkGbps: 40, sources: rates.map((r) => ({ ratePps: r, burst: 4 })) }, n);
    expect(p.every((x, i) => i === 0 || x.t >= p[i - 1]!.t)).toBe(true);
    const count = new Array<number>(10).fill(0);
    for (const x of p) count[x.src]!++;
    // Rates 1..10 x 100 kpps: source i sends (i + 1) / 55 of the frames.
    for (let i = 0; i < 10; i++) expect(count[i]! / (n * (i + 1) / 55)).toBeCloseTo(1, 1);
  });

  it('bursts go out back to back at wire speed', () => {
    const p = take({ linkGbps: 40, sources: [{ ratePps: 1e6, burst: 8 }] }, 16);
    const wire = 1e9 / lineRatePps(40, 60);
    for (let i = 1; i < 8; i++) expect(p[i]!.t - p[i - 1]!.t).toBeCloseTo(wire, 6);
    expect(p[8]!.t - p[0]!.t).toBeCloseTo(8000, 6); // burst starts keep the 1 Mpps average
  });

  it("jitter varies the pause between bursts and keeps the rate and the bursts' spacing", () => {
    const wire = 1e9 / lineRatePps(40, 60);
    const pause = 8000 - 7 * wire; // a burst's last frame to the next burst's first at 1 Mpps in bursts of 8
    const p = take({ linkGbps: 40, sources: [{ ratePps: 1e6, burst: 8, jitter: 0.4 }] }, 8 * 20_000 + 1);
    for (let i = 1; i < 8; i++) expect(p[i]!.t - p[i - 1]!.t).toBeCloseTo(wire, 6);
    const pauses = Array.from({ length: 20_000 }, (_, b) => p[8 * b + 8]!.t - p[8 * b + 7]!.t);
    // 60% of each pause fixed, 40% exponential of the same mean: never shorter than the fixed part, mean kept.
    expect(Math.min(...pauses)).toBeGreaterThanOrEqual(0.6 * pause - 1e-6);
    const mean = pauses.reduce((a, x) => a + x, 0) / pauses.length;
    const sd = Math.sqrt(pauses.reduce((a, x) => a + (x - mean) ** 2, 0) / pauses.length);
    expect(mean / pause).toBeCloseTo(1, 1);
    expect(sd / (0.4 * pause)).toBeCloseTo(1, 1); // an exponential's spread is its mean
    const pps = (8 * 20_000) / ((p[8 * 20_000]!.t - p[0]!.t) / 1e9);
    expect(pps / 1e6).toBeCloseTo(1, 1);
    // Seeded: the same seed, the same pauses; none without jitter.
    expect(take({ linkGbps: 40, sources: [{ ratePps: 1e6, burst: 8, jitter: 0.4 }] }, 8 * 20_000 + 1).map((x) => x.t)).toEqual(p.map((x) => x.t));
    const even = take({ linkGbps: 40, sources: [{ ratePps: 1e6, burst: 8 }] }, 800);
    for (let b = 1; b < 100; b++) expect(even[8 * b]!.t - even[8 * b - 8]!.t).toBeCloseTo(8000, 6);
  });

  it('jitter outside 0..1 is refused with the source named', () => {
    for (const jitter of [-0.1, 1.5, NaN]) expect(() => new TrafficGenerator({ linkGbps: 10, sources: [{ name: 'pg0', ratePps: 1e6, jitter }] }, 1)).toThrow(/source pg0 has jitter .*0 to 1/);
  });

  it('address and port ranges cycle like pktgen flows; sizes cycle', () => {
    const p = take({ linkGbps: 10, sources: [{ ratePps: 1e6, src: '10.0.0.1', srcCount: 3, dport: 100, dportCount: 2, sizes: [60, 1000] }] }, 12);
    const d = p.map((x) => decodePacket(x.frame));
    expect(new Set(d.map((x) => `${x.ipv4!.src}:${x.udp!.dport}:${x.len}`)).size).toBe(12);
    expect(new Set(d.map((x) => x.ipv4!.src))).toEqual(new Set(['10.0.0.1', '10.0.0.2', '10.0.0.3']));
    expect(d.every((x) => x.udp!.csumOk && x.ipv4!.csumOk)).toBe(true);
  });

  it('the same seed gives the same random flow order', () => {
    const spec: TrafficSpec = { linkGbps: 10, sources: [{ ratePps: 1e6, sportCount: 100, randomFlows: true }] };
    const a = take(spec, 50, 7).map((x) => decodePacket(x.frame).udp!.sport);
    expect(take(spec, 50, 7).map((x) => decodePacket(x.frame).udp!.sport)).toEqual(a);
    expect(take(spec, 50, 8).map((x) => decodePacket(x.frame).udp!.sport)).not.toEqual(a);
  });

  it('maxPackets ends the traffic; pcap replays with captured timing', () => {
    expect(take({ linkGbps: 10, maxPackets: 5, sources: [{ ratePps: 1e6 }] }, 100)).toHaveLength(5);
    const f = new Uint8Array(60);
    const p = take({ linkGbps: 10, pcap: { records: [{ sec: 9, nsec: 999_999_000, tsNs: 0, data: f, origLen: 60 }, { sec: 10, nsec: 49_000, tsNs: 0, data: f, origLen: 60 }] } }, 10);
    expect(p.map((x) => x.t)).toEqual([0, 50000]);
  });
});

describe('advance: the one-template fast paths', () => {
  // advanceOne (one source, one frame) and the shortcut for several sources of one frame each against the general
  // step: a generator forced onto the general path by a second template that is never the only one picked is not
  // the same traffic, so the reference is computed here from the spec: arrival times by the rules advance states.
  const reference = (spec: TrafficSpec, seed: number, n: number): number[] => {
    const g = new TrafficGenerator({ ...spec, sources: spec.sources!.map((s) => ({ ...s, sizes: [s.frameLen ?? 60, s.frameLen ?? 60], frameLen: undefined })) }, seed);
    const out: number[] = [];
    for (let i = 0; i < n; i++, g.advance()) out.push(g.nextNs, g.nextSource);
    return out;
  };
  const run = (spec: TrafficSpec, seed: number, n: number): number[] => {
    const g = new TrafficGenerator(spec, seed);
    const out: number[] = [];
    for (let i = 0; i < n; i++, g.advance()) out.push(g.nextNs, g.nextSource);
    return out;
  };
  it.each([
    ['one source', { linkGbps: 25, sources: [{ ratePps: 37.2e6, frameLen: 60, burst: 32 }] }],
    ['four pktgen threads', { linkGbps: 40, sources: Array.from({ length: 4 }, (_, i) => ({ ratePps: 5e6 + i * 1e5, frameLen: 60, burst: 32 })) }],
    ['four pktgen threads with timing noise', { linkGbps: 40, sources: Array.from({ length: 4 }, (_, i) => ({ ratePps: 5e6 + i * 1e5, frameLen: 60, burst: 32, jitter: 0.4 })) }],
    ['ten threads, an end at 5000', { linkGbps: 10, maxPackets: 5000, sources: Array.from({ length: 10 }, () => ({ ratePps: 1.488e6, frameLen: 60, burst: 32 })) }],
  ] as [string, TrafficSpec][])('%s: the times and sources of the general step', (_n, spec) => {
    const a = run(spec, 9, 6000);
    expect(a).toEqual(reference(spec, 9, 6000));
    if (spec.maxPackets) expect(a[2 * spec.maxPackets]).toBe(Infinity);
  });
});
