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

/**
 * One port's transmitter: frames leave back to back, each no earlier than
 * it was handed over. `perFrame` is a fixed cost per frame on top of the
 * bytes (vmxnet3's backend; 0 for a real wire).
 */
export class TxWire {
  /** When the wire is free again (cycles). */
  free = 0;
  constructor(
    readonly cyclesPerByte: number,
    readonly perFrame = 0,
  ) {}

  /** Send a frame of `len` bytes handed over at `at`: when its last byte has left. */
  send(at: number, len: number): number {
    const start = Math.max(at, this.free);
    // frameWireCycles written out (the same arithmetic in the same order): this runs for every frame sent, and the call was not inlined.
    const done = start + this.perFrame + (Math.max(len, ETH_ZLEN) + WIRE_OVERHEAD_BYTES) * this.cyclesPerByte;
    this.free = done;
    return done;
  }
}
