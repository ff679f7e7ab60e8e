/**
 * The app shell: a header (examples, lessons, status, share, theme), the C
 * editor on the left (the lessons panel above it when open), the simulation
 * above the analysis panes on the right.
 */
import { lazy, Suspense, useEffect, useState } from 'react';
import { Header } from './Header';
import { Panes } from './panes/Panes';
import { SimView } from './viz/SimView';
import { Notice } from './Notice';
import { Splitter } from './Splitter';
import { ExplainBar } from './explain/ExplainBar';
import { ShortcutsDialog } from './ShortcutsDialog';
import { useApp } from '../store';
import { simDrawn } from './controller';

/**
 * Monaco is most of the app's code (about 3 MB): it loads in its own chunk,
 * so the simulation and the panes are on screen and running while it
 * arrives. Until then the program is shown read-only, as it is.
 */
const Editor = lazy(() => import('./editor/Editor').then((m) => ({ default: m.Editor })));

/** The lessons and the graded exercises (their catalog builds packets, their grader is the whole engine) load when first opened. */
const LessonsPane = lazy(() => import('./lessons/LessonsPane').then((m) => ({ default: m.LessonsPane })));

/**
 * Whether the editor may mount: once the simulation's first picture is on
 * screen (simDrawn in the controller, which also times the first build).
 * Running Monaco's module takes the UI thread for about half a second on
 * the 2-core test machine; mounted at once, it ran before the first
 * snapshot could be drawn. Its chunk is not preloaded either: compiling it
 * at the start took the second core from the workers.
 */
function useEditorMayMount(): boolean {
  const [may, setMay] = useState(false);
  useEffect(() => {
    let live = true;
    void simDrawn().then(() => live && setMay(true));
    return () => {
      live = false;
    };
  }, []);
  return may;
}

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
  const editorMayMount = useEditorMayMount();
  return (
    <div className="app" data-testid="app">
      <Header />
      <Notice />
      <main className="workspace" id="workspace">
        <section className={`editor-pane${lessonsOpen ? ' with-lessons' : ''}`} aria-label="Program editor">
          {lessonsOpen && (
            <Suspense fallback={<p className="muted">loading the lessons…</p>}>
              <LessonsPane />
            </Suspense>
          )}
          <ExplainBar />
          <Suspense fallback={<EditorLoading />}>{editorMayMount ? <Editor /> : <EditorLoading />}</Suspense>
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
