/**
 * Seed 001 (AF_XDP unaligned chunk placement, 2019): xdpsock l2fwd on one
 * i40e 25G interface, 2048 B chunks, SKB / zero-copy (aligned, unaligned) /
 * copy mode. Model next to published, each within ±10%; every UMEM chunk
 * in exactly one place at every step; bad descriptors from user space
 * rejected and counted; the unaligned encoding on the rx ring.
 */
import { describe, expect, it } from 'vitest';
import { checkInvariants, findScenario, I40eXsk, nativePrograms, runScenario, SCENARIOS, Simulation, xsk_umem_encode_addr, xsk_umem_extract_addr, xsk_umem_extract_offset, type SimConfig } from '../../src/sim';
import { examplePrograms } from '../../src/engine/programs';

const names = SCENARIOS.filter((s) => s.seed === '001').map((s) => s.name);

describe('seed 001: AF_XDP xdpsock l2fwd (each ±10%)', () => {
  it('has the four published setups', () => expect(names).toEqual(['seed001-l2fwd-skb', 'seed001-l2fwd-zc', 'seed001-l2fwd-zc-unaligned', 'seed001-l2fwd-copy']));

  it.each(names)('%s', (name) => {
    const s = findScenario(name)!;
    const r = runScenario(s, { packets: 60_000 });
    const pub = s.published.rate_pps!;
    console.log(`${name.padEnd(28)} model ${(r.rate_pps / 1e6).toFixed(2).padStart(6)} Mpps   published ${(pub / 1e6).toFixed(2).padStart(6)} Mpps   (${((r.rate_pps / pub - 1) * 100).toFixed(1)}%)`);
    expect(Math.abs(r.rate_pps / pub - 1)).toBeLessThanOrEqual(0.1);
    expect(r.warnings).toEqual([]);
  });

  it('unaligned zero-copy is a little slower than aligned; copy and SKB modes are an order of magnitude slower', () => {
    const rate = (n: string) => runScenario(findScenario(n)!, { packets: 40_000 }).rate_pps;
    const zc = rate('seed001-l2fwd-zc');
    const un = rate('seed001-l2fwd-zc-unaligned');
    expect(un).toBeLessThan(zc);
    expect(un / zc).toBeGreaterThan(0.9);
    expect(rate('seed001-l2fwd-copy')).toBeLessThan(zc / 5);
    expect(rate('seed001-l2fwd-skb')).toBeLessThan(rate('seed001-l2fwd-copy'));
  });
});

function small(name: string, over: Partial<SimConfig> = {}, xsk: Partial<NonNullable<SimConfig['xsk']>> = {}): Simulation {
  const s = findScenario(name)!;
  const c = s.config();
  return new Simulation({ ...c, rxRingSize: 64, txRingSize: 64, trace: false, ...over, xsk: { ...c.xsk!, frames: 256, ringSize: 128, ...xsk }, traffic: { ...c.traffic, maxPackets: 4000 } }, nativePrograms(s.program!));
}

describe('AF_XDP rings and UMEM', () => {
  it.each(names)('every UMEM chunk is in exactly one place, and pages and packets are conserved, at every step: %s', (name) => {
    const sim = small(name);
    for (let step = 1; step <= 60_000; step++) {
      if (!sim.stepEvent()) break;
      if (step % 7 === 0) {
        const e = checkInvariants(sim);
        if (e.length) throw new Error(`${name} after step ${step}: ${e.slice(0, 3).join('; ')}`);
      }
    }
    // Traffic (4000 frames at line rate) ends early; copy and SKB modes forward only a few hundred of them.
    expect(sim.counters().redirect_done).toBeGreaterThan(100);
  });

  it('unaligned mode: rx descriptors carry the base in the low 48 bits and the headroom as the offset', () => {
    const sim = small('seed001-l2fwd-zc-unaligned', {}, { headroom: 128 });
    const nic = sim.nic as I40eXsk;
    // Run until the application has frames waiting on the rx ring.
    while (nic.rx.entries === 0) sim.stepEvent();
    const a = nic.rx.peekAddr(nic.rx.consumer);
    expect(xsk_umem_extract_offset(a)).toBe(128 + 256);
    expect(xsk_umem_extract_addr(a) % 2048).toBe(0);
    expect(checkInvariants(sim)).toEqual([]);
  });

  it('bad descriptors from user space are skipped and counted (tx_invalid_descs, rx_invalid_descs)', () => {
    const sim = small('seed001-l2fwd-zc-unaligned');
    const nic = sim.nic as I40eXsk;
    sim.run({ packets: 500 });
    // A tx descriptor whose offset puts it outside the UMEM, and a fill address past the end: the kernel skips both.
    nic.tx.produceDesc(xsk_umem_encode_addr(256 * 2048 - 64, 1000), 64);
    nic.fq.produceAddr(xsk_umem_encode_addr(256 * 2048, 0));
    sim.run({ packets: 3000 });
    const st = nic.statistics();
    expect(st.tx_invalid_descs).toBe(1);
    expect(st.rx_invalid_descs).toBe(1);
    expect(checkInvariants(sim)).toEqual([]);
  });

  it('zero-copy with too few fill entries: the rx ring cannot be refilled and the NIC drops (rx_missed)', () => {
    const sim = small('seed001-l2fwd-zc', {}, { frames: 32, ringSize: 32 });
    sim.run({ packets: 4000 });
    const c = sim.counters();
    expect(c.rx_missed).toBeGreaterThan(0);
    expect(c.alloc_fail).toBeGreaterThan(0);
    expect(checkInvariants(sim)).toEqual([]);
  });
});

describe('xdpsock applications', () => {
  it.each(['rxdrop', 'txonly'] as const)('%s keeps every chunk accounted for and moves frames', (app) => {
    const sim = small('seed001-l2fwd-zc', {}, { app });
    const nic = sim.nic as I40eXsk;
    for (let step = 1; step <= 20_000; step++) {
      if (!sim.stepEvent()) break;
      if (step % 11 === 0) {
        const e = checkInvariants(sim);
        if (e.length) throw new Error(`${app} after step ${step}: ${e.slice(0, 3).join('; ')}`);
      }
    }
    if (app === 'rxdrop') expect(sim.counters().redirect_done).toBeGreaterThan(1000);
    // txonly: frames sent come back on the completion ring and return to the application's free list.
    else expect(nic.cq.producer).toBeGreaterThan(1000);
  });
});

describe('seed 001 with xdpsock compiled from C (src/cc) and run in the VM', () => {
  it.each(['seed001-l2fwd-zc', 'seed001-l2fwd-zc-unaligned', 'seed001-l2fwd-copy'])('%s (±10%)', (name) => {
    const s = findScenario(name)!;
    const r = runScenario(s, { programs: examplePrograms, packets: 40_000 });
    expect(r.program_engine).toBe('vm');
    const pub = s.published.rate_pps!;
    console.log(`${name.padEnd(28)} [vm] model ${(r.rate_pps / 1e6).toFixed(2)} Mpps   published ${(pub / 1e6).toFixed(2)} Mpps`);
    expect(Math.abs(r.rate_pps / pub - 1)).toBeLessThanOrEqual(0.1);
  });
});
