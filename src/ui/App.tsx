/**
 * The app shell: a header (examples, status, share, theme), the C editor on
 * the left, the simulation above the analysis panes on the right.
 */
import { Editor } from './editor/Editor';
import { Header } from './Header';
import { Panes } from './panes/Panes';
import { SimView } from './viz/SimView';
import { Notice } from './Notice';

export function App() {
  return (
    <div className="app" data-testid="app">
      <Header />
      <Notice />
      <main className="workspace">
        <section className="editor-pane" aria-label="Program editor">
          <Editor />
        </section>
        <section className="right" aria-label="Simulation and analysis">
          <SimView />
          <Panes />
        </section>
      </main>
    </div>
  );
}
