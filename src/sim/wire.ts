/**
 * Time on the wire. Every transmitter in the model (mlx4 and i40e XDP tx
 * rings, vmxnet3's backend, devmap targets, AF_XDP tx) serialises frames the
 * same way: a frame padded to the 60-byte Ethernet minimum, plus 24 bytes of
 * preamble, FCS and inter-frame gap, at the link's bit rate.
 */

/** Preamble (8) + FCS (4) + inter-frame gap (12). */
const WIRE_OVERHEAD_BYTES = 24;
/** Shortest frame on the wire before the FCS. */
const ETH_ZLEN = 60;

/** CPU cycles one byte takes on a link of `linkGbps`, for a clock of `cyclesPerNs`. */
export function wireCyclesPerByte(linkGbps: number, cyclesPerNs: number): number {
  return (8 / linkGbps) * cyclesPerNs;
}

/** CPU cycles a frame of `len` bytes occupies the wire. */
export function frameWireCycles(len: number, cyclesPerByte: number): number {
  return (Math.max(len, ETH_ZLEN) + WIRE_OVERHEAD_BYTES) * cyclesPerByte;
}
