/** The packet inspector: one packet's lifecycle, bytes before/after and its program run step by step. */
import { describe, expect, it } from 'vitest';
import { createEngine, landedToolchain } from '../../src/engine';
import { copyMaps, memoryAt } from '../../src/engine/inspect';
import { createMap } from '../../src/maps';
import { parseSpec } from '../../src/isa';

describe('packet inspector', () => {
  it('follows an xdp2 packet from DMA to XDP_TX, with its MACs swapped and every instruction', () => {
    const e = createEngine(landedToolchain);
    e.build(e.hello().examples.find((x) => x.name === 'xdp2')!.source);
    e.simStep('event', 3000);
    const d = e.inspectPacket(null);
    if ('error' in d) throw new Error(d.error);
    const kinds = d.lifecycle.map((s) => s.kind);
    expect(kinds[0]).toBe('nic_rx');
    expect(kinds).toContain('xdp_run');
    expect(kinds).toContain('xdp_tx');
    expect(kinds.indexOf('xdp_run')).toBeLessThan(kinds.indexOf('xdp_tx'));
    const run = d.run!;
    expect(run.action).toBe('XDP_TX');
    // Ethernet: dst (6) then src (6); xdp2 swaps them.
    expect(run.after.hex.slice(0, 12)).toBe(run.before.hex.slice(12, 24));
    expect(run.after.hex.slice(12, 24)).toBe(run.before.hex.slice(0, 12));
    expect(run.after.decoded.udp).toBeTruthy();
    // The re-run executes exactly as many instructions as the live run, ending in exit with r0 = XDP_TX.
    expect(run.steps).toHaveLength(run.insns);
    const last = run.steps.at(-1)!;
    expect(last.text).toMatch(/exit/);
    expect(last.after[0]).toBe('0x3');
    expect(run.steps.some((s) => s.mem?.region === 'packet' && s.mem.write)).toBe(true);

    // Folding the steps' memory accesses rebuilds the packet as the program left it.
    const end = memoryAt(run, run.steps.length - 1);
    expect(end.packetHex.slice(0, 24)).toBe(run.after.hex.slice(0, 24));
    expect([...end.packetWritten].sort((a, b) => a - b).slice(0, 12)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
    // Before any step the packet is as it arrived and nothing is written.
    const start = memoryAt(run, -1);
    expect(start.packetHex).toBe(run.before.hex);
    expect(start.packetWritten.size).toBe(0);
    // The step that reads the EtherType touches packet bytes 12..14 and sees them as they are.
    const k = run.steps.findIndex((s) => s.mem?.kind === 'packet' && !s.mem.write && s.mem.offset === 12 && s.mem.size === 2);
    expect(k).toBeGreaterThanOrEqual(0);
    expect(memoryAt(run, k).packetTouched).toEqual([12, 14]);
    expect(run.steps[k]!.mem!.hex).toBe(run.before.hex.slice(24, 28));
    // xdp2 stores the map key on the stack: it shows up as an fp-relative slot with the bytes written.
    const st = run.steps.findIndex((s) => s.mem?.kind === 'stack' && s.mem.write);
    expect(st).toBeGreaterThanOrEqual(0);
    const m = run.steps[st]!.mem!;
    expect(m.offset).toBeLessThan(0);
    const slot = memoryAt(run, st).stack.find((x) => x.fpOff === Math.floor(m.offset / 8) * 8)!;
    expect(slot.touched).toBe(true);
    const within = m.offset - slot.fpOff;
    expect(slot.hex.slice(within * 2, (within + m.size) * 2)).toBe(m.hex);
  });

  it('says why when nothing ran yet', () => {
    const e = createEngine(landedToolchain);
    e.build(e.hello().examples[0]!.source);
    expect(e.inspectPacket(null)).toEqual({ error: 'no packet has been handled yet: run or step the simulation first' });
    expect(e.inspectPacket(123456)).toEqual({ error: 'packet #123456 is not in the recent trace (the last 20,000 events are kept)' });
  });
});

describe('copyMaps (the inspector re-runs against copies of the live maps)', () => {
  it('copies every key and every CPU value, and the copies are independent', () => {
    const spec = {
      insns: '95000000 00000000',
      maps: [
        { name: 'h', type: 'hash' as const, key_size: 4, value_size: 8, max_entries: 16 },
        { name: 'pc', type: 'percpu_array' as const, key_size: 4, value_size: 8, max_entries: 4 },
      ],
    };
    const parsed = parseSpec(spec);
    if ('error' in parsed) throw new Error(parsed.error);
    const live = spec.maps.map((m) => {
      const r = createMap(m, { nCpus: 3 });
      if ('error' in r) throw new Error(r.error);
      return r;
    });
    const key = Uint8Array.of(7, 0, 0, 0);
    expect(live[0]!.userUpdate(key, Uint8Array.of(1, 2, 3, 4, 5, 6, 7, 8))).toBe(0);
    live[1]!.lookup(Uint8Array.of(2, 0, 0, 0), 1)!.set([9, 9]);
    const copy = copyMaps(parsed, live)!;
    expect(copy).toHaveLength(2);
    expect(copy[0]!.userLookup(key)![0]).toEqual(Uint8Array.of(1, 2, 3, 4, 5, 6, 7, 8));
    expect(copy[1]!.userLookup(Uint8Array.of(2, 0, 0, 0))!.map((v) => v[0])).toEqual([0, 9, 0]);
    copy[0]!.delete(key);
    expect(live[0]!.userLookup(key)).toBeDefined();
  });
});
