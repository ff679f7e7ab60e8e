/**
 * The UI's simulation commands: run/pause, speed, stepping, reset, settings
 * and pcap upload. Each goes to the worker and folds the reply into the
 * store; a refusal (simulator missing, bad pcap) becomes a message, never a
 * thrown error.
 */
import { engine } from './controller';
import { mergeFromWorker, setApp, useApp } from '../store';
import type { SimReply, SimSettings, Speed, StepUnit } from '../engine';

function fold(r: SimReply): boolean {
  if (r.ok) mergeFromWorker({ sim: r.snapshot, simMessage: null });
  else setApp({ simMessage: r.reason });
  return r.ok;
}

async function guarded<T>(what: string, fn: () => Promise<T>): Promise<T | undefined> {
  try {
    return await fn();
  } catch (e) {
    setApp({ notice: `${what} failed: ${(e as Error).message}` });
    return undefined;
  }
}

export async function setRunning(running: boolean, speed: Speed = useApp.getState().speed): Promise<void> {
  const r = await guarded('run', () => engine().call('setRun', running, speed));
  if (r) setApp({ running: r.running, speed: r.speed });
}

export const toggleRun = (): Promise<void> => setRunning(!useApp.getState().running);
export const setSpeed = (speed: Speed): Promise<void> => setRunning(useApp.getState().running, speed);

/** Stepping pauses the free run first: a step is a deliberate, single move. */
export async function step(unit: StepUnit): Promise<void> {
  if (useApp.getState().running) await setRunning(false);
  const r = await guarded('step', () => engine().call('simStep', unit, 1));
  if (r) fold(r);
}

export async function stepBack(): Promise<void> {
  if (useApp.getState().running) await setRunning(false);
  const r = await guarded('step back', () => engine().call('simStepBack'));
  if (r) fold(r);
}

export async function reset(): Promise<void> {
  const r = await guarded('reset', () => engine().call('simReset'));
  if (r) fold(r);
}

/** Restart the machine with these settings; the reason when the engine refuses them (the running machine carries on), else null. */
export async function configure(patch: { traffic?: Partial<SimSettings['traffic']>; driver?: Partial<SimSettings['driver']> }): Promise<string | null> {
  const r = await guarded('settings', () => engine().call('simConfigure', patch));
  if (!r) return 'the settings could not be sent to the engine';
  fold(r);
  return r.ok ? null : r.reason;
}

export async function loadPcap(file: File | null): Promise<void> {
  const bytes = file ? new Uint8Array(await file.arrayBuffer()) : null;
  const r = await guarded('pcap upload', () => engine().call('simLoadPcap', bytes));
  if (!r) return;
  const runts = r.runts ? ` ${r.runts} record${r.runts === 1 ? ' was' : 's were'} shorter than an Ethernet header and left out.` : '';
  if (fold(r)) setApp({ notice: file ? `Replaying ${r.frames} packets from ${file.name}.${runts}` : 'Back to generated traffic.' });
  else setApp({ notice: r.ok ? null : r.reason });
}
