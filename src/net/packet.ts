/**
 * Packet builders: Ethernet (with 802.1Q VLAN and 802.1ad QinQ tags), IPv4,
 * IPv6, ARP, UDP, TCP, ICMP and ICMPv6, with correct lengths and checksums.
 * Frames are built without the 4-byte FCS, as a driver sees them (so the
 * wire's 64-byte minimum frame is 60 bytes here; short frames are padded).
 */
import { ipChecksum, l4ChecksumV4, l4ChecksumV6 } from './csum';
import { parseIPv4, parseIPv6, parseMac } from './addr';

export const ETH_P_IP = 0x0800;
export const ETH_P_ARP = 0x0806;
export const ETH_P_8021Q = 0x8100;
export const ETH_P_8021AD = 0x88a8;
export const ETH_P_IPV6 = 0x86dd;
export const IPPROTO_ICMP = 1;
export const IPPROTO_TCP = 6;
export const IPPROTO_UDP = 17;
export const IPPROTO_ICMPV6 = 58;

/** Smallest Ethernet frame without FCS. */
export const ETH_ZLEN = 60;

export interface PacketSpec {
  srcMac?: string;
  dstMac?: string;
  /** VLAN ids, outermost first. Two tags make a QinQ frame (outer TPID 0x88a8). */
  vlans?: number[];
  l3?: 'ipv4' | 'ipv6' | 'arp';
  src?: string;
  dst?: string;
  l4?: 'udp' | 'tcp' | 'icmp' | 'none';
  sport?: number;
  dport?: number;
  ttl?: number;
  /** TCP flags byte (default SYN). */
  tcpFlags?: number;
  /** ARP opcode (1 request, 2 reply). */
  arpOp?: number;
  /** Total frame length without FCS; the payload fills the rest (default 60). */
  frameLen?: number;
  /** Payload bytes (overrides frameLen's filler). */
  payload?: Uint8Array;
  ipId?: number;
}

const L4_HDR = { udp: 8, tcp: 20, icmp: 8, none: 0 } as const;

/** Build one frame from a spec. Throws Error with a one-line message on bad addresses. */
export function buildPacket(p: PacketSpec): Uint8Array {
  const vlans = p.vlans ?? [];
  const l3 = p.l3 ?? 'ipv4';
  const l2Len = 14 + 4 * vlans.length;
  const l3Hdr = l3 === 'ipv4' ? 20 : l3 === 'ipv6' ? 40 : 28;
  const l4 = l3 === 'arp' ? 'none' : p.l4 ?? 'udp';
  const l4Hdr = L4_HDR[l4];
  const headers = l2Len + l3Hdr + l4Hdr;
  const payloadLen = p.payload ? p.payload.length : Math.max(0, (p.frameLen ?? ETH_ZLEN) - headers);
  const len = Math.max(ETH_ZLEN, headers + payloadLen);
  const b = new Uint8Array(len);
  const dv = new DataView(b.buffer);

  b.set(parseMac(p.dstMac ?? '02:00:00:00:00:02'), 0);
  b.set(parseMac(p.srcMac ?? '02:00:00:00:00:01'), 6);
  let off = 12;
  vlans.forEach((vid, i) => {
    // The outer tag of a double-tagged frame is the 802.1ad service tag.
    dv.setUint16(off, vlans.length > 1 && i === 0 ? ETH_P_8021AD : ETH_P_8021Q);
    dv.setUint16(off + 2, vid & 0xfff);
    off += 4;
  });
  dv.setUint16(off, l3 === 'ipv4' ? ETH_P_IP : l3 === 'ipv6' ? ETH_P_IPV6 : ETH_P_ARP);
  const ipOff = l2Len;
  const l4Off = ipOff + l3Hdr;
  const l4Len = l4Hdr + payloadLen;
  if (p.payload) b.set(p.payload, l4Off + l4Hdr);
  else for (let i = l4Off + l4Hdr; i < l4Off + l4Len; i++) b[i] = i & 0xff;

  if (l3 === 'arp') {
    dv.setUint16(ipOff, 1); // htype Ethernet
    dv.setUint16(ipOff + 2, ETH_P_IP);
    b[ipOff + 4] = 6;
    b[ipOff + 5] = 4;
    dv.setUint16(ipOff + 6, p.arpOp ?? 1);
    b.set(b.subarray(6, 12), ipOff + 8);
    dv.setUint32(ipOff + 14, parseIPv4(p.src ?? '10.0.0.1'));
    if ((p.arpOp ?? 1) === 2) b.set(b.subarray(0, 6), ipOff + 18);
    dv.setUint32(ipOff + 24, parseIPv4(p.dst ?? '10.0.0.2'));
    return b;
  }

  const proto = l4 === 'udp' ? IPPROTO_UDP : l4 === 'tcp' ? IPPROTO_TCP : l4 === 'icmp' ? (l3 === 'ipv6' ? IPPROTO_ICMPV6 : IPPROTO_ICMP) : 59;
  if (l3 === 'ipv4') {
    b[ipOff] = 0x45;
    dv.setUint16(ipOff + 2, 20 + l4Len);
    dv.setUint16(ipOff + 4, p.ipId ?? 0);
    dv.setUint16(ipOff + 6, 0x4000); // DF
    b[ipOff + 8] = p.ttl ?? 64;
    b[ipOff + 9] = proto;
    dv.setUint32(ipOff + 12, parseIPv4(p.src ?? '10.0.0.1'));
    dv.setUint32(ipOff + 16, parseIPv4(p.dst ?? '10.0.0.2'));
    dv.setUint16(ipOff + 10, ipChecksum(b, ipOff, 20));
  } else {
    dv.setUint32(ipOff, 0x60000000);
    dv.setUint16(ipOff + 4, l4Len);
    b[ipOff + 6] = proto;
    b[ipOff + 7] = p.ttl ?? 64;
    b.set(parseIPv6(p.src ?? 'fd00::1'), ipOff + 8);
    b.set(parseIPv6(p.dst ?? 'fd00::2'), ipOff + 24);
  }

  if (l4 === 'udp' || l4 === 'tcp') {
    dv.setUint16(l4Off, p.sport ?? 9);
    dv.setUint16(l4Off + 2, p.dport ?? 9);
  }
  if (l4 === 'udp') dv.setUint16(l4Off + 4, l4Len);
  if (l4 === 'tcp') {
    b[l4Off + 12] = 5 << 4;
    b[l4Off + 13] = p.tcpFlags ?? 0x02;
    dv.setUint16(l4Off + 14, 65535);
  }
  if (l4 === 'icmp') b[l4Off] = l3 === 'ipv6' ? 128 : 8; // echo request
  const csumAt = l4 === 'udp' ? 6 : l4 === 'tcp' ? 16 : l4 === 'icmp' ? 2 : -1;
  if (csumAt >= 0) {
    let c: number;
    if (l3 === 'ipv4') c = l4 === 'icmp' ? ipChecksum(b, l4Off, l4Len) : l4ChecksumV4(b, ipOff, l4Off, l4Len, proto);
    else c = l4ChecksumV6(b, ipOff, l4Off, l4Len, proto);
    dv.setUint16(l4Off + csumAt, c);
  }
  return b;
}

/** Line rate in packets per second for frames of `frameLen` bytes without FCS. */
export function lineRatePps(gbps: number, frameLen: number): number {
  // On the wire each frame also carries FCS (4), preamble+SFD (8) and the inter-frame gap (12).
  return (gbps * 1e9) / ((Math.max(frameLen, ETH_ZLEN) + 24) * 8);
}
