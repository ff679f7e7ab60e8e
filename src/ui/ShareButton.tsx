/** Makes a share link for the current workspace and settings, copies it, and shows it. */
import { useState } from 'react';
import { shareLink } from './persist';

export function ShareButton() {
  const [link, setLink] = useState<string | null>(null);
  const [copied, setCopied] = useState(false);
  const make = async () => {
    const url = shareLink();
    setLink(url);
    try {
      await navigator.clipboard.writeText(url);
      setCopied(true);
    } catch {
      setCopied(false); // no clipboard permission: the field below still has it, selected
    }
  };
  return (
    <span className="share">
      <button data-testid="share" onClick={() => void make()}>Share</button>
      {link && (
        <span className="share-pop" role="dialog" aria-label="Share link">
          <input data-testid="share-link" readOnly value={link} autoFocus onFocus={(e) => e.target.select()} aria-label="Share link" />
          <small>{copied ? 'copied' : 'copy this link'}</small>
          <button onClick={() => setLink(null)} aria-label="Close share link">×</button>
        </span>
      )}
    </span>
  );
}
