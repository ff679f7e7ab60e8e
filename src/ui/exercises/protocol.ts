/** Messages between the UI and the teaching worker (teach.worker.ts). */
import type { Explanation } from '../../explain';
import type { GradeResult } from '../../lessons/exercises';
import type { Workspace } from '../../cc/workspace';

export type TeachRequest = { id: number; kind: 'grade'; exercise: string; submission: string } | { id: number; kind: 'explain'; source: string; workspace?: Workspace };

export type TeachResponse =
  | { id: number; ok: true; kind: 'ready' }
  | { id: number; ok: true; kind: 'grade'; result: GradeResult }
  | { id: number; ok: true; kind: 'explain'; explanation: Explanation | null; error?: string }
  | { id: number; ok: false; error: string };
