/**
 * The C editor: one Monaco instance showing one model per workspace file
 * (C highlighting for .c and .h), switched by the tabs above it
 * (./WorkspaceBar.tsx). The store is the source of truth for the files (so
 * examples, share links and reloads can replace them); each model follows
 * its file, and each build's diagnostics become markers in the model of the
 * file they are in.
 */
import { useEffect, useRef } from 'react';
import { monaco } from './monaco';
import { registerHeaderCompletion } from './completion';
import { editorUp, markMilestone, setFileText } from '../controller';
import { defineMonacoThemes, monacoTheme } from '../theme';
import { setApp, useApp } from '../../store';
import { bindTabFocusMode } from '../tabFocus';
import type { Diagnostic } from '../../engine';
import type { Workspace } from '../../cc/workspace';
import { WorkspaceBar } from './WorkspaceBar';
import './workspace.css';

const OWNER = 'xdp-lab';
const URI_ROOT = '/workspace/';

const uriOf = (path: string) => monaco.Uri.from({ scheme: 'file', path: URI_ROOT + path });
const pathOf = (m: monaco.editor.ITextModel) => m.uri.path.slice(URI_ROOT.length);
const languageOf = (path: string) => (/\.(c|h)$/i.test(path) ? 'c' : 'plaintext');

// For e2e tests: the markers Monaco actually holds (what the user sees as squiggles and hovers), with their file.
(window as unknown as { __xdpLab?: Record<string, unknown> }).__xdpLab!.markers = () =>
  monaco.editor.getModelMarkers({ owner: OWNER }).map((m) => ({ file: m.resource.path.slice(URI_ROOT.length), line: m.startLineNumber, col: m.startColumn, message: m.message, severity: monaco.MarkerSeverity[m.severity], source: m.source }));

function toMarker(d: Diagnostic): monaco.editor.IMarkerData {
  const sev = d.severity === 'error' ? monaco.MarkerSeverity.Error : d.severity === 'warning' ? monaco.MarkerSeverity.Warning : monaco.MarkerSeverity.Info;
  return {
    severity: sev,
    message: d.message,
    source: d.stage,
    code: d.code,
    startLineNumber: d.line,
    startColumn: d.col,
    endLineNumber: d.endLine,
    endColumn: Math.max(d.endCol, d.col + 1),
  };
}

/** Make the models match the workspace's files: create, update (when the text came from elsewhere), dispose. */
function syncModels(models: Map<string, monaco.editor.ITextModel>, ws: Workspace): void {
  const want = new Set(ws.files.map((f) => f.path));
  for (const [path, m] of models) if (!want.has(path)) { m.dispose(); models.delete(path); }
  for (const f of ws.files) {
    const m = models.get(f.path);
    if (!m) models.set(f.path, monaco.editor.createModel(f.text, languageOf(f.path), uriOf(f.path)));
    else if (m.getValue() !== f.text) m.setValue(f.text);
  }
}

export function Editor() {
  const host = useRef<HTMLDivElement>(null);
  const ed = useRef<monaco.editor.IStandaloneCodeEditor | null>(null);
  const decos = useRef<monaco.editor.IEditorDecorationsCollection | null>(null);
  const models = useRef(new Map<string, monaco.editor.ITextModel>());
  const viewStates = useRef(new Map<string, monaco.editor.ICodeEditorViewState | null>());
  const workspace = useApp((s) => s.workspace);
  const activeFile = useApp((s) => s.activeFile);
  const theme = useApp((s) => s.theme);
  const build = useApp((s) => s.build);
  const selectedPc = useApp((s) => s.selectedPc);

  useEffect(() => {
    registerHeaderCompletion();
    defineMonacoThemes(monaco);
    const st = useApp.getState();
    syncModels(models.current, st.workspace);
    const e = monaco.editor.create(host.current!, {
      model: models.current.get(st.activeFile) ?? null,
      theme: monacoTheme(st.theme),
      automaticLayout: true,
      minimap: { enabled: false },
      fontSize: 13,
      scrollBeyondLastLine: false,
      tabSize: 8,
      insertSpaces: false,
      glyphMargin: true,
      ariaLabel: 'XDP program source (C)',
    });
    ed.current = e;
    editorUp();
    const unbindTab = bindTabFocusMode(e);
    decos.current = e.createDecorationsCollection();
    // For e2e tests: the C line currently linked to the selected instruction.
    (window as unknown as { __xdpLab: Record<string, unknown> }).__xdpLab.linkedLine = () => decos.current?.getRanges()[0]?.startLineNumber ?? null;
    const sub = e.onDidChangeModelContent(() => {
      const m = e.getModel();
      if (!m) return;
      const path = pathOf(m);
      const v = m.getValue();
      if (useApp.getState().workspace.files.find((f) => f.path === path)?.text !== v) setFileText(path, v);
    });
    const cur = e.onDidChangeCursorPosition((ev) => {
      // The user moved the cursor (click, keys, Go to Line), not a text replacement.
      const R = monaco.editor.CursorChangeReason;
      if (ev.reason === R.Explicit || ev.reason === R.NotSet) setApp({ selectedLine: ev.position.lineNumber, selectedPc: null });
    });
    const all = models.current;
    return () => {
      unbindTab();
      sub.dispose();
      cur.dispose();
      e.dispose();
      for (const m of all.values()) m.dispose();
      all.clear();
    };
  }, []);

  // The store's files changed (an edit echoed back, an example, a link, an upload): models follow.
  useEffect(() => {
    syncModels(models.current, workspace);
  }, [workspace]);

  // Show the active file's model, keeping each file's cursor and scroll position.
  useEffect(() => {
    const e = ed.current;
    const m = models.current.get(activeFile);
    if (!e || !m || e.getModel() === m) return;
    const prev = e.getModel();
    if (prev && !prev.isDisposed()) viewStates.current.set(pathOf(prev), e.saveViewState());
    e.setModel(m);
    const vs = viewStates.current.get(activeFile);
    if (vs) e.restoreViewState(vs);
  }, [activeFile, workspace]);

  useEffect(() => monaco.editor.setTheme(monacoTheme(theme)), [theme]);

  // Each file's markers, from the build of exactly the text it holds (a stale build marks nothing).
  useEffect(() => {
    if (!build) return;
    const built = build.workspace;
    const main = built?.main ?? useApp.getState().workspace.main;
    for (const [path, m] of models.current) {
      const text = built ? built.files.find((f) => f.path === path)?.text : path === main ? build.source : undefined;
      const fresh = text !== undefined && text === m.getValue();
      const diags = fresh ? build.diagnostics.filter((d) => (d.file ?? main) === path) : [];
      monaco.editor.setModelMarkers(m, OWNER, diags.map(toMarker));
      if (fresh && path === main) markMilestone('markers', build.source, build.seq);
    }
  }, [build, workspace]);

  // An instruction was picked elsewhere: show the file and highlight the C line it came from.
  useEffect(() => {
    const e = ed.current;
    if (!e || !decos.current) return;
    const at = selectedPc !== null && build?.compile.status === 'ok' ? lineFor(build.compile.lineOf, build.compile.fileOf, selectedPc) : null;
    const ws = useApp.getState().workspace;
    const file = at ? at.file ?? build?.workspace?.main ?? ws.main : null;
    if (at && file && file !== useApp.getState().activeFile && models.current.has(file)) {
      setApp({ activeFile: file });
      return; // this effect runs again once that file's model is shown
    }
    if (at && file === useApp.getState().activeFile) {
      decos.current.set([{ range: new monaco.Range(at.line, 1, at.line, 1), options: { isWholeLine: true, className: 'linked-line', glyphMarginClassName: 'linked-glyph' } }]);
      e.revealLineInCenterIfOutsideViewport(at.line);
    } else decos.current.clear();
  }, [selectedPc, build, activeFile]);

  return (
    <div className="ws-editor">
      <WorkspaceBar />
      <div className="editor-host" data-testid="editor" ref={host} />
    </div>
  );
}

function lineFor(lineOf: Record<number, number>, fileOf: Record<number, string> | undefined, pc: number): { line: number; file?: string } | null {
  for (let p = pc; p >= 0; p--) { const l = lineOf[p]; if (l !== undefined) return { line: l, file: fileOf?.[p] }; }
  return null;
}
