/**
 * The verifier, drawn: the program's basic blocks (cfgModel.ts, laid out by
 * dagre), each shaded by how often the verifier explored it and marked where
 * states were pruned; a rejected program's failing path is drawn in the
 * error colour. Clicking a block (or Enter on it) shows the verifier's state
 * at each of its instructions and links its first one to the editor.
 * "Running" shades the same graph by how often each block ran over the
 * frames the attached program saw last (the engine's hot path, re-run in
 * the worker from the inspector's kept frames).
 */
import { useEffect, useMemo, useState } from 'react';
import { setApp, useApp } from '../../store';
import { engine } from '../controller';
import type { HotPath } from '../../engine/hotPath';
import { buildCfg, type CfgBlock } from './cfgModel';

export function CfgPane() {
  const build = useApp((s) => s.build);
  const [picked, setPicked] = useState<number | null>(null);
  const verify = build?.verify.status === 'ok' ? build.verify : null;
  const insns = useMemo(
    () => (build?.disasm.status === 'ok' ? build.disasm.lines.flatMap((l) => (l.kind === 'insn' ? [{ pc: l.pc, text: l.text }] : [])) : []),
    [build],
  );
  const [shade, setShade] = useState<'verifier' | 'running'>('verifier');
  const [hot, setHot] = useState<HotPath | { error: string } | null>(null);
  const running = shade === 'running' && hot && !('error' in hot) ? hot : null;
  const counts = useMemo(() => (running ? { visits: running.counts, pruned: new Uint32Array(running.counts.length) } : verify?.visits ?? null), [running, verify]);
  const cfg = useMemo(() => buildCfg(insns, counts, verify?.errorPath ?? []), [insns, counts, verify]);
  // A new build or a switch to "running" asks the engine again; the shade follows the program attached now.
  useEffect(() => {
    if (shade !== 'running') return;
    let live = true;
    void engine().call('hotPath').then((h) => { if (live) setHot(h); }, (e: Error) => { if (live) setHot({ error: e.message }); });
    return () => {
      live = false;
    };
  }, [shade, build]);
  if (!verify || cfg.blocks.length === 0) return <p className="pane-empty">No verified program to draw yet.</p>;
  const maxVisits = Math.max(1, ...cfg.blocks.map((b) => b.visits));
  const refresh = () => void engine().call('hotPath').then(setHot, (e: Error) => setHot({ error: e.message }));
  const block = picked !== null ? cfg.blocks[picked] : undefined;
  const choose = (b: CfgBlock) => {
    setPicked(b.id);
    setApp({ selectedPc: b.start });
  };
  return (
    <div className="cfg-pane" data-testid="cfg-pane">
      <p className="cfg-key">
        {verify.accepted ? 'accepted' : <span className="cfg-err">rejected: {verify.error} (failing path in red)</span>}
        {' · shade: '}
        <span role="radiogroup" aria-label="Shade blocks by">
          <label><input type="radio" name="cfg-shade" data-testid="cfg-shade-verifier" checked={shade === 'verifier'} onChange={() => setShade('verifier')} /> verifier</label>{' '}
          <label><input type="radio" name="cfg-shade" data-testid="cfg-shade-running" checked={shade === 'running'} onChange={() => setShade('running')} disabled={!verify.accepted} /> running program</label>
        </span>
        {shade === 'verifier' ? <> · times the verifier explored a block (most: {maxVisits}) · ✂ states pruned</> : (
          <span data-testid="cfg-hot-key">
            {' · '}{!hot ? 'counting…' : 'error' in hot ? hot.error : `times a block ran over the last ${hot.runs.toLocaleString('en')} of ${hot.total.toLocaleString('en')} packets (most: ${maxVisits.toLocaleString('en')})`}
            {' '}<button data-testid="cfg-hot-refresh" onClick={refresh}>Refresh</button>
          </span>
        )}
      </p>
      <div className="cfg-split">
        <svg className="cfg" width={cfg.width} height={cfg.height} data-testid="cfg" role="group" aria-label="Control-flow graph">
          <defs>
            <marker id="cfg-arrow" viewBox="0 0 8 8" refX="8" refY="4" markerWidth="7" markerHeight="7" orient="auto"><path d="M0,0L8,4L0,8z" className="cfg-arrowhead" /></marker>
          </defs>
          {cfg.edges.map((e) => (
            <polyline key={`${e.from}-${e.to}`} className={`cfg-edge${e.onErrorPath ? ' on-error' : ''}`} data-testid={`cfg-edge-${e.from}-${e.to}`}
              points={e.points.map((p) => `${p.x},${p.y}`).join(' ')} markerEnd="url(#cfg-arrow)" />
          ))}
          {cfg.blocks.map((b) => (
            <g key={b.id} transform={`translate(${b.x},${b.y})`} className={`cfg-block${b.onErrorPath ? ' on-error' : ''}${picked === b.id ? ' picked' : ''}`}
              data-testid={`cfg-block-${b.id}`} data-start={b.start} data-visits={b.visits} data-pruned={b.pruned} data-error-path={b.onErrorPath}
              role="button" tabIndex={0} aria-label={`instructions ${b.start} to ${b.end}: explored ${b.visits} times, ${b.pruned} pruned${b.onErrorPath ? ', on the failing path' : ''}`}
              onClick={() => choose(b)} onKeyDown={(e) => { if (e.key === 'Enter' || e.key === ' ') { e.preventDefault(); choose(b); } }}>
              <rect width={b.width} height={b.height} rx={4} className="cfg-rect" />
              <rect width={b.width} height={b.height} rx={4} className="cfg-heat" style={{ opacity: (0.45 * b.visits) / maxVisits }} />
              <text x={6} y={12} className="cfg-head">{b.visits}× {b.pruned > 0 ? `✂ ${b.pruned}` : ''}</text>
              {b.lines.map((l, i) => <text key={i} x={6} y={26 + i * 14} className="cfg-insn">{l}</text>)}
            </g>
          ))}
        </svg>
        {block && (
          <aside className="cfg-states" data-testid="cfg-states">
            <h3>Instructions {block.start}–{block.end}: explored {block.visits}×, {block.pruned} pruned</h3>
            {verify.states.filter((s) => s.pc >= block.start && s.pc <= block.end).map((s) => (
              <div key={s.pc}>
                <h4>before {s.pc}</h4>
                <table><tbody>
                  {[...s.regs, ...s.stack].map((r) => <tr key={r.name}><th>{r.name}</th><td>{r.text}</td></tr>)}
                </tbody></table>
              </div>
            ))}
            {verify.states.every((s) => s.pc < block.start || s.pc > block.end) && <p className="muted">The verifier never reached this block.</p>}
          </aside>
        )}
      </div>
    </div>
  );
}
