/**
 * The verifier's verdict: the kernel-format log, and beside it the abstract
 * register and stack state before the selected instruction.
 *
 * The log can be the kernel's whole 16 MiB buffer (a loop rejected at the
 * 1M-instruction limit: half a million lines), so the pane never splits it:
 * the engine sends where each line starts and the pc it prints
 * (src/engine/logIndex.ts), and only the lines in view are sliced and put
 * in the DOM (@tanstack/react-virtual). A rejected program's log opens at
 * its end, where the kernel prints the error.
 */
import { useVirtualizer } from '@tanstack/react-virtual';
import { memo, useEffect, useRef, type CSSProperties } from 'react';
import { logLine } from '../../engine/logIndex';
import { setApp, useApp } from '../../store';

/** Row height in px: `.verifier-log .log-row` sets the same, so positions need no measuring. */
const ROW_H = 17;

const select = (pc: number) => setApp({ selectedPc: pc, selectedLine: null });

const LogLine = memo(function LogLine({ text, pc, selected, style }: { text: string; pc: number; selected: boolean; style: CSSProperties }) {
  return (
    <div className={`log-row${selected ? ' selected' : ''}`} style={style} onClick={pc >= 0 ? () => select(pc) : undefined}>
      {text || ' '}
    </div>
  );
});

export function VerifierPane() {
  const build = useApp((s) => s.build);
  const selectedPc = useApp((s) => s.selectedPc);
  const v = build?.verify;
  const ok = v?.status === 'ok' ? v : null;
  const scroller = useRef<HTMLPreElement>(null);
  const count = ok ? ok.logIndex.pcs.length : 0;
  const rows = useVirtualizer({ count, getScrollElement: () => scroller.current, estimateSize: () => ROW_H, overscan: 12 });

  // A new log opens at its end when rejected (the error is the last thing the kernel prints), else at its start.
  useEffect(() => {
    if (!ok || count === 0) return;
    rows.scrollToIndex(ok.accepted ? 0 : count - 1, { align: ok.accepted ? 'start' : 'end' });
  }, [ok?.log, count]);

  // An instruction picked elsewhere (editor, disassembly, CFG) scrolls the log to where it is first printed, unless a line of it is in view.
  useEffect(() => {
    if (!ok || selectedPc === null) return;
    const pcs = ok.logIndex.pcs;
    const inView = rows.getVirtualItems().some((it) => pcs[it.index] === selectedPc);
    if (inView) return;
    const i = pcs.indexOf(selectedPc);
    if (i >= 0) rows.scrollToIndex(i, { align: 'center' });
  }, [selectedPc]);

  if (!build || !v) return <div className="pane-empty">building…</div>;
  if (!ok) return <div className="pane-empty" data-testid="verifier-not-run">The verifier did not run: {v.status === 'ok' ? '' : v.message}.</div>;
  const pc = selectedPc ?? ok.errorPc ?? null;
  const state = pc === null ? undefined : ok.states.find((s) => s.pc === pc);
  return (
    <div className="verifier" data-testid="verifier">
      <div className={`verdict ${ok.accepted ? 'ok' : 'error'}`} data-testid="verdict">
        {ok.accepted ? `accepted${ok.processed !== undefined ? ` · processed ${ok.processed} insns` : ''}` : `rejected: ${ok.error ?? ''}`}
        {ok.logTruncated && (
          <span className="log-truncated" data-testid="log-truncated">
            {' '}· the log filled the kernel's 16 MiB buffer: only its last {count.toLocaleString('en')} lines are kept, as the kernel keeps them
          </span>
        )}
      </div>
      <div className="verifier-split">
        <pre className="verifier-log" data-testid="verifier-log" ref={scroller} tabIndex={0} aria-label={`Verifier log, ${count.toLocaleString('en')} lines`}>
          <div className="log-rows" style={{ height: rows.getTotalSize() }}>
            {rows.getVirtualItems().map((it) => {
              const linePc = ok.logIndex.pcs[it.index] ?? -1;
              return (
                <LogLine key={it.index} text={logLine(ok.log, ok.logIndex, it.index)} pc={linePc}
                  selected={linePc >= 0 && linePc === pc} style={{ transform: `translateY(${it.start}px)` }} />
              );
            })}
          </div>
        </pre>
        <div className="abstract-state" data-testid="abstract-state">
          {pc === null ? <p>Select an instruction to see the verifier's state before it.</p> : !state ? <p>No state recorded for insn {pc} (not reached, or pruned).</p> : (
            <>
              <h3>before insn {pc}</h3>
              <table><tbody>{state.regs.map((r) => <tr key={r.name}><th>{r.name}</th><td>{r.text}</td></tr>)}</tbody></table>
              {state.stack.length > 0 && <table><tbody>{state.stack.map((r) => <tr key={r.name}><th>{r.name}</th><td>{r.text}</td></tr>)}</tbody></table>}
            </>
          )}
        </div>
      </div>
    </div>
  );
}
