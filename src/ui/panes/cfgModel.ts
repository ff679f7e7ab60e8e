/**
 * The program's control-flow graph as the verifier walked it, laid out with
 * dagre. Pure: basic blocks from the disassembly (kernel syntax: `goto +N`,
 * `if … goto +N`, `exit`; an lddw's second slot is a pc with no text), each
 * block's visit count and prunes as the engine counted them in the level-2
 * log (src/engine/logIndex.ts: each explored instruction prints as
 * `N: (op) …`, a pruned state as `N: safe` or `from X to N: safe`), and the
 * failing path from the verifier's errorPath.
 */
import dagre from '@dagrejs/dagre';
import type { VisitCounts } from '../../engine/logIndex';

export interface CfgBlock {
  id: number;
  start: number;
  end: number;
  lines: string[];
  succs: number[];
  /** How many times the verifier explored the block's first instruction. */
  visits: number;
  /** States pruned at one of the block's instructions. */
  pruned: number;
  onErrorPath: boolean;
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface CfgEdge {
  from: number;
  to: number;
  onErrorPath: boolean;
  points: { x: number; y: number }[];
}

export interface Cfg {
  blocks: CfgBlock[];
  edges: CfgEdge[];
  width: number;
  height: number;
}

const JUMP = /\bgoto ([+-](?:0x[0-9a-f]+|\d+))/;
const LINE_H = 14;
const CHAR_W = 7;

/** Blocks and edges of one program (insn text per pc; '' for an lddw's second slot). */
export function buildCfg(insns: { pc: number; text: string }[], counts: VisitCounts | null, errorPath: number[] = []): Cfg {
  const text = new Map(insns.map((i) => [i.pc, i.text]));
  const pcs = insns.map((i) => i.pc).sort((a, b) => a - b);
  const last = pcs.at(-1) ?? -1;
  const target = (pc: number): number | null => {
    const m = JUMP.exec(text.get(pc) ?? '');
    const arg = m?.[1];
    if (!arg) return null;
    const body = arg.slice(1);
    const off = (arg[0] === '-' ? -1 : 1) * (body.startsWith('0x') ? parseInt(body, 16) : Number(body));
    return pc + 1 + off;
  };
  const isExit = (pc: number) => /^exit\b/.test(text.get(pc) ?? '');
  const isUncond = (pc: number) => /^goto\b/.test(text.get(pc) ?? '');
  const leaders = new Set<number>(pcs.slice(0, 1));
  for (const pc of pcs) {
    const t = target(pc);
    if (t !== null) {
      leaders.add(t);
      leaders.add(pc + 1);
    }
    if (isExit(pc)) leaders.add(pc + 1);
  }
  const starts = pcs.filter((pc) => leaders.has(pc));
  const visitsAt = (pc: number) => counts?.visits[pc] ?? 0;
  const prunedAt = (pc: number) => counts?.pruned[pc] ?? 0;
  const onPath = new Set(errorPath);
  const blocks: CfgBlock[] = starts.map((start, id) => {
    const end = (starts[id + 1] ?? last + 1) - 1;
    const range = pcs.filter((pc) => pc >= start && pc <= end);
    const lines = range.filter((pc) => text.get(pc)).map((pc) => `${pc}: ${text.get(pc)}`);
    let p = 0;
    for (const pc of range) p += prunedAt(pc);
    const width = Math.min(320, Math.max(80, ...lines.map((l) => l.length * CHAR_W + 12)));
    return { id, start, end, lines, succs: [], visits: visitsAt(start), pruned: p, onErrorPath: range.some((pc) => onPath.has(pc)), x: 0, y: 0, width, height: lines.length * LINE_H + 20 };
  });
  const blockOf = (pc: number) => blocks.find((b) => pc >= b.start && pc <= b.end);
  for (const b of blocks) {
    const t = target(b.end);
    if (t !== null) {
      const tb = blockOf(t);
      if (tb) b.succs.push(tb.id);
    }
    if (!isExit(b.end) && !isUncond(b.end) && b.end < last) {
      const nb = blockOf(b.end + 1);
      if (nb && !b.succs.includes(nb.id)) b.succs.push(nb.id);
    }
  }
  const g = new dagre.graphlib.Graph();
  g.setGraph({ rankdir: 'TB', nodesep: 24, ranksep: 28, marginx: 8, marginy: 8 });
  g.setDefaultEdgeLabel(() => ({}));
  for (const b of blocks) g.setNode(String(b.id), { width: b.width, height: b.height });
  for (const b of blocks) for (const s of b.succs) g.setEdge(String(b.id), String(s));
  dagre.layout(g);
  for (const b of blocks) {
    const n = g.node(String(b.id));
    b.x = n.x - b.width / 2;
    b.y = n.y - b.height / 2;
  }
  // An edge is on the failing path when the path steps from the one block's last pc to the other's first.
  const steps = new Set<string>();
  for (let i = 0; i + 1 < errorPath.length; i++) steps.add(`${errorPath[i]}>${errorPath[i + 1]}`);
  const edges: CfgEdge[] = g.edges().map((e) => {
    const from = blocks[Number(e.v)]!;
    const to = blocks[Number(e.w)]!;
    return { from: from.id, to: to.id, onErrorPath: steps.has(`${from.end}>${to.start}`), points: g.edge(e).points ?? [] };
  });
  const gg = g.graph();
  return { blocks, edges, width: gg.width ?? 0, height: gg.height ?? 0 };
}
