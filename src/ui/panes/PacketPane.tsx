/**
 * The packet inspector: pick a packet (the latest one, or by number), see
 * its life in the driver, its bytes before and after the program with the
 * headers decoded, and step through the program's run one instruction at a
 * time — real register values beside the verifier's abstract state for the
 * same instruction, the packet bytes and stack slots as the program sees
 * them at that step, and the C line highlighted in the editor.
 */
import { useState } from 'react';
import { engine } from '../controller';
import { setRunning } from '../simControl';
import { mergeFromWorker, setApp, useApp } from '../../store';
import type { PacketDetail } from '../../engine';
import { memoryAt, type MemoryAt } from '../../engine/memoryAt';
import type { DecodedPacket } from '../../net/decode';
import { XdpDumpBar } from './XdpDumpBar';

function headers(d: DecodedPacket): string {
  const parts: string[] = [];
  if (d.eth) parts.push(`eth ${d.eth.src} → ${d.eth.dst} proto 0x${d.eth.proto.toString(16).padStart(4, '0')}`);
  for (const v of d.vlans) parts.push(`vlan ${v.vid}`);
  if (d.ipv4) parts.push(`ipv4 ${d.ipv4.src} → ${d.ipv4.dst} proto ${d.ipv4.proto} ttl ${d.ipv4.ttl}`);
  if (d.ipv6) parts.push(`ipv6 ${d.ipv6.src} → ${d.ipv6.dst} nh ${d.ipv6.nextHeader}`);
  if (d.udp) parts.push(`udp ${d.udp.sport} → ${d.udp.dport}`);
  if (d.tcp) parts.push(`tcp ${d.tcp.sport} → ${d.tcp.dport}`);
  if (d.icmp) parts.push(`icmp type ${d.icmp.type}`);
  if (d.truncated) parts.push(`(truncated at ${d.truncated})`);
  return parts.join(' · ');
}

function HexDump({ hex, other, testid }: { hex: string; other?: string; testid: string }) {
  const bytes = hex.match(/../g) ?? [];
  return (
    <pre className="hexdump" data-testid={testid}>
      {Array.from({ length: Math.ceil(bytes.length / 16) }, (_, row) => (
        <div key={row}>
          <span className="off">{(row * 16).toString(16).padStart(4, '0')}</span>{' '}
          {bytes.slice(row * 16, row * 16 + 16).map((b, i) => {
            const k = row * 16 + i;
            const diff = other !== undefined && other.slice(k * 2, k * 2 + 2) !== b;
            return <span key={i} className={diff ? 'diff' : ''}>{b} </span>;
          })}
        </div>
      ))}
    </pre>
  );
}

/** The packet as the program sees it at this step: bytes written so far marked, this step's access outlined. */
function PacketAtStep({ mem }: { mem: MemoryAt }) {
  const bytes = mem.packetHex.match(/../g) ?? [];
  const [lo, hi] = mem.packetTouched ?? [-1, -1];
  return (
    <pre className="hexdump" data-testid="step-packet">
      {Array.from({ length: Math.ceil(bytes.length / 16) }, (_, row) => (
        <div key={row}>
          <span className="off">{(row * 16).toString(16).padStart(4, '0')}</span>{' '}
          {bytes.slice(row * 16, row * 16 + 16).map((b, i) => {
            const k = row * 16 + i;
            const cls = `${mem.packetWritten.has(k) ? 'diff' : ''} ${k >= lo && k < hi ? 'touched' : ''}`.trim();
            return <span key={i} className={cls} data-touched={k >= lo && k < hi ? '' : undefined}>{b} </span>;
          })}
        </div>
      ))}
    </pre>
  );
}

function StackAtStep({ mem }: { mem: MemoryAt }) {
  if (!mem.stack.length) return <p className="muted">nothing written to the stack yet</p>;
  return (
    <table className="stack-slots" data-testid="step-stack">
      <tbody>
        {mem.stack.map((s) => (
          <tr key={s.fpOff} className={s.touched ? 'touched' : ''}><th>fp{s.fpOff}</th><td>{s.hex.match(/../g)!.join(' ')}</td></tr>
        ))}
      </tbody>
    </table>
  );
}

export function PacketPane() {
  const [detail, setDetail] = useState<PacketDetail | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [step, setStep] = useState(0);
  const [want, setWant] = useState('');
  const [following, setFollowing] = useState(false);
  const build = useApp((s) => s.build);

  const inspect = async (packet: number | null) => {
    await setRunning(false);
    try {
      const r = await engine().call('inspectPacket', packet);
      if ('error' in r) { setError(r.error); setDetail(null); return; }
      setError(null);
      setDetail(r);
      setStep(0);
      if (r.run?.steps[0]) setApp({ selectedPc: r.run.steps[0].pc, selectedLine: null });
    } catch (e) {
      setError((e as Error).message);
    }
  };
  /** Run the machine until the followed packet's buffer is back, then show its whole journey. */
  const follow = async (packet: number) => {
    await setRunning(false);
    setFollowing(true);
    try {
      const r = await engine().call('followPacket', packet);
      if (r.ok) mergeFromWorker({ sim: r.snapshot, simMessage: null });
      if ('error' in r.detail) { setError(r.detail.error); return; }
      setError(null);
      setDetail(r.detail);
    } catch (e) {
      setError((e as Error).message);
    } finally {
      setFollowing(false);
    }
  };
  const go = (i: number) => {
    const steps = detail?.run?.steps ?? [];
    const k = Math.max(0, Math.min(steps.length - 1, i));
    setStep(k);
    if (steps[k]) setApp({ selectedPc: steps[k].pc, selectedLine: null });
  };

  const run = detail?.run;
  const cur = run?.steps[step];
  const states = build?.verify.status === 'ok' ? build.verify.states : [];
  const abstract = cur ? states.find((s) => s.pc === cur.pc) : undefined;
  const mem = run && cur ? memoryAt(run, step) : null;
  return (
    <div className="packet-pane" data-testid="inspector">
      <XdpDumpBar />
      <div className="inspector-bar">
        <button data-testid="inspect-latest" onClick={() => void inspect(null)}>Inspect latest packet</button>
        <form onSubmit={(e) => { e.preventDefault(); const n = Number(want); if (Number.isInteger(n) && n >= 0) void inspect(n); else setError('a packet number is a whole number, e.g. 42'); }}>
          <label>packet # <input value={want} onChange={(e) => setWant(e.target.value)} size={8} data-testid="inspect-id" /></label>
          <button type="submit">Inspect</button>
        </form>
        {detail && <strong data-testid="inspected-packet">packet #{detail.packet}{run ? ` · ${run.action} · ${run.insns} insns` : ''}</strong>}
      </div>
      {error && <p className="pane-empty" role="alert" data-testid="inspector-error">{error}</p>}
      {detail && (
        <div className="inspector-body">
          <section className="lifecycle">
            <h3>Lifecycle</h3>
            <p className="journey-state" data-testid="journey-state" data-ended={detail.ended ? 'true' : 'false'} data-lost={detail.lostAt ?? ''}>
              {detail.lostAt
                ? `Journey over: the frame was lost at ${detail.lostAt}; nothing more happens to it.`
                : detail.ended ? 'Journey complete: the buffer is back.' : 'Still in flight: the machine has not finished with this frame yet.'}
              {!detail.ended && (
                <button data-testid="follow-packet" disabled={following} onClick={() => void follow(detail.packet)}>
                  {following ? 'Following…' : 'Follow to the end'}
                </button>
              )}
            </p>
            <ol data-testid="lifecycle">
              {detail.lifecycle.map((s) => <li key={s.seq} data-kind={s.kind} data-testid="lifecycle-step">{s.text}</li>)}
            </ol>
            {detail.note && <p className="muted">{detail.note}</p>}
          </section>
          {run && (
            <>
              <section className="bytes">
                <h3>Before the program</h3>
                <p className="hdrs">{headers(run.before.decoded)}</p>
                <HexDump hex={run.before.hex} testid="bytes-before" />
                <h3>After ({run.action})</h3>
                <p className="hdrs">{headers(run.after.decoded)}</p>
                <HexDump hex={run.after.hex} other={run.before.hex} testid="bytes-after" />
              </section>
              <section className="stepper">
                <h3>Program run <small>(re-run on a copy of the packet, with copies of the maps as they are now)</small></h3>
                <div className="step-controls">
                  <button data-testid="insn-prev" onClick={() => go(step - 1)} disabled={step === 0}>◀</button>
                  <input type="range" min={0} max={Math.max(0, run.steps.length - 1)} value={step} onChange={(e) => go(Number(e.target.value))} aria-label="Instruction step" />
                  <button data-testid="insn-next" onClick={() => go(step + 1)} disabled={step >= run.steps.length - 1}>▶</button>
                  <span data-testid="insn-step">step {step + 1} / {run.steps.length}</span>
                </div>
                {cur && (
                  <div className="step-detail">
                    <div className="cur-insn" data-testid="cur-insn">{cur.pc}: {cur.text}</div>
                    {cur.mem && (
                      <div className="mem" data-testid="step-mem">
                        {cur.mem.write ? 'writes' : 'reads'} {cur.mem.size} B {cur.mem.kind === 'stack' ? `of ${cur.mem.region} at fp${cur.mem.offset}` : `of ${cur.mem.region} at offset ${cur.mem.offset}`}: {cur.mem.hex.match(/../g)!.join(' ')}
                      </div>
                    )}
                    <div className="regs-split">
                      <table className="regs" data-testid="real-regs">
                        <thead><tr><th /><th>before</th><th>after</th></tr></thead>
                        <tbody>{cur.before.map((v, r) => <tr key={r} className={cur.changed.includes(r) ? 'changed' : ''}><th>r{r}</th><td>{v}</td><td>{cur.after[r]}</td></tr>)}</tbody>
                      </table>
                      <div className="abstract" data-testid="step-abstract">
                        <h4>verifier, before insn {cur.pc}</h4>
                        {abstract ? <table><tbody>{abstract.regs.map((r) => <tr key={r.name}><th>{r.name}</th><td>{r.text}</td></tr>)}</tbody></table> : <p className="muted">no state recorded for this instruction</p>}
                      </div>
                    </div>
                    {mem && (
                      <div className="mem-split">
                        <div><h4>packet at this step</h4><PacketAtStep mem={mem} /></div>
                        <div><h4>stack (frame 0)</h4><StackAtStep mem={mem} /></div>
                      </div>
                    )}
                  </div>
                )}
              </section>
            </>
          )}
        </div>
      )}
      {!detail && !error && <p className="pane-empty">Pick a packet to follow it through the driver and the program.</p>}
    </div>
  );
}
