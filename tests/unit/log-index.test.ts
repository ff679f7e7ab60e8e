/**
 * The engine's log index (src/engine/logIndex.ts): line starts and pcs the UI
 * slices lines with, visit/prune counts for the CFG, the bounded failing path;
 * and the whole of it on the 16 MiB log of a loop rejected at the
 * 1M-instruction limit (the log that froze the app's Verifier pane).
 */
import { describe, expect, it } from 'vitest';
import { boundErrorPath, indexLog, logLine, MAX_ERROR_PATH } from '../../src/engine/logIndex';
import { createEngine, landedToolchain } from '../../src/engine';
import { BPF_LOG_BUF_SIZE } from '../../src/verifier/log';

describe('indexLog', () => {
  const LOG = ['func#0 @0', '0: R1=ctx() R10=fp0', '0: (b7) r0 = 1', '1: (95) exit', 'from 3 to 1: safe', '1: safe', '12: (05) goto pc-3', 'processed 2 insns'].join('\n');
  it('finds every line without splitting, with the pc it starts with', () => {
    const ix = indexLog(LOG, 4);
    const lines = Array.from({ length: ix.pcs.length }, (_, i) => logLine(LOG, ix, i));
    expect(lines).toEqual(LOG.split('\n'));
    expect(Array.from(ix.pcs)).toEqual([-1, 0, 0, 1, -1, 1, 12, -1]);
  });
  it('counts explored instructions and pruned states per pc, ignoring pcs past the program', () => {
    const ix = indexLog(LOG, 4);
    expect(Array.from(ix.visits)).toEqual([1, 1, 0, 0]);
    expect(Array.from(ix.pruned)).toEqual([0, 2, 0, 0]);
  });
  it('an empty log is one empty line; a trailing newline gives a last empty line', () => {
    expect(logLine('', indexLog('', 0), 0)).toBe('');
    const ix = indexLog('a\n', 0);
    expect(ix.pcs.length).toBe(2);
    expect(logLine('a\n', ix, 1)).toBe('');
  });
  it('keeps the end of a long failing path and says how long it was', () => {
    expect(boundErrorPath([1, 2, 3])).toEqual({ errorPath: [1, 2, 3] });
    const long = Array.from({ length: 10_000 }, (_, i) => i);
    const b = boundErrorPath(long);
    expect(b.errorPath).toHaveLength(MAX_ERROR_PATH);
    expect(b.errorPath!.at(-1)).toBe(9_999);
    expect(b.errorPathLength).toBe(10_000);
  });
});

describe('a loop rejected at the 1M-instruction limit', () => {
  it('reaches the UI as a bounded log with its index, a bounded path and visit counts', () => {
    const src = '#include <linux/bpf.h>\n#include <bpf/bpf_helpers.h>\nSEC("xdp")\nint prog(struct xdp_md *ctx)\n{\n\tvolatile int sum = 0;\n\twhile (1)\n\t\tsum += 3;\n\treturn XDP_PASS;\n}\n';
    const r = createEngine(landedToolchain).build(src);
    const v = r.verify;
    if (v.status !== 'ok') throw new Error(`verify did not run: ${v.message}`);
    expect(v.accepted).toBe(false);
    expect(v.error).toMatch(/BPF program is too large/);
    // Before: 56 MB and 2,000,009 lines went to the UI; now the kernel's bound, its beginning marked as lost.
    expect(v.log.length).toBeLessThanOrEqual(BPF_LOG_BUF_SIZE);
    expect(v.logTruncated).toBe(true);
    expect(v.logIndex.starts.length).toBe(v.logIndex.pcs.length + 1);
    expect(v.logIndex.pcs.length).toBeGreaterThan(100_000);
    expect(logLine(v.log, v.logIndex, v.logIndex.pcs.length - 2)).toMatch(/processed|too large/);
    expect(v.errorPath!.length).toBeLessThanOrEqual(MAX_ERROR_PATH);
    expect(v.errorPathLength).toBeGreaterThan(900_000);
    expect(Math.max(...v.visits.visits)).toBeGreaterThan(10_000);
  }, 120_000);
});
