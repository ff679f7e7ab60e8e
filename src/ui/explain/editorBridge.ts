/**
 * The explanation's reach into the editor without owning it: path lines
 * highlighted, and the fix applied as an edit the editor can undo (Ctrl+Z or
 * the Undo button). Monaco is imported lazily so the explanation never pulls
 * the editor into the first chunk; without an editor on screen the fix goes
 * through the store instead.
 */
import type { Fix } from '../../explain';

type MonacoNs = typeof import('../editor/monaco')['monaco'];
let ns: MonacoNs | null = null;
const load = async (): Promise<MonacoNs> => (ns ??= (await import('../editor/monaco')).monaco);

type Decorations = ReturnType<ReturnType<MonacoNs['editor']['getEditors']>[number]['createDecorationsCollection']>;
let collection: Decorations | null = null;
/** The failing line last scrolled into view: a refusal at a new line is shown once, and typing elsewhere is not interrupted. */
let revealed: number | null = null;

function editor(m: MonacoNs) {
  return m.editor.getEditors()[0] ?? null;
}

/** Highlight the path (lighter) and the failing line (scrolled into view when it is a new one); empty lists clear it. */
export async function highlight(path: number[], errorLine: number | null): Promise<void> {
  // Nothing highlighted yet and nothing to highlight: no reason to load Monaco. The explanation's bar mounts
  // with the app and clears on every accepted build; loading the editor's 3 MB here started its compile
  // during the simulation's first frames, ahead of the editor's own deferred load (App's useEditorMayMount).
  if (collection === null && path.length === 0 && errorLine === null) return;
  const m = await load();
  const e = editor(m);
  if (!e) return;
  collection ??= e.createDecorationsCollection();
  const lines = [...new Set(path)].filter((l) => l !== errorLine);
  collection.set([
    ...lines.map((l) => ({ range: new m.Range(l, 1, l, 1), options: { isWholeLine: true, className: 'explain-path-line' } })),
    ...(errorLine !== null ? [{ range: new m.Range(errorLine, 1, errorLine, 1), options: { isWholeLine: true, className: 'explain-error-line' } }] : []),
  ]);
  // The explanation above the editor takes room: the line it talks about must be on screen. After the
  // next frame, once the bar has been laid out and the editor shrunk to what is left.
  if (errorLine !== null && errorLine !== revealed) {
    requestAnimationFrame(() => {
      e.layout();
      e.revealLineInCenterIfOutsideViewport(errorLine);
    });
  }
  revealed = errorLine;
}

/** Apply the fix as one undoable edit; false when there is no editor to edit (the caller sets the text itself). */
export async function applyInEditor(fix: Fix): Promise<boolean> {
  const m = await load();
  const e = editor(m);
  const model = e?.getModel();
  if (!e || !model) return false;
  // The fix and its further edits (a map declared before the function) as one edit: all in the original's line numbers.
  const edits = [fix, ...(fix.also ?? [])].map((x) => {
    const line = Math.min(x.line, model.getLineCount());
    const range = x.replace ? new m.Range(line, 1, line, model.getLineMaxColumn(line)) : new m.Range(line, 1, line, 1);
    return { range, text: x.replace ? x.insert : `${x.insert}\n` };
  });
  e.pushUndoStop();
  e.executeEdits('xdp-lab-explain', edits);
  e.pushUndoStop();
  return true;
}

export async function undoInEditor(): Promise<boolean> {
  const m = await load();
  const e = editor(m);
  if (!e) return false;
  e.trigger('xdp-lab-explain', 'undo', null);
  return true;
}
