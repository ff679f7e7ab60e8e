/**
 * Every page of host memory by where it is (free, rx ring, program, tx
 * ring, page cache, stack, …), so the UI can show pages moving.
 */
import type { Simulation } from '../../sim';
import type { PageMapView } from '../simTypes';

export function pageMapView(sim: Simulation): PageMapView | null {
  void sim;
  return null;
}
