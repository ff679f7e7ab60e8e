/**
 * What survives a reload and what travels in a link, without ever losing
 * work. The workspace and the machine settings are saved to localStorage as
 * they change (and flushed when the page hides). A save that fails (storage
 * full or disabled) leaves the last good copy in place and says so, offering
 * the workspace as a download. A share link (#share=…, ./shareLink.ts) never
 * replaces saved work silently: the saved program is put aside first (the
 * stash) and the notice offers to switch back; a link that cannot be opened
 * leaves the saved program as it was and opens it. Everything read back is
 * checked against ./schema.ts; what is dropped is named in a notice.
 */
import type { Workspace } from '../cc/workspace';
import { singleFileWorkspace } from '../cc/workspace';
import type { SimSettings } from '../engine/simTypes';
import type { Speed } from '../engine/api';
import { setApp, showNotice, useApp } from '../store';
import { checkExample, checkSettings, checkWorkspace } from './schema';
import { decodeShareLink, encodeShareLink, SETTINGS_WARNING_PREFIX } from './shareLink';
import { downloadWorkspace } from './editor/zip';

export const PROGRAM_KEY = 'xdp-lab:program';
export const SETTINGS_KEY = 'xdp-lab:settings';
/** Programs put aside when a link opened over them, newest first. */
export const STASH_KEY = 'xdp-lab:stash';
const STASH_MAX = 5;
const SHARE_PARAM = 'share';

export interface Saved {
  workspace: Workspace;
  example: string | null;
  savedAt?: number;
}

export interface Boot {
  workspace: Workspace | null;
  example: string | null;
  settings: SimSettings | null;
  /** The speed a share link carried (null: keep the app's). */
  speed: Speed | null;
  notice: string | null;
  /** Offer to go back to the program the link was opened over. */
  offerSwitchBack: boolean;
}

/** Decide what the app opens with: a share link, else the last session, else the default. */
export function resolveBoot(): Boot {
  const warnings: string[] = [];
  const saved = readSaved(warnings);
  const savedSettings = readSettings(warnings);
  const hash = new URLSearchParams(location.hash.slice(1));
  const shared = hash.get(SHARE_PARAM);
  const storageNote = warnings.length ? ` Some saved data was ignored: ${warnings.join('; ')}.` : '';
  if (shared === null) {
    return { workspace: saved?.workspace ?? null, example: saved?.example ?? null, settings: savedSettings, speed: null, notice: storageNote.trim() || null, offerSwitchBack: false };
  }
  // The link has done its job once applied; later reloads follow the learner's edits.
  history.replaceState(null, '', location.pathname + location.search);
  const r = decodeShareLink(shared);
  if (!r.ok) {
    const instead = saved ? 'Your saved program is unchanged and open.' : 'Showing the default example instead.';
    return { workspace: saved?.workspace ?? null, example: saved?.example ?? null, settings: savedSettings, speed: null, notice: `This share link could not be opened: ${r.error}. ${instead}${storageNote}`, offerSwitchBack: false };
  }
  // Keep both: the saved program goes to the stash before the link's replaces it.
  let offerSwitchBack = false;
  let kept = '';
  if (saved && !sameWorkspace(saved.workspace, r.workspace)) {
    if (stash(saved)) {
      offerSwitchBack = true;
      kept = ' Your own program is kept.';
    } else {
      saveBlocked = true;
      kept = ' Your own program is kept in this browser; the link\'s program will not be saved over it until you save it yourself.';
    }
  }
  // A link's settings are used only when every field is valid; otherwise the learner's stay.
  const settingsBad = r.warnings.some((w) => w.startsWith(SETTINGS_WARNING_PREFIX));
  const ignored = r.warnings.length ? ` Parts of the link were ignored: ${r.warnings.join('; ')}.` : '';
  return {
    workspace: r.workspace,
    example: r.example,
    settings: settingsBad ? savedSettings : r.settings ?? savedSettings,
    speed: r.speed ?? null,
    notice: `Opened the program shared in the link.${kept}${ignored}${storageNote}`,
    offerSwitchBack,
  };
}

function sameWorkspace(a: Workspace, b: Workspace): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

function readJson(key: string): unknown {
  try {
    const t = localStorage.getItem(key);
    return t ? JSON.parse(t) : null;
  } catch {
    return null;
  }
}

/** A saved program: the v2 record {v:2, workspace, example}, or the v1 one {source, example}. */
function checkSaved(o: unknown, warnings: string[]): Saved | null {
  if (typeof o !== 'object' || o === null) return null;
  const r = o as Record<string, unknown>;
  let workspace: Workspace;
  if (r.v === 2) {
    const w = checkWorkspace(r.workspace);
    if (!w.ok) { warnings.push(`the saved program (${w.error})`); return null; }
    warnings.push(...w.warnings);
    workspace = w.value;
  } else if (typeof r.source === 'string') workspace = singleFileWorkspace(r.source);
  else return null;
  return { workspace, example: checkExample(r.example, warnings), ...(typeof r.savedAt === 'number' ? { savedAt: r.savedAt } : {}) };
}

function readSaved(warnings: string[]): Saved | null {
  return checkSaved(readJson(PROGRAM_KEY), warnings);
}

function readSettings(warnings: string[]): SimSettings | null {
  const raw = readJson(SETTINGS_KEY);
  if (raw === null) return null;
  const s = checkSettings(raw);
  warnings.push(...s.warnings);
  return s.settings;
}

function readStash(): Saved[] {
  const raw = readJson(STASH_KEY);
  if (!Array.isArray(raw)) return [];
  return raw.map((x) => checkSaved(x, [])).filter((x): x is Saved => x !== null);
}

/** Put a program aside (newest first, without duplicates); false when storage refused it. */
function stash(s: Saved): boolean {
  const rest = readStash().filter((x) => !sameWorkspace(x.workspace, s.workspace));
  const list = [s, ...rest].slice(0, STASH_MAX).map((x) => ({ v: 2, workspace: x.workspace, example: x.example, savedAt: x.savedAt }));
  return write(STASH_KEY, list) === null;
}

/** Write, or say why not (the old value stays: setItem either stores all of it or nothing). */
function write(key: string, value: unknown): string | null {
  try {
    localStorage.setItem(key, JSON.stringify(value));
    return null;
  } catch (e) {
    return (e as Error)?.name === 'QuotaExceededError' ? 'the browser\'s storage for this site is full' : `the browser refused (${(e as Error)?.message ?? String(e)})`;
  }
}

/** Set when a link was opened over saved work that could not be put aside: saving would overwrite it. */
let saveBlocked = false;
let lastGoodSave: number | null = null;
let failing = false;

function time(t: number | null): string {
  return t === null ? 'before this session' : new Date(t).toLocaleTimeString();
}

/** Save now; on failure keep the last good copy and tell the learner, with a download. */
export function saveProgramNow(): boolean {
  const s = useApp.getState();
  if (!s.workspace.files.length || saveBlocked) return false;
  const now = Date.now();
  const why = write(PROGRAM_KEY, { v: 2, workspace: s.workspace, example: s.exampleName, savedAt: now });
  if (why === null) {
    lastGoodSave = now;
    if (failing) {
      failing = false;
      if (useApp.getState().noticeActions?.actions.some((a) => a.testid === 'notice-download')) showNotice('Your program is saved again.');
    }
    return true;
  }
  if (!failing) {
    failing = true;
    showNotice(
      `Your latest changes could not be saved: ${why}. They are still in the editor; the last saved copy (${time(lastGoodSave)}) is kept. Download the workspace to keep them.`,
      [
        { label: 'Download workspace (.zip)', testid: 'notice-download', run: () => downloadWorkspace(useApp.getState().workspace) },
        // Still failing: the notice stays as it is; saved: it says so (saveProgramNow sees `failing`).
        { label: 'Try saving again', testid: 'notice-retry', run: () => void saveProgramNow() },
      ],
    );
  }
  return false;
}

/** Save the workspace and settings as they change. */
export function startAutosave(): void {
  let timer: ReturnType<typeof setTimeout> | null = null;
  const flush = () => {
    if (timer) clearTimeout(timer);
    timer = null;
    saveProgramNow();
  };
  useApp.subscribe((s, prev) => {
    if (s.workspace !== prev.workspace || s.exampleName !== prev.exampleName) {
      if (timer) clearTimeout(timer);
      timer = setTimeout(flush, 250);
    }
    if (s.sim?.settings && s.sim.settings !== prev.sim?.settings) write(SETTINGS_KEY, s.sim.settings);
  });
  addEventListener('pagehide', () => { if (timer) flush(); });
  addEventListener('visibilitychange', () => { if (document.visibilityState === 'hidden' && timer) flush(); });
}

/** Go back to the program the link was opened over; the link's program is put aside in its place. */
export function switchBack(apply: (s: Saved) => void): void {
  const [back] = readStash();
  if (!back) { showNotice('There is no other program to switch back to.'); return; }
  const st = useApp.getState();
  const current: Saved = { workspace: st.workspace, example: st.exampleName, savedAt: Date.now() };
  // Keep both again: the current program joins the stash before the earlier one returns.
  const rest = readStash().filter((x) => !sameWorkspace(x.workspace, back.workspace));
  write(STASH_KEY, [current, ...rest].slice(0, STASH_MAX).map((x) => ({ v: 2, ...x })));
  saveBlocked = false;
  apply(back);
  showNotice('Switched back to your program; the program from the link is kept too.', [
    { label: 'Open the link\'s program again', testid: 'notice-switch-back', run: () => switchBack(apply) },
  ]);
}

/** The learner chose to keep the link's program although their own could not be put aside. */
export function allowSaving(): void {
  saveBlocked = false;
  saveProgramNow();
}

/** A link that reopens this workspace with these settings. */
export function shareLink(): string {
  const s = useApp.getState();
  const url = new URL(location.href);
  url.hash = `${SHARE_PARAM}=${encodeShareLink({ workspace: s.workspace, example: s.exampleName, settings: s.sim?.settings ?? null, speed: s.speed })}`;
  return url.toString();
}

export function applyBootNotice(b: Boot, apply: (s: Saved) => void): void {
  if (!b.notice) return;
  if (b.offerSwitchBack) showNotice(b.notice, [{ label: 'Switch back to my program', testid: 'notice-switch-back', run: () => switchBack(apply) }]);
  else if (saveBlocked) showNotice(b.notice, [{ label: 'Save the link\'s program over mine', testid: 'notice-allow-save', run: allowSaving }]);
  else setApp({ notice: b.notice });
}
