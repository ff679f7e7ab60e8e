/**
 * The disassembly, llvm-objdump -S style: C lines between the instructions
 * they produced. Clicking an instruction selects it (and the editor shows its
 * C line); a C line selected in the editor highlights its instructions.
 */
import { setApp, useApp } from '../../store';
import { Unavailable } from './Unavailable';

export function DisasmPane() {
  const build = useApp((s) => s.build);
  const selectedPc = useApp((s) => s.selectedPc);
  const selectedLine = useApp((s) => s.selectedLine);
  if (!build) return <div className="pane-empty">building…</div>;
  const d = build.disasm;
  if (d.status !== 'ok') return <Unavailable what="disassembly" why={d.message} />;
  const errorPc = build.verify.status === 'ok' && !build.verify.accepted ? build.verify.errorPc : undefined;
  return (
    <div className="disasm" data-testid="disasm" role="listbox" aria-label="Disassembly">
      {d.lines.map((l, i) => {
        if (l.kind === 'source') return <div key={i} className={`src-line ${selectedLine === l.line ? 'linked' : ''}`}>; {l.text.trim()} <span className="lineno">:{l.line}</span></div>;
        if (l.kind === 'label') return <div key={i} className="fn-label">{l.text}</div>;
        const cls = ['insn', selectedPc === l.pc ? 'selected' : '', selectedLine !== null && l.line === selectedLine ? 'linked' : '', errorPc === l.pc ? 'error' : ''].join(' ');
        return (
          <div key={i} className={cls} role="option" aria-selected={selectedPc === l.pc} tabIndex={0} data-testid={`insn-${l.pc}`} data-line={l.line}
            onClick={() => setApp({ selectedPc: l.pc, selectedLine: null })}
            onKeyDown={(e) => { if (e.key === 'Enter' || e.key === ' ') setApp({ selectedPc: l.pc, selectedLine: null }); }}>
            <span className="pc">{String(l.pc).padStart(4)}:</span>
            <span className="hex">{l.hex.replace(/(..)/g, '$1 ').trim()}</span>
            <span className="text">{l.text}</span>
          </div>
        );
      })}
    </div>
  );
}
