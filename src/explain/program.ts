/**
 * C source → explanation: compile, verify (with the failing state), explain,
 * and try fixes by compiling and verifying each candidate. Used by the CLI
 * (`verify --explain`) and the app's teaching worker.
 */
import { compileProgram, compileSource, verifyProgram } from '../engine/pipeline';
import type { CompileOptions } from '../cc';
import type { Workspace } from '../cc/workspace';
import type { ParsedSpec } from '../isa/spec';
import type { VerifyOptions, VerifyResult } from '../verifier';
import { classify } from './classify';
import { explain, type Explanation, type Recheck } from './index';
import { posOfPc } from './source';

export interface Checked {
  parsed: ParsedSpec;
  result: VerifyResult;
}

/**
 * How to compile an edited main file: by default on its own; a program of
 * several files (xdp-tutorial's `#include "../common/…"`) must be rebuilt in
 * its workspace, or no candidate fix would even compile.
 */
export type Recompile = (source: string) => ParsedSpec | { error: string };

const alone: Recompile = (source) => compileSource(source, 'prog.c');

/** Recompile the main file of a workspace with new text (the other files, its flags, and files read on demand as before). */
export function inWorkspace(ws: Workspace, opts: CompileOptions = {}): Recompile {
  return (source) => compileProgram({ ...ws, files: ws.files.map((f) => (f.path === ws.main ? { ...f, text: source } : f)) }, opts);
}

/** Compile and verify through the engine's program pipeline; a one-line reason when the source does not compile. */
export function checkSource(source: string, opts: VerifyOptions = {}, recompile: Recompile = alone): Checked | { error: string } {
  const parsed = recompile(source);
  if ('error' in parsed) return parsed;
  const result = verifyProgram(parsed, { logLevel: 1, states: false, ...opts });
  return { parsed, result };
}

const RECHECK_INSN_LIMIT = 200_000;

/** A recheck that compiles and verifies a candidate with the same options. */
export function recheckWith(opts: VerifyOptions = {}, recompile: Recompile = alone): Recheck {
  return (source) => {
    // A candidate that still runs away is not a fix; stop it early instead of walking a million instructions per try.
    const c = checkSource(source, { insnLimit: RECHECK_INSN_LIMIT, ...opts }, recompile);
    if ('error' in c) return null;
    if (c.result.accepted) return { accepted: true };
    const funcStarts = [0, ...(c.parsed.spec.funcs ?? []).map((f) => f.insn).filter((i) => i > 0)];
    const kind = classify(c.parsed.insns, c.parsed.spec.maps ?? [], c.result, funcStarts).kind;
    const line = posOfPc(c.parsed.spec.line_info ?? [], c.result.errorPc ?? 0)?.line;
    return { accepted: false, kind, ...(line !== undefined ? { line } : {}) };
  };
}

/** The explanation of a C program's rejection (null when accepted); a reason when it does not compile. */
export function explainSource(source: string, opts: VerifyOptions = {}, recompile: Recompile = alone): { checked: Checked; explanation: Explanation | null } | { error: string } {
  const c = checkSource(source, opts, recompile);
  if ('error' in c) return c;
  return { checked: c, explanation: explain(c, { recheck: recheckWith(opts, recompile) }) };
}
