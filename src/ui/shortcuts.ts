/**
 * Keyboard shortcuts for the simulation and the panes. Alt+key so they work
 * while the editor has focus (Monaco binds Ctrl/Cmd combinations and plain
 * keys, not Alt+letter). Each button's title names its shortcut.
 */
import { setApp, type PaneTab } from '../store';
import { reset, step, stepBack, toggleRun } from './simControl';

export interface Shortcut {
  /** KeyboardEvent.code, so layouts and Alt-composed characters do not matter. */
  code: string;
  keys: string;
  what: string;
  run(): void;
}

const TAB_ORDER: PaneTab[] = ['disasm', 'verifier', 'inspector', 'maps', 'console'];

export const SHORTCUTS: Shortcut[] = [
  { code: 'KeyR', keys: 'Alt+R', what: 'run / pause', run: () => void toggleRun() },
  { code: 'KeyE', keys: 'Alt+E', what: 'step one event', run: () => void step('event') },
  { code: 'KeyP', keys: 'Alt+P', what: 'step one packet', run: () => void step('packet') },
  { code: 'KeyN', keys: 'Alt+N', what: 'step one NAPI poll', run: () => void step('napi') },
  { code: 'KeyB', keys: 'Alt+B', what: 'step back one event', run: () => void stepBack() },
  { code: 'KeyX', keys: 'Alt+X', what: 'reset the machine', run: () => void reset() },
  ...TAB_ORDER.map((tab, i) => ({ code: `Digit${i + 1}`, keys: `Alt+${i + 1}`, what: `show the ${tab} pane`, run: () => setApp({ tab }) })),
];

/** The shortcut's keys for a button's title, e.g. "(Alt+R)". */
export function keysFor(what: string): string {
  const s = SHORTCUTS.find((x) => x.what === what);
  return s ? ` (${s.keys})` : '';
}

export function installShortcuts(target: Window = window): () => void {
  const onKey = (e: KeyboardEvent) => {
    if (!e.altKey || e.ctrlKey || e.metaKey || e.shiftKey || e.repeat) return;
    const s = SHORTCUTS.find((x) => x.code === e.code);
    if (!s) return;
    e.preventDefault();
    e.stopPropagation();
    s.run();
  };
  // Capture phase: the editor must not see (and type) the key first.
  target.addEventListener('keydown', onKey, true);
  return () => target.removeEventListener('keydown', onKey, true);
}
