/**
 * Compiler fuzz target. Inputs are the corpus programs and examples,
 * mutated at the token level (deletion, duplication, swap, insertion of
 * C's sharp edges) and the byte level; the property is that compile()
 * returns — no exception, no "internal compiler error" diagnostic, every
 * span well formed — within a time limit. A failing input is written to
 * tests/cases/cc-crashes/ (replayed by tests/unit/cc-crashes.test.ts).
 *
 *   npx tsx tests/fuzz/cc.ts --seconds 600 [--seed N]
 *
 * A fuzz runner calls `ccFuzzTarget`: `seeds()`, `mutate(input, rng)`,
 * `check(input)` → undefined when the property holds, else what broke.
 */
import { readdirSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { compile } from '../../src/cc';
import { EXAMPLES } from '../../src/examples';

const here = path.dirname(fileURLToPath(import.meta.url));
export const CRASH_DIR = path.resolve(here, '../cases/cc-crashes');

/** mulberry32: small, seeded, so every failure reproduces from its seed. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const SHARP = ['goto out;', 'out:', '{', '}', '(', ')', ';', ',', '*', '&', '[', ']', '=', '->', '.', '...', '0', '-1', '0x7fffffff', '1ULL << 63', 'sizeof', 'typeof(x)',
  '__attribute__((packed))', '__attribute__((aligned(64)))', 'asm volatile("" ::: "memory");', '({ 1; })', 'static', 'const volatile', 'struct s', 'union u', 'enum e { A = 1ULL << 40 }',
  'break;', 'continue;', 'return;', 'case 1:', 'default:', 'switch (x)', 'while (1)', 'for (;;)', 'do', '#pragma unroll', '__builtin_memcpy(a, b, n)', '__builtin_memset(a, 0, 1000000)',
  '__builtin_bswap32(x)', '__builtin_btf_type_id(x, 0)', '_Static_assert(1, "")', 'bpf_tail_call(ctx, &m, 0)', '"str"', "'c'", 'int x', 'char buf[100000]', 'SEC("xdp")', 'SEC(".maps")',
  '__uint(type, BPF_MAP_TYPE_ARRAY)', 'long double', '__int128', 'extern', 'x++', '--x', '? :', '<<', '>>=', '!', '~', '/', '%'];

function tokens(src: string): string[] {
  return src.match(/[A-Za-z_]\w*|0x[0-9a-fA-F]+|\d+|"(?:\\.|[^"\\])*"|'(?:\\.|[^'\\])*'|\/\*[\s\S]*?\*\/|\/\/[^\n]*|\s+|[^\sA-Za-z0-9_]/g) ?? [];
}

export interface FuzzTarget {
  name: string;
  seeds(): string[];
  mutate(input: string, r: () => number): string;
  /** undefined when the property holds; else a one-line description of the failure. */
  check(input: string): string | undefined;
}

function corpus(): string[] {
  const dir = path.resolve(here, '../corpus');
  return readdirSync(dir).filter((f) => f.endsWith('.c')).sort().map((f) => readFileSync(path.join(dir, f), 'utf8')).concat(EXAMPLES.map((e) => e.source));
}

export const ccFuzzTarget: FuzzTarget = {
  name: 'cc',
  seeds: corpus,
  mutate(input, r) {
    const pick = <T>(xs: T[]): T => xs[Math.floor(r() * xs.length)]!;
    if (r() < 0.1) {
      // Byte level: flip, drop or duplicate a run.
      const b = [...input];
      const at = Math.floor(r() * b.length);
      const len = 1 + Math.floor(r() * 16);
      const op = r();
      if (op < 0.33) for (let i = at; i < at + len && i < b.length; i++) b[i] = String.fromCharCode(Math.floor(r() * 128));
      else if (op < 0.66) b.splice(at, len);
      else b.splice(at, 0, ...b.slice(at, at + len));
      return b.join('');
    }
    const t = tokens(input);
    const n = 1 + Math.floor(r() * 4);
    for (let k = 0; k < n && t.length; k++) {
      const i = Math.floor(r() * t.length);
      const op = r();
      if (op < 0.3) t.splice(i, 1 + Math.floor(r() * 3));
      else if (op < 0.5) t.splice(i, 0, ...t.slice(i, i + 1 + Math.floor(r() * 8)));
      else if (op < 0.65) { const j = Math.floor(r() * t.length); [t[i], t[j]] = [t[j]!, t[i]!]; }
      else t.splice(i, 0, ' ', pick(SHARP), ' ');
    }
    return t.join('');
  },
  check(input) {
    let diags;
    const t0 = performance.now();
    try {
      diags = compile(input, { file: 'fuzz.c' }).diagnostics;
    } catch (e) {
      return `uncaught exception: ${(e as Error)?.message ?? String(e)}`;
    }
    const ms = performance.now() - t0;
    const internal = diags.find((d) => d.code === 'cc-internal' || /^internal/.test(d.message));
    if (internal) return `internal error: ${internal.message}`;
    for (const d of diags) {
      if (!Number.isInteger(d.span.line) || d.span.line < 0 || !Number.isInteger(d.span.col) || d.span.col < 0) return `bad span on '${d.message}'`;
    }
    // Inputs are a few KB: anything near a second is a hang in the making.
    if (ms > 2000 + input.length / 100) return `slow: ${ms.toFixed(0)} ms for ${input.length} bytes`;
    return undefined;
  },
};

/** Run the target for `seconds` (or `maxRuns` inputs); returns counts and the failures (kept in CRASH_DIR when `save`). */
export function fuzz(target: FuzzTarget, seconds: number, seed = 1, save = true, maxRuns = Infinity): { runs: number; failures: { reason: string; file?: string }[] } {
  const r = rng(seed);
  const seeds = target.seeds();
  const failures: { reason: string; file?: string }[] = [];
  const seen = new Set<string>();
  const end = performance.now() + seconds * 1000;
  let runs = 0;
  while (performance.now() < end && runs < maxRuns) {
    let input = seeds[Math.floor(r() * seeds.length)]!;
    const depth = 1 + Math.floor(r() * 4);
    for (let i = 0; i < depth; i++) input = target.mutate(input, r);
    runs++;
    const why = target.check(input);
    if (!why) continue;
    const key = why.replace(/\d+/g, 'N').slice(0, 120);
    if (seen.has(key)) continue;
    seen.add(key);
    let file: string | undefined;
    if (save) {
      mkdirSync(CRASH_DIR, { recursive: true });
      file = path.join(CRASH_DIR, `${target.name}-${seed}-${runs}.c`);
      writeFileSync(file, `/* fuzz ${target.name} seed ${seed} run ${runs}: ${why.replace(/\*\//g, '* /')} */\n${input}`);
    }
    failures.push({ reason: why, file });
  }
  return { runs, failures };
}

const isMain = process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url);
if (isMain) {
  const arg = (name: string, d: number): number => {
    const i = process.argv.indexOf(name);
    return i >= 0 ? Number(process.argv[i + 1]) : d;
  };
  const seconds = arg('--seconds', 60);
  const seed = arg('--seed', Date.now() % 100000);
  const res = fuzz(ccFuzzTarget, seconds, seed);
  console.log(`cc fuzz: ${res.runs} inputs in ${seconds} s (seed ${seed}), ${res.failures.length} distinct failures`);
  for (const f of res.failures) console.log(`  ${f.reason}${f.file ? `  (${path.relative(process.cwd(), f.file)})` : ''}`);
  process.exitCode = res.failures.length ? 1 : 0;
}
