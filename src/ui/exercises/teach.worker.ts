/**
 * The teaching worker: grading and rejection explanations run here, never
 * on the UI thread (a grade compiles, verifies and runs every hidden
 * packet; a predict exercise runs the simulator; an explanation tries fixes
 * by recompiling). Requests and answers are plain structured-clone data.
 */
/// <reference lib="webworker" />
import { exerciseById, grade } from '../../lessons/exercises';
import { explainSource, inWorkspace } from '../../explain/program';
import { prepareSystemHeaders } from '../../worker/systemHeaders';
import type { TeachRequest, TeachResponse } from './protocol';

const scope = self as unknown as DedicatedWorkerGlobalScope;

function handle(req: TeachRequest): void {
  let res: TeachResponse;
  try {
    if (req.kind === 'grade') {
      const ex = exerciseById(req.exercise);
      res = ex ? { id: req.id, ok: true, kind: 'grade', result: grade(ex, req.submission) } : { id: req.id, ok: false, error: `no exercise ${req.exercise}` };
    } else {
      const r = explainSource(req.source, {}, req.workspace ? inWorkspace(req.workspace) : undefined);
      res = 'error' in r ? { id: req.id, ok: true, kind: 'explain', explanation: null, error: r.error } : { id: req.id, ok: true, kind: 'explain', explanation: r.explanation };
    }
  } catch (err) {
    res = { id: req.id, ok: false, error: (err as Error)?.message ?? String(err) };
  }
  scope.postMessage(res);
}

// The compiler reads the system headers the build bundles; like the build worker, load the chunks a
// request's #includes need before compiling it (a failed load still answers: the compiler names the header).
let queue: Promise<void> = Promise.resolve();
scope.onmessage = (e: MessageEvent<TeachRequest>) => {
  const req = e.data;
  queue = queue.then(() => prepareSystemHeaders(req)).then(() => handle(req), () => handle(req));
};
scope.postMessage({ id: 0, ok: true, kind: 'ready' } satisfies TeachResponse);
