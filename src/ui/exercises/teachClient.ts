/**
 * The UI's handle on the teaching worker: one lazily started worker, calls
 * answered by id. A newer explain request supersedes an older one (only the
 * program on screen matters).
 */
import TeachWorker from './teach.worker.ts?worker';
import type { Explanation } from '../../explain';
import type { Workspace } from '../../cc/workspace';
import type { GradeResult } from '../../lessons/exercises';
import type { TeachRequest, TeachResponse } from './protocol';

type Waiter = (r: TeachResponse) => void;

let worker: Worker | null = null;
let nextId = 1;
const waiting = new Map<number, Waiter>();

function get(): Worker {
  if (worker) return worker;
  worker = new TeachWorker({ name: 'xdp-lab-teach' });
  worker.onmessage = (e: MessageEvent<TeachResponse>) => {
    const w = waiting.get(e.data.id);
    if (w) {
      waiting.delete(e.data.id);
      w(e.data);
    }
  };
  worker.onerror = (e) => {
    e.preventDefault();
    for (const w of waiting.values()) w({ id: 0, ok: false, error: `the teaching worker crashed (${e.message})` });
    waiting.clear();
    worker?.terminate();
    worker = null;
  };
  return worker;
}

type WithoutId<T> = T extends unknown ? Omit<T, 'id'> : never;

function call(req: WithoutId<TeachRequest>): Promise<TeachResponse> {
  const id = nextId++;
  return new Promise((resolve) => {
    waiting.set(id, resolve);
    get().postMessage({ ...req, id } as TeachRequest);
  });
}

export async function gradeInWorker(exercise: string, submission: string): Promise<GradeResult | { error: string }> {
  const r = await call({ kind: 'grade', exercise, submission });
  if (!r.ok) return { error: r.error };
  return r.kind === 'grade' ? r.result : { error: 'unexpected answer from the teaching worker' };
}

let latestExplain = 0;
/** The explanation of a rejected source; null when superseded by a newer request or when accepted. */
export async function explainInWorker(source: string, workspace?: Workspace): Promise<Explanation | null | { error: string }> {
  const mine = ++latestExplain;
  // A program of several files is explained (and its fixes rebuilt) in its workspace.
  const r = await call(workspace && workspace.files.length > 1 ? { kind: 'explain', source, workspace } : { kind: 'explain', source });
  if (mine !== latestExplain) return null;
  if (!r.ok) return { error: r.error };
  return r.kind === 'explain' ? r.explanation : null;
}
