/**
 * The course's exercises in order, without the grader: what the UI thread
 * lists (the grader, and with it the whole engine, runs in the teaching
 * worker).
 */
import { PARSING } from './catalog_parsing';
import { REWRITE } from './catalog_rewrite';
import { ACTIONS } from './catalog_actions';
import { MECHANISMS } from './catalog_mechanisms';
import { ROUTING } from './catalog_routing';
import { TAIL_CALLS } from './catalog_tailcall';
import type { Exercise } from './types';

export const EXERCISES: readonly Exercise[] = [...PARSING, ...REWRITE, ...ACTIONS, ...ROUTING, ...TAIL_CALLS, ...MECHANISMS];

export function exerciseById(id: string): Exercise | undefined {
  return EXERCISES.find((e) => e.id === id);
}

/** The public listing: what the CLI prints and the UI's menu shows (no tests, no solution). */
export function exerciseList(): { id: string; title: string; topic: string; kind: Exercise['kind'] }[] {
  return EXERCISES.map((e) => ({ id: e.id, title: e.title, topic: e.topic, kind: e.kind }));
}
