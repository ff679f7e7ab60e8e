/**
 * The AF_XDP socket as the UI draws it: the UMEM's chunks by owner and the
 * fill, rx, tx and completion rings (see XskView).
 */
import type { Simulation } from '../../sim';
import type { XskView } from '../simTypes';

/** null when the machine has no AF_XDP socket. */
export function xskView(sim: Simulation): XskView | null {
  void sim;
  return null;
}
