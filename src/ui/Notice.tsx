/** A dismissable one-line message (engine restarts, bad share links, failed saves, …), with the buttons it offers. */
import { setApp, useApp } from '../store';

export function Notice() {
  const notice = useApp((s) => s.notice);
  const actions = useApp((s) => s.noticeActions);
  if (!notice) return null;
  return (
    <div className="notice" role="status" data-testid="notice">
      <span>{notice}</span>
      <span>
        {actions?.for === notice && actions.actions.map((a) => (
          <button key={a.testid} className="notice-action" data-testid={a.testid} onClick={a.run}>{a.label}</button>
        ))}
        <button onClick={() => setApp({ notice: null, noticeActions: null })} aria-label="Dismiss message">×</button>
      </span>
    </div>
  );
}
