/**
 * Packet decoder: the layers of an Ethernet frame as the UI's packet view
 * and the tests read them, with checksum verdicts. Never throws: a
 * truncated header ends decoding and is reported in `truncated`.
 */
import { formatIPv4, formatIPv6, formatMac } from './addr';
import { ipChecksum, l4ChecksumV4, l4ChecksumV6 } from './csum';
import { ETH_P_8021AD, ETH_P_8021Q, ETH_P_ARP, ETH_P_IP, ETH_P_IPV6, IPPROTO_ICMP, IPPROTO_ICMPV6, IPPROTO_TCP, IPPROTO_UDP } from './packet';

export interface DecodedPacket {
  len: number;
  eth?: { dst: string; src: string; proto: number };
  vlans: { tpid: number; vid: number; pcp: number }[];
  arp?: { op: number; senderIp: string; targetIp: string; senderMac: string };
  ipv4?: { src: string; dst: string; proto: number; ttl: number; totLen: number; ihl: number; csumOk: boolean };
  ipv6?: { src: string; dst: string; nextHeader: number; hopLimit: number; payloadLen: number };
  udp?: { sport: number; dport: number; len: number; csumOk: boolean };
  tcp?: { sport: number; dport: number; flags: number; csumOk: boolean };
  icmp?: { type: number; code: number; csumOk: boolean };
  /** The first header that did not fit in the frame. */
  truncated?: string;
}

export function decodePacket(b: Uint8Array): DecodedPacket {
  const out: DecodedPacket = { len: b.length, vlans: [] };
  const dv = new DataView(b.buffer, b.byteOffset, b.byteLength);
  if (b.length < 14) return { ...out, truncated: 'ethernet' };
  let proto = dv.getUint16(12);
  out.eth = { dst: formatMac(b, 0), src: formatMac(b, 6), proto };
  let off = 14;
  while (proto === ETH_P_8021Q || proto === ETH_P_8021AD) {
    if (b.length < off + 4) return { ...out, truncated: 'vlan' };
    const tci = dv.getUint16(off);
    out.vlans.push({ tpid: proto, vid: tci & 0xfff, pcp: tci >> 13 });
    proto = dv.getUint16(off + 2);
    off += 4;
  }
  if (proto === ETH_P_ARP) {
    if (b.length < off + 28) return { ...out, truncated: 'arp' };
    out.arp = { op: dv.getUint16(off + 6), senderMac: formatMac(b, off + 8), senderIp: formatIPv4(dv.getUint32(off + 14)), targetIp: formatIPv4(dv.getUint32(off + 24)) };
    return out;
  }
  let l4Proto: number;
  let l4Off: number;
  let l4Len: number;
  const ipOff = off;
  if (proto === ETH_P_IP) {
    if (b.length < off + 20) return { ...out, truncated: 'ipv4' };
    const ihl = (b[off]! & 15) * 4;
    const totLen = dv.getUint16(off + 2);
    if (ihl < 20 || b.length < off + ihl) return { ...out, truncated: 'ipv4' };
    l4Proto = b[off + 9]!;
    out.ipv4 = { src: formatIPv4(dv.getUint32(off + 12)), dst: formatIPv4(dv.getUint32(off + 16)), proto: l4Proto, ttl: b[off + 8]!, totLen, ihl, csumOk: ipChecksum(b, off, ihl) === 0 };
    l4Off = off + ihl;
    l4Len = Math.min(totLen - ihl, b.length - l4Off);
  } else if (proto === ETH_P_IPV6) {
    if (b.length < off + 40) return { ...out, truncated: 'ipv6' };
    l4Proto = b[off + 6]!;
    const payloadLen = dv.getUint16(off + 4);
    out.ipv6 = { src: formatIPv6(b, off + 8), dst: formatIPv6(b, off + 24), nextHeader: l4Proto, hopLimit: b[off + 7]!, payloadLen };
    l4Off = off + 40;
    l4Len = Math.min(payloadLen, b.length - l4Off);
  } else return out;

  const v4 = proto === ETH_P_IP;
  const sumOk = (p: number) => (v4 ? l4ChecksumV4(b, ipOff, l4Off, l4Len, p) : l4ChecksumV6(b, ipOff, l4Off, l4Len, p));
  // Verifying: summing a segment that includes its own checksum folds to 0
  // (l4Checksum* then returns 0, or 0xffff for UDP's zero substitution).
  const verified = (c: number) => c === 0 || c === 0xffff;
  if (l4Proto === IPPROTO_UDP) {
    if (l4Len < 8) return { ...out, truncated: 'udp' };
    const c = dv.getUint16(l4Off + 6);
    out.udp = { sport: dv.getUint16(l4Off), dport: dv.getUint16(l4Off + 2), len: dv.getUint16(l4Off + 4), csumOk: (v4 && c === 0) || verified(sumOk(IPPROTO_UDP)) };
  } else if (l4Proto === IPPROTO_TCP) {
    if (l4Len < 20) return { ...out, truncated: 'tcp' };
    out.tcp = { sport: dv.getUint16(l4Off), dport: dv.getUint16(l4Off + 2), flags: b[l4Off + 13]!, csumOk: verified(sumOk(IPPROTO_TCP)) };
  } else if (l4Proto === IPPROTO_ICMP || l4Proto === IPPROTO_ICMPV6) {
    if (l4Len < 4) return { ...out, truncated: 'icmp' };
    const ok = l4Proto === IPPROTO_ICMP ? ipChecksum(b, l4Off, l4Len) === 0 : verified(sumOk(IPPROTO_ICMPV6));
    out.icmp = { type: b[l4Off]!, code: b[l4Off + 1]!, csumOk: ok };
  }
  return out;
}
