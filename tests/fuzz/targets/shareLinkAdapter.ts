/**
 * The share-link decoder the "sharelink" target fuzzes, behind one thin
 * function so the target does not care where it lives. Today it is
 * src/engine/scenario.ts's decodeScenario (what src/ui/persist.ts calls);
 * the ws branch moves link decoding to a pure `decodeShareLink` in
 * src/ui/shareLink.ts that also checks names against the app's lists —
 * at the merge, call that here and set CHECKS_NAMES.
 */
import { decodeScenario, MAX_SOURCE_BYTES } from '../../../src/engine/scenario';

export type Decoded = { ok: true; source: string; example?: unknown; settings?: unknown } | { ok: false; error: string };

/** Whether the decoder refuses unknown example, hardware-profile and traffic-profile names (decodeScenario passes any string). */
export const CHECKS_NAMES = false;

export { MAX_SOURCE_BYTES };

export async function decodeLink(payload: string): Promise<Decoded> {
  const r = await decodeScenario(payload);
  if ('error' in r) return { ok: false, error: r.error };
  return { ok: true, source: r.scenario.source, example: r.scenario.example, settings: r.scenario.settings };
}
