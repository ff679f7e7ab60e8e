/**
 * The UI's state: zustand slices that mirror what the engine worker reports
 * (builds, simulation snapshots) plus purely local UI state
 * (theme, selection, open tab). Worker traffic is buffered and merged once
 * per animation frame, so a burst of snapshots costs one render. A new
 * snapshot keeps the previous one's objects wherever nothing changed
 * (structural sharing), so narrow selectors and memoised components
 * re-render only the parts of the view that moved.
 */
import { create } from 'zustand';
import type { BuildResult, Example, SimSnapshot, Speed } from '../engine';
import type { Workspace } from '../cc/workspace';

export type Theme = 'light' | 'dark';
export type PaneTab = 'disasm' | 'verifier' | 'cfg' | 'inspector' | 'maps' | 'console';

export interface EngineSlice {
  engineStatus: 'starting' | 'ready' | 'restarting';
  /** Programs run through the JIT in the engine's worker (false: the interpreter; a CSP forbade generated code). */
  engineJit: boolean | null;
  examples: Example[];
  /** A message for the user (restart, bad share link, …), dismissable. */
  notice: string | null;
  /** Buttons offered with one notice (shown only while that notice is). */
  noticeActions: { for: string; actions: NoticeAction[] } | null;
}

export interface NoticeAction {
  label: string;
  testid: string;
  run: () => void;
}

export interface ProgramSlice {
  /** The program: files, the main one, build flags. */
  workspace: Workspace;
  /** The file shown in the editor. */
  activeFile: string;
  /** The main file's text (what single-file views such as lessons and explanations read). */
  source: string;
  exampleName: string | null;
  build: BuildResult | null;
  building: boolean;
}

export interface UiSlice {
  theme: Theme;
  tab: PaneTab;
  /** The instruction selected in the disassembly or verifier pane. */
  selectedPc: number | null;
  /** The C line selected in the editor (1-based). */
  selectedLine: number | null;
  consoleLines: string[];
  /** The lessons panel is open (above the editor). */
  lessonsOpen: boolean;
}

export interface SimSlice {
  sim: SimSnapshot | null;
  /** Why there is no snapshot (simulator missing, traffic ran out, …). */
  simMessage: string | null;
  running: boolean;
  speed: Speed;
}

export type AppState = EngineSlice & ProgramSlice & UiSlice & SimSlice;

export const initialState: AppState = {
  engineStatus: 'starting',
  engineJit: null,
  examples: [],
  notice: null,
  noticeActions: null,
  workspace: { files: [], main: 'prog.c', flags: [] },
  activeFile: 'prog.c',
  source: '',
  exampleName: null,
  build: null,
  building: false,
  theme: 'light',
  tab: 'disasm',
  selectedPc: null,
  selectedLine: null,
  consoleLines: [],
  lessonsOpen: false,
  sim: null,
  simMessage: null,
  running: false,
  speed: 'max',
};

export const useApp = create<AppState>()(() => ({ ...initialState }));

export const setApp = (p: Partial<AppState>): void => useApp.setState(p);

/** Show a notice with buttons (the buttons go when the notice changes). */
export function showNotice(text: string, actions: NoticeAction[] = []): void {
  useApp.setState({ notice: text, noticeActions: actions.length ? { for: text, actions } : null });
}

/** The main file's text of a workspace ('' when it has none). */
export function mainText(ws: Workspace): string {
  return ws.files.find((f) => f.path === ws.main)?.text ?? '';
}

/* ---- once-per-frame merging of worker traffic ---- */

let pending: Partial<AppState> | null = null;
let pendingConsole: string[] = [];
let frame = 0;

const raf: (cb: () => void) => number =
  typeof requestAnimationFrame === 'function' ? (cb) => requestAnimationFrame(cb) : (cb) => setTimeout(cb, 16) as unknown as number;

/**
 * `next` with every subtree equal to the same place in `prev` replaced by
 * prev's object. Snapshots arrive structured-cloned, so without this every
 * object is new every time. Cost: one pass over the snapshot (plain data).
 */
export function share<T>(prev: unknown, next: T): T {
  if (Object.is(prev, next)) return prev as T;
  if (typeof next !== 'object' || next === null || typeof prev !== 'object' || prev === null) return next;
  if (Array.isArray(next)) {
    if (!Array.isArray(prev)) return next;
    let same = prev.length === next.length;
    for (let i = 0; i < next.length; i++) {
      const v = share(prev[i], next[i]);
      if (v !== next[i]) next[i] = v;
      if (same && v !== prev[i]) same = false;
    }
    return same ? (prev as T) : next;
  }
  if (Array.isArray(prev) || Object.getPrototypeOf(next) !== Object.prototype) return next;
  const po = prev as Record<string, unknown>;
  const no = next as Record<string, unknown>;
  const keys = Object.keys(no);
  let same = keys.length === Object.keys(po).length;
  for (const k of keys) {
    const v = share(po[k], no[k]);
    if (v !== no[k]) no[k] = v;
    if (same && (!(k in po) || v !== po[k])) same = false;
  }
  return same ? (prev as T) : next;
}

function flush(): void {
  frame = 0;
  const p = pending ?? {};
  pending = null;
  if (p.sim) p.sim = share(useApp.getState().sim, p.sim);
  // A rebuild after a small edit repeats most disassembly lines and states:
  // sharing them lets the panes' memoised rows skip what did not change.
  if (p.build) p.build = share(useApp.getState().build, p.build);
  if (pendingConsole.length) {
    const all = [...useApp.getState().consoleLines, ...pendingConsole];
    p.consoleLines = all.slice(-500);
    pendingConsole = [];
  }
  useApp.setState(p);
}

/** Queue a partial update from the worker; applied at the next animation frame. */
export function mergeFromWorker(p: Partial<AppState>): void {
  pending = { ...(pending ?? {}), ...p };
  if (!frame) frame = raf(flush);
}

/** Queue console lines (bpf_printk, engine notes); kept to the last 500. */
export function appendConsole(lines: string[]): void {
  pendingConsole.push(...lines);
  if (!frame) frame = raf(flush);
}
