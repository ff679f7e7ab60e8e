/** The mlx4 driver's behaviour, path by path (seed 000's mechanisms). */
import { describe, expect, it } from 'vitest';
import { checkInvariants, MLX4_EN_CACHE_SIZE, type Mlx4En, nativeXdp1, nativeXdp2, Simulation, XDP_ABORTED, XDP_DROP, XDP_PASS, XDP_REDIRECT, XDP_TX } from '../../src/sim';
import { actionBySport, base, udpTraffic } from './sim-helpers';

const run = (cfg: Parameters<typeof base>[0], prog: Parameters<typeof actionBySport>[0] | ReturnType<typeof nativeXdp1> | null, packets?: number) => {
  const p = Array.isArray(prog) ? actionBySport(prog) : prog;
  const sim = new Simulation({ ...base(cfg), trace: true }, p);
  if (packets) sim.run({ packets });
  else while (sim.stepEvent());
  return sim;
};

describe('XDP actions', () => {
  it('an unknown action value warns once and drops every such packet', () => {
    const sim = run({ traffic: udpTraffic(1e6, { maxPackets: 200 }) }, [7]);
    const c = sim.counters();
    expect(c.xdp_unknown).toBe(200);
    expect(sim.nic.warnings).toEqual(['Illegal XDP return value 7, expect packet loss']);
    expect(sim.events().filter((e) => e.kind === 'xdp_unknown')).toHaveLength(200);
  });

  it('XDP_ABORTED fires the xdp_exception trace event and recycles like a drop', () => {
    const sim = run({ traffic: udpTraffic(1e6, { maxPackets: 100 }) }, [XDP_ABORTED]);
    const ev = sim.events();
    expect(ev.filter((e) => e.kind === 'xdp_exception' && e.detail === XDP_ABORTED)).toHaveLength(100);
    expect(sim.counters().cache_put).toBe(100);
  });

  it('XDP_DROP recycles into the page cache: no allocation after the first fill', () => {
    const sim = run({ rxRingSize: 64, traffic: udpTraffic(20e6, { maxPackets: 5000 }) }, [XDP_DROP]);
    const allocs = sim.events().filter((e) => e.kind === 'page_alloc' && e.cycle > 0);
    expect(allocs).toHaveLength(0);
    expect(sim.counters().cache_get).toBeGreaterThan(4000);
  });

  it('without the cache every drop frees the page and every refill allocates', () => {
    const sim = run({ pageCache: false, traffic: udpTraffic(5e6, { maxPackets: 500 }) }, [XDP_DROP]);
    const ev = sim.events();
    expect(ev.filter((e) => e.kind === 'page_free')).toHaveLength(500);
    expect(ev.filter((e) => e.kind === 'page_alloc' && e.cycle > 0)).toHaveLength(500);
  });

  it('the page cache holds at most 128 pages (2 x NAPI budget); recycling into a full cache fails', () => {
    const sim = new Simulation(base({ traffic: udpTraffic(1e6, { maxPackets: 1 }) }), nativeXdp1());
    const ring = sim.nic.rings[0]!;
    const cpu = sim.machine.cpus[0]!;
    const nic = sim.nic as Mlx4En;
    const taken = nic.pageCache[0]!.index;
    let ok = 0;
    for (let i = 0; i < 200; i++) if (nic.mlx4_en_rx_recycle(cpu, ring, sim.machine.alloc.alloc(0), -1)) ok++;
    expect(taken + ok).toBe(MLX4_EN_CACHE_SIZE);
    expect(nic.pageCache[0]!.index).toBe(128);
    expect(ring.c.cache_full).toBe(200 - ok);
  });

  it('XDP_TX: the doorbell rings every 8 frames (and at the end of a poll); completion recycles into the rx cache', () => {
    const sim = run({ rxRingSize: 64, txRingSize: 64, traffic: udpTraffic(20e6, { maxPackets: 4000 }) }, nativeXdp2());
    const ev = sim.events();
    const bells = ev.filter((e) => e.kind === 'tx_doorbell').map((e) => e.detail);
    expect(Math.max(...bells)).toBe(8);
    expect(bells.filter((b) => b === 8).length).toBeGreaterThan(bells.length / 2);
    const c = sim.counters();
    expect(c.tx_packets).toBe(c.xdp_tx - c.tx_dropped);
    expect(c.cache_put).toBeGreaterThan(0.9 * c.tx_packets);
    expect(checkInvariants(sim)).toEqual([]);
  });

  it('a full XDP tx ring counts tx_dropped and recycles the page', () => {
    const sim = run({ txRingSize: 2, traffic: udpTraffic(40e6, { maxPackets: 2000, burst: 32 }) }, [XDP_TX]);
    const c = sim.counters();
    expect(c.tx_dropped).toBeGreaterThan(0);
    expect(c.tx_packets + c.tx_dropped).toBe(c.xdp_tx);
    expect(sim.events().filter((e) => e.kind === 'tx_dropped')).toHaveLength(c.tx_dropped);
  });

  it('XDP_PASS builds an skb; the socket model frees the page later, or drops when its buffer is full', () => {
    const sim = run({ stack: { kind: 'socket', appPps: 1e6, rcvbufPackets: 16 }, traffic: udpTraffic(4e6, { maxPackets: 400 }) }, [XDP_PASS]);
    const c = sim.counters();
    expect(c.stack_rx).toBe(400);
    expect(c.sock_dropped).toBeGreaterThan(0);
    expect(c.sock_delivered + c.sock_dropped).toBe(400);
    expect(sim.nic.sockets!.length).toBe(0); // drained by the end
  });

  it('XDP_REDIRECT without a target is a redirect error: trace exception, drop', () => {
    const sim = run({ traffic: udpTraffic(1e6, { maxPackets: 50 }) }, [XDP_REDIRECT]);
    expect(sim.counters()).toMatchObject({ xdp_redirect: 50, xdp_redirect_err: 50 });
    const taken: number[] = [];
    const sim2 = new Simulation({ ...base({ traffic: udpTraffic(1e6, { maxPackets: 50 }) }) }, actionBySport([XDP_REDIRECT]));
    sim2.setRedirectHandler(() => {
      taken.push(1);
      return false;
    });
    while (sim2.stepEvent());
    expect(taken).toHaveLength(50);
  });
});

describe('XDP_REDIRECT into a devmap', () => {
  it('frames are sent in bulks of at most 16, one ndo_xdp_xmit and doorbell per bulk, flushed at the end of the poll', () => {
    const sim = run({ redirectTarget: 'devmap-port', traffic: udpTraffic(20e6, { maxPackets: 3000 }) }, [XDP_REDIRECT]);
    const d = (sim.nic as Mlx4En).devmap!;
    expect(Math.max(...d.flushSizes)).toBe(16);
    const c = sim.counters();
    expect(c.xdp_redirect).toBeGreaterThan(1000);
    expect(d.flushSizes.reduce((a, b) => a + b, 0)).toBe(c.xdp_redirect);
    // A poll of up to 64 frames: full bulks, plus at most one partial bulk flushed by xdp_do_flush.
    expect(d.flushes).toBeLessThanOrEqual(Math.ceil(c.xdp_redirect / 16) + c.polls);
    expect(c.redirect_done).toBe(c.xdp_redirect);
    expect(c.xdp_redirect_err).toBe(0);
    expect(d.sent + d.xmitDropped).toBe(c.xdp_redirect);
    // Redirected pages leave the ring for good: the refill allocates fresh ones.
    expect(sim.counters().cache_put).toBe(0);
    expect(checkInvariants(sim)).toEqual([]);
  });
});

describe('the NIC and NAPI', () => {
  it('no posted buffer: the NIC drops and counts rx_missed (a slow CPU lets the ring fill)', () => {
    const sim = run({ rxRingSize: 16, traffic: udpTraffic(59e6, { maxPackets: 3000 }) }, nativeXdp2());
    expect(sim.counters().rx_missed).toBeGreaterThan(0);
    expect(sim.events().filter((e) => e.kind === 'rx_missed')).toHaveLength(sim.counters().rx_missed);
  });

  it('a poll processes at most 64 packets (NAPI budget), then polls again', () => {
    const sim = run({ rxRingSize: 512, traffic: udpTraffic(40e6, { maxPackets: 3000 }) }, nativeXdp2());
    const ev = sim.events();
    let inPoll = 0;
    let max = 0;
    for (const e of ev) {
      if (e.kind === 'napi_poll') inPoll = 0;
      if (e.kind === 'xdp_run') max = Math.max(max, ++inPoll);
    }
    expect(max).toBe(64);
    expect(sim.counters().budget_exhausted).toBeGreaterThan(0);
  });

  it('interrupt moderation: at a low rate one interrupt per 16 us, not per packet', () => {
    const sim = run({ traffic: udpTraffic(100e3, { maxPackets: 200 }) }, nativeXdp1());
    const irqs = sim.counters().interrupts;
    // 200 packets 10 us apart, rx-usecs 16: the timer fires with two completions waiting.
    expect(irqs).toBeGreaterThanOrEqual(95);
    expect(irqs).toBeLessThanOrEqual(105);
    const fast = run({ traffic: udpTraffic(10e6, { maxPackets: 2000 }) }, nativeXdp1());
    // At 10 Mpps rx-frames 44 triggers first: far fewer interrupts than packets.
    expect(fast.counters().interrupts).toBeLessThan(2000 / 30);
  });

  it('one page can be followed from the rx ring to the program, the tx ring, the cache and back', () => {
    const sim = run({ rxRingSize: 64, txRingSize: 16, traffic: udpTraffic(20e6, { maxPackets: 400 }) }, nativeXdp2());
    const ev = sim.events();
    const page = ev.find((e) => e.kind === 'tx_post')!.page;
    const life = ev.filter((e) => e.page === page).map((e) => e.kind);
    const order = ['nic_rx', 'xdp_run', 'xdp_tx', 'tx_post', 'tx_done', 'page_cache_put', 'page_cache_get', 'rx_refill', 'nic_rx'];
    let k = 0;
    for (const kind of life) if (kind === order[k]) k++;
    expect(k).toBe(order.length);
  });
});

describe('attach, replace, MTU', () => {
  it('attaching reconfigures the rings to order-0 pages; replacing swaps the pointer without a restart', () => {
    const sim = new Simulation(base({ traffic: udpTraffic(1e6, { maxPackets: 100 }) }));
    expect(sim.nic.mode).toBe('frags');
    sim.run({ packets: 20 });
    const a = sim.attach(nativeXdp1());
    expect(a).toEqual({ ok: true, restarted: true });
    expect(sim.nic.mode).toBe('order0');
    const pagesBefore = Array.from(sim.nic.rings[0]!.slotPage);
    expect(sim.attach(nativeXdp2())).toEqual({ ok: true, restarted: false });
    expect(Array.from(sim.nic.rings[0]!.slotPage)).toEqual(pagesBefore);
    expect(sim.nic.rings[0]!.prog!.name).toMatch(/xdp2/);
    expect(sim.attach(null)).toEqual({ ok: true, restarted: true });
    expect(sim.nic.mode).toBe('frags');
    while (sim.stepEvent());
    expect(checkInvariants(sim)).toEqual([]);
  });

  it('an MTU that needs more than one fragment refuses XDP, and XDP refuses such an MTU', () => {
    const sim = new Simulation(base({ mtu: 9000, traffic: udpTraffic(1e6, { maxPackets: 10 }) }));
    const r = sim.attach(nativeXdp1());
    expect(r.ok).toBe(false);
    expect(!r.ok && r.message).toBe('mlx4_en: cannot set XDP: MTU 9000 needs more than one rx fragment (largest MTU with XDP: 1514)');
    expect(sim.setMtu(1500)).toEqual({ ok: true });
    expect(sim.attach(nativeXdp1()).ok).toBe(true);
    const m = sim.setMtu(1515);
    expect(!m.ok && m.message).toMatch(/MTU 1515 requires multiple rx fragments but XDP is running/);
    expect(sim.setMtu(1514)).toEqual({ ok: true });
    expect(sim.nic.mtu).toBe(1514);
  });
});
