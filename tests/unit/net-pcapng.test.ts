/** pcapng: what the writer makes the reader reads back; malformed files are refused with a PcapError. */
import { describe, expect, it } from 'vitest';
import { buildPacket, PcapError, readPcapng, writePcapng } from '../../src/net';

describe('pcapng', () => {
  it('round-trips interfaces, nanosecond timestamps, bytes, odd lengths and comments', () => {
    const a = buildPacket({ frameLen: 60 });
    const b = Uint8Array.of(1, 2, 3, 4, 5); // not a multiple of 4: padded in the file
    const f = writePcapng([{ name: 'mlx4@entry' }, { name: 'mlx4@exit' }], [
      { iface: 0, tsNs: 1_234_567_891, data: a, comment: 'packet #1: entry' },
      { iface: 1, tsNs: 5_000_000_000_007, data: b },
    ], { comment: 'section' });
    expect(f.length % 4).toBe(0);
    const r = readPcapng(f);
    expect(r.comments).toEqual(['section']);
    expect(r.interfaces.map((i) => [i.name, i.linkType, i.nsPerTick])).toEqual([['mlx4@entry', 1, 1], ['mlx4@exit', 1, 1]]);
    expect(r.packets).toHaveLength(2);
    expect(r.packets[0]!).toMatchObject({ iface: 0, tsNs: 1_234_567_891, origLen: 60, comments: ['packet #1: entry'] });
    expect(r.packets[0]!.data).toEqual(a);
    expect(r.packets[1]!).toMatchObject({ iface: 1, tsNs: 5_000_000_000_007, origLen: 5, comments: [] });
    expect(r.packets[1]!.data).toEqual(b);
  });

  it('refuses what is not pcapng or is cut short', () => {
    expect(() => readPcapng(new Uint8Array(40))).toThrow(PcapError);
    const f = writePcapng([{ name: 'x' }], [{ iface: 0, tsNs: 0, data: new Uint8Array(64) }]);
    expect(() => readPcapng(f.slice(0, f.length - 8))).toThrow(/bad length|truncated/);
    const bad = f.slice();
    new DataView(bad.buffer).setUint32(bad.length - 4, 12, true); // trailing length of the last block
    expect(() => readPcapng(bad)).toThrow(/trailing length/);
    expect(() => writePcapng([], [{ iface: 0, tsNs: 0, data: new Uint8Array(1) }])).toThrow(PcapError);
  });
});
