/**
 * A workspace: the program a learner builds, as a set of files plus the
 * flags their project's Makefile gives clang. The app's editor, share links,
 * persistence, the engine's build and the CLI all take this one shape; a
 * single pasted source is a one-file workspace.
 *
 * Paths are POSIX and relative to the workspace root ("packet01/xdp_prog_kern.c",
 * "common/parsing_helpers.h"); `#include "x.h"` resolves against the including
 * file's folder, then each -I folder (relative to the root), then the system
 * headers, as clang does.
 */
export interface WorkspaceFile {
  path: string;
  text: string;
}

export interface Workspace {
  files: WorkspaceFile[];
  /** Path of the translation unit that is compiled. */
  main: string;
  /** clang-style flags: "-I", "dir" or "-Idir", "-DNAME=V", "-UNAME", "-std=gnu11", "-include", "f.h". */
  flags: string[];
}

/** The one-file workspace a pasted program is. */
export function singleFileWorkspace(text: string, path = 'prog.c'): Workspace {
  return { files: [{ path, text }], main: path, flags: [] };
}
