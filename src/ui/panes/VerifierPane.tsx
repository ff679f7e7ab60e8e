/**
 * The verifier's verdict: the kernel-format log, and beside it the abstract
 * register and stack state before the selected instruction. The log is split
 * once per build (not per render) and its lines are memoised, so selecting
 * an instruction re-renders two lines, not the whole log.
 */
import { memo, useMemo } from 'react';
import { setApp, useApp } from '../../store';

const select = (pc: number) => setApp({ selectedPc: pc, selectedLine: null });

const LogLine = memo(function LogLine({ text, pc, selected }: { text: string; pc: number | null; selected: boolean }) {
  return (
    <div className={selected ? 'selected' : ''} onClick={pc !== null ? () => select(pc) : undefined}>
      {text || ' '}
    </div>
  );
});

/** The log's lines, each with the instruction it starts with ("12: (bf) r1 = r6"). */
function logLines(log: string): { text: string; pc: number | null }[] {
  return log.split('\n').map((text) => {
    const m = /^(\d+): /.exec(text);
    return { text, pc: m ? Number(m[1]) : null };
  });
}

export function VerifierPane() {
  const build = useApp((s) => s.build);
  const selectedPc = useApp((s) => s.selectedPc);
  const v = build?.verify;
  const log = v?.status === 'ok' ? v.log : '';
  const lines = useMemo(() => logLines(log), [log]);
  if (!build || !v) return <div className="pane-empty">building…</div>;
  if (v.status !== 'ok') return <div className="pane-empty" data-testid="verifier-not-run">The verifier did not run: {v.message}.</div>;
  const pc = selectedPc ?? v.errorPc ?? null;
  const state = pc === null ? undefined : v.states.find((s) => s.pc === pc);
  return (
    <div className="verifier" data-testid="verifier">
      <div className={`verdict ${v.accepted ? 'ok' : 'error'}`} data-testid="verdict">
        {v.accepted ? `accepted${v.processed !== undefined ? ` · processed ${v.processed} insns` : ''}` : `rejected: ${v.error ?? ''}`}
      </div>
      <div className="verifier-split">
        <pre className="verifier-log" data-testid="verifier-log">
          {lines.map((l, i) => <LogLine key={i} text={l.text} pc={l.pc} selected={l.pc !== null && l.pc === pc} />)}
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
