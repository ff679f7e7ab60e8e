/**
 * The C editor. Owns one Monaco instance; the store is the source of truth
 * for the text (so examples, share links and reloads can replace it), and
 * diagnostics from the latest build become markers on their lines.
 */
import { useEffect, useRef } from 'react';
import { monaco } from './monaco';
import { registerHeaderCompletion } from './completion';
import { markMilestone, setSource } from '../controller';
import { defineMonacoThemes, monacoTheme } from '../theme';
import { setApp, useApp } from '../../store';
import { bindTabFocusMode } from '../tabFocus';
import type { Diagnostic } from '../../engine';

const OWNER = 'xdp-lab';

// For e2e tests: the markers Monaco actually holds (what the user sees as squiggles and hovers).
(window as unknown as { __xdpLab?: Record<string, unknown> }).__xdpLab!.markers = () =>
  monaco.editor.getModelMarkers({ owner: OWNER }).map((m) => ({ line: m.startLineNumber, col: m.startColumn, message: m.message, severity: monaco.MarkerSeverity[m.severity], source: m.source }));

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

export function Editor() {
  const host = useRef<HTMLDivElement>(null);
  const ed = useRef<monaco.editor.IStandaloneCodeEditor | null>(null);
  const decos = useRef<monaco.editor.IEditorDecorationsCollection | null>(null);
  const source = useApp((s) => s.source);
  const theme = useApp((s) => s.theme);
  const build = useApp((s) => s.build);
  const selectedPc = useApp((s) => s.selectedPc);

  useEffect(() => {
    registerHeaderCompletion();
    defineMonacoThemes(monaco);
    const e = monaco.editor.create(host.current!, {
      value: useApp.getState().source,
      language: 'c',
      theme: monacoTheme(useApp.getState().theme),
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
    const unbindTab = bindTabFocusMode(e);
    decos.current = e.createDecorationsCollection();
    // For e2e tests: the C line currently linked to the selected instruction.
    (window as unknown as { __xdpLab: Record<string, unknown> }).__xdpLab.linkedLine = () => decos.current?.getRanges()[0]?.startLineNumber ?? null;
    const sub = e.onDidChangeModelContent(() => {
      const v = e.getValue();
      if (v !== useApp.getState().source) setSource(v);
    });
    const cur = e.onDidChangeCursorPosition((ev) => {
      // The user moved the cursor (click, keys, Go to Line), not a text replacement.
      const R = monaco.editor.CursorChangeReason;
      if (ev.reason === R.Explicit || ev.reason === R.NotSet) setApp({ selectedLine: ev.position.lineNumber, selectedPc: null });
    });
    return () => {
      unbindTab();
      sub.dispose();
      cur.dispose();
      e.dispose();
    };
  }, []);

  // The store replaced the text (example, share link, reload): push it in.
  useEffect(() => {
    const e = ed.current;
    if (e && e.getValue() !== source) e.setValue(source);
  }, [source]);

  useEffect(() => monaco.editor.setTheme(monacoTheme(theme)), [theme]);

  useEffect(() => {
    const model = ed.current?.getModel();
    if (!model) return;
    const diags = build && build.source === model.getValue() ? build.diagnostics : [];
    monaco.editor.setModelMarkers(model, OWNER, diags.map(toMarker));
    if (build && build.source === model.getValue()) markMilestone('markers', build.source, build.seq);
  }, [build]);

  // An instruction was picked elsewhere: highlight the C line it came from.
  useEffect(() => {
    const e = ed.current;
    if (!e || !decos.current) return;
    const line = selectedPc !== null && build?.compile.status === 'ok' ? lineFor(build.compile.lineOf, selectedPc) : null;
    if (line) {
      decos.current.set([{ range: new monaco.Range(line, 1, line, 1), options: { isWholeLine: true, className: 'linked-line', glyphMarginClassName: 'linked-glyph' } }]);
      e.revealLineInCenterIfOutsideViewport(line);
    } else decos.current.clear();
  }, [selectedPc, build]);

  return <div className="editor-host" data-testid="editor" ref={host} />;
}

function lineFor(lineOf: Record<number, number>, pc: number): number | null {
  for (let p = pc; p >= 0; p--) if (lineOf[p] !== undefined) return lineOf[p];
  return null;
}
