/**
 * Packets in a verdict: a one-line decode ("IPv4 10.0.0.1 → 10.0.0.2 ttl 64
 * UDP 9 → 53") and the header field each byte offset belongs to, so a
 * byte diff reads "ipv4.ttl: expected 3f, got 40".
 */
import { decodePacket } from '../../net';

export function describePacket(b: Uint8Array): string {
  const d = decodePacket(b);
  const parts: string[] = [];
  if (d.eth) parts.push(`${d.eth.src} → ${d.eth.dst}`);
  for (const v of d.vlans) parts.push(`vlan ${v.vid}${v.tpid === 0x88a8 ? ' (802.1ad)' : ''}`);
  if (d.arp) parts.push(`ARP ${d.arp.op === 1 ? 'request' : 'reply'} ${d.arp.senderIp} → ${d.arp.targetIp}`);
  if (d.ipv4) parts.push(`IPv4 ${d.ipv4.src} → ${d.ipv4.dst} ttl ${d.ipv4.ttl}${d.ipv4.ihl > 20 ? ` with ${d.ipv4.ihl - 20} bytes of options` : ''}${d.ipv4.csumOk ? '' : ' (bad IP checksum)'}`);
  if (d.ipv6) parts.push(`IPv6 ${d.ipv6.src} → ${d.ipv6.dst} next ${d.ipv6.nextHeader} hop limit ${d.ipv6.hopLimit}`);
  if (d.udp) parts.push(`UDP ${d.udp.sport} → ${d.udp.dport}${d.udp.csumOk ? '' : ' (bad checksum)'}`);
  if (d.tcp) parts.push(`TCP ${d.tcp.sport} → ${d.tcp.dport} flags 0x${d.tcp.flags.toString(16)}${d.tcp.csumOk ? '' : ' (bad checksum)'}`);
  if (d.icmp) parts.push(`ICMP type ${d.icmp.type} code ${d.icmp.code}${d.icmp.csumOk ? '' : ' (bad checksum)'}`);
  if (d.truncated) parts.push(`truncated in ${d.truncated}`);
  return `${b.length} bytes: ${parts.join(', ')}`;
}

const IPV4_FIELDS: [number, string][] = [[0, 'version/ihl'], [1, 'tos'], [2, 'tot_len'], [4, 'id'], [6, 'frag_off'], [8, 'ttl'], [9, 'protocol'], [10, 'check'], [12, 'saddr'], [16, 'daddr'], [20, 'options']];
const IPV6_FIELDS: [number, string][] = [[0, 'version/flow'], [4, 'payload_len'], [6, 'nexthdr'], [7, 'hop_limit'], [8, 'saddr'], [24, 'daddr'], [40, 'ext']];
const UDP_FIELDS: [number, string][] = [[0, 'source'], [2, 'dest'], [4, 'len'], [6, 'check'], [8, 'payload']];
const TCP_FIELDS: [number, string][] = [[0, 'source'], [2, 'dest'], [4, 'seq'], [8, 'ack_seq'], [12, 'doff/flags'], [14, 'window'], [16, 'check'], [18, 'urg_ptr'], [20, 'options/payload']];
const ICMP_FIELDS: [number, string][] = [[0, 'type'], [1, 'code'], [2, 'checksum'], [4, 'rest']];

function pick(fields: [number, string][], rel: number): string {
  let name = fields[0]![1];
  for (const [o, n] of fields) if (rel >= o) name = n;
  return name;
}

/** The header field of byte `off` in frame `b` (decoded from b itself). */
export function fieldAt(b: Uint8Array, off: number): string {
  if (off < 6) return 'eth.h_dest';
  if (off < 12) return 'eth.h_source';
  if (off < 14) return 'eth.h_proto';
  const d = decodePacket(b);
  let l3 = 14 + 4 * d.vlans.length;
  if (off < l3) return `vlan[${Math.floor((off - 14) / 4)}]`;
  if (d.ipv4) {
    const ihl = d.ipv4.ihl; // bytes, as decodePacket reports it
    if (off < l3 + ihl) return `ipv4.${pick(IPV4_FIELDS, off - l3)}`;
    l3 += ihl;
    const proto = d.ipv4.proto;
    return l4Field(proto, off - l3);
  }
  if (d.ipv6) {
    if (off < l3 + 40) return `ipv6.${pick(IPV6_FIELDS, off - l3)}`;
    return l4Field(d.ipv6.nextHeader, off - l3 - 40);
  }
  return `byte ${off}`;
}

function l4Field(proto: number, rel: number): string {
  if (proto === 17) return `udp.${pick(UDP_FIELDS, rel)}`;
  if (proto === 6) return `tcp.${pick(TCP_FIELDS, rel)}`;
  if (proto === 1 || proto === 58) return `icmp.${pick(ICMP_FIELDS, rel)}`;
  return `l4 byte ${rel}`;
}

export function hex(b: Uint8Array): string {
  let s = '';
  for (const x of b) s += x.toString(16).padStart(2, '0');
  return s;
}
