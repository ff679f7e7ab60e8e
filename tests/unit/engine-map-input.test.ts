/** Map keys and values typed as C values of the map's types (src/engine/mapInput.ts), and the engine's update with them. */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createEngine, landedToolchain } from '../../src/engine';
import { decodeC, encodeC, parseMapInput } from '../../src/engine/mapInput';
import type { TypeDesc } from '../../src/cc/maps';

const u32: TypeDesc = { kind: 'int', name: 'unsigned int', size: 4, signed: false };
const s8: TypeDesc = { kind: 'int', name: 'signed char', size: 1, signed: true };
const u64: TypeDesc = { kind: 'int', name: 'unsigned long long', size: 8, signed: false };
const hex = (b: Uint8Array | string) => (typeof b === 'string' ? b : Array.from(b, (x) => x.toString(16).padStart(2, '0')).join(''));

describe('C values for map keys and values', () => {
  it('reads C integer literals in every base and stores them little endian', () => {
    for (const t of ['17', '0x11', '0X11', '021', '0b10001', '17u', '17UL', '+17', ' 17 ']) expect(hex(encodeC(t, u32))).toBe('11000000');
    expect(hex(encodeC("'A'", u32))).toBe('41000000');
    expect(hex(encodeC('0', u32))).toBe('00000000');
    expect(hex(encodeC('4294967295', u32))).toBe('ffffffff');
    expect(hex(encodeC('-1', s8))).toBe('ff');
    expect(hex(encodeC('-128', s8))).toBe('80');
    expect(hex(encodeC('0xffffffffffffffff', u64))).toBe('ffffffffffffffff');
  });

  it('refuses what is not a value of the type, saying the range', () => {
    expect(encodeC('-1', u32)).toBe('-1 is out of range for unsigned int (0 to 4294967295)');
    expect(encodeC('4294967296', u32)).toBe('4294967296 is out of range for unsigned int (0 to 4294967295)');
    expect(encodeC('128', s8)).toBe('128 is out of range for signed char (-128 to 127)');
    expect(encodeC('09', u32)).toMatch(/is not a C integer/);
    expect(encodeC('0x', u32)).toMatch(/is not a C integer/);
    expect(encodeC('11000000 00', u32)).toMatch(/is not a C integer/);
    expect(encodeC('1', { kind: 'struct', size: 8, members: [] })).toMatch(/give its 8 bytes in hex/);
    expect(encodeC('{ 1 }', { kind: 'array', elem: u32, len: 256, size: 1024 })).toMatch(/give its 1024 bytes in hex/);
  });

  it('decodes stored bytes back to the C value', () => {
    expect(decodeC(Uint8Array.of(0x11, 0, 0, 0), u32)).toBe('17');
    expect(decodeC(Uint8Array.of(0xff), s8)).toBe('-1');
    expect(decodeC(Uint8Array.of(1, 2), u32)).toBeUndefined();
  });

  it('keeps hex as it was, size-checked', () => {
    expect(hex(parseMapInput('11 00 00 00', 'hex', u32, 4, 'key'))).toBe('11000000');
    expect(parseMapInput('1100', 'hex', u32, 4, 'key')).toBe('the key must be 4 bytes (8 hex digits), got 2');
    expect(parseMapInput('17', 'c', undefined, 4, 'key')).toMatch(/C type is not known/);
  });

  it('the engine: xdp1\'s rxcnt takes key 0x11 and value 42 as C values, and shows keys as C values', () => {
    const e = createEngine(landedToolchain);
    e.build(e.hello().examples.find((x) => x.name === 'xdp1')!.source);
    const before = e.mapsRead();
    if (!before.ok) throw new Error(before.reason);
    const rx = before.maps.find((m) => m.name === 'rxcnt')!;
    expect(rx.keyType).toBe('unsigned int');
    expect(rx.valueType).toBe('long');
    const r = e.mapUpdate(rx.index, '0x11', '42', { key: 'c', value: 'c' });
    if (!r.ok) throw new Error(r.reason);
    const entry = r.maps[rx.index]!.entries.find((x) => x.key === '11000000')!;
    expect(entry.keyC).toBe('17');
    expect(entry.value[0]).toBe('2a00000000000000');
    // Decimal, the same key.
    const r2 = e.mapUpdate(rx.index, '17', '7', { key: 'c', value: 'c' });
    if (!r2.ok) throw new Error(r2.reason);
    expect(r2.maps[rx.index]!.entries.find((x) => x.key === '11000000')!.value[0]).toBe('0700000000000000');
    // Hex as before, and a wrong C value said plainly.
    expect(e.mapUpdate(rx.index, '06000000', '2a00000000000000').ok).toBe(true);
    expect(e.mapUpdate(rx.index, '-1', '1', { key: 'c', value: 'c' })).toEqual({ ok: false, reason: 'key: -1 is out of range for unsigned int (0 to 4294967295)' });
  });

  describe('structs, unions, arrays and bit-fields as C initializers', () => {
    // struct datarec { __u64 rx_packets; __u64 rx_bytes; } (xdp-tutorial's basic03)
    const datarec: TypeDesc = { kind: 'struct', name: 'datarec', size: 16, members: [{ name: 'rx_packets', offset: 0, type: u64 }, { name: 'rx_bytes', offset: 8, type: u64 }] };
    const u16: TypeDesc = { kind: 'int', name: 'unsigned short', size: 2, signed: false };
    const flow: TypeDesc = { kind: 'struct', name: 'flow', size: 12, members: [{ name: 'saddr', offset: 0, type: u32 }, { name: 'daddr', offset: 4, type: u32 }, { name: 'sport', offset: 8, type: u16 }, { name: 'dport', offset: 10, type: u16 }] };
    const name16: TypeDesc = { kind: 'array', elem: { kind: 'int', name: 'char', size: 1, signed: true }, len: 16, size: 16 };
    const flags: TypeDesc = { kind: 'struct', name: 'flags', size: 4, members: [{ name: 'a', offset: 0, bitOffset: 0, bitWidth: 3, type: u32 }, { name: 'b', offset: 0, bitOffset: 3, bitWidth: 5, type: u32 }, { name: 'c', offset: 0, bitOffset: 8, bitWidth: 24, type: u32 }] };

    it('designated, positional and partial initializers; members left out are zero', () => {
      expect(hex(encodeC('{ .rx_packets = 3, .rx_bytes = 180 }', datarec))).toBe('0300000000000000b400000000000000');
      expect(hex(encodeC('{3, 0xb4}', datarec))).toBe('0300000000000000b400000000000000');
      expect(hex(encodeC('{ .rx_bytes = 1 }', datarec))).toBe('00000000000000000100000000000000');
      expect(hex(encodeC('{}', datarec))).toBe('0'.repeat(32));
      expect(hex(encodeC('{ .sport = 0x5000, .saddr = 0x0100000a }', flow))).toBe('0a000001000000000050' + '0000');
      expect(hex(encodeC('{ [2] = 7, 8 }', { kind: 'array', elem: u16, len: 4, size: 8 }))).toBe('0000000007000800');
      expect(hex(encodeC('"eth0"', name16))).toBe('65746830' + '00'.repeat(12));
      expect(hex(encodeC('{ .a = 5, .b = 31, .c = 0xabcdef }', flags))).toBe(hex(Uint8Array.of(5 | (31 << 3), 0xef, 0xcd, 0xab)));
    });

    it('decodes to the same syntax, and back to the same bytes', () => {
      const bytes = encodeC('{ .rx_packets = 3, .rx_bytes = 180 }', datarec) as Uint8Array;
      expect(decodeC(bytes, datarec)).toBe('{ .rx_packets = 3, .rx_bytes = 180 }');
      const f = encodeC('{ .a = 5, .b = 17, .c = 123456 }', flags) as Uint8Array;
      expect(decodeC(f, flags)).toBe('{ .a = 5, .b = 17, .c = 123456 }');
      expect(hex(encodeC(decodeC(f, flags)!, flags))).toBe(hex(f));
      expect(decodeC(encodeC('{ 1, 2 }', { kind: 'array', elem: s8, len: 3, size: 3 }) as Uint8Array, { kind: 'array', elem: s8, len: 3, size: 3 })).toBe('{ 1, 2, 0 }');
    });

    it('says what is wrong and where', () => {
      expect(encodeC('{ .rx_pkts = 1 }', datarec)).toBe('struct datarec has no member .rx_pkts (members: .rx_packets, .rx_bytes)');
      expect(encodeC('{ .rx_packets = -1 }', datarec)).toBe('.rx_packets: -1 is out of range for unsigned long long (0 to 18446744073709551615)');
      expect(encodeC('{ .b = 32 }', flags)).toBe('.b: 32 is out of range for a 5-bit field of unsigned int (0 to 31)');
      expect(encodeC('{ 1, 2, 3 }', datarec)).toBe('more values than struct datarec has members');
      expect(encodeC('3', datarec)).toBe('struct datarec takes { … } (e.g. { .rx_packets = 0, .rx_bytes = 0 })');
      expect(encodeC('{ .rx_packets = 1', datarec)).toMatch(/expected ',' or '}' at column/);
      expect(encodeC('"a much too long name"', name16)).toMatch(/is 20 bytes, char\[16\] holds 16/);
      expect(encodeC('{ [9] = 1 }', { kind: 'array', elem: u16, len: 4, size: 8 })).toBe('index 9 is past the end of unsigned short[4]');
    });

    it('the engine: an ARRAY of struct datarec is shown and updated in C', () => {
      const e = createEngine(landedToolchain);
      const b = e.build(readFileSync(path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../cases/maps/datarec_stats.c'), 'utf8'));
      expect(b.verify).toMatchObject({ accepted: true });
      const r = e.mapsRead();
      if (!r.ok) throw new Error(r.reason);
      const m = r.maps.find((x) => x.name === 'xdp_stats_map')!;
      expect(m.valueType).toBe('struct datarec');
      expect(m.valueTemplate).toBe('{ .rx_packets = 0, .rx_bytes = 0 }');
      const u = e.mapUpdate(m.index, '2', '{ .rx_packets = 7, .rx_bytes = 420 }', { key: 'c', value: 'c' });
      if (!u.ok) throw new Error(u.reason);
      const entry = u.maps[m.index]!.entries.find((x) => x.key === '02000000')!;
      expect(entry.value[0]).toBe('0700000000000000a401000000000000');
      expect(entry.valueC![0]).toBe('{ .rx_packets = 7, .rx_bytes = 420 }');
    });
  });
});
