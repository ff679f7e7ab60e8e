/**
 * Internet checksums (RFC 1071): the one's-complement sum used by IPv4
 * headers, ICMP, and (with a pseudo-header) UDP and TCP over IPv4 and IPv6.
 * Pure functions over byte ranges; results are host-order 16-bit values to
 * be stored big endian.
 */

/** Add the 16-bit big-endian words of buf[off, off+len) into a 32-bit running sum. */
export function csumPartial(buf: Uint8Array, off: number, len: number, sum = 0): number {
  let i = off;
  const end = off + len;
  for (; i + 1 < end; i += 2) sum += (buf[i]! << 8) | buf[i + 1]!;
  if (i < end) sum += buf[i]! << 8; // odd length: pad with a zero byte
  return sum;
}

/** Fold a running sum to 16 bits and complement it. */
export function csumFold(sum: number): number {
  while (sum > 0xffff) sum = (sum & 0xffff) + Math.floor(sum / 0x10000);
  return ~sum & 0xffff;
}

export function ipChecksum(buf: Uint8Array, off: number, len: number): number {
  return csumFold(csumPartial(buf, off, len));
}

/** UDP/TCP checksum over IPv4: pseudo-header (src, dst, proto, length) + segment. */
export function l4ChecksumV4(buf: Uint8Array, ipOff: number, l4Off: number, l4Len: number, proto: number): number {
  let sum = csumPartial(buf, ipOff + 12, 8); // saddr, daddr
  sum += proto + l4Len;
  sum = csumPartial(buf, l4Off, l4Len, sum);
  const c = csumFold(sum);
  // UDP transmits a computed zero as all ones (zero means "no checksum").
  return proto === 17 && c === 0 ? 0xffff : c;
}

/** UDP/TCP/ICMPv6 checksum over IPv6: pseudo-header (src, dst, length, next header) + segment. */
export function l4ChecksumV6(buf: Uint8Array, ipOff: number, l4Off: number, l4Len: number, proto: number): number {
  let sum = csumPartial(buf, ipOff + 8, 32);
  sum += Math.floor(l4Len / 0x10000) + (l4Len & 0xffff) + proto;
  sum = csumPartial(buf, l4Off, l4Len, sum);
  const c = csumFold(sum);
  return proto === 17 && c === 0 ? 0xffff : c;
}
