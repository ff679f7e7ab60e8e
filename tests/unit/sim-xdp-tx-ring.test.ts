/** The shared XDP tx ring (src/sim/nic/xdp_tx_ring.ts) and the wire's transmitter, on their own. */
import { describe, expect, it } from 'vitest';
import { XdpTxRing } from '../../src/sim/nic/xdp_tx_ring';
import { frameWireCycles, TxWire } from '../../src/sim/wire';

describe('XdpTxRing', () => {
  it('keeps written descriptors from the NIC until the doorbell, then sends them back to back', () => {
    const tx = new XdpTxRing(4);
    const wire = new TxWire(2);
    tx.post(10, 100, 0, 60);
    tx.post(11, 101, 0, 1000);
    expect(tx.nextDone()).toBe(Infinity);
    expect(tx.completed(1e12)).toBe(false);
    expect(tx.ring(wire, 500)).toBe(2);
    const first = 500 + frameWireCycles(60, 2);
    expect(tx.slotDone[0]).toBe(first);
    expect(tx.slotDone[1]).toBe(first + frameWireCycles(1000, 2));
    expect(tx.nextDone()).toBe(first);
    // A later doorbell waits for the wire, an idle wire starts at once.
    tx.post(12, 102, 0, 60);
    tx.ring(wire, 0);
    expect(tx.slotDone[2]).toBe(tx.slotDone[1]! + frameWireCycles(60, 2));
  });

  it('reaps only what is done by the clock, which each charge advances', () => {
    const tx = new XdpTxRing(4);
    tx.post(1, 1, 0, 60);
    tx.post(2, 2, 0, 60);
    tx.post(3, 3, 0, 60);
    tx.ring(new TxWire(1), 0); // done at 84, 168, 252
    const cpu = { now: 170 };
    const m = { charge: (c: { now: number }) => void (c.now += 50) };
    const got: number[] = [];
    const n = tx.reap(m as never, cpu as never, 0, (page) => got.push(page));
    // 84 and 168 are due at 170; the two charges take the clock to 270, past 252.
    expect(got).toEqual([1, 2, 3]);
    expect(n).toBe(3);
    expect(tx.cons).toBe(3);
    expect(tx.slotPage[0]).toBe(-1);
    expect(tx.nextDone()).toBe(Infinity);
  });

  it('is full at its size, and a port stop releases every frame, sent or not', () => {
    const tx = new XdpTxRing(2);
    tx.post(7, 1, 0, 60);
    tx.ring(new TxWire(1), 0);
    tx.post(8, 2, 0, 60);
    expect(tx.full()).toBe(true);
    const freed: number[] = [];
    expect(tx.flush((p) => freed.push(p))).toBe(2);
    expect(freed).toEqual([7, 8]);
    expect([tx.cons, tx.db, tx.prod]).toEqual([2, 2, 2]);
    expect(tx.full()).toBe(false);
  });

  it('hands frames to a peer ring without a wire (ready), keeping cons <= db <= prod', () => {
    const tx = new XdpTxRing(4);
    tx.post(5, 9, 4096 + 256, 64);
    tx.ready(42);
    expect(tx.db).toBe(1);
    expect(tx.nextDone()).toBe(42);
    const seen: number[] = [];
    tx.forEachPage((p, s) => seen.push(p, s, tx.slotData[s]!));
    expect(seen).toEqual([5, 0, 4096 + 256]);
    tx.retire();
    expect([tx.cons, tx.db, tx.prod]).toEqual([1, 1, 1]);
  });
});

describe('TxWire', () => {
  it('adds the per-frame cost on top of the bytes and never starts a frame before the previous one ends', () => {
    const w = new TxWire(3, 100);
    const a = w.send(1000, 60);
    expect(a).toBe(1000 + 100 + frameWireCycles(60, 3));
    expect(w.send(0, 60)).toBe(a + 100 + frameWireCycles(60, 3));
    expect(w.send(1e9, 60)).toBe(1e9 + 100 + frameWireCycles(60, 3));
  });
});
