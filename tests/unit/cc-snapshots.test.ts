/**
 * Compiler output snapshots: every program of tests/corpus and every shipped
 * example, compiled, written as one line per slot (hex bytes, then the
 * llvm-objdump text) followed by the maps, relocations and function starts.
 * A refactoring of the code generator must leave these files unchanged; an
 * intended change of output is recorded with `npx vitest run -u
 * tests/unit/cc-snapshots.test.ts` and reviewed in the diff.
 */
import { describe, expect, it } from 'vitest';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { compile, formatDiagnostic } from '../../src/cc';
import { EXAMPLES } from '../../src/examples';
import { decodeProgram, disasmInsn, hexToBytes } from '../../src/isa';

const here = path.dirname(fileURLToPath(import.meta.url));
const corpusDir = path.resolve(here, '../corpus');
const programs: { name: string; source: string }[] = [
  ...readdirSync(corpusDir).filter((f) => f.endsWith('.c')).sort()
    .map((f) => ({ name: `corpus-${f.replace(/\.c$/, '')}`, source: readFileSync(path.join(corpusDir, f), 'utf8') })),
  ...EXAMPLES.map((e) => ({ name: `example-${e.id}`, source: e.source })),
];

/** The compiler's output as reviewable text; it determines the bytecode exactly. */
export function snapshotText(source: string, file: string): string {
  const r = compile(source, { file });
  const lines: string[] = [];
  for (const d of r.diagnostics) lines.push(`; ${formatDiagnostic(d, source).split('\n')[0]}`);
  if (!r.spec) return `${lines.join('\n')}\n; no program\n`;
  const bytes = hexToBytes(r.spec.insns);
  if (typeof bytes === 'string') throw new Error(bytes);
  const { insns } = decodeProgram(bytes);
  const hex = r.spec.insns;
  const funcAt = new Map((r.spec.funcs ?? []).map((f) => [f.insn, f.name]));
  for (let k = 0; k < insns.length; k++) {
    const name = funcAt.get(k);
    if (name !== undefined) lines.push(`<${name}>:`);
    const slotHex = hex.slice(k * 16, k * 16 + 16);
    const insn = insns[k]!;
    const wide = insn.code === 0x18;
    lines.push(`${String(k).padStart(4)}: ${slotHex}  ${disasmInsn(wide ? { ...insn, imm2: insns[k + 1]?.imm ?? 0 } : insn, { style: 'llvm' }, k)}`);
    // The second slot of an lddw carries the high half; objdump prints no text for it.
    if (wide && k + 1 < insns.length) { k++; lines.push(`${String(k).padStart(4)}: ${hex.slice(k * 16, k * 16 + 16)}`); }
  }
  lines.push(`maps: ${JSON.stringify(r.spec.maps)}`);
  lines.push(`map_relocs: ${JSON.stringify(r.spec.map_relocs)}`);
  const extra = r.spec as unknown as Record<string, unknown>;
  for (const key of ['programs', 'btf']) if (extra[key] !== undefined) lines.push(`${key}: ${JSON.stringify(extra[key])}`);
  return `${lines.join('\n')}\n`;
}

describe('compiler output snapshots', () => {
  for (const p of programs) {
    it(p.name, async () => {
      await expect(snapshotText(p.source, `${p.name}.c`)).toMatchFileSnapshot(`../cases/cc/${p.name}.expected`);
    });
  }
});
