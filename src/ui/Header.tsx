/** Title, examples menu, lessons toggle, build status, Tab mode, shortcut list, share, theme toggle. */
import { loadExample } from './controller';
import { toggleTheme } from './theme';
import { setApp, useApp } from '../store';
import { BuildStatus } from './BuildStatus';
import { ShareButton } from './ShareButton';
import { toggleTabMovesFocus, useTabFocus } from './tabFocus';
import { showShortcutHelp } from './shortcuts';

export function Header() {
  const examples = useApp((s) => s.examples);
  const exampleName = useApp((s) => s.exampleName);
  const theme = useApp((s) => s.theme);
  const status = useApp((s) => s.engineStatus);
  const jit = useApp((s) => s.engineJit);
  const lessonsOpen = useApp((s) => s.lessonsOpen);
  const tabMovesFocus = useTabFocus((s) => s.movesFocus);
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
      <span className={`engine-status ${status}`} data-testid="engine-status"
        title={jit === false ? 'Programs run in the interpreter: this page\'s Content-Security-Policy forbids generated code in the engine\'s worker' : 'Programs run through the JIT in the engine\'s worker'}>
        engine: {status}{status === 'ready' && jit !== null && <span className="engine-jit">{jit ? ' · JIT' : ' · interpreter'}</span>}
      </span>
      <button data-testid="tab-mode" aria-pressed={tabMovesFocus} onClick={toggleTabMovesFocus}
        title="What Tab does in the editor: insert a tab, or move focus to the next control (Ctrl+M)">
        Tab {tabMovesFocus ? 'moves focus' : 'indents'} <kbd>Ctrl+M</kbd>
      </button>
      <button data-testid="shortcuts-open" onClick={() => showShortcutHelp(true)} title="Keyboard shortcuts (?)" aria-haspopup="dialog">
        Keys <kbd>?</kbd>
      </button>
      <ShareButton />
      <button data-testid="theme-toggle" onClick={toggleTheme} aria-label="Toggle light and dark theme">
        {theme === 'dark' ? '☀ Light' : '☾ Dark'}
      </button>
    </header>
  );
}
