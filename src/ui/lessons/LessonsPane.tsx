/**
 * The lessons panel (above the editor, so every view stays in sight while
 * a lesson runs): pick a lesson, follow its steps. Each step can set the
 * lab up for itself and ticks itself off when its check holds of the live
 * state. Progress is kept in localStorage.
 */
import { useEffect, useState } from 'react';
import { useApp } from '../../store';
import { LESSONS, type Lesson, type LessonStep } from './lessons';
import { loadProgress, saveProgress, type Progress } from './progress';
import { runSetup } from './setup';

function StepRow({ lesson, step, index, progress, onDone }: { lesson: Lesson; step: LessonStep; index: number; progress: Progress; onDone: (i: number) => void }) {
  const key = `${lesson.id}:${index}`;
  const doneBefore = progress.done.includes(key);
  // The check runs on every state change only while the step is open and not yet done.
  const checked = useApp((s) => !doneBefore && step.done !== undefined && step.done(s));
  useEffect(() => {
    if (checked) onDone(index);
  }, [checked, index, onDone]);
  const done = doneBefore || checked;
  return (
    <li className={done ? 'done' : ''} data-testid="lesson-step" data-done={done}>
      <span className="tick" aria-hidden>{done ? '✓' : '○'}</span>
      <div>
        <p>{step.text}</p>
        {step.look && <p className="muted">{step.look}</p>}
        <div className="lesson-actions">
          {step.setup && <button data-testid="lesson-setup" onClick={() => void runSetup(step.setup!)}>Set up</button>}
          {!step.done && !done && <button data-testid="lesson-mark" onClick={() => onDone(index)}>Mark done</button>}
          {step.done && !done && <span className="muted">(ticks itself when it happens)</span>}
        </div>
      </div>
    </li>
  );
}

export function LessonsPane() {
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
    <div className="lessons" id="lessons" data-testid="lessons">
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
    </div>
  );
}
