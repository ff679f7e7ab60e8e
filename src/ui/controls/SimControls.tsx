/**
 * Run/pause, speed (one event a second up to full speed), step by event,
 * packet or NAPI poll, step back, reset. Keyboard: every control is a
 * button or a labelled range, reachable with Tab; Alt+key shortcuts
 * (src/ui/shortcuts.ts) work from anywhere, the editor included.
 */
import { useApp } from '../../store';
import type { Speed } from '../../engine';
import { reset, setSpeed, step, stepBack, toggleRun } from '../simControl';
import { keysFor } from '../shortcuts';

/** Speed stops, events per wall-clock second; the last is full speed. */
export const SPEEDS: Speed[] = [1, 10, 100, 1_000, 10_000, 100_000, 1_000_000, 'max'];
const speedLabel = (s: Speed) => (s === 'max' ? 'full speed' : `${s.toLocaleString('en')} events/s`);

export function SimControls() {
  const running = useApp((s) => s.running);
  const speed = useApp((s) => s.speed);
  const canBack = useApp((s) => s.sim?.canStepBack ?? false);
  // A speed between the stops (from ?speed=) shows at the nearest stop below it.
  let idx = SPEEDS.length - 1;
  if (speed !== 'max') for (idx = 0; idx + 1 < SPEEDS.length - 1 && (SPEEDS[idx + 1] as number) <= speed; idx++);
  return (
    <div className="sim-controls" role="toolbar" aria-label="Simulation controls">
      <button data-testid="run-toggle" onClick={() => void toggleRun()} aria-pressed={running} title={`Run or pause the traffic${keysFor('run / pause')}`}>{running ? '❚❚ Pause' : '▶ Run'}</button>
      <label className="speed">
        <span>Speed</span>
        <input type="range" min={0} max={SPEEDS.length - 1} step={1} value={idx} data-testid="speed"
          aria-valuetext={speedLabel(SPEEDS[idx]!)} onChange={(e) => void setSpeed(SPEEDS[Number(e.target.value)] ?? SPEEDS[idx]!)} />
        <output data-testid="speed-label">{speedLabel(speed)}</output>
      </label>
      <span className="step-group" role="group" aria-label="Step">
        <button data-testid="step-back" onClick={() => void stepBack()} disabled={!canBack} title={canBack ? `Step back one event (replays from the start)${keysFor('step back one event')}` : 'Step back works within the first 500,000 events: reset to step from the beginning'}>◀ back</button>
        <button data-testid="step-event" onClick={() => void step('event')} title={`Run one simulation event${keysFor('step one event')}`}>event ▶</button>
        <button data-testid="step-packet" onClick={() => void step('packet')} title={`Run until the next packet has been handled${keysFor('step one packet')}`}>packet ▶</button>
        <button data-testid="step-napi" onClick={() => void step('napi')} title={`Run one NAPI poll${keysFor('step one NAPI poll')}`}>NAPI poll ▶</button>
      </span>
      <button data-testid="reset" onClick={() => void reset()} title={`Reset the machine${keysFor('reset the machine')}`}>⟲ Reset</button>
    </div>
  );
}
