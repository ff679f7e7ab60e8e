/** xdpdump in the engine: the capture of the program's runs, as pcapng (entry, exit, verdict comments) and pcap. */
import { describe, expect, it } from 'vitest';
import { createEngine, landedToolchain } from '../../src/engine';
import { readPcap, readPcapng } from '../../src/net';

const hex = (b: Uint8Array) => Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');

describe('xdpdump', () => {
  it('captures every run while on: before/after bytes, verdicts, packet numbers that the inspector agrees with', () => {
    const e = createEngine(landedToolchain);
    e.build(e.hello().examples.find((x) => x.name === 'xdp2')!.source);
    expect(e.xdpdumpFile('pcapng')).toEqual({ ok: false, reason: 'nothing captured: start xdpdump, then run or step the machine' });
    e.simStep('event', 500);
    expect(e.xdpdump('start')).toEqual({ capturing: true, packets: 0, full: false });
    e.simStep('event', 3000);
    const st = e.xdpdump('stop');
    if ('error' in st) throw new Error(st.error);
    expect(st.packets).toBeGreaterThan(100);

    const f = e.xdpdumpFile('pcapng');
    if (!f.ok) throw new Error(f.reason);
    expect(f.packets).toBe(st.packets);
    expect(f.name).toBe('xdpdump-xdp_prog2.pcapng');
    const r = readPcapng(f.bytes);
    expect(r.interfaces.map((i) => i.name)).toEqual(['mlx4@entry', 'mlx4@exit']);
    expect(r.packets).toHaveLength(2 * st.packets);
    const nums: number[] = [];
    for (let i = 0; i < r.packets.length; i += 2) {
      const [entry, exit] = [r.packets[i]!, r.packets[i + 1]!];
      expect([entry.iface, exit.iface]).toEqual([0, 1]);
      expect(entry.tsNs).toBe(exit.tsNs);
      const n = Number(/^packet #(\d+) rx queue 0 cpu 0: entry of xdp_prog2$/.exec(entry.comments[0]!)![1]);
      expect(exit.comments[0]).toMatch(new RegExp(`^packet #${n}: XDP_(TX|DROP|PASS) \\(\\d\\) after \\d+ instructions$`));
      nums.push(n);
      if (/XDP_TX/.test(exit.comments[0]!)) {
        // xdp2 swapped the MACs.
        expect(hex(exit.data.subarray(0, 6))).toBe(hex(entry.data.subarray(6, 12)));
        expect(hex(exit.data.subarray(12))).toBe(hex(entry.data.subarray(12)));
      }
      if (i > 0) expect(entry.tsNs).toBeGreaterThanOrEqual(r.packets[i - 2]!.tsNs);
    }
    // Packet numbers rise, each once.
    expect(new Set(nums).size).toBe(nums.length);
    // The last captured packet is the one the inspector shows with the same bytes (it is still in its window).
    const last = nums.at(-1)!;
    const d = e.inspectPacket(last);
    if ('error' in d) throw new Error(d.error);
    expect(d.run!.before.hex).toBe(hex(r.packets.at(-2)!.data));
    expect(d.run!.after.hex).toBe(hex(r.packets.at(-1)!.data));

    // Stopped: more traffic adds nothing.
    e.simStep('event', 1000);
    expect(e.xdpdump('status')).toEqual({ ...st, capturing: false });

    const p = e.xdpdumpFile('pcap');
    if (!p.ok) throw new Error(p.reason);
    const c = readPcap(p.bytes);
    expect(c.records).toHaveLength(2 * st.packets);
    expect(c.records.map((x) => hex(x.data))).toEqual(r.packets.map((x) => hex(x.data)));
  });

  it('needs a program, and a new machine forgets the capture', () => {
    const e = createEngine(landedToolchain);
    e.build(e.hello().examples.find((x) => x.name === 'missing-bounds-check')!.source);
    expect(e.xdpdump('start')).toEqual({ error: 'xdpdump needs an attached XDP program: build one the verifier accepts' });
    e.build(e.hello().examples.find((x) => x.name === 'xdp2')!.source);
    e.xdpdump('start');
    e.simStep('event', 2000);
    expect((e.xdpdump('status') as { packets: number }).packets).toBeGreaterThan(0);
    e.simReset();
    expect(e.xdpdump('status')).toEqual({ capturing: false, packets: 0, full: false });
  });
});
