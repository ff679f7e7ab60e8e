/**
 * Exercise progress in localStorage: which exercises passed, how many hints
 * each has shown, whether the solution was revealed, and the learner's code
 * per exercise (so a reload lands where they were).
 */
const KEY = 'xdp-lab:exercises';

export interface ExerciseProgress {
  current: string | null;
  passed: string[];
  hints: Record<string, number>;
  revealed: string[];
  code: Record<string, string>;
}

const EMPTY: ExerciseProgress = { current: null, passed: [], hints: {}, revealed: [], code: {} };

const strings = (x: unknown): string[] => (Array.isArray(x) ? x.filter((v): v is string => typeof v === 'string') : []);

export function loadExerciseProgress(): ExerciseProgress {
  try {
    const o = JSON.parse(localStorage.getItem(KEY) ?? 'null') as Partial<ExerciseProgress> | null;
    if (!o || typeof o !== 'object') return { ...EMPTY };
    const hints: Record<string, number> = {};
    for (const [k, v] of Object.entries(o.hints ?? {})) if (typeof v === 'number' && v >= 0) hints[k] = Math.floor(v);
    const code: Record<string, string> = {};
    for (const [k, v] of Object.entries(o.code ?? {})) if (typeof v === 'string') code[k] = v;
    return { current: typeof o.current === 'string' ? o.current : null, passed: strings(o.passed), hints, revealed: strings(o.revealed), code };
  } catch {
    return { ...EMPTY };
  }
}

export function saveExerciseProgress(p: ExerciseProgress): void {
  try {
    localStorage.setItem(KEY, JSON.stringify(p));
  } catch {
    /* storage full or blocked: progress lives for this session only */
  }
}
