/**
 * A followed packet's journey past the verdict (src/sim/journey.ts merged
 * with the trace by src/engine/journey.ts): XDP_TX to the page's return,
 * a devmap redirect through the bulk queue, flush, egress port and back,
 * an AF_XDP frame through the socket's rings to the fill ring; recording
 * it changes nothing in the run, and a followed packet keeps its bytes.
 */
import { describe, expect, it } from 'vitest';
import { DriverSim, MAX_FOLLOWED } from '../../src/engine/simAdapter';
import { loadProgram } from '../../src/engine/vmHook';
import { DEFAULT_SETTINGS, type SimSettings } from '../../src/engine/simTypes';
import { EXAMPLES } from '../../src/examples';
import { compileSource } from '../../src/engine/pipeline';
import { RUNS_KEPT } from '../../src/engine/vmHook';
import type { PacketDetail } from '../../src/engine';
import { Simulation } from '../../src/sim';
import { simConfig } from '../../src/engine/simAdapter';
import { examplePrograms } from '../../src/engine/programs';

function machine(id: string, extra: Partial<SimSettings['driver']> = {}): DriverSim {
  const ex = EXAMPLES.find((e) => e.id === id)!;
  const p = compileSource(ex.source, `${id}.c`);
  if ('error' in p) throw new Error(p.error);
  const st: SimSettings = { traffic: { ...DEFAULT_SETTINGS.traffic }, driver: { ...DEFAULT_SETTINGS.driver, ...ex.setup, ...extra } };
  const sim = new DriverSim(loadProgram);
  sim.reset(st, { program: p }, null);
  return sim;
}

function followLatest(sim: DriverSim): PacketDetail {
  sim.advance('event', 3000);
  const first = sim.inspect(null);
  if ('error' in first) throw new Error(first.error);
  const d = sim.followToEnd(first.packet);
  if ('error' in d) throw new Error(d.error);
  expect(d.packet).toBe(first.packet);
  return d;
}

/** The stages after the program's verdict, in order. */
const after = (d: PacketDetail, from: string) => {
  const kinds = d.lifecycle.map((s) => s.kind);
  return kinds.slice(kinds.indexOf(from));
};

function expectLabelled(d: PacketDetail): void {
  for (const s of d.lifecycle) {
    // Every number is named: no bare "(60)" at the end of a line.
    expect(s.text).not.toMatch(/\(\s*-?\d+\s*\)\s*$/);
    expect(Number.isFinite(s.ns)).toBe(true);
  }
}

describe('packet journey', () => {
  it('XDP_TX (xdp2 on mlx4): tx ring, doorbell, wire, completion, page back in the page cache', () => {
    const d = followLatest(machine('xdp2'));
    expect(d.ended).toBe(true);
    expect(after(d, 'xdp_run')).toEqual(['xdp_run', 'xdp_tx', 'tx_post', 'tx_doorbell', 'xmit', 'tx_done', 'page_cache_put']);
    expectLabelled(d);
    const t = (k: string) => d.lifecycle.find((s) => s.kind === k)!.ns;
    expect(t('tx_post')).toBeLessThanOrEqual(t('tx_doorbell'));
    expect(t('tx_doorbell')).toBeLessThan(t('xmit'));
    expect(t('xmit')).toBeLessThanOrEqual(t('tx_done'));
    expect(d.lifecycle.at(-1)!.text).toMatch(/page_cache_put q0: page \d+ back into the rx ring's page cache/);
    expect(d.run?.action).toBe('XDP_TX');
  });

  it('XDP_TX on vmxnet3: the page goes back to its page_pool', () => {
    const d = followLatest(machine('xdp2', { nic: 'vmxnet3', model: 'seed2023-esxi-vmxnet3' }));
    expect(d.ended).toBe(true);
    expect(after(d, 'xdp_run')).toEqual(['xdp_run', 'xdp_tx', 'tx_post', 'tx_doorbell', 'xmit', 'tx_done', 'xdp_return_frame']);
    expect(d.lifecycle.at(-1)!.text).toMatch(/page_pool/);
    expectLabelled(d);
  });

  it('devmap (xdp_redirect_map): bulk queue, flush, ndo_xdp_xmit on port 2, wire, completion, xdp_return_frame', () => {
    const d = followLatest(machine('xdp_redirect_map'));
    expect(d.ended).toBe(true);
    expect(after(d, 'xdp_run')).toEqual(['xdp_run', 'xdp_redirect', 'bq_enqueue', 'bq_xmit_all', 'ndo_xdp_xmit', 'tx_doorbell', 'xmit', 'tx_clean', 'xdp_return_frame']);
    expect(d.lifecycle.find((s) => s.kind === 'bq_xmit_all')!.text).toMatch(/bq_xmit_all: the bulk leaves the queue \(frames in the bulk: \d+\)/);
    expect(d.lifecycle.at(-1)!.text).toMatch(/xdp_return_frame: page \d+ goes back to the rx ring's page reuse/);
    expectLabelled(d);
  });

  it('devmap flushed by xdp_do_flush at the end of a poll (a queue that never fills)', () => {
    // Slow traffic: each poll sees a frame or two, so the bulk never reaches 16.
    const sim = machine('xdp_redirect_map');
    sim.reset({ traffic: { ...DEFAULT_SETTINGS.traffic, ratePps: 100_000 }, driver: { ...DEFAULT_SETTINGS.driver, ...EXAMPLES.find((e) => e.id === 'xdp_redirect_map')!.setup } }, { program: compileOk('xdp_redirect_map') }, null);
    const d = followLatest(sim);
    expect(d.lifecycle.find((s) => s.kind === 'bq_xmit_all')!.text).toMatch(/xdp_do_flush → __dev_flush → bq_xmit_all/);
    expect(d.ended).toBe(true);
  });

  it('cpumap (xdp_redirect_cpu): bulk queue, bq_flush_to_queue, the remote CPU drops it, the page back in its page_pool', () => {
    const d = followLatest(machine('xdp_redirect_cpu'));
    expect(d.ended).toBe(true);
    expect(after(d, 'xdp_run')).toEqual(['xdp_run', 'xdp_redirect', 'cpu_map_enqueue', 'bq_flush_to_queue', 'cpu_map_kthread_run', 'xdp_return_frame']);
    expect(d.lifecycle.at(-1)!.text).toMatch(/remote cpu xdp_return_frame: page \d+ goes back to its page_pool/);
    expectLabelled(d);
  });

  it('AF_XDP l2fwd (xdpsock, zero-copy): rx ring, the application, tx ring, wire, completion ring, fill ring', () => {
    const d = followLatest(machine('xdpsock'));
    expect(d.ended).toBe(true);
    expect(after(d, 'xdp_run')).toEqual(['xdp_run', 'xdp_redirect', 'xsk_rcv', 'xsk_rx_consume', 'xsk_tx_produce', 'xsk_xmit', 'xmit', 'xsk_cq', 'xsk_fq']);
    // One chunk all the way round.
    const chunks = new Set(d.lifecycle.flatMap((s) => s.text.match(/chunk (?:at )?(0x[0-9a-f]+)/)?.[1] ?? []));
    expect(chunks.size).toBe(1);
    expectLabelled(d);
  });

  it('AF_XDP rxdrop: the application hands the chunk straight back to the fill ring', () => {
    const d = followLatest(machine('xdpsock', { xskApp: 'rxdrop' }));
    expect(after(d, 'xdp_run')).toEqual(['xdp_run', 'xdp_redirect', 'xsk_rcv', 'xsk_rx_consume', 'xsk_fq']);
    expect(d.ended).toBe(true);
  });

  it('a frame lost part-way ends its journey there, named: a copy-mode socket overrun at 30 Mpps fails the redirect (xdp_exception)', () => {
    const ex = EXAMPLES.find((e) => e.id === 'xdpsock')!;
    const p = compileSource(ex.source, 'xdpsock.c');
    if ('error' in p) throw new Error(p.error);
    const sim = new DriverSim(loadProgram);
    sim.reset({ traffic: { ...DEFAULT_SETTINGS.traffic, ratePps: 30_000_000 }, driver: { ...DEFAULT_SETTINGS.driver, ...ex.setup, xsk: 'copy' } }, { program: p }, null);
    const seen = { lost: 0, returned: 0 };
    for (let k = 0; k < 12; k++) {
      sim.advance('event', 3000);
      const first = sim.inspect(null);
      if ('error' in first) continue;
      const d = sim.followToEnd(first.packet, 20_000);
      if ('error' in d) throw new Error(d.error);
      // Every followed frame's journey ends: its chunk back on the fill ring, or the frame lost.
      expect(d.ended, d.lifecycle.map((s) => s.kind).join(' > ')).toBe(true);
      expect(d.note ?? '').not.toMatch(/has not ended/);
      if (d.lostAt) {
        seen.lost++;
        expect(d.lostAt).toBe('xdp_exception');
        expect(d.lifecycle.map((s) => s.kind)).toEqual(expect.arrayContaining(['xdp_run', 'xdp_redirect', 'xdp_exception']));
        expect(d.lifecycle.some((s) => s.kind.startsWith('xsk_'))).toBe(false);
      } else seen.returned++;
    }
    expect(seen.lost).toBeGreaterThan(0);
  });

  it('recording the journey changes nothing in the run', () => {
    const cfg = simConfig({ traffic: { ...DEFAULT_SETTINGS.traffic }, driver: { ...DEFAULT_SETTINGS.driver, ...EXAMPLES.find((e) => e.id === 'xdpsock')!.setup } }, null);
    const a = new Simulation(cfg, examplePrograms('xdpsock'));
    const b = new Simulation(cfg, examplePrograms('xdpsock'));
    expect(a.machine.journey.on).toBe(true);
    b.machine.journey.on = false;
    a.step('event', 20_000);
    b.step('event', 20_000);
    expect(a.machine.journey.count).toBeGreaterThan(1000);
    expect(b.machine.journey.count).toBe(0);
    expect(a.traceHash).toBe(b.traceHash);
    expect(a.counters()).toEqual(b.counters());
  });

  it('a followed packet keeps its records and bytes long after the windows moved on', () => {
    const sim = machine('xdp2');
    sim.advance('event', 3000);
    const d = sim.inspect(null);
    if ('error' in d) throw new Error(d.error);
    // Far more program runs than the inspector keeps, and more trace records than the window.
    sim.advance('event', 120_000);
    const again = sim.inspect(d.packet);
    if ('error' in again) throw new Error(again.error);
    expect(again.run?.before.hex).toBe(d.run!.before.hex);
    expect(again.lifecycle[0]!.kind).toBe('nic_rx');
    expect(again.ended).toBe(true);
    expect(RUNS_KEPT).toBeLessThan(2000);
    // A packet nobody followed has lost its bytes by now.
    const other = sim.inspect(d.packet + 1);
    expect('error' in other || !other.run).toBe(true);
    expect(MAX_FOLLOWED).toBeGreaterThan(1);
  });
});

function compileOk(id: string) {
  const p = compileSource(EXAMPLES.find((e) => e.id === id)!.source, `${id}.c`);
  if ('error' in p) throw new Error(p.error);
  return p;
}
