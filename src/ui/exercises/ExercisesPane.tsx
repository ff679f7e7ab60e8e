/**
 * The graded course in the lessons panel: pick an exercise, load its
 * starter into the editor, submit (graded in the teaching worker against
 * hidden packets or the simulator), reveal hints one at a time, and see the
 * reference solution once passed or on request. Progress lives in
 * localStorage.
 */
import { useState } from 'react';
import { EXERCISES, exerciseById } from '../../lessons/exercises/catalog';
import type { Exercise, GradeResult } from '../../lessons/exercises';
import { setSource } from '../controller';
import { useApp } from '../../store';
import { gradeInWorker } from './teachClient';
import { loadExerciseProgress, saveExerciseProgress, type ExerciseProgress } from './progress';
import { Verdicts } from './Verdicts';
import './exercises.css';

function Predict({ ex, onGrade, busy }: { ex: Exercise & { kind: 'predict' }; onGrade: (answer: string) => void; busy: boolean }) {
  const [answer, setAnswer] = useState('');
  return (
    <form className="predict" onSubmit={(e) => { e.preventDefault(); onGrade(answer); }}>
      <label>
        {ex.question}{ex.unit ? ` (${ex.unit})` : ''}:{' '}
        {ex.choices ? (
          <select data-testid="prediction" value={answer} onChange={(e) => setAnswer(e.target.value)}>
            <option value="">choose…</option>
            {ex.choices.map((c) => <option key={c} value={c}>{c}</option>)}
          </select>
        ) : (
          <input data-testid="prediction" inputMode="numeric" value={answer} onChange={(e) => setAnswer(e.target.value)} />
        )}
      </label>{' '}
      <button type="submit" data-testid="exercise-submit" disabled={busy || answer === ''}>Check my prediction</button>
    </form>
  );
}

export function ExercisesPane() {
  const [p, setP] = useState<ExerciseProgress>(loadExerciseProgress);
  const [result, setResult] = useState<GradeResult | null>(null);
  const [busy, setBusy] = useState(false);
  const [gradeError, setGradeError] = useState<string | null>(null);
  const ex = (p.current ? exerciseById(p.current) : undefined) ?? EXERCISES[0]!;
  const update = (f: (p: ExerciseProgress) => ExerciseProgress) =>
    setP((old) => {
      const next = f(old);
      saveExerciseProgress(next);
      return next;
    });

  const open = (e: Exercise) => {
    update((o) => ({ ...o, current: e.id }));
    setResult(null);
    setGradeError(null);
    if (e.kind === 'program') setSource(p.code[e.id] ?? e.starter);
  };
  const submit = async (submission: string) => {
    setBusy(true);
    setGradeError(null);
    const r = await gradeInWorker(ex.id, submission);
    setBusy(false);
    if ('error' in r && !('tests' in r)) return setGradeError(r.error);
    const g = r as GradeResult;
    setResult(g);
    update((o) => ({
      ...o,
      passed: g.pass && !o.passed.includes(ex.id) ? [...o.passed, ex.id] : o.passed,
      code: ex.kind === 'program' ? { ...o.code, [ex.id]: submission } : o.code,
    }));
  };
  const hintsShown = p.hints[ex.id] ?? 0;
  const passed = p.passed.includes(ex.id);
  const revealed = p.revealed.includes(ex.id) || passed;

  return (
    <>
      <nav aria-label="Exercises" className="exercise-list">
        <ol>
          {EXERCISES.map((e, i) => (
            <li key={e.id}>
              <button aria-current={e.id === ex.id} data-testid={`exercise-${e.id}`} data-passed={p.passed.includes(e.id)} onClick={() => open(e)}>
                <span aria-hidden>{p.passed.includes(e.id) ? '✓' : '○'}</span> {i + 1}. {e.title}
              </button>
            </li>
          ))}
        </ol>
        <p className="muted" data-testid="exercise-progress">{p.passed.length} of {EXERCISES.length} passed</p>
      </nav>
      <section aria-label={ex.title} className="exercise" data-testid="exercise" data-id={ex.id}>
        <h3>{ex.title} <small className="muted">{ex.topic}{passed ? ' · passed' : ''}</small></h3>
        <p>{ex.statement}</p>
        {ex.kind === 'program' ? (
          <div className="lesson-actions">
            <button data-testid="exercise-starter" onClick={() => setSource(ex.starter)}>Load starter code</button>
            <button data-testid="exercise-submit" disabled={busy} onClick={() => void submit(useApp.getState().source)}>{busy ? 'Grading…' : 'Submit'}</button>
          </div>
        ) : (
          <Predict ex={ex} busy={busy} onGrade={(a) => void submit(a)} />
        )}
        {gradeError && <p className="bad" role="alert">{gradeError}</p>}
        {result && result.id === ex.id && <Verdicts r={result} />}
        <div className="hints">
          {ex.hints.slice(0, hintsShown).map((h, i) => <p key={i} data-testid="hint">Hint {i + 1}: {h}</p>)}
          {hintsShown < ex.hints.length && (
            <button data-testid="exercise-hint" onClick={() => update((o) => ({ ...o, hints: { ...o.hints, [ex.id]: hintsShown + 1 } }))}>
              Show hint {hintsShown + 1} of {ex.hints.length}
            </button>
          )}
        </div>
        {revealed ? (
          <details open={!passed} data-testid="exercise-solution">
            <summary>Reference solution</summary>
            {ex.kind === 'program' ? <pre>{ex.solution}</pre> : <p>{ex.solution}</p>}
          </details>
        ) : (
          <button className="link" data-testid="exercise-reveal" onClick={() => update((o) => ({ ...o, revealed: [...o.revealed, ex.id] }))}>Show the reference solution</button>
        )}
      </section>
    </>
  );
}
