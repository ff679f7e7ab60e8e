/**
 * Above the editor when the verifier refuses the program: the kernel's exact
 * message beside an explanation in a learner's terms (src/explain, computed
 * in the teaching worker from the verifier's state), the path of branches
 * highlighted in the editor, and the fix as code with "Apply fix" (undoable).
 */
import { useEffect, useState } from 'react';
import { applyFix, editHeading } from '../../explain/source';
import type { Explanation } from '../../explain';
import { setSource } from '../controller';
import { useApp } from '../../store';
import { explainInWorker } from '../exercises/teachClient';
import { applyInEditor, highlight, undoInEditor } from './editorBridge';
import '../exercises/exercises.css';

export function ExplainBar() {
  const build = useApp((s) => s.build);
  const source = useApp((s) => s.source);
  const [exp, setExp] = useState<{ source: string; e: Explanation } | null>(null);
  const [undo, setUndo] = useState<string | null>(null);
  const rejected = build !== null && build.source === source && build.verify.status === 'ok' && !build.verify.accepted ? build : null;

  useEffect(() => {
    if (!rejected) {
      setExp(null);
      void highlight([], null);
      return;
    }
    let live = true;
    void explainInWorker(rejected.source, rejected.workspace).then((r) => {
      if (!live || r === null || 'error' in r) return;
      setExp({ source: rejected.source, e: r });
      void highlight(r.path, r.line);
    });
    return () => {
      live = false;
    };
  }, [rejected]);

  if (!rejected && !undo) return null;
  if (!rejected && undo)
    return (
      <div className="explain-bar" data-testid="explain-bar" data-state="fixed">
        <span className="ok">The fix made the program verify.</span>{' '}
        <button data-testid="explain-undo" onClick={() => void undoFix()}>Undo fix</button>{' '}
        <button className="link" onClick={() => setUndo(null)}>Dismiss</button>
      </div>
    );
  const kernel = rejected!.verify.status === 'ok' ? rejected!.verify.error : '';
  const e = exp && exp.source === rejected!.source ? exp.e : null;

  async function applyIt(fix: NonNullable<Explanation['fix']>, text: string) {
    setUndo(text);
    if (!(await applyInEditor(fix))) setSource(applyFix(text, fix));
  }
  async function undoFix() {
    const before = undo;
    setUndo(null);
    if (!(await undoInEditor()) && before !== null) setSource(before);
  }

  return (
    <div className="explain-bar" data-testid="explain-bar" data-state="rejected" role="region" aria-label="Why the verifier refused the program">
      <p className="kernel" data-testid="explain-kernel">kernel: {kernel}</p>
      {!e ? (
        <p className="muted">explaining…</p>
      ) : (
        <>
          <p data-testid="explain-summary"><strong>Line {e.line}:</strong> {e.summary}</p>
          {e.fix ? (
            <div className="explain-fix">
              <span>Fix: {editHeading(e.fix)}</span>{' '}
              <button data-testid="explain-apply" onClick={() => void applyIt(e.fix!, rejected!.source)}>Apply fix</button>
              <pre data-testid="explain-fix">{e.fix.insert}</pre>
              {(e.fix.also ?? []).map((x) => (
                <div key={x.line} data-testid="explain-fix-also">
                  <span>and {editHeading(x)}</span>
                  {editHeading(x).startsWith('delete') ? null : <pre>{x.insert}</pre>}
                </div>
              ))}
            </div>
          ) : (
            <p className="muted">No fix can be written mechanically here; the explanation says what to change.</p>
          )}
          {e.path.length > 1 && <p className="muted" data-testid="explain-path">Path: lines {e.path.join(' → ')}</p>}
          <p className="muted" data-testid="explain-detail">{e.detail}</p>
        </>
      )}
    </div>
  );
}
