/**
 * Every page of host memory by where it is (free, rx ring, program, tx
 * ring, page cache, stack, …), so the UI can show pages moving.
 *
 * Promises: one entry per page (order-3 tails carry their head's location),
 * the locations in a fixed order whatever the machine (so colours and the
 * legend stay put while settings change), and counts that sum to the pages.
 * Cheap enough for 60 snapshots a second: one pass over the allocator's
 * location bytes into a fresh 4 KB array (the snapshot is structured-cloned
 * to the UI, so the array cannot be reused across snapshots anyway).
 */
import { PAGE_LOC_NAMES, type PageLocName, type Simulation } from '../../sim';
import type { PageMapView } from '../simTypes';

/**
 * The order a page travels in (ring → program → tx ring → cache → ring),
 * then the side exits, then free memory; labels a student understands.
 */
const LOCATIONS: readonly { id: Exclude<PageLocName, 'tail'>; label: string }[] = [
  { id: 'rx_ring', label: 'rx ring (posted for the NIC)' },
  { id: 'in_flight', label: 'with the driver / in the program' },
  { id: 'tx_ring', label: 'XDP tx ring' },
  { id: 'page_cache', label: 'page cache / page_pool' },
  { id: 'redirect', label: 'redirect bulk queue' },
  { id: 'stack', label: 'network stack (skb)' },
  { id: 'frags', label: 'rx fragments (split order-3 page)' },
  { id: 'free', label: 'free' },
];

/** The allocator's location index → index into LOCATIONS. */
const DISPLAY_INDEX: Uint8Array = (() => {
  const t = new Uint8Array(PAGE_LOC_NAMES.length);
  PAGE_LOC_NAMES.forEach((name, i) => {
    const k = LOCATIONS.findIndex((l) => l.id === name);
    // 'tail' never survives resolvedLocations(); map it to free rather than out of range.
    t[i] = k >= 0 ? k : LOCATIONS.length - 1;
  });
  return t;
})();

export function pageMapView(sim: Simulation): PageMapView {
  const alloc = sim.machine.alloc;
  const pages = alloc.resolvedLocations(new Uint8Array(alloc.totalPages));
  const counts = new Array<number>(LOCATIONS.length).fill(0);
  for (let p = 0; p < pages.length; p++) {
    const k = DISPLAY_INDEX[pages[p]!]!;
    pages[p] = k;
    counts[k]!++;
  }
  return { pages, locations: LOCATIONS.map((l, i) => ({ id: l.id, label: l.label, count: counts[i]! })) };
}
