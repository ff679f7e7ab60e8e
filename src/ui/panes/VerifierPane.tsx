/**
 * The verifier's verdict: the kernel-format log, and beside it the abstract
 * register and stack state before the selected instruction.
 */
import { setApp, useApp } from '../../store';
import { Unavailable } from './Unavailable';

export function VerifierPane() {
  const build = useApp((s) => s.build);
  const selectedPc = useApp((s) => s.selectedPc);
  if (!build) return <div className="pane-empty">building…</div>;
  const v = build.verify;
  if (v.status !== 'ok') return <Unavailable what="verifier" why={v.message} />;
  const pc = selectedPc ?? v.errorPc ?? null;
  const state = pc === null ? undefined : v.states.find((s) => s.pc === pc);
  return (
    <div className="verifier" data-testid="verifier">
      <div className={`verdict ${v.accepted ? 'ok' : 'error'}`} data-testid="verdict">
        {v.accepted ? `accepted${v.processed !== undefined ? ` · processed ${v.processed} insns` : ''}` : `rejected: ${v.error ?? ''}`}
      </div>
      <div className="verifier-split">
        <pre className="verifier-log" data-testid="verifier-log">
          {v.log.split('\n').map((line, i) => {
            const m = /^(\d+): /.exec(line);
            const linePc = m ? Number(m[1]) : null;
            return (
              <div key={i} className={linePc !== null && linePc === pc ? 'selected' : ''} onClick={linePc !== null ? () => setApp({ selectedPc: linePc, selectedLine: null }) : undefined}>
                {line || ' '}
              </div>
            );
          })}
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
