/**
 * Keyboard shortcuts for the simulation and the panes. Alt+key so they work
 * while the editor has focus (Monaco binds Ctrl/Cmd combinations and plain
 * keys, not Alt+letter). Each button's title names its shortcut. Ctrl+M
 * switches what Tab does in the editor (as in VS Code), and `?` outside a
 * text field opens the list of every key (ShortcutsDialog).
 */
import { create } from 'zustand';
import { setApp, type PaneTab } from '../store';
import { reset, step, stepBack, toggleRun } from './simControl';
import { toggleTabMovesFocus } from './tabFocus';

export interface Shortcut {
  /** KeyboardEvent.code, so layouts and Alt-composed characters do not matter. */
  code: string;
  keys: string;
  what: string;
  run(): void;
}

const TAB_ORDER: PaneTab[] = ['disasm', 'verifier', 'inspector', 'maps', 'console', 'cfg'];

export const SHORTCUTS: Shortcut[] = [
  { code: 'KeyR', keys: 'Alt+R', what: 'run / pause', run: () => void toggleRun() },
  { code: 'KeyE', keys: 'Alt+E', what: 'step one event', run: () => void step('event') },
  { code: 'KeyP', keys: 'Alt+P', what: 'step one packet', run: () => void step('packet') },
  { code: 'KeyN', keys: 'Alt+N', what: 'step one NAPI poll', run: () => void step('napi') },
  { code: 'KeyB', keys: 'Alt+B', what: 'step back one event', run: () => void stepBack() },
  { code: 'KeyX', keys: 'Alt+X', what: 'reset the machine', run: () => void reset() },
  ...TAB_ORDER.map((tab, i) => ({ code: `Digit${i + 1}`, keys: `Alt+${i + 1}`, what: `show the ${tab} pane`, run: () => setApp({ tab }) })),
];

/** Keys that are not Alt+letter commands, for the visible list. */
export const OTHER_KEYS: { keys: string; what: string }[] = [
  { keys: 'Ctrl+M', what: 'toggle whether Tab in the editor indents or moves focus' },
  { keys: 'Tab / Shift+Tab', what: 'next / previous control' },
  { keys: '← → Home End', what: 'move between pane tabs (in the tab list)' },
  { keys: '↑ ↓ / ← →', what: 'resize the panes (on a divider)' },
  { keys: '?', what: 'show this list (outside the editor and text fields)' },
  { keys: 'Esc', what: 'close this list' },
];

/** Whether the list of shortcuts is open. */
export const useShortcutHelp = create<{ open: boolean }>(() => ({ open: false }));
export const showShortcutHelp = (open: boolean): void => useShortcutHelp.setState({ open });

/** Where `?` is text, not a command: form fields and the editor. */
function typesText(t: EventTarget | null): boolean {
  if (!(t instanceof HTMLElement)) return false;
  if (t.isContentEditable || t.closest('.monaco-editor')) return true;
  if (t instanceof HTMLTextAreaElement || t instanceof HTMLSelectElement) return true;
  return t instanceof HTMLInputElement && !['button', 'checkbox', 'radio', 'range', 'file', 'submit', 'reset'].includes(t.type);
}

/** The shortcut's keys for a button's title, e.g. "(Alt+R)". */
export function keysFor(what: string): string {
  const s = SHORTCUTS.find((x) => x.what === what);
  return s ? ` (${s.keys})` : '';
}

export function installShortcuts(target: Window = window): () => void {
  const onKey = (e: KeyboardEvent) => {
    if (e.ctrlKey && !e.altKey && !e.metaKey && !e.shiftKey && e.code === 'KeyM') {
      // Before Monaco's own Ctrl+M binding, which would flip its global mode behind the app's back.
      e.preventDefault();
      e.stopPropagation();
      toggleTabMovesFocus();
      return;
    }
    if (e.key === '?' && !e.ctrlKey && !e.altKey && !e.metaKey && !typesText(e.target)) {
      e.preventDefault();
      showShortcutHelp(true);
      return;
    }
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
