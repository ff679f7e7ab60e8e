/**
 * The engine over the stages that have landed (compiler, disassembler,
 * examples, pcap reader, driver simulator): what the app actually runs.
 */
import { describe, expect, it } from 'vitest';
import { createEngine, landedToolchain } from '../../src/engine';
import { writePcap, writePcapng, buildPacket } from '../../src/net';

describe('engine over the landed toolchain', () => {
  const engine = () => createEngine(landedToolchain);

  it('offers the shipped examples, xdp1 first', () => {
    const names = engine().hello().examples.map((e) => e.name);
    expect(names.slice(0, 2)).toEqual(['xdp1', 'xdp2']);
  });

  it('compiles xdp1 and lists its disassembly with the C lines between', () => {
    const e = engine();
    const src = e.hello().examples[0]!.source;
    const b = e.build(src);
    expect(b.compile.status).toBe('ok');
    expect(b.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    expect(b.disasm.status).toBe('ok');
    if (b.disasm.status !== 'ok' || b.compile.status !== 'ok') return;
    const insns = b.disasm.lines.filter((l) => l.kind === 'insn');
    expect(insns.length).toBe(b.compile.insnCount - b.disasm.lines.filter((l) => l.kind === 'insn' && l.text.includes(' ll')).length);
    expect(insns.some((l) => l.kind === 'insn' && l.text === 'exit')).toBe(true);
    const srcLines = b.disasm.lines.filter((l) => l.kind === 'source');
    expect(srcLines.length).toBeGreaterThan(3);
    for (const l of srcLines) if (l.kind === 'source') expect(l.text).toBe(src.split('\n')[l.line - 1]);
  });

  it('puts a compile error on its line', () => {
    const b = engine().build('#include <linux/bpf.h>\n#include <bpf/bpf_helpers.h>\nSEC("xdp")\nint p(struct xdp_md *ctx)\n{\n\treturn undeclared_thing;\n}\n');
    expect(b.compile.status).toBe('failed');
    const err = b.diagnostics.find((d) => d.severity === 'error');
    expect(err?.line).toBe(6);
    expect(err?.col).toBe(9);
    expect(err?.message).toMatch(/undeclared/);
  });

  it('runs xdp1 on the simulated NIC: every packet dropped and counted per protocol in its map', () => {
    const e = engine();
    e.build(e.hello().examples[0]!.source);
    const r = e.simStep('event', 20_000);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    const s = r.snapshot;
    expect(s.packets).toBeGreaterThan(100);
    expect(s.rings.map((x) => x.kind)).toEqual(['rx', 'tx']);
    expect(s.rings[0]!.slots).toHaveLength(128);
    expect(s.series.length).toBeGreaterThan(2);
    expect(s.attached).toEqual({ ok: true, name: 'xdp_prog1' });
    // xdp1 drops everything: every packet the program saw is an XDP_DROP.
    const drop = s.actions.find((x) => x.name === 'DROP')!.value;
    expect(drop).toBeGreaterThan(100);
    expect(s.actions.find((x) => x.name === 'PASS')!.value).toBe(0);
    // …and counts them per IP protocol in its map (UDP is 17).
    const maps = e.mapsRead();
    expect(maps.ok && maps.maps[0]!.name).toBe('rxcnt');
    if (!maps.ok) return;
    const udp = maps.maps[0]!.entries.find((x) => x.key === '11000000')!;
    expect(udp).toBeTruthy();
    const perCpu = udp.value.map((h) => Number(new DataView(Uint8Array.from(h.match(/../g)!.map((b) => parseInt(b, 16))).buffer).getBigInt64(0, true)));
    expect(perCpu.reduce((a, b) => a + b, 0)).toBe(drop);
  });

  it('xdp2 bounces UDP back out: XDP_TX counts and the tx ring fills and drains', () => {
    const e = engine();
    const b = e.build(e.hello().examples[1]!.source);
    expect(b.verify).toMatchObject({ status: 'ok', accepted: true });
    const r = e.simStep('event', 20_000);
    if (!r.ok) throw new Error(r.reason);
    const tx = r.snapshot.actions.find((x) => x.name === 'TX')!.value;
    expect(tx).toBeGreaterThan(100);
    expect(r.snapshot.counters.find((c) => c.name === 'tx_packets')!.value).toBeGreaterThan(0);
    const ring = r.snapshot.rings.find((x) => x.kind === 'tx')!;
    expect(ring.pointers.find((p) => p.name === 'prod')!.index).toBe(tx % ring.size);
  });

  it('a verifier rejection lands on the C line with the kernel message, and nothing is attached', () => {
    const e = engine();
    const ex = e.hello().examples.find((x) => x.name === 'missing-bounds-check')!;
    const b = e.build(ex.source);
    expect(b.verify).toMatchObject({ status: 'ok', accepted: false });
    const d = b.diagnostics.find((x) => x.stage === 'verifier')!;
    expect(d.message).toMatch(/^invalid access to packet, off=\d+ size=\d+, R\d\(id=0,off=\d+,r=0\)$/);
    if (b.verify.status !== 'ok' || b.compile.status !== 'ok') return;
    expect(d.line).toBe(b.compile.lineOf[b.verify.errorPc!]);
    expect(ex.source.split('\n')[d.line - 1]).toMatch(/h_proto|eth->/);
    const s = e.simSnapshot();
    expect(s.ok && s.snapshot.attached).toEqual({ ok: false, reason: 'the verifier rejected the program' });
  });

  it('steps back exactly: one event back equals running one event less', () => {
    const a = engine();
    a.build(a.hello().examples[0]!.source);
    a.simStep('event', 500);
    const back = a.simStepBack();
    const b = engine();
    b.build(b.hello().examples[0]!.source);
    const fwd = b.simStep('event', 499);
    expect(back.ok && fwd.ok).toBe(true);
    if (!back.ok || !fwd.ok) return;
    expect(back.snapshot.events).toBe(499);
    expect(back.snapshot.rings).toEqual(fwd.snapshot.rings);
    expect(back.snapshot.nowNs).toBe(fwd.snapshot.nowNs);
  });

  it('replays an uploaded pcap: every frame reaches the NIC once, then the traffic ends', () => {
    const e = engine();
    const frames = Array.from({ length: 25 }, (_, i) => buildPacket({ l3: 'ipv4', l4: 'udp', sport: 1000 + i, frameLen: 60 }));
    const file = writePcap(frames.map((data, i) => ({ tsNs: i * 1000, data })));
    const r = e.simLoadPcap(file);
    expect(r).toMatchObject({ ok: true, frames: 25 });
    const run = e.simStep('event', 100_000);
    expect(run.ok && run.ran).toBeLessThan(100_000);
    expect(run.ok && run.snapshot.counters.find((c) => c.name === 'offered')?.value).toBe(25);
  });

  it('leaves out records shorter than an Ethernet header and says so (issue 17: 0-byte records ran through XDP as frames)', () => {
    const e = engine();
    const good = buildPacket({ l3: 'ipv4', l4: 'udp', sport: 7, frameLen: 60 });
    const file = writePcap([{ tsNs: 0, data: new Uint8Array(0) }, { tsNs: 1000, data: good }, { tsNs: 2000, data: good.slice(0, 13) }, { tsNs: 3000, data: good }]);
    expect(e.simLoadPcap(file)).toMatchObject({ ok: true, frames: 2, runts: 2 });
    const run = e.simStep('event', 100_000);
    expect(run.ok && run.snapshot.counters.find((c) => c.name === 'offered')?.value).toBe(2);
    const none = engine().simLoadPcap(writePcap([{ tsNs: 0, data: new Uint8Array(0) }]));
    expect(none).toEqual({ ok: false, reason: 'the pcap file holds no packets (1 record shorter than an Ethernet header left out)' });
  });

  it('the chart\'s lines say what they count: a PASS program drops nothing, frames the NIC missed are their own line (issue 18: "drop/s" sat near 2 M/s while only PASS moved)', () => {
    const pass = '#include <linux/bpf.h>\n#include <bpf/bpf_helpers.h>\nSEC("xdp") int p(struct xdp_md *ctx) { return XDP_PASS; }\nchar _l[] SEC("license") = "GPL";\n';
    const e = engine();
    e.build(pass);
    const r = e.simStep('event', 40_000);
    if (!r.ok) throw new Error('the simulation did not run');
    const s = r.snapshot;
    expect(s.series.length).toBeGreaterThan(2);
    expect(Math.max(...s.series.map((p) => p.xdpDropPps))).toBe(0);
    const missed = s.counters.find((c) => c.name === 'rx_missed')!.value;
    const lost = s.counters.filter((c) => ['rx_missed', 'tx_dropped', 'stack_dropped'].includes(c.name)).reduce((a, c) => a + c.value, 0);
    // Whatever the lost line shows is in counters the table names.
    if (Math.max(...s.series.map((p) => p.lostPps)) > 0) expect(lost).toBeGreaterThan(0);
    expect(missed).toBeGreaterThanOrEqual(0);
    // xdp1 drops everything: its drop line carries the traffic, and the lost line only what the ring missed.
    const x = engine();
    x.build(x.hello().examples[0]!.source);
    const d = x.simStep('event', 40_000);
    if (!d.ok) throw new Error('the simulation did not run');
    const last = d.snapshot.series.at(-1)!;
    expect(last.xdpDropPps).toBeGreaterThan(0.9 * last.pps);
  });

  it('replays a pcapng as Wireshark saves it (and as the lab\'s xdpdump writes it)', () => {
    const e = engine();
    const frames = Array.from({ length: 7 }, (_, i) => buildPacket({ l3: 'ipv4', l4: 'udp', sport: 2000 + i, frameLen: 64 }));
    const file = writePcapng([{ name: 'eth0', linkType: 1 }], frames.map((data, i) => ({ iface: 0, tsNs: i * 1000, data })));
    expect(e.simLoadPcap(file)).toMatchObject({ ok: true, frames: 7 });
    const run = e.simStep('event', 100_000);
    expect(run.ok && run.snapshot.counters.find((c) => c.name === 'offered')?.value).toBe(7);
    const notEthernet = writePcapng([{ name: 'lo', linkType: 113 }], [{ iface: 0, tsNs: 0, data: frames[0]! }]);
    expect(engine().simLoadPcap(notEthernet)).toMatchObject({ ok: false, reason: expect.stringMatching(/link type 113: only Ethernet/) });
  });

  it('refuses a file that is not a pcap, saying why', () => {
    const r = engine().simLoadPcap(new TextEncoder().encode('hello, this is not a capture file'));
    expect(r.ok).toBe(false);
    expect(!r.ok && r.reason).toMatch(/^not a pcap file this lab can read: not a pcap file: magic/);
  });
});
