/**
 * A fixed packet sequence for the compiler differential tests: the
 * protocols XDP programs parse (Ethernet, 802.1Q/802.1ad VLAN and QinQ,
 * ARP, IPv4 with and without options and fragments, IPv6, UDP, TCP with
 * various flags, ICMP echo, ICMPv6) plus truncated frames that stop inside
 * each header, so that every bounds check is exercised both ways.
 */

function be16(v: number): number[] {
  return [(v >> 8) & 0xff, v & 0xff];
}
function be32(v: number): number[] {
  return [(v >>> 24) & 0xff, (v >>> 16) & 0xff, (v >>> 8) & 0xff, v & 0xff];
}
function csum(bytes: number[]): number {
  let s = 0;
  for (let i = 0; i < bytes.length; i += 2) s += (bytes[i]! << 8) | (bytes[i + 1] ?? 0);
  while (s > 0xffff) s = (s & 0xffff) + (s >>> 16);
  return ~s & 0xffff;
}

const DST = [0x02, 0x00, 0x00, 0x00, 0x00, 0x02];
const SRC = [0x02, 0x00, 0x00, 0x00, 0x00, 0x01];

function eth(proto: number, vlans: { tpid: number; tci: number }[] = []): number[] {
  const out = [...DST, ...SRC];
  for (const v of vlans) out.push(...be16(v.tpid), ...be16(v.tci));
  out.push(...be16(proto));
  return out;
}

function ipv4(proto: number, payload: number[], opts: { ttl?: number; frag?: number; options?: number[]; src?: number; dst?: number } = {}): number[] {
  const optBytes = opts.options ?? [];
  const ihl = 5 + optBytes.length / 4;
  const h = [0x40 | ihl, 0, ...be16(ihl * 4 + payload.length), ...be16(0x1234), ...be16(opts.frag ?? 0x4000), opts.ttl ?? 64, proto, 0, 0, ...be32(opts.src ?? 0x0a000001), ...be32(opts.dst ?? 0x0a000002), ...optBytes];
  const c = csum(h);
  h[10] = c >> 8;
  h[11] = c & 0xff;
  return [...h, ...payload];
}

function ipv6(next: number, payload: number[], hop = 64): number[] {
  const src = [0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1];
  const dst = [0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2];
  return [0x60, 0, 0, 0, ...be16(payload.length), next, hop, ...src, ...dst, ...payload];
}

function udp(sport: number, dport: number, data: number[]): number[] {
  return [...be16(sport), ...be16(dport), ...be16(8 + data.length), 0x12, 0x34, ...data];
}
function tcp(sport: number, dport: number, flags: number, data: number[] = []): number[] {
  return [...be16(sport), ...be16(dport), ...be32(1000), ...be32(2000), 0x50, flags, ...be16(8192), 0xab, 0xcd, 0, 0, ...data];
}
function icmpEcho(type: number): number[] {
  const h = [type, 0, 0, 0, ...be16(0x77), ...be16(1), 1, 2, 3, 4, 5, 6, 7, 8];
  const c = csum(h);
  h[2] = c >> 8;
  h[3] = c & 0xff;
  return h;
}
const payload = (n: number): number[] => Array.from({ length: n }, (_, i) => (i * 7 + 3) & 0xff);

export interface NamedPacket { name: string; bytes: number[] }

export function packetSet(): NamedPacket[] {
  const P: NamedPacket[] = [];
  const add = (name: string, bytes: number[]): void => void P.push({ name, bytes });
  add('ipv4-udp', [...eth(0x0800), ...ipv4(17, udp(1234, 53, payload(18)))]);
  add('ipv4-udp-9000', [...eth(0x0800), ...ipv4(17, udp(5555, 9000, payload(30)))]);
  add('ipv4-tcp-syn', [...eth(0x0800), ...ipv4(6, tcp(40000, 80, 0x02))]);
  add('ipv4-tcp-ack', [...eth(0x0800), ...ipv4(6, tcp(40000, 80, 0x10, payload(12)))]);
  add('ipv4-tcp-synack', [...eth(0x0800), ...ipv4(6, tcp(80, 40000, 0x12))]);
  add('ipv4-tcp-fin-psh-urg', [...eth(0x0800), ...ipv4(6, tcp(22, 41000, 0x29))]);
  add('ipv4-tcp-rst', [...eth(0x0800), ...ipv4(6, tcp(443, 41001, 0x04))]);
  add('ipv4-icmp-echo', [...eth(0x0800), ...ipv4(1, icmpEcho(8))]);
  add('ipv4-icmp-reply', [...eth(0x0800), ...ipv4(1, icmpEcho(0), { src: 0x0a000002, dst: 0x0a000001 })]);
  add('ipv4-ttl1', [...eth(0x0800), ...ipv4(17, udp(1, 2, payload(4)), { ttl: 1 })]);
  add('ipv4-frag', [...eth(0x0800), ...ipv4(17, udp(7, 7, payload(8)), { frag: 0x2000 })]);
  add('ipv4-options', [...eth(0x0800), ...ipv4(17, udp(53, 1234, payload(8)), { options: [0x01, 0x01, 0x01, 0x00] })]);
  add('ipv4-gre', [...eth(0x0800), ...ipv4(47, payload(24))]);
  add('ipv6-udp', [...eth(0x86dd), ...ipv6(17, udp(1234, 53, payload(10)))]);
  add('ipv6-tcp-syn', [...eth(0x86dd), ...ipv6(6, tcp(50000, 443, 0x02))]);
  add('ipv6-icmpv6-echo', [...eth(0x86dd), ...ipv6(58, [128, 0, 0, 0, 0, 1, 0, 1, ...payload(8)])]);
  add('ipv6-hop1', [...eth(0x86dd), ...ipv6(17, udp(9, 9, payload(4)), 1)]);
  add('vlan-ipv4-udp', [...eth(0x0800, [{ tpid: 0x8100, tci: 100 }]), ...ipv4(17, udp(1000, 2000, payload(14)))]);
  add('vlan-ipv6-tcp', [...eth(0x86dd, [{ tpid: 0x8100, tci: 200 }]), ...ipv6(6, tcp(1, 2, 0x18, payload(4)))]);
  add('qinq-ipv4-tcp', [...eth(0x0800, [{ tpid: 0x88a8, tci: 10 }, { tpid: 0x8100, tci: 20 }]), ...ipv4(6, tcp(3000, 80, 0x02))]);
  add('qinq-ipv6-udp', [...eth(0x86dd, [{ tpid: 0x88a8, tci: 11 }, { tpid: 0x8100, tci: 21 }]), ...ipv6(17, udp(4, 5, payload(6)))]);
  add('arp', [...eth(0x0806), 0, 1, 8, 0, 6, 4, 0, 1, ...SRC, 10, 0, 0, 1, 0, 0, 0, 0, 0, 0, 10, 0, 0, 2, ...payload(18)]);
  add('lldp', [...eth(0x88cc), ...payload(46)]);
  // Truncated frames, stopping inside each header.
  add('trunc-eth-10', [...eth(0x0800)].slice(0, 10));
  add('trunc-ipv4-20', [...eth(0x0800), ...ipv4(17, udp(1, 2, payload(8)))].slice(0, 20));
  add('trunc-ipv4-udp-38', [...eth(0x0800), ...ipv4(17, udp(1, 2, payload(8)))].slice(0, 38));
  add('trunc-ipv4-tcp-40', [...eth(0x0800), ...ipv4(6, tcp(1, 2, 2))].slice(0, 40));
  add('trunc-vlan-16', [...eth(0x0800, [{ tpid: 0x8100, tci: 1 }]), ...ipv4(17, udp(1, 2, []))].slice(0, 16));
  add('trunc-ipv6-50', [...eth(0x86dd), ...ipv6(17, udp(1, 2, payload(4)))].slice(0, 50));
  add('ipv4-udp-again', [...eth(0x0800), ...ipv4(17, udp(1234, 53, payload(18)))]);
  return P;
}

export function toHex(b: number[]): string {
  return b.map((x) => x.toString(16).padStart(2, '0')).join('');
}

/** TCP with options (MSS, SACK permitted, timestamps, window scale): what SYN proxies and RTT monitors read. */
function tcpWithOptions(sport: number, dport: number, flags: number, tsval: number, tsecr: number, data: number[] = []): number[] {
  const opts = [2, 4, ...be16(1460), 4, 2, 8, 10, ...be32(tsval), ...be32(tsecr), 1, 3, 3, 7];
  return [...be16(sport), ...be16(dport), ...be32(1000), ...be32(2000), (5 + opts.length / 4) << 4, flags, ...be16(8192), 0xab, 0xcd, 0, 0, ...opts, ...data];
}

/**
 * Packets that reach deeper paths of real programs (issue 13's realworld
 * folder): a DHCP request behind two VLAN tags (a DHCP relay), TCP
 * handshakes and data with timestamp options both ways (RTT monitors, SYN
 * proxies), and a full-size frame.
 */
export function realworldPackets(): NamedPacket[] {
  const bootp = [1, 1, 6, 0, ...be32(0x3903f326), 0, 0, 0x80, 0, ...new Array<number>(16).fill(0), ...SRC, ...new Array<number>(10 + 64 + 128).fill(0), 0x63, 0x82, 0x53, 0x63, 53, 1, 1, 255];
  return [
    { name: 'qinq-dhcp-discover', bytes: [...eth(0x0800, [{ tpid: 0x88a8, tci: 5 }, { tpid: 0x8100, tci: 6 }]), ...ipv4(17, udp(68, 67, bootp), { src: 0, dst: 0xffffffff })] },
    { name: 'ipv4-dhcp-discover', bytes: [...eth(0x0800), ...ipv4(17, udp(68, 67, bootp), { src: 0, dst: 0xffffffff })] },
    { name: 'ipv4-tcp-syn-ts', bytes: [...eth(0x0800), ...ipv4(6, tcpWithOptions(40000, 80, 0x02, 0x11223344, 0))] },
    { name: 'ipv4-tcp-synack-ts', bytes: [...eth(0x0800), ...ipv4(6, tcpWithOptions(80, 40000, 0x12, 0x55667788, 0x11223344), { src: 0x0a000002, dst: 0x0a000001 })] },
    { name: 'ipv4-tcp-ack-ts', bytes: [...eth(0x0800), ...ipv4(6, tcpWithOptions(40000, 80, 0x10, 0x11223345, 0x55667788, payload(20)))] },
    { name: 'ipv6-tcp-ack-ts', bytes: [...eth(0x86dd), ...ipv6(6, tcpWithOptions(50000, 443, 0x10, 0x01020304, 0x0a0b0c0d, payload(8)))] },
    { name: 'ipv4-udp-1500', bytes: [...eth(0x0800), ...ipv4(17, udp(9, 9, payload(1472)))] },
  ];
}
