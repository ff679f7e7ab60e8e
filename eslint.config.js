// ESLint: typescript-eslint's recommended rules, plus the architectural
// rule of DESIGN.md: the pure core never imports UI code.
import tseslint from 'typescript-eslint';

const CORE = ['src/isa', 'src/helpers', 'src/cc', 'src/verifier', 'src/vm', 'src/maps', 'src/net', 'src/sim', 'src/engine'];

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
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['**/ui', '**/ui/**', '**/store', '**/store/**', '**/worker/**'], message: 'The core (DESIGN.md) never imports UI, store or worker code.' },
            { group: ['react', 'react-dom', 'react/*', 'd3', 'd3-*', 'monaco-editor', 'monaco-editor/*', 'zustand', 'zustand/*'], message: 'The core (DESIGN.md) is pure: no react, d3, monaco or zustand.' },
            { group: ['node:*', 'fs', 'path', 'child_process'], message: 'The core runs in a browser worker too: no Node built-ins.' },
          ],
        },
      ],
      'no-restricted-globals': ['error', { name: 'Date', message: 'The core is deterministic: virtual time only.' }, { name: 'performance', message: 'The core is deterministic: virtual time only.' }],
      'no-restricted-properties': ['error', { object: 'Math', property: 'random', message: 'The core is deterministic: use the seeded RNG.' }],
    },
  },
);
