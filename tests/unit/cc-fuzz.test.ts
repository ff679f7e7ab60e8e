/**
 * No input, however malformed, makes the compiler throw or hang: seeded
 * random bytes, random token soup, and mutations of the corpus programs
 * (token deletion, duplication, swaps, insertions) all come back as a
 * result with diagnostics whose spans are well formed.
 */
import { describe, expect, it } from 'vitest';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { compile, type Diagnostic } from '../../src/cc';
import { EXAMPLES } from '../../src/examples';

const here = path.dirname(fileURLToPath(import.meta.url));
const corpus = readdirSync(path.resolve(here, '../corpus')).filter((f) => f.endsWith('.c')).sort()
  .map((f) => readFileSync(path.resolve(here, '../corpus', f), 'utf8'))
  .concat(EXAMPLES.map((e) => e.source));

/** mulberry32: a small seeded PRNG, so every failure reproduces. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const SOUP = ['int', 'char', 'struct', 'union', 'enum', '{', '}', '(', ')', '[', ']', ';', ',', '*', '&', '=', '==', '+', '-', '<<', '>>', '?', ':', '->', '.', '...', 'if', 'else', 'for', 'while', 'do', 'switch', 'case', 'default', 'return', 'goto', 'break', 'sizeof', 'typedef', 'static', '__attribute__', 'SEC("xdp")', '"str"', "'c'", '0x10', '42', 'x', 'y', 'ctx', 'data', '#define', '#if', '#endif', '#include', '<linux/bpf.h>', '\n', '##', '#', '__builtin_memcpy', 'bpf_map_lookup_elem', '({', '})', '/*', '*/', '//', '\\', 'void', 'unsigned', 'long', '__u32', '...'];

function checkResult(diags: Diagnostic[]): void {
  for (const d of diags) {
    expect(typeof d.message).toBe('string');
    expect(['error', 'warning', 'note']).toContain(d.severity);
    expect(Number.isInteger(d.span.line) && d.span.line >= 0).toBe(true);
    expect(Number.isInteger(d.span.col) && d.span.col >= 0).toBe(true);
  }
  expect(diags.filter((d) => d.code === 'cc-internal')).toEqual([]);
}

function tokens(src: string): string[] {
  return src.match(/[A-Za-z_]\w*|0x[0-9a-fA-F]+|\d+|"(?:\\.|[^"\\])*"|'(?:\\.|[^'\\])*'|\/\*[\s\S]*?\*\/|\/\/[^\n]*|\s+|[^\sA-Za-z0-9_]/g) ?? [];
}

describe('compiler fuzz', () => {
  it('random bytes', () => {
    const r = rng(1);
    for (let n = 0; n < 200; n++) {
      const len = Math.floor(r() * 400);
      let s = '';
      for (let i = 0; i < len; i++) s += String.fromCharCode(Math.floor(r() * 128));
      checkResult(compile(s).diagnostics);
    }
  });

  it('token soup', () => {
    const r = rng(2);
    for (let n = 0; n < 300; n++) {
      const len = Math.floor(r() * 120);
      const parts: string[] = [];
      for (let i = 0; i < len; i++) parts.push(SOUP[Math.floor(r() * SOUP.length)]!);
      checkResult(compile(parts.join(' ')).diagnostics);
    }
  });

  it('deeply nested input is refused, not overflowed', () => {
    checkResult(compile('int x = ' + '('.repeat(5000) + '1' + ')'.repeat(5000) + ';').diagnostics);
    checkResult(compile('SEC("xdp") int p(void *c) {' + '{'.repeat(3000) + '}'.repeat(3000) + 'return 0; }').diagnostics);
    checkResult(compile('#define A A A\n#define B(x) B(x) A\nint y = B(B(A));').diagnostics);
  });

  it('mutations of the corpus', () => {
    const r = rng(3);
    let compiledSome = 0;
    for (let n = 0; n < 400; n++) {
      const toks = tokens(corpus[n % corpus.length]!);
      const edits = 1 + Math.floor(r() * 3);
      for (let e = 0; e < edits; e++) {
        const i = Math.floor(r() * toks.length);
        const j = Math.min(toks.length, i + 1 + Math.floor(r() * 4));
        switch (Math.floor(r() * 4)) {
          case 0: toks.splice(i, j - i); break;
          case 1: toks.splice(i, 0, ...toks.slice(i, j)); break;
          case 2: { const k = Math.floor(r() * toks.length); [toks[i], toks[k]] = [toks[k]!, toks[i]!]; break; }
          default: toks.splice(i, 0, ' ' + SOUP[Math.floor(r() * SOUP.length)]! + ' ');
        }
      }
      const res = compile(toks.join(''));
      checkResult(res.diagnostics);
      if (res.spec) compiledSome++;
    }
    // Some mutations (in comments, whitespace) still compile: the fuzz reaches codegen too.
    expect(compiledSome).toBeGreaterThan(10);
  });
});
