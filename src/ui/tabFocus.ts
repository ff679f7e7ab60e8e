/**
 * Tab in the editor: inserts a tab (the default, as in VS Code) or moves
 * focus to the next control ("tab focus mode"). Ctrl+M toggles it from
 * anywhere, as VS Code's "Toggle Tab Key Moves Focus" does; the header shows
 * the mode and the choice is kept across reloads. The editor applies it
 * through Monaco's own `tabFocusMode` option (bindTabFocusMode), so Monaco's
 * global toggle is never used and the two cannot disagree.
 */
import { create } from 'zustand';

const KEY = 'xdp-lab:tab-moves-focus';

function load(): boolean {
  try {
    return localStorage.getItem(KEY) === '1';
  } catch {
    return false;
  }
}

export const useTabFocus = create<{ movesFocus: boolean }>(() => ({ movesFocus: load() }));

export function setTabMovesFocus(movesFocus: boolean): void {
  useTabFocus.setState({ movesFocus });
  try {
    localStorage.setItem(KEY, movesFocus ? '1' : '0');
  } catch {
    /* storage blocked: the mode lives for this session */
  }
}

export const toggleTabMovesFocus = (): void => setTabMovesFocus(!useTabFocus.getState().movesFocus);

/** Keep an editor's tabFocusMode option in step with the mode; returns the unsubscribe. */
export function bindTabFocusMode(editor: { updateOptions(o: { tabFocusMode: boolean }): void }): () => void {
  editor.updateOptions({ tabFocusMode: useTabFocus.getState().movesFocus });
  return useTabFocus.subscribe((s) => editor.updateOptions({ tabFocusMode: s.movesFocus }));
}
