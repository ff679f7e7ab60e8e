/**
 * The simulator's per-packet modules keep the numbers they read on every
 * packet (cost steps, trace kinds, XDP verdicts, page locations, slot and
 * CPU states, DMA directions, page_pool sources) as file-local `const enum`s,
 * which the transpiler writes into each use as a literal: an imported
 * binding is a getter under tsx and vitest, and a module-level object is a
 * context load, a hole check and a map check per use. Those copies are
 * written out by hand, so this checks every one of them, member by member,
 * against the one definition it copies: COST_STEPS (S), TRACE_KINDS (K),
 * program.ts's XDP_* (xdp_action), and the exported const enums of
 * page_alloc.ts, rx_ring.ts, machine.ts and page_pool.ts.
 */
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, tsFiles } from './source-files';
import { COST_STEPS } from '../../src/sim/cost';
import { TRACE_KINDS } from '../../src/sim/trace';
import { XDP_ABORTED, XDP_DROP, XDP_PASS, XDP_REDIRECT, XDP_TX } from '../../src/sim/program';


/** Every `[export] const enum NAME { … }` in a source text: name → members (implicit values counted as TypeScript counts them). */
function constEnums(text: string, exported: boolean): Map<string, Map<string, number>> {
  const out = new Map<string, Map<string, number>>();
  const re = exported ? /^export const enum (\w+) \{([\s\S]*?)\n?\}/gm : /^const enum (\w+) \{([\s\S]*?)\}/gm;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    const members = new Map<string, number>();
    let next = 0;
    const body = m[2]!.replace(/\/\*[\s\S]*?\*\//g, '').replace(/\/\/.*$/gm, '');
    for (const item of body.split(',')) {
      const mm = /^\s*(\w+)\s*(?:=\s*(\d+))?\s*$/.exec(item);
      if (!mm) continue;
      const v = mm[2] !== undefined ? Number(mm[2]) : next;
      members.set(mm[1]!, v);
      next = v + 1;
    }
    out.set(m[1]!, members);
  }
  return out;
}

const source = (path: string, name: string): Map<string, number> => {
  const e = constEnums(readFileSync(join(ROOT, path), 'utf8'), true).get(name);
  if (!e) throw new Error(`${path} exports no const enum ${name}`);
  return e;
};

/** Where each local copy's numbers come from. */
const TRUTH: Record<string, Map<string, number>> = {
  S: new Map(COST_STEPS.map((s, i) => [s, i])),
  K: new Map(TRACE_KINDS.map((k, i) => [k, i])),
  xdp_action: new Map([
    ['XDP_ABORTED', XDP_ABORTED],
    ['XDP_DROP', XDP_DROP],
    ['XDP_PASS', XDP_PASS],
    ['XDP_TX', XDP_TX],
    ['XDP_REDIRECT', XDP_REDIRECT],
  ]),
  PageLoc: source('src/sim/page_alloc.ts', 'PageLoc'),
  DmaDir: source('src/sim/page_alloc.ts', 'DmaDir'),
  SlotState: source('src/sim/nic/rx_ring.ts', 'SlotState'),
  CpuState: source('src/sim/machine.ts', 'CpuState'),
  PpSource: source('src/sim/page_pool.ts', 'PpSource'),
};

describe('file-local const enum copies in src/sim', () => {
  const copies: [string, string, Map<string, number>][] = [];
  for (const f of tsFiles(join(ROOT, 'src/sim'))) {
    for (const [name, members] of constEnums(readFileSync(f, 'utf8'), false)) copies.push([relative(ROOT, f), name, members]);
  }

  it('finds the copies (the per-packet modules have them)', () => {
    const files = new Set(copies.map(([f]) => f));
    expect(files.has('src/sim/nic/xdp_page_driver.ts')).toBe(true);
    expect(files.has('src/sim/nic/napi.ts')).toBe(true);
  });

  it.each(copies)('%s: const enum %s matches its definition', (_file, name, members) => {
    const truth = TRUTH[name];
    expect(truth, `no definition known for a local const enum named ${name}`).toBeDefined();
    expect(members.size).toBeGreaterThan(0);
    for (const [member, value] of members) expect([member, value]).toEqual([member, truth!.get(member)]);
  });
});
