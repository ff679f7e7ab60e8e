/**
 * Seed 000 (the 2016 mlx4 XDP series): the model's emergent numbers next to
 * the published ones. Rates come out of the event loop (ring occupancy,
 * interrupts, the NIC dropping when no buffer is posted), never a formula.
 * The programs are the samples in src/examples, compiled by src/cc and run
 * as bytecode in src/vm.
 */
import { describe, expect, it } from 'vitest';
import { findScenario, runScenario, type ScenarioResult } from '../../src/sim';
import { examplePrograms } from '../../src/engine/programs';
import { compareToPublished, formatFigure } from '../../src/sim/published';

function run(name: string): ScenarioResult {
  const s = findScenario(name);
  if (!s) throw new Error(`no scenario ${name}`);
  const r = runScenario(s, { programs: examplePrograms });
  if (s.program) expect(r.program_engine).toBe('vm');
  const pub = s.published;
  const line = [
    `${name}:`,
    `model ${(r.rate_pps / 1e6).toFixed(2)} Mpps`,
    pub.rate_pps ? `published ${(pub.rate_pps / 1e6).toFixed(2)} Mpps` : '',
    `idle ${r.idle_percent.toFixed(1)}%${pub.idle_percent !== undefined ? ` (published ~${pub.idle_percent}%)` : ''}`,
  ];
  console.log(line.filter(Boolean).join('  '));
  console.log(`  profile: ${r.profile.slice(0, 8).map((e) => `${e.symbol} ${e.percent.toFixed(1)}%`).join(', ')}`);
  return r;
}

const pct = (r: ScenarioResult, sym: string) => r.profile.find((e) => e.symbol === sym)?.percent ?? 0;
const within = (model: number, published: number, frac: number) => Math.abs(model / published - 1) <= frac;

describe('seed 000: XDP on mlx4, E5-1630 v3 + ConnectX-3 40G, one core, 20.2 Mpps offered', () => {
  it('xdp1 with the page cache drops everything offered, the allocator leaves the profile, ~40% idle', () => {
    const r = run('seed000-xdp1-drop');
    expect(r.counters.rx_missed).toBe(0);
    expect(within(r.rate_pps, 20.2e6, 0.05)).toBe(true);
    expect(r.idle_percent).toBeGreaterThanOrEqual(30);
    expect(r.idle_percent).toBeLessThanOrEqual(50);
    for (const sym of ['get_page_from_freelist', 'mlx4_en_alloc_frags', '__free_pages_ok', 'mlx4_en_free_frag']) expect(pct(r, sym)).toBeLessThan(0.5);
    expect(r.counters.cache_put).toBeGreaterThan(0.99 * r.counters.xdp_drop);
    // Patch 07 "After": the CPU keeps up, so it takes an interrupt every few dozen packets (mlx4's
    // moderation time is 0 for small frames) and idles in short gaps: every listed symbol fits.
    const figures = compareToPublished(findScenario('seed000-xdp1-drop')!, r);
    expect(figures.filter((f) => f.figure !== 'rate')).toHaveLength(10);
    for (const f of figures) expect(f.ok, formatFigure(f)).toBe(true);
    expect(r.counters.rx_packets / r.counters.interrupts).toBeLessThan(100);
  });

  it('xdp1 before the page cache: the profile resembles the seed (±5 points)', () => {
    const r = run('seed000-xdp1-drop-nocache');
    console.log('  published: mlx4_en_process_rx_cq 26.9%, mlx4_en_alloc_frags 17.9%, mlx4_en_free_frag 6.0%, get_page_from_freelist 4.5%');
    expect(r.counters.rx_missed).toBe(0);
    expect(within(r.rate_pps, 20.2e6, 0.05)).toBe(true);
    expect(Math.abs(pct(r, 'mlx4_en_process_rx_cq') - 26)).toBeLessThanOrEqual(5);
    expect(Math.abs(pct(r, 'mlx4_en_alloc_frags') - 18)).toBeLessThanOrEqual(5);
    expect(Math.abs(pct(r, 'mlx4_en_free_frag') - 6)).toBeLessThanOrEqual(5);
    expect(Math.abs(pct(r, 'get_page_from_freelist') - 4)).toBeLessThanOrEqual(5);
    // Busier than with the cache: the same work plus the allocator.
    expect(r.idle_percent).toBeLessThan(30);
  });

  it('xdp2 forwards ~10 Mpps (±10%): the CPU saturates, the ring fills, the NIC drops the rest', () => {
    const r = run('seed000-xdp2-tx');
    expect(within(r.rate_pps, 10e6, 0.1)).toBe(true);
    expect(r.idle_percent).toBeLessThan(2);
    expect(r.counters.rx_missed).toBeGreaterThan(0);
    expect(r.counters.tx_doorbells).toBeGreaterThan(0);
    // Doorbells are batched: at most one per 8 frames plus one per poll.
    expect(r.counters.tx_doorbells).toBeLessThanOrEqual(r.counters.xdp_tx / 8 + r.counters.polls + 1);
  });
});

describe('seed 000: order-3 fragments vs order-0 pages (i7-4790K, CX3-pro, iptables raw drop)', () => {
  it('no XDP on order-3 pages 4.45 Mpps -> XDP_PASS on order-0 pages 3.30 Mpps (each ±10%)', () => {
    const base = run('seed000-order3-baseline');
    const pass = run('seed000-xdp-pass-order0');
    console.log(`  slowdown: model ${((pass.rate_pps / base.rate_pps - 1) * 100).toFixed(1)}%, published -25.98%`);
    expect(within(base.rate_pps, 4_453_022, 0.1)).toBe(true);
    expect(within(pass.rate_pps, 3_295_798, 0.1)).toBe(true);
    expect(pass.rate_pps).toBeLessThan(base.rate_pps);
    // The regression is the page allocator: order-0 allocations show up.
    expect(pct(pass, 'get_page_from_freelist')).toBeGreaterThan(pct(base, 'get_page_from_freelist') + 2);
  });
});
