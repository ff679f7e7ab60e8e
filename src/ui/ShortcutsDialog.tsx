/**
 * The list of every keyboard shortcut, opened with `?` or the header's Keys
 * button. A modal <dialog>: Esc closes it (the browser's own cancel), and
 * focus goes back to where it was when the list opened.
 */
import { useEffect, useRef } from 'react';
import { OTHER_KEYS, SHORTCUTS, showShortcutHelp, useShortcutHelp } from './shortcuts';
import { useTabFocus } from './tabFocus';

export function ShortcutsDialog() {
  const open = useShortcutHelp((s) => s.open);
  const movesFocus = useTabFocus((s) => s.movesFocus);
  const ref = useRef<HTMLDialogElement>(null);
  const returnTo = useRef<HTMLElement | null>(null);
  useEffect(() => {
    const d = ref.current;
    if (!d) return;
    if (open && !d.open) {
      returnTo.current = document.activeElement instanceof HTMLElement ? document.activeElement : null;
      d.showModal();
    } else if (!open && d.open) d.close();
  }, [open]);
  const onClose = () => {
    showShortcutHelp(false);
    returnTo.current?.focus();
    returnTo.current = null;
  };
  const rows = [...SHORTCUTS.map((s) => ({ keys: s.keys, what: s.what })), ...OTHER_KEYS];
  return (
    <dialog ref={ref} className="shortcuts-dialog" data-testid="shortcuts-dialog" aria-labelledby="shortcuts-title" onClose={onClose}>
      <h2 id="shortcuts-title">Keyboard shortcuts</h2>
      <p className="muted" data-testid="shortcuts-tab-mode">Tab in the editor now {movesFocus ? 'moves focus to the next control' : 'inserts a tab'} (Ctrl+M switches).</p>
      <table>
        <tbody>
          {rows.map((r) => (
            <tr key={r.keys}><th scope="row"><kbd>{r.keys}</kbd></th><td>{r.what}</td></tr>
          ))}
        </tbody>
      </table>
      <form method="dialog"><button data-testid="shortcuts-close" autoFocus>Close</button></form>
    </dialog>
  );
}
