/**
 * Receive-side scaling: the Toeplitz hash NICs compute over the flow tuple
 * to pick an rx queue, with the well-known default 40-byte key. The
 * indirection table maps hash low bits to queues, as the driver programs it.
 */
import { ETH_P_8021AD, ETH_P_8021Q, ETH_P_IP, ETH_P_IPV6, IPPROTO_TCP, IPPROTO_UDP } from './packet';

export const RSS_DEFAULT_KEY = Uint8Array.from([
  0x6d, 0x5a, 0x56, 0xda, 0x25, 0x5b, 0x0e, 0xc2, 0x41, 0x67, 0x25, 0x3d, 0x43, 0xa3, 0x8f, 0xb0, 0xd0, 0xca, 0x2b, 0xcb,
  0xae, 0x7b, 0x30, 0xb4, 0x77, 0xcb, 0x2d, 0xa3, 0x80, 0x30, 0xf2, 0x0c, 0x6a, 0x42, 0xb7, 0x3b, 0xbe, 0xac, 0x01, 0xfa,
]);

export function toeplitzHash(input: Uint8Array, key: Uint8Array = RSS_DEFAULT_KEY): number {
  let result = 0;
  // The 32-bit window of the key slides one bit per input bit.
  let window = ((key[0]! << 24) | (key[1]! << 16) | (key[2]! << 8) | key[3]!) >>> 0;
  let keyBit = 32;
  for (let i = 0; i < input.length; i++) {
    for (let bit = 7; bit >= 0; bit--) {
      if ((input[i]! >> bit) & 1) result = (result ^ window) >>> 0;
      const kb = keyBit < key.length * 8 ? (key[keyBit >> 3]! >> (7 - (keyBit & 7))) & 1 : 0;
      window = ((window << 1) | kb) >>> 0;
      keyBit++;
    }
  }
  return result >>> 0;
}

/** RSS hash of a frame: 4-tuple for TCP/UDP over IPv4/IPv6, 2-tuple for other IP, 0 otherwise. */
export function rssHash(frame: Uint8Array): number {
  const dv = new DataView(frame.buffer, frame.byteOffset, frame.byteLength);
  if (frame.length < 14) return 0;
  let off = 12;
  let proto = dv.getUint16(off);
  while ((proto === ETH_P_8021Q || proto === ETH_P_8021AD) && frame.length >= off + 6) {
    off += 4;
    proto = dv.getUint16(off);
  }
  off += 2;
  if (proto === ETH_P_IP && frame.length >= off + 20) {
    const ihl = (frame[off]! & 15) * 4;
    const l4 = frame[off + 9]!;
    const ports = (l4 === IPPROTO_TCP || l4 === IPPROTO_UDP) && frame.length >= off + ihl + 4;
    const input = new Uint8Array(ports ? 12 : 8);
    input.set(frame.subarray(off + 12, off + 20), 0);
    if (ports) input.set(frame.subarray(off + ihl, off + ihl + 4), 8);
    return toeplitzHash(input);
  }
  if (proto === ETH_P_IPV6 && frame.length >= off + 40) {
    const l4 = frame[off + 6]!;
    const ports = (l4 === IPPROTO_TCP || l4 === IPPROTO_UDP) && frame.length >= off + 44;
    const input = new Uint8Array(ports ? 36 : 32);
    input.set(frame.subarray(off + 8, off + 40), 0);
    if (ports) input.set(frame.subarray(off + 40, off + 44), 32);
    return toeplitzHash(input);
  }
  return 0;
}
