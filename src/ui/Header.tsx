/** Title, examples menu, lessons toggle, build status, theme toggle. */
import { loadExample } from './controller';
import { toggleTheme } from './theme';
import { setApp, useApp } from '../store';
import { BuildStatus } from './BuildStatus';
import { ShareButton } from './ShareButton';

export function Header() {
  const examples = useApp((s) => s.examples);
  const exampleName = useApp((s) => s.exampleName);
  const theme = useApp((s) => s.theme);
  const status = useApp((s) => s.engineStatus);
  const lessonsOpen = useApp((s) => s.lessonsOpen);
  return (
    <header className="header">
      <h1 className="title">XDP Lab</h1>
      <label className="examples">
        <span>Example</span>
        <select data-testid="examples" value={exampleName ?? ''} onChange={(e) => loadExample(e.target.value)}>
          {exampleName === null && <option value="">(edited)</option>}
          {examples.map((ex) => (
            <option key={ex.name} value={ex.name}>{ex.title}</option>
          ))}
        </select>
      </label>
      <button data-testid="lessons-toggle" aria-pressed={lessonsOpen} aria-controls="lessons" onClick={() => setApp({ lessonsOpen: !lessonsOpen })}>
        Lessons
      </button>
      <BuildStatus />
      <span className="spacer" />
      <span className={`engine-status ${status}`} data-testid="engine-status">engine: {status}</span>
      <ShareButton />
      <button data-testid="theme-toggle" onClick={toggleTheme} aria-label="Toggle light and dark theme">
        {theme === 'dark' ? '☀ Light' : '☾ Dark'}
      </button>
    </header>
  );
}
