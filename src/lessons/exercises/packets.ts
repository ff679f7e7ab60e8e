/**
 * Test packets for the exercises, built with src/net, and the frames a
 * correct program leaves behind (MACs swapped, TTL decremented with its
 * checksum, a VLAN tag pushed or popped, a port rewritten, a tail trimmed).
 * Every expected frame is computed here from the input, never typed in.
 */
import { buildPacket, ipChecksum, l4ChecksumV4, type PacketSpec } from '../../net';

export const pkt = (p: PacketSpec = {}): Uint8Array => buildPacket(p);

const dv = (b: Uint8Array) => new DataView(b.buffer, b.byteOffset, b.byteLength);

/** Offset of the L3 header (after any VLAN tags). */
export function l3Off(b: Uint8Array): number {
  let off = 12;
  while (dv(b).getUint16(off) === 0x8100 || dv(b).getUint16(off) === 0x88a8) off += 4;
  return off + 2;
}

/** IPv4 with `words` 32-bit words of options (NOPs then an end-of-list), checksums fixed. */
export function withIpOptions(b: Uint8Array, words = 1): Uint8Array {
  const ip = l3Off(b);
  const add = words * 4;
  const out = new Uint8Array(b.length + add);
  out.set(b.subarray(0, ip + 20), 0);
  for (let i = 0; i < add - 1; i++) out[ip + 20 + i] = 1; // NOP
  out[ip + 20 + add - 1] = 0; // EOL
  out.set(b.subarray(ip + 20), ip + 20 + add);
  const d = dv(out);
  out[ip] = 0x40 | (5 + words);
  d.setUint16(ip + 2, d.getUint16(ip + 2) + add);
  d.setUint16(ip + 10, 0);
  d.setUint16(ip + 10, ipChecksum(out, ip, 20 + add));
  return out;
}

/** IPv6 with one 8-byte extension header (hop-by-hop, 0, or destination options, 60) before the upper layer. */
export function withIpv6Ext(b: Uint8Array, type = 0): Uint8Array {
  const ip = l3Off(b);
  const out = new Uint8Array(b.length + 8);
  out.set(b.subarray(0, ip + 40), 0);
  const next = b[ip + 6]!;
  out[ip + 40] = next;
  out[ip + 41] = 0; // (0 + 1) * 8 bytes
  out[ip + 42] = 1; // PadN, 4 bytes of padding
  out[ip + 43] = 4;
  out.set(b.subarray(ip + 40), ip + 48);
  out[ip + 6] = type;
  const d = dv(out);
  d.setUint16(ip + 4, d.getUint16(ip + 4) + 8);
  return out;
}

export function macSwap(b: Uint8Array): Uint8Array {
  const o = b.slice();
  o.set(b.subarray(6, 12), 0);
  o.set(b.subarray(0, 6), 6);
  return o;
}

/** TTL - 1 and the IPv4 header checksum recomputed. */
export function ttlDec(b: Uint8Array): Uint8Array {
  const o = b.slice();
  const ip = l3Off(o);
  o[ip + 8] = o[ip + 8]! - 1;
  const ihl = (o[ip]! & 0xf) * 4;
  dv(o).setUint16(ip + 10, 0);
  dv(o).setUint16(ip + 10, ipChecksum(o, ip, ihl));
  return o;
}

export function vlanPop(b: Uint8Array): Uint8Array {
  const o = new Uint8Array(b.length - 4);
  o.set(b.subarray(0, 12), 0);
  o.set(b.subarray(16), 12);
  return o;
}

export function vlanPush(b: Uint8Array, vid: number): Uint8Array {
  const o = new Uint8Array(b.length + 4);
  o.set(b.subarray(0, 12), 0);
  dv(o).setUint16(12, 0x8100);
  dv(o).setUint16(14, vid);
  o.set(b.subarray(12), 16);
  return o;
}

/** UDP destination port rewritten and the UDP checksum recomputed. */
export function udpDport(b: Uint8Array, port: number): Uint8Array {
  const o = b.slice();
  const ip = l3Off(o);
  const ihl = (o[ip]! & 0xf) * 4;
  const l4 = ip + ihl;
  const len = dv(o).getUint16(l4 + 4);
  dv(o).setUint16(l4 + 2, port);
  dv(o).setUint16(l4 + 6, 0);
  dv(o).setUint16(l4 + 6, l4ChecksumV4(o, ip, l4, len, 17));
  return o;
}

/** The ICMP echo reply to an IPv4 echo request: MACs and addresses swapped, type 0, checksums fixed. */
export function icmpEchoReply(b: Uint8Array): Uint8Array {
  const o = macSwap(b);
  const ip = l3Off(o);
  const ihl = (o[ip]! & 0xf) * 4;
  const src = o.slice(ip + 12, ip + 16);
  o.set(o.subarray(ip + 16, ip + 20), ip + 12);
  o.set(src, ip + 16);
  const l4 = ip + ihl;
  const tot = dv(o).getUint16(ip + 2);
  o[l4] = 0;
  dv(o).setUint16(l4 + 2, 0);
  dv(o).setUint16(l4 + 2, ipChecksum(o, l4, tot - ihl));
  return o;
}

export const u32le = (v: number) => Uint8Array.from([v & 0xff, (v >>> 8) & 0xff, (v >>> 16) & 0xff, (v >>> 24) & 0xff]);
export const u64le = (v: number) => {
  const o = new Uint8Array(8);
  dv(o).setBigUint64(0, BigInt(v), true);
  return o;
};
/** An IPv4 address as it sits in the packet (network order), e.g. a hash map key. */
export const ip4 = (s: string) => Uint8Array.from(s.split('.').map(Number));
export const tcpFlags = { FIN: 0x01, SYN: 0x02, RST: 0x04, PSH: 0x08, ACK: 0x10 } as const;
