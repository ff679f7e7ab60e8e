/**
 * The graded course, in order: from a first XDP_PASS through parsing,
 * rewriting, maps, XDP_TX, redirect and AF_XDP to the drivers' mechanisms
 * as predict-then-observe exercises. `grade(ex, submission)` grades one.
 */
export * from './types';
export { grade, gradeProgram, gradePrediction, byteDiff } from './grade';
export { describePacket, fieldAt } from './decode';
export { EXERCISES, exerciseById, exerciseList } from './catalog';
