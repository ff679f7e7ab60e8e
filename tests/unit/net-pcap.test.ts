import { describe, expect, it } from 'vitest';
import { buildPacket, readPcap, writePcap, PcapError } from '../../src/net';

/** A classic pcap written byte by byte here (independently of writePcap). */
function handMade(opts: { little: boolean; nano: boolean; linktype?: number; frames: { sec: number; frac: number; data: Uint8Array }[] }): Uint8Array {
  const total = 24 + opts.frames.reduce((a, f) => a + 16 + f.data.length, 0);
  const b = new Uint8Array(total);
  const dv = new DataView(b.buffer);
  const le = opts.little;
  dv.setUint32(0, opts.nano ? 0xa1b23c4d : 0xa1b2c3d4, le);
  dv.setUint16(4, 2, le);
  dv.setUint16(6, 4, le);
  dv.setUint32(16, 65535, le);
  dv.setUint32(20, opts.linktype ?? 1, le);
  let off = 24;
  for (const f of opts.frames) {
    dv.setUint32(off, f.sec, le);
    dv.setUint32(off + 4, f.frac, le);
    dv.setUint32(off + 8, f.data.length, le);
    dv.setUint32(off + 12, f.data.length, le);
    b.set(f.data, off + 16);
    off += 16 + f.data.length;
  }
  return b;
}

const A = buildPacket({ sport: 1 });
const B = buildPacket({ l4: 'tcp', frameLen: 100 });

describe('pcap import', () => {
  it.each([
    ['little endian, microseconds', true, false, 250_000, 250_000_000],
    ['big endian, microseconds', false, false, 250_000, 250_000_000],
    ['little endian, nanoseconds', true, true, 123_456_789, 123_456_789],
    ['big endian, nanoseconds', false, true, 123_456_789, 123_456_789],
  ])('%s', (_n, little, nano, frac, fracNs) => {
    const f = handMade({ little, nano, frames: [{ sec: 1_700_000_000, frac: 0, data: A }, { sec: 1_700_000_001, frac, data: B }] });
    const r = readPcap(f);
    expect(r.bigEndian).toBe(!little);
    expect(r.nanosecond).toBe(nano);
    expect(r.records).toHaveLength(2);
    expect(r.records[0]!.data).toEqual(A);
    expect(r.records[1]!.data).toEqual(B);
    expect([r.records[1]!.sec - r.records[0]!.sec, r.records[1]!.nsec]).toEqual([1, fracNs]);
  });

  it('a link type other than Ethernet is a clear error naming it', () => {
    expect(() => readPcap(handMade({ little: true, nano: false, linktype: 113, frames: [] }))).toThrow(new PcapError('unsupported pcap link type 113 (LINUX_SLL): only Ethernet (1) can be fed to the NIC'));
    expect(() => readPcap(handMade({ little: false, nano: false, linktype: 101, frames: [] }))).toThrow(/link type 101 \(RAW \(IP\)\)/);
    expect(() => readPcap(handMade({ little: true, nano: false, linktype: 999, frames: [] }))).toThrow(/unsupported pcap link type 999:/);
  });

  it('rejects pcapng, garbage, and truncated records with a message', () => {
    expect(() => readPcap(Uint8Array.from([0x0a, 0x0d, 0x0d, 0x0a, ...new Array(30).fill(0)]))).toThrow(/pcapng files are not supported/);
    expect(() => readPcap(new Uint8Array(30))).toThrow(/not a pcap file: magic 0x00000000/);
    expect(() => readPcap(new Uint8Array(3))).toThrow(/shorter than the 24-byte header/);
    const f = handMade({ little: true, nano: false, frames: [{ sec: 1, frac: 0, data: A }] });
    expect(() => readPcap(f.subarray(0, f.length - 5))).toThrow(/record 1 is truncated: 60 bytes announced, 55 present/);
  });

  it('export round-trips through import (ns and µs)', () => {
    const recs = [{ sec: 1_700_000_005, nsec: 17, data: A }, { sec: 1_700_000_006, nsec: 999_999_000, data: B }];
    expect(readPcap(writePcap(recs)).records.map((r) => [r.sec, r.nsec, r.data.length])).toEqual([[1_700_000_005, 17, 60], [1_700_000_006, 999_999_000, 100]]);
    const micro = readPcap(writePcap(recs, { micro: true }));
    expect(micro.nanosecond).toBe(false);
    expect(micro.records.map((r) => r.nsec)).toEqual([0, 999_999_000]);
  });
});
