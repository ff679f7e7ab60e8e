/**
 * The app shell: a header (examples, lessons, status, share, theme), the C
 * editor on the left (the lessons panel above it when open), the simulation
 * above the analysis panes on the right.
 */
import { lazy, Suspense } from 'react';
import { Header } from './Header';
import { Panes } from './panes/Panes';
import { SimView } from './viz/SimView';
import { Notice } from './Notice';
import { Splitter } from './Splitter';
import { LessonsPane } from './lessons/LessonsPane';
import { ExplainBar } from './explain/ExplainBar';
import { ShortcutsDialog } from './ShortcutsDialog';
import { useApp } from '../store';

/**
 * Monaco is most of the app's code (about 3 MB): it loads in its own chunk,
 * so the simulation and the panes are on screen and running while it
 * arrives. Until then the program is shown read-only, as it is.
 */
const Editor = lazy(() => import('./editor/Editor').then((m) => ({ default: m.Editor })));

function EditorLoading() {
  const source = useApp((s) => s.source);
  return (
    <div className="editor-loading" data-testid="editor-loading" aria-busy="true">
      <p className="muted">loading the editor…</p>
      <pre>{source}</pre>
    </div>
  );
}

export function App() {
  const lessonsOpen = useApp((s) => s.lessonsOpen);
  return (
    <div className="app" data-testid="app">
      <Header />
      <Notice />
      <main className="workspace" id="workspace">
        <section className={`editor-pane${lessonsOpen ? ' with-lessons' : ''}`} aria-label="Program editor">
          {lessonsOpen && <LessonsPane />}
          <ExplainBar />
          <Suspense fallback={<EditorLoading />}>
            <Editor />
          </Suspense>
        </section>
        <Splitter target="workspace" orientation="vertical" />
        <section className="right" id="right" aria-label="Simulation and analysis">
          <SimView />
          <Splitter target="right" />
          <Panes />
        </section>
      </main>
      <ShortcutsDialog />
    </div>
  );
}
