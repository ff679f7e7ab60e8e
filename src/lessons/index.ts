/**
 * Teaching on engine state: the guided tours (tours.ts) and the graded
 * course (exercises/). Pure and UI-free: the CLI, the tests and the app's
 * worker all use these.
 */
export * from './tours';
export * from './exercises';
