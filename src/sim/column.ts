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
