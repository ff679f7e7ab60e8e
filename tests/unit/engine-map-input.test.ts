/** Map keys and values typed as C values of the map's types (src/engine/mapInput.ts), and the engine's update with them. */
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
});
