/**
 * The page map view (src/engine/views/pages.ts) against the real simulator:
 * every page is somewhere, the view agrees with the driver's own rings and
 * caches, and pages take the paths the kernel gives them.
 */
import { describe, expect, it } from 'vitest';
import { nativeXdp1, nativeXdp2, Simulation, type SimConfig, type XdpHook } from '../../src/sim';
import { pageMapView } from '../../src/engine/views/pages';
import type { PageMapView } from '../../src/engine';
import { base, udpTraffic } from './sim-helpers';

const machine = (prog: XdpHook, over: Partial<SimConfig> = {}) =>
  new Simulation({ ...base({ rxRingSize: 64, txRingSize: 64, traffic: udpTraffic(20e6, { maxPackets: 3000 }), ...over }), trace: false }, prog);

const count = (v: PageMapView, id: string) => v.locations.find((l) => l.id === id)!.count;
const where = (v: PageMapView, page: number) => v.locations[v.pages[page]!]!.id;

/** Views taken every `every` events until the traffic runs out. */
function views(sim: Simulation, every: number): PageMapView[] {
  const out = [pageMapView(sim)];
  while (sim.step('event', every) === every) out.push(pageMapView(sim));
  out.push(pageMapView(sim));
  return out;
}

/** How many times some page went from a location other than free to free between consecutive views. */
function freedBetween(vs: PageMapView[]): number {
  let n = 0;
  for (let k = 1; k < vs.length; k++) {
    const a = vs[k - 1]!;
    const b = vs[k]!;
    for (let p = 0; p < b.pages.length; p++) if (where(b, p) === 'free' && where(a, p) !== 'free') n++;
  }
  return n;
}

describe('page map view', () => {
  it('names every page once: counts per location sum to the pages, and the free count is the allocator\u2019s', () => {
    const sim = machine(nativeXdp1());
    for (const v of views(sim, 97)) {
      expect(v.pages).toHaveLength(sim.machine.alloc.totalPages);
      expect(v.locations.reduce((s, l) => s + l.count, 0)).toBe(v.pages.length);
      expect(Math.max(...v.pages)).toBeLessThan(v.locations.length);
      expect(count(v, 'free')).toBe(sim.machine.alloc.freePages);
    }
  });

  it('with xdp1 running, pages sit in the rx ring and the page cache exactly where the driver says, and none is lost', () => {
    const sim = machine(nativeXdp1());
    const most = { rx_ring: 0, page_cache: 0 };
    for (let i = 0; i < 300 && sim.step('event', 37) === 37; i++) {
      const v = pageMapView(sim);
      const d = sim.snapshot({ profile: false });
      most.rx_ring = Math.max(most.rx_ring, count(v, 'rx_ring'));
      most.page_cache = Math.max(most.page_cache, count(v, 'page_cache'));
      let cached = 0;
      for (const q of d.queues) {
        for (const p of q.cache.pages) expect(where(v, p)).toBe('page_cache');
        cached += q.cache.pages.length;
        for (const s of q.rx.slots) if (s.page >= 0) expect(['rx_ring', 'in_flight']).toContain(where(v, s.page));
      }
      expect(count(v, 'page_cache')).toBe(cached);
      // None lost: the driver's ring, its cache and the CPU's hands plus free memory are all of memory.
      expect(count(v, 'rx_ring') + count(v, 'in_flight') + count(v, 'page_cache') + count(v, 'free')).toBe(v.pages.length);
      expect(count(v, 'tx_ring')).toBe(0);
    }
    expect(most.rx_ring).toBeGreaterThanOrEqual(63);
    expect(most.page_cache).toBeGreaterThan(0);
  });

  it('with xdp2 (XDP_TX) pages pass through the XDP tx ring, where the tx ring\u2019s slots say', () => {
    const sim = machine(nativeXdp2());
    let most = 0;
    for (let i = 0; i < 400 && sim.step('event', 50) === 50; i++) {
      const v = pageMapView(sim);
      most = Math.max(most, count(v, 'tx_ring'));
      const tx = sim.snapshot({ profile: false }).queues[0]!.tx;
      const onRing = tx.slots.filter((s) => s.state === 'pending' || s.state === 'hw');
      for (const s of onRing) expect(where(v, s.page)).toBe('tx_ring');
    }
    expect(most).toBeGreaterThan(0);
  });

  it('without the page cache, dropped pages go back to free; with it, they never do', () => {
    const without = views(machine(nativeXdp1(), { pageCache: false }), 5);
    expect(without.every((v) => count(v, 'page_cache') === 0)).toBe(true);
    expect(freedBetween(without)).toBeGreaterThan(1000);
    const withCache = views(machine(nativeXdp1()), 5);
    expect(freedBetween(withCache)).toBe(0);
  });

  it('order-3 tails carry their head\u2019s location', () => {
    const sim = machine(nativeXdp1(), { xdpRxMode: 'frags' });
    sim.step('event', 2000);
    const v = pageMapView(sim);
    const a = sim.machine.alloc;
    let heads = 0;
    for (let p = 0; p < a.totalPages; p += 8) {
      if (a.order[p] !== 3 || a.loc[p] === 0) continue;
      heads++;
      for (let t = 1; t < 8; t++) expect(v.pages[p + t]).toBe(v.pages[p]);
    }
    expect(heads).toBeGreaterThan(0);
    expect(count(v, 'frags')).toBe(heads * 8);
  });
});
