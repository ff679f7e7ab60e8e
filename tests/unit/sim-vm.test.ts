/** The driver running real bytecode: compiled examples in the VM, on the simulated pages in place. */
import { describe, expect, it } from 'vitest';
import { checkInvariants, Simulation, vmHook, type VmHook } from '../../src/sim';
import { exampleSpec } from '../../src/engine/programs';
import { compileSource } from '../../src/engine/pipeline';
import { decodePacket } from '../../src/net';
import { base, udpTraffic } from './sim-helpers';

const load = (id: string): VmHook => {
  const h = vmHook(exampleSpec(id), { name: id });
  if ('error' in h) throw new Error(h.error);
  return h;
};

describe('XDP programs as bytecode in the VM', () => {
  it('xdp1 counts every UDP packet in its per-CPU map and drops it', () => {
    const prog = load('xdp1');
    const sim = new Simulation(base({ traffic: udpTraffic(5e6, { maxPackets: 700 }) }), prog);
    while (sim.stepEvent());
    expect(sim.counters().xdp_drop).toBe(700);
    const key = new Uint8Array(4);
    key[0] = 17;
    const v = prog.maps[0]!.userLookup(key)!;
    expect(new DataView(v[0]!.buffer, v[0]!.byteOffset).getBigInt64(0, true)).toBe(700n);
    expect(sim.counters().xdp_drop).toBeGreaterThan(0);
  });

  it('a program that cannot write the packet lets pages keep their DMA\'d frame, and each kept frame is what the page holds', () => {
    expect(load('xdp1').packetReadOnly).toBe(true);
    expect(load('xdp2').packetReadOnly).toBe(false);
    // Two sources with the same flow: one template array, so a recycled page re-receives the frame it holds.
    const src = { ratePps: 2e6, srcMac: '02:00:00:00:00:aa', dstMac: '02:00:00:00:00:bb' };
    const sim = new Simulation(base({ pageCache: true, xdpRxMode: 'order0', traffic: { linkGbps: 40, maxPackets: 3000, sources: [src, src] } }), load('xdp1'));
    while (sim.stepEvent());
    const a = sim.machine.alloc;
    let kept = 0;
    for (let p = 0; p < a.totalPages; p++) {
      const f = a.dmaFrame[p];
      if (!f) continue;
      kept++;
      expect(a.memory.subarray(a.dmaAt[p]!, a.dmaAt[p]! + f.length)).toEqual(f);
    }
    expect(kept).toBeGreaterThan(0);
    expect(sim.counters().xdp_drop).toBe(3000);
    // A program that may write: nothing is kept once it is attached.
    sim.attach(load('xdp2'));
    for (let p = 0; p < a.totalPages; p++) expect(a.dmaFrame[p]).toBeNull();
  });

  it('xdp2 swaps the MAC addresses in the page the NIC will transmit from', () => {
    const sim = new Simulation({ ...base({ traffic: { linkGbps: 40, maxPackets: 40, sources: [{ ratePps: 1e6, srcMac: '02:00:00:00:00:aa', dstMac: '02:00:00:00:00:bb' }] } }), trace: true }, load('xdp2'));
    sim.run({ packets: 20 });
    const tx = sim.nic.rings[0]!.tx;
    expect(tx.prod).toBeGreaterThan(tx.cons);
    const s = tx.cons & tx.mask;
    const off = tx.slotData[s]!;
    const frame = sim.machine.alloc.memory.subarray(off, off + tx.slotLen[s]!);
    const d = decodePacket(frame);
    expect(d.eth).toMatchObject({ dst: '02:00:00:00:00:aa', src: '02:00:00:00:00:bb' });
    while (sim.stepEvent());
    expect(sim.counters().tx_packets).toBe(40);
    expect(checkInvariants(sim)).toEqual([]);
  });

  it('the instruction count the VM reports is what the cost model charges', () => {
    const prog = load('xdp1');
    const sim = new Simulation(base({ traffic: udpTraffic(1e6, { maxPackets: 100 }) }), prog);
    while (sim.stepEvent());
    const per = sim.machine.costs;
    const sym = per.symbolId('bpf_prog_run_xdp');
    const cycles = sim.machine.cpus[0]!.sym[sym]!;
    // 6 cycles entry + 0.6 per instruction, per packet: solve for the mean instruction count.
    const insns = (cycles / 100 - 6) / 0.6;
    expect(insns).toBeGreaterThan(15);
    expect(insns).toBeLessThan(60);
    expect(Number.isInteger(Math.round(insns * 1e6) / 1e6)).toBe(true);
  });

  it('adjust_head and adjust_tail stop at the frame\'s own page, not at the page pool around it', () => {
    // mlx4 in order-0 mode: 256 bytes of headroom before a 60-byte frame, a
    // 4096-byte frame_sz. The VM sees the whole pool (data at the page's offset
    // in it): the helpers must measure from data_hard_start, the page's start.
    const prog = (call: string): VmHook => {
      const spec = compileSource(`#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
SEC("xdp") int f(struct xdp_md *ctx) { return ${call} == 0 ? XDP_DROP : XDP_PASS; }
char _license[] SEC("license") = "GPL";`);
      if ('error' in spec) throw new Error(spec.error);
      const h = vmHook(spec);
      if ('error' in h) throw new Error(h.error);
      return h;
    };
    const run = (call: string) => {
      const sim = new Simulation(base({ xdpRxMode: 'order0', traffic: udpTraffic(1e6, { maxPackets: 50 }) }), prog(call));
      while (sim.stepEvent());
      const c = sim.counters();
      return { ok: c.xdp_drop, refused: c.xdp_pass };
    };
    // Down to 40 bytes (the xdp_frame) above data_hard_start, and no further.
    expect(run('bpf_xdp_adjust_head(ctx, -216)')).toEqual({ ok: 50, refused: 0 });
    expect(run('bpf_xdp_adjust_head(ctx, -217)')).toEqual({ ok: 0, refused: 50 });
    // data_meta likewise.
    expect(run('bpf_xdp_adjust_meta(ctx, -216)')).toEqual({ ok: 50, refused: 0 });
    expect(run('bpf_xdp_adjust_meta(ctx, -220)')).toEqual({ ok: 0, refused: 50 });
    // The tail up to frame_sz less skb_shared_info (320): 4096 - 320 - (256 + 60).
    expect(run('bpf_xdp_adjust_tail(ctx, 3460)')).toEqual({ ok: 50, refused: 0 });
    expect(run('bpf_xdp_adjust_tail(ctx, 3461)')).toEqual({ ok: 0, refused: 50 });
  });
});
