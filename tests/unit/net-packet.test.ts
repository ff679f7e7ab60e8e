import { describe, expect, it } from 'vitest';
import { buildPacket, decodePacket, ipChecksum, lineRatePps, parseIPv6, formatIPv6, rssHash, toeplitzHash, type PacketSpec } from '../../src/net';

describe('checksums', () => {
  it('IPv4 header checksum matches the textbook example (0xb861)', () => {
    const h = Uint8Array.from([0x45, 0x00, 0x00, 0x73, 0x00, 0x00, 0x40, 0x00, 0x40, 0x11, 0x00, 0x00, 0xc0, 0xa8, 0x00, 0x01, 0xc0, 0xa8, 0x00, 0xc7]);
    expect(ipChecksum(h, 0, 20)).toBe(0xb861);
    h[10] = 0xb8;
    h[11] = 0x61;
    expect(ipChecksum(h, 0, 20)).toBe(0);
  });
});

const CASES: [string, PacketSpec, (d: ReturnType<typeof decodePacket>) => void][] = [
  ['UDP/IPv4 60 B', { l4: 'udp', src: '10.1.2.3', dst: '10.3.2.1', sport: 1234, dport: 53 }, (d) => {
    expect(d.len).toBe(60);
    expect(d.ipv4).toMatchObject({ src: '10.1.2.3', dst: '10.3.2.1', proto: 17, csumOk: true, totLen: 46 });
    expect(d.udp).toMatchObject({ sport: 1234, dport: 53, len: 26, csumOk: true });
  }],
  ['TCP/IPv4 SYN, 128 B', { l4: 'tcp', frameLen: 128, sport: 40000, dport: 80 }, (d) => {
    expect(d.len).toBe(128);
    expect(d.tcp).toMatchObject({ sport: 40000, dport: 80, flags: 2, csumOk: true });
  }],
  ['ICMP echo/IPv4', { l4: 'icmp' }, (d) => expect(d.icmp).toMatchObject({ type: 8, csumOk: true })],
  ['UDP/IPv6', { l3: 'ipv6', l4: 'udp', src: 'fd00::10', dst: '2001:db8::1', frameLen: 90 }, (d) => {
    expect(d.ipv6).toMatchObject({ src: 'fd00::10', dst: '2001:db8::1', nextHeader: 17, payloadLen: 36 });
    expect(d.udp?.csumOk).toBe(true);
  }],
  ['ICMPv6 echo', { l3: 'ipv6', l4: 'icmp' }, (d) => expect(d.icmp).toMatchObject({ type: 128, csumOk: true })],
  ['TCP/IPv6', { l3: 'ipv6', l4: 'tcp', frameLen: 200 }, (d) => expect(d.tcp?.csumOk).toBe(true)],
  ['802.1Q VLAN 100', { vlans: [100] }, (d) => {
    expect(d.vlans).toEqual([{ tpid: 0x8100, vid: 100, pcp: 0 }]);
    expect(d.udp?.csumOk).toBe(true);
  }],
  ['QinQ 10/20', { vlans: [10, 20], l4: 'tcp' }, (d) => {
    expect(d.vlans.map((v) => [v.tpid, v.vid])).toEqual([[0x88a8, 10], [0x8100, 20]]);
    expect(d.tcp?.csumOk).toBe(true);
  }],
  ['ARP request', { l3: 'arp', src: '10.0.0.1', dst: '10.0.0.9', srcMac: '02:aa:bb:cc:dd:ee' }, (d) => {
    expect(d.eth?.proto).toBe(0x0806);
    expect(d.arp).toEqual({ op: 1, senderIp: '10.0.0.1', targetIp: '10.0.0.9', senderMac: '02:aa:bb:cc:dd:ee' });
  }],
];

describe('packet builders and decoder', () => {
  it.each(CASES)('%s', (_name, spec, check) => check(decodePacket(buildPacket(spec))));

  it('a corrupted byte fails the L4 checksum and the IPv4 header checksum', () => {
    const p = buildPacket({ l4: 'udp', frameLen: 100 });
    p[60]! ^= 0xff;
    expect(decodePacket(p).udp?.csumOk).toBe(false);
    const q = buildPacket({ l4: 'tcp' });
    q[22]! ^= 1; // TTL
    expect(decodePacket(q).ipv4?.csumOk).toBe(false);
  });

  it('truncated frames are reported, not thrown', () => {
    const p = buildPacket({ l4: 'tcp' });
    expect(decodePacket(p.subarray(0, 20)).truncated).toBe('ipv4');
    expect(decodePacket(p.subarray(0, 40)).truncated).toBe('tcp');
    expect(decodePacket(new Uint8Array(5)).truncated).toBe('ethernet');
  });

  it('bad addresses give a one-line error', () => {
    expect(() => buildPacket({ src: '10.0.0.300' })).toThrow(/bad IPv4 address '10.0.0.300'/);
    expect(() => buildPacket({ srcMac: '02:00' })).toThrow(/bad MAC/);
  });

  it('IPv6 text round-trips with :: compression', () => {
    for (const a of ['::1', 'fd00::2', '2001:db8:0:1::5', '1:2:3:4:5:6:7:8']) expect(formatIPv6(parseIPv6(a))).toBe(a);
  });
});

describe('line rate', () => {
  it('64-byte frames: 14.88 Mpps at 10G, 59.52 Mpps at 40G, 148.8 Mpps at 100G', () => {
    expect(lineRatePps(10, 60) / 1e6).toBeCloseTo(14.88, 2);
    expect(lineRatePps(25, 60) / 1e6).toBeCloseTo(37.2, 1);
    expect(lineRatePps(40, 60) / 1e6).toBeCloseTo(59.52, 2);
    expect(lineRatePps(100, 60) / 1e6).toBeCloseTo(148.81, 2);
    expect(lineRatePps(10, 1514) / 1e6).toBeCloseTo(0.8127, 3);
  });
});

describe('RSS', () => {
  it('Toeplitz hash matches the Microsoft verification suite (IPv4 with ports)', () => {
    // 66.9.149.187:2794 -> 161.142.100.80:1766  => 0x51ccc178
    const input = Uint8Array.from([66, 9, 149, 187, 161, 142, 100, 80, 0x0a, 0xea, 0x06, 0xe6]);
    expect(toeplitzHash(input).toString(16)).toBe('51ccc178');
    // IPv4 only => 0x323e8fc2
    expect(toeplitzHash(input.subarray(0, 8)).toString(16)).toBe('323e8fc2');
  });
  it('frames of one flow hash alike, different ports differ', () => {
    const a = rssHash(buildPacket({ sport: 1000 }));
    expect(rssHash(buildPacket({ sport: 1000, frameLen: 300 }))).toBe(a);
    expect(rssHash(buildPacket({ sport: 1001 }))).not.toBe(a);
  });
});
