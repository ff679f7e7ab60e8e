/**
 * The lessons panel (above the editor, so every view stays in sight): the
 * guided tours and the graded exercises. A tour step can set the lab up and
 * ticks itself off when its check (src/lessons, on the engine state the
 * views draw) holds, compared with the state when the step began. Progress
 * is kept in localStorage.
 */
import { useEffect, useRef, useState } from 'react';
import { useApp, type AppState } from '../../store';
import { LESSONS, stepDone, type Lesson, type LessonStep, type TourState } from '../../lessons/tours';
import { loadProgress, saveProgress, type Progress } from './progress';
import { runSetup } from './setup';
import { ExercisesPane } from '../exercises/ExercisesPane';

const tourState = (s: AppState): TourState => ({ build: s.build, sim: s.sim, exampleName: s.exampleName, running: s.running, tab: s.tab });

function StepRow({ lesson, step, index, progress, onDone }: { lesson: Lesson; step: LessonStep; index: number; progress: Progress; onDone: (i: number) => void }) {
  const key = `${lesson.id}:${index}`;
  const doneBefore = progress.done.includes(key);
  // The state when the step began (the lesson was opened, or its set-up ran): checks measure from here.
  const base = useRef<TourState>(tourState(useApp.getState()));
  const [setupRan, setSetupRan] = useState(false);
  const checked = useApp((s) => !doneBefore && stepDone(step, tourState(s), base.current, setupRan));
  useEffect(() => {
    if (checked) onDone(index);
  }, [checked, index, onDone]);
  const done = doneBefore || checked;
  const setUp = () => {
    base.current = tourState(useApp.getState());
    setSetupRan(true);
    void runSetup(step.setup!);
  };
  return (
    <li className={done ? 'done' : ''} data-testid="lesson-step" data-done={done}>
      <span className="tick" aria-hidden>{done ? '✓' : '○'}</span>
      <div>
        <p>{step.text}</p>
        {step.look && <p className="muted">{step.look}</p>}
        <div className="lesson-actions">
          {step.setup && <button data-testid="lesson-setup" onClick={setUp}>Set up</button>}
          {!step.done && !done && <button data-testid="lesson-mark" onClick={() => onDone(index)}>Mark done</button>}
          {step.done && !done && <span className="muted">(ticks itself when it happens)</span>}
        </div>
      </div>
    </li>
  );
}

function Tours() {
  const [progress, setProgress] = useState<Progress>(loadProgress);
  const current = LESSONS.find((l) => l.id === progress.lesson) ?? LESSONS[0]!;
  const update = (p: Progress) => {
    setProgress(p);
    saveProgress(p);
  };
  const markDone = (i: number) => {
    setProgress((p) => {
      const key = `${current.id}:${i}`;
      if (p.done.includes(key)) return p;
      const next = { ...p, done: [...p.done, key] };
      saveProgress(next);
      return next;
    });
  };
  const doneCount = (l: Lesson) => l.steps.filter((_, i) => progress.done.includes(`${l.id}:${i}`)).length;
  return (
    <>
      <nav aria-label="Lessons">
        <ol>
          {LESSONS.map((l) => (
            <li key={l.id}>
              <button aria-current={l.id === current.id} data-testid={`lesson-${l.id}`} onClick={() => update({ ...progress, lesson: l.id })}>
                {l.title} <small>{doneCount(l)}/{l.steps.length}</small>
              </button>
            </li>
          ))}
        </ol>
        <button className="link" onClick={() => update({ lesson: current.id, done: [] })}>Start over</button>
      </nav>
      <section aria-label={current.title}>
        <h3>{current.title}</h3>
        <p>{current.summary}</p>
        <ol className="lesson-steps">
          {current.steps.map((s, i) => <StepRow key={`${current.id}:${i}`} lesson={current} step={s} index={i} progress={progress} onDone={markDone} />)}
        </ol>
        {doneCount(current) === current.steps.length && <p className="ok" data-testid="lesson-complete">Lesson complete.</p>}
      </section>
    </>
  );
}

const MODE_KEY = 'xdp-lab:lessons-mode';

export function LessonsPane() {
  const [mode, setMode] = useState<'tours' | 'exercises'>(() => (localStorage.getItem(MODE_KEY) === 'exercises' ? 'exercises' : 'tours'));
  const choose = (m: 'tours' | 'exercises') => {
    setMode(m);
    try {
      localStorage.setItem(MODE_KEY, m);
    } catch {
      /* not kept */
    }
  };
  return (
    <div className="lessons" id="lessons" data-testid="lessons">
      <div className="lessons-mode" role="tablist" aria-label="Lessons or exercises">
        <button role="tab" aria-selected={mode === 'tours'} data-testid="mode-tours" onClick={() => choose('tours')}>Tours</button>
        <button role="tab" aria-selected={mode === 'exercises'} data-testid="mode-exercises" onClick={() => choose('exercises')}>Exercises</button>
      </div>
      {mode === 'tours' ? <Tours /> : <ExercisesPane />}
    </div>
  );
}
