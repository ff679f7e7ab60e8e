/**
 * The disassembly, llvm-objdump -S style: C lines between the instructions
 * they produced. Clicking an instruction selects it (and the editor shows its
 * C line); a C line selected in the editor highlights its instructions.
 * Rows are memoised: a rebuild re-renders only the lines that changed (the
 * store shares unchanged line objects between builds), a selection only the
 * rows whose highlight changed. One Tab stop for the whole listing (a
 * listbox's roving tabindex): the arrow keys, Home/End and PageUp/PageDown
 * move the selection, so Tab goes on to the next pane rather than through
 * every instruction.
 */
import { memo, type KeyboardEvent } from 'react';
import { setApp, useApp } from '../../store';
import type { DisasmLine } from '../../engine';

const select = (pc: number) => setApp({ selectedPc: pc, selectedLine: null });

const PAGE = 10;

const InsnRow = memo(function InsnRow({ l, selected, linked, error, tabStop }: { l: Extract<DisasmLine, { kind: 'insn' }>; selected: boolean; linked: boolean; error: boolean; tabStop: boolean }) {
  const cls = ['insn', selected ? 'selected' : '', linked ? 'linked' : '', error ? 'error' : ''].join(' ');
  return (
    <div className={cls} role="option" aria-selected={selected} tabIndex={tabStop ? 0 : -1} data-testid={`insn-${l.pc}`} data-line={l.line}
      onClick={() => select(l.pc)}
      onKeyDown={(e) => { if (e.key === 'Enter' || e.key === ' ') select(l.pc); }}>
      <span className="pc">{String(l.pc).padStart(4)}:</span>
      <span className="hex">{l.hex.replace(/(..)/g, '$1 ').trim()}</span>
      <span className="text">{l.text}</span>
    </div>
  );
});

const SourceRow = memo(function SourceRow({ l, linked }: { l: Extract<DisasmLine, { kind: 'source' }>; linked: boolean }) {
  return <div className={`src-line ${linked ? 'linked' : ''}`}>; {l.text.trim()} <span className="lineno">:{l.line}</span></div>;
});

export function DisasmPane() {
  const build = useApp((s) => s.build);
  const selectedPc = useApp((s) => s.selectedPc);
  const selectedLine = useApp((s) => s.selectedLine);
  if (!build) return <div className="pane-empty">building…</div>;
  const d = build.disasm;
  if (d.status !== 'ok') return <div className="pane-empty" data-testid="disasm-not-run">No disassembly: {d.message}.</div>;
  const errorPc = build.verify.status === 'ok' && !build.verify.accepted ? build.verify.errorPc : undefined;
  const pcs = d.lines.flatMap((l) => (l.kind === 'insn' ? [l.pc] : []));
  // The row Tab lands on: the selected instruction when it is in this listing, else the failing one, else the first.
  const stop = selectedPc !== null && pcs.includes(selectedPc) ? selectedPc : errorPc !== undefined && pcs.includes(errorPc) ? errorPc : pcs[0];
  const onKeyDown = (e: KeyboardEvent<HTMLDivElement>) => {
    const at = stop === undefined ? -1 : pcs.indexOf(stop);
    const to = { ArrowDown: at + 1, ArrowUp: at - 1, PageDown: at + PAGE, PageUp: at - PAGE, Home: 0, End: pcs.length - 1 }[e.key];
    if (to === undefined || pcs.length === 0) return;
    e.preventDefault();
    const pc = pcs[Math.max(0, Math.min(pcs.length - 1, to))]!;
    select(pc);
    const row = e.currentTarget.querySelector<HTMLElement>(`[data-testid="insn-${pc}"]`);
    row?.focus();
    row?.scrollIntoView({ block: 'nearest' });
  };
  return (
    <div className="disasm" data-testid="disasm" role="listbox" aria-label="Disassembly (arrow keys move the selection)" onKeyDown={onKeyDown}>
      {d.lines.map((l, i) => {
        if (l.kind === 'source') return <SourceRow key={i} l={l} linked={selectedLine === l.line} />;
        if (l.kind === 'label') return <div key={i} className="fn-label">{l.text}</div>;
        return <InsnRow key={i} l={l} selected={selectedPc === l.pc} linked={selectedLine !== null && l.line === selectedLine} error={errorPc === l.pc} tabStop={l.pc === stop} />;
      })}
    </div>
  );
}
