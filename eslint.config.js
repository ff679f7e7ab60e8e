// ESLint: typescript-eslint's recommended rules, plus the architecture's
// import rules (the whiteboard's layering, DESIGN.md), each with its reason.
// tests/unit/lint-rules.test.ts proves each rule fails on a wrong import.
import tseslint from 'typescript-eslint';

/** The pure core: runs in the worker, in Node and in tests alike. */
const CORE = ['src/isa', 'src/helpers', 'src/cc', 'src/verifier', 'src/vm', 'src/maps', 'src/net', 'src/sim', 'src/engine', 'src/lessons', 'src/explain'];

const dir = (name) => [`**/${name}`, `**/${name}/**`];

/** What every core module must not import. */
const CORE_PATTERNS = [
  { group: [...dir('ui'), ...dir('store'), ...dir('worker')], message: 'The core (DESIGN.md) never imports UI, store or worker code: it must run headless (CLI, tests, the worker).' },
  { group: ['react', 'react-dom', 'react/*', 'd3', 'd3-*', 'monaco-editor', 'monaco-editor/*', 'zustand', 'zustand/*'], message: 'The core (DESIGN.md) is pure: no react, d3, monaco or zustand.' },
  { group: ['node:*', 'fs', 'path', 'child_process'], message: 'The core runs in a browser worker too: no Node built-ins.' },
];

/** Layering inside the core: each layer's forbidden imports, and why. */
const LAYERS = {
  'src/cc': [{ group: dir('verifier'), message: 'The compiler never imports the verifier: it emits what clang would and lets the verifier judge it, as the kernel does.' }],
  'src/verifier': [{ group: dir('vm'), message: 'The verifier never imports the VM: it proves properties statically and must not run the program.' }],
  'src/vm': [{ group: dir('sim'), message: 'The VM never imports the simulator: it runs one program on one buffer; drivers call it, not the other way round.' }],
  'src/sim': [
    { group: dir('engine'), message: 'The simulator never imports the engine: the engine drives the simulator and turns it into views.' },
    { group: dir('cc'), message: 'The simulator never imports the compiler: it receives programs (bytecode + maps) from the engine pipeline.' },
  ],
  'src/engine': [{ group: dir('worker'), message: 'The engine never imports the worker: the worker wraps the engine, which also runs in Node and tests.' }],
};

const CLI_PATTERNS = [
  { group: [...dir('ui'), ...dir('store'), 'react', 'react-dom', 'react/*', 'd3', 'd3-*', 'monaco-editor', 'monaco-editor/*', 'zustand', 'zustand/*'], message: 'The CLI never imports the UI: it runs the core headless, the same code the app runs in its worker.' },
];

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'test-results/**', 'playwright-report/**', 'e2e/.report/**'] },
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-non-null-assertion': 'off',
    },
  },
  {
    files: CORE.map((d) => `${d}/**/*.ts`),
    rules: {
      'no-restricted-globals': ['error', { name: 'Date', message: 'The core is deterministic: virtual time only.' }, { name: 'performance', message: 'The core is deterministic: virtual time only.' }],
      'no-restricted-properties': ['error', { object: 'Math', property: 'random', message: 'The core is deterministic: use the seeded RNG.' }],
    },
  },
  // One no-restricted-imports per directory (a later config would replace an earlier one's patterns, not add to them).
  ...CORE.map((d) => ({
    files: [`${d}/**/*.ts`],
    rules: { 'no-restricted-imports': ['error', { patterns: [...CORE_PATTERNS, ...(LAYERS[d] ?? [])] }] },
  })),
  {
    files: ['src/cli/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: CLI_PATTERNS }] },
  },
);
