/** The CFG pane's model: basic blocks from kernel-syntax disassembly, visits and prunes from a level-2 log, the failing path. */
import { describe, expect, it } from 'vitest';
import { buildCfg } from '../../src/ui/panes/cfgModel';
import { indexLog } from '../../src/engine/logIndex';

const INSNS = [
  { pc: 0, text: 'r2 = *(u32 *)(r1 + 0x4)' },
  { pc: 1, text: 'if r2 == 0x0 goto +0x2' },
  { pc: 2, text: 'r0 = 0x1' },
  { pc: 3, text: 'goto +0x1' },
  { pc: 4, text: 'r0 = 0x2' },
  { pc: 5, text: 'exit' },
];
const LOG = ['0: (61) r2 = *(u32 *)(r1 +4)', '1: (15) if r2 == 0x0 goto pc+2', '2: (b7) r0 = 1', '3: (05) goto pc+1', '5: (95) exit',
  'from 1 to 4: R1=ctx() R2=0', '4: (b7) r0 = 2', '5: safe', ''].join('\n');
const COUNTS = indexLog(LOG, INSNS.length);

describe('buildCfg', () => {
  it('splits at jump targets and after jumps, with both edges of a branch', () => {
    const cfg = buildCfg(INSNS, COUNTS);
    expect(cfg.blocks.map((b) => [b.start, b.end])).toEqual([[0, 1], [2, 3], [4, 4], [5, 5]]);
    expect(cfg.blocks[0]!.succs.sort()).toEqual([1, 2]);
    expect(cfg.blocks[1]!.succs).toEqual([3]); // goto: no fall-through
    expect(cfg.blocks[2]!.succs).toEqual([3]);
    expect(cfg.blocks[3]!.succs).toEqual([]);
    expect(cfg.edges).toHaveLength(4);
    expect(cfg.width).toBeGreaterThan(0);
  });
  it('counts visits per block and the states pruned in it', () => {
    const cfg = buildCfg(INSNS, COUNTS);
    expect(cfg.blocks.map((b) => b.visits)).toEqual([1, 1, 1, 1]);
    expect(cfg.blocks.map((b) => b.pruned)).toEqual([0, 0, 0, 1]);
  });
  it('marks the blocks and edges of the failing path only', () => {
    const cfg = buildCfg(INSNS, COUNTS, [0, 1, 4, 5]);
    expect(cfg.blocks.map((b) => b.onErrorPath)).toEqual([true, false, true, true]);
    expect(cfg.edges.filter((e) => e.onErrorPath).map((e) => [e.from, e.to]).sort()).toEqual([[0, 2], [2, 3]]);
  });
});
