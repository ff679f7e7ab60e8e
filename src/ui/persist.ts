/**
 * What survives a reload and what travels in a link. The program and the
 * machine settings are saved to localStorage as they change (and flushed when
 * the page hides, so the last keystrokes are not lost); a share link
 * (#share=…) carries both, compressed. A link that does not decode opens the
 * default example with a message, never a blank page.
 */
import { checkSettings, decodeScenario, encodeScenario, type Scenario } from '../engine/scenario';
import type { SimSettings } from '../engine/simTypes';
import { setApp, useApp } from '../store';

const PROGRAM_KEY = 'xdp-lab:program';
const SETTINGS_KEY = 'xdp-lab:settings';
const SHARE_PARAM = 'share';

export interface Boot {
  source: string | null;
  example: string | null;
  settings: SimSettings | null;
  notice: string | null;
}

/** Decide what the app opens with: a share link, else the last session, else the default. */
export async function resolveBoot(): Promise<Boot> {
  const hash = new URLSearchParams(location.hash.slice(1));
  const shared = hash.get(SHARE_PARAM);
  if (shared !== null) {
    // The link has done its job once applied; later reloads follow the user's edits.
    history.replaceState(null, '', location.pathname + location.search);
    const r = await decodeScenario(shared);
    if ('scenario' in r) return { source: r.scenario.source, example: r.scenario.example ?? null, settings: r.scenario.settings ?? null, notice: 'Opened the program shared in the link.' };
    return { source: null, example: null, settings: null, notice: `This share link could not be opened: ${r.error}. Showing the default example instead.` };
  }
  const saved = readJson(PROGRAM_KEY) as { source?: unknown; example?: unknown } | null;
  return {
    source: typeof saved?.source === 'string' ? saved.source : null,
    example: typeof saved?.example === 'string' ? saved.example : null,
    settings: checkSettings(readJson(SETTINGS_KEY)) ?? null,
    notice: null,
  };
}

function readJson(key: string): unknown {
  try {
    const t = localStorage.getItem(key);
    return t ? JSON.parse(t) : null;
  } catch {
    return null;
  }
}

function write(key: string, value: unknown): void {
  try {
    localStorage.setItem(key, JSON.stringify(value));
  } catch {
    // Storage full or disabled (private mode): the session still works, it just won't persist.
  }
}

/** Save the program and settings as they change. */
export function startAutosave(): void {
  let timer: ReturnType<typeof setTimeout> | null = null;
  const saveProgram = () => {
    timer = null;
    const s = useApp.getState();
    if (s.source) write(PROGRAM_KEY, { source: s.source, example: s.exampleName });
  };
  useApp.subscribe((s, prev) => {
    if (s.source !== prev.source || s.exampleName !== prev.exampleName) {
      if (timer) clearTimeout(timer);
      timer = setTimeout(saveProgram, 250);
    }
    if (s.sim?.settings && s.sim.settings !== prev.sim?.settings) write(SETTINGS_KEY, s.sim.settings);
  });
  addEventListener('pagehide', () => { if (timer) { clearTimeout(timer); saveProgram(); } });
  addEventListener('visibilitychange', () => { if (document.visibilityState === 'hidden' && timer) { clearTimeout(timer); saveProgram(); } });
}

/** A link that reopens this program with these settings. */
export async function shareLink(): Promise<string> {
  const s = useApp.getState();
  const scenario: Scenario = { source: s.source };
  if (s.exampleName) scenario.example = s.exampleName;
  if (s.sim?.settings) scenario.settings = s.sim.settings;
  const url = new URL(location.href);
  url.hash = `${SHARE_PARAM}=${await encodeScenario(scenario)}`;
  return url.toString();
}

export function applyBootNotice(b: Boot): void {
  if (b.notice) setApp({ notice: b.notice });
}
