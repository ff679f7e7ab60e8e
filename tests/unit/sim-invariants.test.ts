/**
 * Conservation under every driver path: after every single event, each page
 * is in exactly one place and each packet is counted once.
 */
import { describe, expect, it } from 'vitest';
import { checkInvariants, nativeXdp1, nativeXdp2, Simulation, XDP_ABORTED, XDP_DROP, XDP_PASS, XDP_REDIRECT, XDP_TX, type SimConfig, type XdpHook } from '../../src/sim';
import { actionBySport, base, udpTraffic } from './sim-helpers';

const ALL = [XDP_ABORTED, XDP_DROP, XDP_PASS, XDP_TX, XDP_REDIRECT, 9];

const CASES: [string, SimConfig, XdpHook | null][] = [
  ['every action, order-0 pages, page cache', base({ traffic: udpTraffic(20e6, { flows: 6, maxPackets: 3000 }) }), actionBySport(ALL)],
  ['every action, no page cache', base({ pageCache: false, traffic: udpTraffic(20e6, { flows: 6, maxPackets: 3000 }) }), actionBySport(ALL)],
  ['every action on order-3 fragments (XDP_TX unsupported there)', base({ xdpRxMode: 'frags', traffic: udpTraffic(20e6, { flows: 6, maxPackets: 3000 }) }), actionBySport(ALL)],
  ['no program: order-3 fragments into the stack', base({ traffic: udpTraffic(10e6, { maxPackets: 3000 }) }), null],
  ['XDP_TX with a tiny tx ring (tx_dropped)', base({ txRingSize: 2, traffic: udpTraffic(30e6, { maxPackets: 3000, burst: 16 }) }), nativeXdp2()],
  ['XDP_PASS into a socket with a small receive buffer', base({ stack: { kind: 'socket', appPps: 2e6, rcvbufPackets: 8 }, traffic: udpTraffic(8e6, { maxPackets: 3000 }) }), actionBySport([XDP_PASS])],
  ['two queues, RSS over 64 flows', base({ queues: 2, traffic: udpTraffic(20e6, { flows: 64, maxPackets: 3000 }) }), actionBySport(ALL)],
  ['out of memory: 64 pages for a 128-slot ring', base({ memoryPages: 64, rxRingSize: 128, traffic: udpTraffic(20e6, { maxPackets: 2000 }) }), actionBySport([XDP_PASS, XDP_TX])],
  ['XDP_REDIRECT into a devmap port (bulk queues of 16), mixed with drops', base({ redirectTarget: 'devmap-port', traffic: udpTraffic(20e6, { flows: 3, maxPackets: 3000 }) }), actionBySport([XDP_REDIRECT, XDP_REDIRECT, XDP_DROP])],
  ['XDP_REDIRECT into a devmap port whose tx ring overflows', base({ redirectTarget: 'devmap-port', txRingSize: 16, traffic: udpTraffic(40e6, { maxPackets: 3000, burst: 64 }) }), actionBySport([XDP_REDIRECT])],
  ['xdp1 at a rate the CPU absorbs (interrupt mode)', base({ traffic: udpTraffic(2e6, { maxPackets: 2000 }) }), nativeXdp1()],
];

describe('conservation invariants', () => {
  it.each(CASES)('%s', (_name, cfg, prog) => {
    const sim = new Simulation({ ...cfg, trace: false }, prog);
    let steps = 0;
    while (sim.stepEvent()) {
      steps++;
      const errs = checkInvariants(sim);
      if (errs.length) throw new Error(`after step ${steps}: ${errs.slice(0, 3).join('; ')}`);
    }
    expect(sim.finished).toBe(true);
    expect(checkInvariants(sim)).toEqual([]);
    const c = sim.counters();
    expect(sim.offered).toBe(cfg.traffic.maxPackets);
    // Drained: nothing waits in a ring or on a tx ring at the end.
    expect(sim.nic.rings.every((r) => r.hw === r.cons && r.tx.cons === r.tx.prod)).toBe(true);
    expect(c.rx_packets + c.rx_missed + c.rx_oversize).toBe(sim.offered);
  });

  it('the checker catches a leaked page and a double-counted packet', () => {
    const sim = new Simulation({ ...base({ traffic: udpTraffic(1e6, { maxPackets: 100 }) }), trace: false }, nativeXdp1());
    sim.run({ packets: 50 });
    expect(checkInvariants(sim)).toEqual([]);
    sim.machine.alloc.alloc(0); // allocated, placed nowhere
    expect(checkInvariants(sim).join('\n')).toMatch(/in flight between steps/);
    const sim2 = new Simulation({ ...base({ traffic: udpTraffic(1e6, { maxPackets: 100 }) }), trace: false }, nativeXdp1());
    sim2.run({ packets: 50 });
    sim2.nic.rings[0]!.c.xdp_drop++;
    expect(checkInvariants(sim2).join('\n')).toMatch(/offered but \d+ accounted/);
  });
});
