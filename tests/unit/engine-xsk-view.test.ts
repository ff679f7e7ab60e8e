/**
 * The AF_XDP view (src/engine/views/xsk.ts): every UMEM chunk has exactly
 * one owner, the rings' live entries are the chunks the grid puts in them,
 * traffic moves the rings round, and the modes differ as the driver models
 * them. Also the app's end of it: the xdpsock example compiles, passes the
 * verifier, and with the socket's XSKMAP entry installed by "user space"
 * its frames reach the socket.
 */
import { describe, expect, it } from 'vitest';
import { createEngine, DEFAULT_SETTINGS, landedToolchain, type SimSettings, type XskView } from '../../src/engine';
import { simConfig } from '../../src/engine/simAdapter';
import { umemOwners, xskView, UMEM_OWNERS } from '../../src/engine/views/xsk';
import { XSK_TEACHING } from '../../src/engine/xskSocket';
import { exampleById } from '../../src/examples';
import { I40eXsk, Simulation } from '../../src/sim';
import { examplePrograms } from '../../src/engine/programs';

const XSK_DRIVER = { nic: 'i40e', model: 'seed2019-gold6140-i40e-25g', queues: 1 } as const;

function settings(xsk: SimSettings['driver']['xsk']): SimSettings {
  return { traffic: { ...DEFAULT_SETTINGS.traffic }, driver: { ...DEFAULT_SETTINGS.driver, ...XSK_DRIVER, xdpMode: xsk === 'skb' ? 'generic' : 'native', xsk } };
}

/** The app's machine for these settings, running the compiled xdpsock program (XSKMAP entry installed). */
function machine(xsk: 'zc' | 'copy' | 'skb', over: Partial<ReturnType<typeof simConfig>> = {}): Simulation {
  return new Simulation({ ...simConfig(settings(xsk), null), ...over }, examplePrograms('xdpsock'));
}

function ownerCount(v: XskView, id: string): number {
  const o = v.umem.owners.findIndex((x) => x.id === id);
  return v.umem.chunks.filter((c) => c === o).length;
}

function produced(v: XskView, kind: string): number {
  return v.rings.find((r) => r.kind === kind)!.slots.filter((s) => s !== 0).length;
}

const counter = (v: XskView, name: string) => v.counters.find((c) => c.name === name)?.value;

/** The checks every snapshot must pass, whatever the machine is doing. */
function expectConsistent(sim: Simulation, v: XskView): void {
  const nic = sim.nic as I40eXsk;
  expect(v.umem.chunks).toHaveLength(v.umem.frames);
  expect(v.umem.chunks.every((c) => Number.isInteger(c) && c >= 0 && c < v.umem.owners.length)).toBe(true);
  expect(v.umem.owners.reduce((a, o) => a + ownerCount(v, o.id), 0)).toBe(v.umem.frames);
  // The simulator's own conservation check agrees that each chunk is in one place…
  expect(nic.extraInvariants()).toEqual([]);
  // …so the chunks the view gives an owner other than "free" are exactly those in circulation (a chunk claimed twice would leave one short).
  expect(v.umem.frames - ownerCount(v, 'free')).toBe(nic.chunksInUse);
  // Each ring's produced-but-not-consumed slots are the chunks the grid puts in that ring.
  expect(produced(v, 'fill')).toBe(ownerCount(v, 'fill'));
  expect(produced(v, 'xsk_rx')).toBe(ownerCount(v, 'rx'));
  expect(produced(v, 'xsk_tx')).toBe(ownerCount(v, 'tx'));
  expect(produced(v, 'completion')).toBe(ownerCount(v, 'completion'));
  // Each ring's entries are drawn in its own legend state (so in its chunks' colour).
  v.rings.forEach((r, k) => {
    expect(r.legend[k + 1]!.state).toBe(r.kind);
    expect(r.slots.every((x) => x === 0 || x === k + 1)).toBe(true);
  });
  expect(produced(v, 'fill')).toBe(nic.fq.entries);
  expect(produced(v, 'completion')).toBe(nic.cq.entries);
}

describe('AF_XDP view', () => {
  it('is null without a socket', () => {
    const sim = new Simulation(simConfig(DEFAULT_SETTINGS, null));
    expect(xskView(sim)).toBeNull();
  });

  it('before traffic: xdpsock has posted a ring-full of chunks, which the driver moved onto its rx descriptors', () => {
    const sim = machine('zc');
    const v = xskView(sim)!;
    expect(v).toMatchObject({ mode: 'zc', app: 'l2fwd', umem: { frames: XSK_TEACHING.frames, chunkSize: 2048, headroom: 0, unaligned: false } });
    expect(v.rings.map((r) => [r.kind, r.size])).toEqual([['fill', 256], ['xsk_rx', 256], ['xsk_tx', 256], ['completion', 256]]);
    expectConsistent(sim, v);
    const rxRing = sim.nic.rings[0]!;
    expect(ownerCount(v, 'nic_rx')).toBe(rxRing.size);
    expect(ownerCount(v, 'fill')).toBe(XSK_TEACHING.ringSize - rxRing.size);
    expect(ownerCount(v, 'free')).toBe(XSK_TEACHING.frames - XSK_TEACHING.ringSize);
    const fill = v.rings[0]!;
    expect(fill.pointers).toEqual([{ name: 'prod', index: 0 }, { name: 'cons', index: rxRing.size }]);
  });

  it('l2fwd traffic moves chunks round fill → rx → tx → completion → fill, every chunk in one place at every step', () => {
    const sim = machine('zc');
    const seen = new Set<string>();
    for (let k = 0; k < 40; k++) {
      sim.step('event', 397);
      const v = xskView(sim)!;
      expectConsistent(sim, v);
      for (const o of UMEM_OWNERS) if (ownerCount(v, o.id) > 0) seen.add(o.id);
    }
    const v = xskView(sim)!;
    // Frames arrived, were forwarded and completed; xdpsock recycled the completions into the fill ring.
    expect(counter(v, 'rx')).toBeGreaterThan(1000);
    expect(counter(v, 'tx')).toBeGreaterThan(1000);
    expect(counter(v, 'completion')).toBeGreaterThan(1000);
    expect(counter(v, 'fill')).toBe(XSK_TEACHING.ringSize + counter(v, 'completion')!);
    expect(counter(v, 'tx')! - counter(v, 'completion')!).toBe(ownerCount(v, 'nic_tx'));
    expect(counter(v, 'rx_dropped')).toBe(0);
    // The rate is per second of simulated time: about the offered 2 Mpps.
    expect(v.counters.find((c) => c.name === 'rx')!.rate).toBeGreaterThan(1e6);
    expect(v.counters.find((c) => c.name === 'rx')!.rate).toBeLessThan(3e6);
    // Somewhere along the run chunks sat on the NIC's tx descriptors, not only in the rings.
    for (const id of ['fill', 'nic_rx', 'nic_tx']) expect(seen).toContain(id);
    const nic = sim.nic as I40eXsk;
    const cq = v.rings.find((r) => r.kind === 'completion')!;
    expect(cq.pointers.find((p) => p.name === 'prod')!.index).toBe(nic.cq.producer % cq.size);
  });

  it('zero-copy posts UMEM chunks on the NIC rx descriptors; copy and SKB mode post the driver’s own pages and copy', () => {
    const views = (['zc', 'copy', 'skb'] as const).map((mode) => {
      const sim = machine(mode);
      sim.step('event', 12_000);
      const v = xskView(sim)!;
      expectConsistent(sim, v);
      return v;
    });
    const [zc, copy, skb] = views as [XskView, XskView, XskView];
    expect(ownerCount(zc, 'nic_rx')).toBeGreaterThan(0);
    for (const v of [copy, skb]) {
      expect(ownerCount(v, 'nic_rx')).toBe(0);
      // The frames still reach the socket (xsk_rcv copies into a fill-ring chunk).
      expect(counter(v, 'rx')).toBeGreaterThan(100);
      // Nothing posted on the NIC, so the fill ring keeps every chunk not in flight.
      expect(ownerCount(v, 'fill')).toBeGreaterThan(ownerCount(zc, 'fill'));
      expect(counter(v, 'rx_fill_ring_empty_descs')).toBeUndefined();
    }
    expect(counter(zc, 'rx_fill_ring_empty_descs')).toBeGreaterThanOrEqual(0);
    expect([zc.mode, copy.mode, skb.mode]).toEqual(['zc', 'copy', 'skb']);
  });

  it('reads unaligned ring addresses (base + offset in the high 16 bits) to the right chunk', () => {
    const sim = machine('zc', { xsk: { mode: 'zc', ...XSK_TEACHING, unaligned: true } });
    sim.step('event', 12_000);
    const v = xskView(sim)!;
    expect(v.umem.unaligned).toBe(true);
    expectConsistent(sim, v);
    expect(counter(v, 'rx')).toBeGreaterThan(100);
  });

  it('umemOwners is one byte per chunk', () => {
    const sim = machine('zc');
    const owners = umemOwners(sim.nic as I40eXsk);
    expect(owners).toBeInstanceOf(Uint8Array);
    expect(owners.length).toBe(XSK_TEACHING.frames);
  });
});

describe('the xdpsock example in the app', () => {
  const engine = () => createEngine(landedToolchain);
  const source = exampleById('xdpsock')!.source;

  it('compiles, passes the verifier and names the seed 001 machine', () => {
    const b = engine().build(source);
    expect(b.compile.status).toBe('ok');
    expect(b.verify).toMatchObject({ status: 'ok', accepted: true });
    expect(exampleById('xdpsock')!.setup).toMatchObject({ nic: 'i40e', model: 'seed2019-gold6140-i40e-25g', xsk: 'zc' });
  });

  it('runs end to end: the socket is put in xsks_map at queue 0, every frame is redirected into it', () => {
    const e = engine();
    e.build(source);
    const c = e.simConfigure({ driver: { ...XSK_DRIVER, xsk: 'zc' } });
    if (!c.ok) throw new Error(c.reason);
    expect(c.snapshot.attached).toEqual({ ok: true, name: 'xdp_sock_prog' });
    const maps = e.mapsRead();
    if (!maps.ok) throw new Error(maps.reason);
    expect(maps.maps[0]).toMatchObject({ name: 'xsks_map', type: 'xskmap', entries: [{ key: '00000000', value: ['03000000'] }] });
    const r = e.simStep('event', 20_000);
    if (!r.ok) throw new Error(r.reason);
    const v = r.snapshot.xsk!;
    const redirect = r.snapshot.actions.find((a) => a.name === 'REDIRECT')!.value;
    expect(redirect).toBeGreaterThan(500);
    expect(r.snapshot.actions.find((a) => a.name === 'PASS')!.value).toBe(0);
    expect(counter(v, 'rx')).toBe(redirect);
    // l2fwd sends every frame back: the netdev's tx_packets counts the socket's sent frames (as i40e's does), not 0.
    const txPackets = r.snapshot.counters.find((c) => c.name === 'tx_packets')!.value;
    expect(counter(v, 'completion')).toBeGreaterThan(500);
    expect(txPackets).toBe(counter(v, 'completion'));
  });

  it('a program that does not redirect into the XSKMAP delivers nothing to the socket', () => {
    const e = engine();
    e.build(exampleById('xdp1')!.source);
    e.simConfigure({ driver: { ...XSK_DRIVER, xsk: 'zc' } });
    const r = e.simStep('event', 20_000);
    if (!r.ok) throw new Error(r.reason);
    expect(r.snapshot.actions.find((a) => a.name === 'DROP')!.value).toBeGreaterThan(500);
    expect(counter(r.snapshot.xsk!, 'rx')).toBe(0);
  });

  it('xdpsock -r drops what it receives and sends nothing; -t only sends', () => {
    const run = (xskApp: 'rxdrop' | 'txonly') => {
      const e = engine();
      e.build(source);
      const c = e.simConfigure({ driver: { ...XSK_DRIVER, xsk: 'zc', xskApp } });
      if (!c.ok) throw new Error(c.reason);
      const r = e.simStep('event', 30_000);
      if (!r.ok) throw new Error(r.reason);
      expect(r.snapshot.xsk!.app).toBe(xskApp);
      return r.snapshot.xsk!;
    };
    const rx = run('rxdrop');
    expect(counter(rx, 'rx')).toBeGreaterThan(500);
    expect(counter(rx, 'tx')).toBe(0);
    expect(counter(rx, 'completion')).toBe(0);
    const tx = run('txonly');
    expect(counter(tx, 'tx')).toBeGreaterThan(500);
    expect(counter(tx, 'completion')).toBeGreaterThan(500);
    expect(counter(tx, 'rx')).toBe(0);
  });

  it('bpf_redirect(ifindex) is not a redirect into the socket: it fails with an xdp_exception and the socket sees nothing', () => {
    const e = engine();
    const b = e.build(`#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
SEC("xdp")
int to_device(struct xdp_md *ctx)
{
	return bpf_redirect(7, 0);
}
char _license[] SEC("license") = "GPL";
`);
    expect(b.verify.status === 'ok' && b.verify.accepted).toBe(true);
    e.simConfigure({ driver: { ...XSK_DRIVER, xsk: 'zc' } });
    const r = e.simStep('event', 20_000);
    if (!r.ok) throw new Error(r.reason);
    expect(r.snapshot.actions.find((a) => a.name === 'REDIRECT')!.value).toBeGreaterThan(500);
    expect(counter(r.snapshot.xsk!, 'rx')).toBe(0);
    expect(counter(r.snapshot.xsk!, 'rx_dropped')).toBe(0);
    expect(r.snapshot.recent.some((ev) => ev.text.includes('xdp_exception'))).toBe(true);
  });

  it('an AF_XDP setup the simulator refuses comes back with its one-line reason and no socket', () => {
    const e = engine();
    e.build(source);
    const c = e.simConfigure({ driver: { ...XSK_DRIVER, queues: 2, xsk: 'zc' } });
    // Refused before the restart: the reason is the simulator's one line, and the machine keeps its settings.
    expect(c).toEqual({ ok: false, reason: expect.stringMatching(/^these settings are refused: AF_XDP: one queue/) });
    if (!c.ok) expect(c.reason).not.toContain('\n');
    const r = e.simStep('event', 1000);
    if (!r.ok) throw new Error(r.reason);
    expect(r.snapshot.settings.driver.xsk).toBe('off');
    expect(r.snapshot.xsk).toBeNull();
  });
});
