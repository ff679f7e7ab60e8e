/** A dismissable one-line message (engine restarts, bad share links, …). */
import { setApp, useApp } from '../store';

export function Notice() {
  const notice = useApp((s) => s.notice);
  if (!notice) return null;
  return (
    <div className="notice" role="status" data-testid="notice">
      <span>{notice}</span>
      <button onClick={() => setApp({ notice: null })} aria-label="Dismiss message">×</button>
    </div>
  );
}
