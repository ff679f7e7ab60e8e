/**
 * What the UI thread loads for the first screen: the app's modules reached
 * by static imports from the UI (src/ui/App.tsx, which main.tsx imports
 * with the renderer). The compiler, verifier, VM, simulator and grader run
 * in the workers; a static import of one of them from a pane (a helper
 * that sat in the same file as the VM, a re-export next to the grader) put
 * 1.9 MB of their source into the UI's chunk, and parsing it delayed the
 * first picture. Lazily loaded parts (the editor, the lessons) may use
 * them: dynamic imports are not followed.
 */
import { describe, expect, it } from 'vitest';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const ROOT = resolve(__dirname, '../..');

/** Static, non-type imports and re-exports of one module (type-only ones are erased by the compiler). */
function staticImports(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const out: string[] = [];
  const re = /^\s*(?:import|export)\s+(?!type\b)(?:[^'";]*?\sfrom\s+)?'([^']+)'/gm;
  for (const m of text.matchAll(re)) out.push(m[1]!);
  return out;
}

function resolveModule(from: string, spec: string): string | null {
  if (!spec.startsWith('.')) return null; // a package (react, d3, zustand): not the app's code
  const base = resolve(dirname(from), spec);
  for (const c of [base, `${base}.ts`, `${base}.tsx`, join(base, 'index.ts'), join(base, 'index.tsx')]) if (existsSync(c) && /\.tsx?$/.test(c)) return c;
  return null; // css, ?worker
}

function closure(entry: string): Set<string> {
  const seen = new Set<string>();
  const todo = [resolve(ROOT, entry)];
  while (todo.length) {
    const f = todo.pop()!;
    if (seen.has(f)) continue;
    seen.add(f);
    for (const s of staticImports(f)) {
      const r = resolveModule(f, s);
      if (r) todo.push(r);
    }
  }
  return new Set([...seen].map((f) => relative(ROOT, f)));
}

describe("the UI thread's first screen", () => {
  const mods = closure('src/ui/App.tsx');

  it('reaches the UI and small shared modules', () => {
    // The scanner itself works: it finds what the shell is made of.
    expect(mods.has('src/ui/viz/SimView.tsx')).toBe(true);
    expect(mods.has('src/store/index.ts')).toBe(true);
    expect(mods.has('src/engine/memoryAt.ts')).toBe(true);
  });

  it('does not load the compiler, verifier, VM, simulator or grader', () => {
    const heavy = [...mods].filter((m) => /^src\/(cc\/(parser|preprocessor|codegen|index)|verifier\/|vm\/|maps\/|sim\/nic\/|sim\/simulation|lessons\/exercises\/(grade|index)|engine\/(index|pipeline|inspect|session)\.)/.test(m));
    expect(heavy).toEqual([]);
  });

  it('the editor and the lessons stay lazy', () => {
    expect(mods.has('src/ui/editor/Editor.tsx')).toBe(false);
    expect(mods.has('src/ui/lessons/LessonsPane.tsx')).toBe(false);
  });
});
