/**
 * Per-packet state columns (ring descriptors, per-page state, bulk queues,
 * the cost counters) as plain packed arrays of numbers, not typed arrays.
 * Each is touched several times per packet, and V8 checks a typed array's
 * buffer for detachment on every access once any ArrayBuffer in the
 * process has been detached (under tsx one always has); a packed array
 * costs a map check and a bounds check. The columns hold integers in the
 * range their typed arrays had (page numbers, offsets, lengths, packet
 * ids, states, counts) or plain doubles (times), so every number reads
 * back exactly as before. Packet bytes stay in typed arrays.
 */

/** A packed array of `length` numbers, each `fill`. */
export function column(length: number, fill: number): number[] {
  return Array.from({ length }, () => fill);
}

/**
 * A packed array of `length` zeros held as doubles (V8's double elements):
 * for counters bumped several times per packet (the cost steps' counts). An
 * add to a double element needs no small-integer overflow check, tagging or
 * copy-on-write check, which an array of small integers does: about 1% of
 * the instructions per packet on mlx4 xdp1 and AF_XDP l2fwd (valgrind).
 * Counts stay exact integers up to 2^53.
 */
export function doubleColumn(length: number): number[] {
  // Made with a non-integer so the array starts with double elements, then zeroed: it never goes back to small integers.
  return column(length, 0.5).fill(0);
}
