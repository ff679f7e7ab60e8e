/**
 * The app shell: a header (examples, lessons, status, share, theme), the C
 * editor on the left (the lessons panel above it when open), the simulation
 * above the analysis panes on the right.
 */
import { Editor } from './editor/Editor';
import { Header } from './Header';
import { Panes } from './panes/Panes';
import { SimView } from './viz/SimView';
import { Notice } from './Notice';
import { Splitter } from './Splitter';
import { LessonsPane } from './lessons/LessonsPane';
import { useApp } from '../store';

export function App() {
  const lessonsOpen = useApp((s) => s.lessonsOpen);
  return (
    <div className="app" data-testid="app">
      <Header />
      <Notice />
      <main className="workspace">
        <section className={`editor-pane${lessonsOpen ? ' with-lessons' : ''}`} aria-label="Program editor">
          {lessonsOpen && <LessonsPane />}
          <Editor />
        </section>
        <section className="right" id="right" aria-label="Simulation and analysis">
          <SimView />
          <Splitter target="right" />
          <Panes />
        </section>
      </main>
    </div>
  );
}
