/**
 * The architecture's import rules bite: for each rule, ESLint (its Node API,
 * on in-memory code at a path inside the layer) reports a deliberately wrong
 * import with the rule's reason, and passes the same file with an allowed one.
 */
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const eslint = new ESLint({ cwd: ROOT });

async function importErrors(file: string, spec: string): Promise<string[]> {
  const code = `import { x } from '${spec}';\nexport const y = x;\n`;
  const [r] = await eslint.lintText(code, { filePath: resolve(ROOT, file) });
  return (r?.messages ?? []).filter((m) => m.ruleId === 'no-restricted-imports').map((m) => m.message);
}

const RULES: { rule: string; file: string; bad: string; reason: RegExp; good: string }[] = [
  { rule: 'core never imports UI', file: 'src/sim/probe.ts', bad: '../ui/App', reason: /never imports UI/, good: './machine' },
  { rule: 'core (lessons) never imports UI', file: 'src/lessons/probe.ts', bad: '../ui/lessons/lessons', reason: /never imports UI/, good: '../engine' },
  { rule: 'core (explain) never imports UI', file: 'src/explain/probe.ts', bad: '../store/app', reason: /never imports UI/, good: '../verifier' },
  { rule: 'core never imports react', file: 'src/engine/probe.ts', bad: 'react', reason: /pure/, good: '../sim' },
  { rule: 'cc never imports verifier', file: 'src/cc/probe.ts', bad: '../verifier', reason: /compiler never imports the verifier/, good: '../isa/spec' },
  { rule: 'verifier never imports vm', file: 'src/verifier/probe.ts', bad: '../vm/interp', reason: /verifier never imports the VM/, good: '../helpers/table' },
  { rule: 'vm never imports sim', file: 'src/vm/probe.ts', bad: '../sim', reason: /VM never imports the simulator/, good: '../maps' },
  { rule: 'sim never imports engine', file: 'src/sim/nic/probe.ts', bad: '../../engine/pipeline', reason: /simulator never imports the engine/, good: '../../vm' },
  { rule: 'sim never imports cc', file: 'src/sim/probe.ts', bad: '../cc', reason: /simulator never imports the compiler/, good: '../isa/spec' },
  { rule: 'engine never imports worker', file: 'src/engine/views/probe.ts', bad: '../../worker/protocol', reason: /engine never imports the worker/, good: '../../sim' },
  { rule: 'cli never imports ui', file: 'src/cli/commands/probe.ts', bad: '../../ui/controller', reason: /CLI never imports the UI/, good: '../../engine' },
];

describe('ESLint import rules', () => {
  it.each(RULES)('$rule', async ({ file, bad, reason, good }) => {
    const errs = await importErrors(file, bad);
    // (The engine/worker import also breaks the core-wide rule: each rule must report, with its reason.)
    expect(errs.some((m) => reason.test(m))).toBe(true);
    expect(await importErrors(file, good)).toEqual([]);
  });
});
