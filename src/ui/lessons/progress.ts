/** Lesson progress in localStorage: the open lesson and the steps done ("lesson:index"). */
import { LESSONS } from '../../lessons/tours';

const KEY = 'xdp-lab:lessons';

export interface Progress {
  lesson: string;
  done: string[];
}

export function loadProgress(): Progress {
  try {
    const o = JSON.parse(localStorage.getItem(KEY) ?? 'null') as Partial<Progress> | null;
    if (o && typeof o.lesson === 'string' && Array.isArray(o.done)) return { lesson: o.lesson, done: o.done.filter((d): d is string => typeof d === 'string') };
  } catch {
    /* unreadable: start fresh */
  }
  return { lesson: LESSONS[0]!.id, done: [] };
}

export function saveProgress(p: Progress): void {
  try {
    localStorage.setItem(KEY, JSON.stringify(p));
  } catch {
    /* storage full or blocked: progress lives for this session only */
  }
}
