/**
 * The verifier log, indexed once in the worker so the UI never splits it.
 *
 * A rejected loop can fill the log to its bound (16 MiB, half a million
 * lines, src/verifier/log.ts). Splitting that on the UI thread, or keeping
 * a line per React node, froze the app for minutes. The engine therefore
 * hands the UI the log string plus where each line starts and which
 * instruction it prints, and the per-instruction visit and prune counts
 * the CFG view shades with: the UI slices only the lines on screen.
 *
 * Also here: the failing path, bounded. A loop that hits the 1M-instruction
 * limit has a path of a million pcs; the UI keeps its last MAX_ERROR_PATH
 * steps (the end is where the error is) and says how many there were.
 */

/** Where each line of a log starts, and the instruction it prints. */
export interface LogIndex {
  /** starts[i] = offset of line i; starts[lines] = log.length + 1 (one past the final newline position). */
  starts: Uint32Array;
  /** The pc a line begins with ("12: (bf) r1 = r6" or "12: safe"), else -1. */
  pcs: Int32Array;
}

/** How the verifier walked each instruction, read from a level-2 log. */
export interface VisitCounts {
  /** Times each pc was explored (a "N: (op) …" line). */
  visits: Uint32Array;
  /** States pruned at each pc ("N: safe" or "from X to N: safe"). */
  pruned: Uint32Array;
}

export const MAX_ERROR_PATH = 4096;

const ZERO = 48;

/** The decimal number at s[i..] and where it ends, or null. */
function digitsAt(s: string, i: number, end: number): [number, number] | null {
  let n = 0;
  let j = i;
  while (j < end) {
    const c = s.charCodeAt(j) - ZERO;
    if (c < 0 || c > 9) break;
    n = n * 10 + c;
    j++;
  }
  return j > i ? [n, j] : null;
}

/** Index a log and count, per pc below insnCount, its visits and prunes. One pass, no regex, no per-line string. */
export function indexLog(log: string, insnCount: number): LogIndex & VisitCounts {
  const starts: number[] = [];
  const pcs: number[] = [];
  const visits = new Uint32Array(Math.max(0, insnCount));
  const pruned = new Uint32Array(Math.max(0, insnCount));
  let at = 0;
  for (;;) {
    let end = log.indexOf('\n', at);
    const last = end < 0;
    if (last) end = log.length;
    starts.push(at);
    let pc = -1;
    // "from X to N: safe"
    let i = at;
    if (log.startsWith('from ', at)) {
      const x = digitsAt(log, at + 5, end);
      if (x && log.startsWith(' to ', x[1])) i = x[1] + 4;
    }
    const d = digitsAt(log, i, end);
    if (d && log.startsWith(': ', d[1])) {
      const [n, j] = d;
      if (i === at) pc = n;
      if (n < insnCount) {
        if (log.startsWith('(', j + 2) && i === at) visits[n]!++;
        else if (log.startsWith('safe', j + 2)) pruned[n]!++;
      }
    }
    pcs.push(pc);
    if (last) break;
    at = end + 1;
  }
  starts.push(log.length + 1);
  return { starts: Uint32Array.from(starts), pcs: Int32Array.from(pcs), visits, pruned };
}

/** Line i of an indexed log (without its newline). */
export function logLine(log: string, index: LogIndex, i: number): string {
  return log.slice(index.starts[i] ?? 0, (index.starts[i + 1] ?? 1) - 1);
}

/** The failing path as the UI keeps it: its last MAX_ERROR_PATH pcs, and its full length when cut. */
export function boundErrorPath(path: number[] | undefined): { errorPath?: number[]; errorPathLength?: number } {
  if (!path) return {};
  if (path.length <= MAX_ERROR_PATH) return { errorPath: path };
  return { errorPath: path.slice(-MAX_ERROR_PATH), errorPathLength: path.length };
}
