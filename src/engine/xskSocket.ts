/**
 * What user space does when it creates the AF_XDP socket (libbpf's
 * xsk_socket__create → xsk_socket__update_xskmap): put the socket into the
 * program's XSKMAP at the index of the queue it is bound to, so that
 * bpf_redirect_map(&xsks_map, ctx->rx_queue_index, …) finds it. Without
 * the entry the redirect falls back to the flags' action and no frame
 * reaches the socket. Also the socket's teaching-size shape.
 */
import type { BpfMap } from '../maps';

/**
 * The socket the app creates: xdpsock (l2fwd unless the settings choose
 * rxdrop or txonly) on a UMEM small enough to see
 * every chunk and ring slot (seed 001 runs 4096 frames and 2048-entry
 * rings; this keeps its 2:1, and with the default 128-entry i40e rx ring half the circulating chunks wait in the fill ring, as in the seed).
 */
export const XSK_TEACHING = { app: 'l2fwd' as 'l2fwd' | 'rxdrop' | 'txonly', chunkSize: 2048, headroom: 0, unaligned: false, frames: 512, ringSize: 256 } as const;

/** The socket's file descriptor as xdpsock would hold it (the kernel stores the socket; the number is only what a dump shows). */
export const XSK_SOCKET_FD = 3;

/** Bind the socket into every XSKMAP the program has, at `queueId`; returns why one could not be updated, or null. */
export function xsk_socket__update_xskmap(maps: readonly BpfMap[], queueId: number, fd = XSK_SOCKET_FD): string | null {
  const key = new Uint8Array(4);
  new DataView(key.buffer).setUint32(0, queueId, true);
  const value = new Uint8Array(4);
  new DataView(value.buffer).setUint32(0, fd, true);
  for (const m of maps) {
    if (m.type !== 'xskmap') continue;
    const rc = m.userUpdate(key, value);
    if (rc !== 0) return `the AF_XDP socket could not be put into XSKMAP ${m.name} at queue ${queueId}: errno ${-rc}${queueId >= m.maxEntries ? ` (max_entries is ${m.maxEntries})` : ''}`;
  }
  return null;
}
