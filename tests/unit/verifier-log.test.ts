/**
 * The verifier log is bounded like the kernel's rotating log: only its last
 * logSize bytes are kept (libbpf's 16 MiB by default), the kept text is
 * exactly the end of the full log, and logTruncated says bytes fell off.
 */
import { describe, expect, it } from 'vitest';
import { assemble } from '../../src/isa/asm';
import { bytesToHex, encodeProgram } from '../../src/isa/insn';
import { parseSpec, type ParsedSpec } from '../../src/isa/spec';
import { verify } from '../../src/verifier';
import { BPF_LOG_BUF_SIZE, VLog } from '../../src/verifier/log';

function prog(text: string): ParsedSpec {
  const a = assemble(text);
  const p = parseSpec({ prog_type: 'xdp', insns: bytesToHex(encodeProgram(a.insns)) });
  if ('error' in p) throw new Error(p.error);
  return p;
}

const LOOP = prog('r1 = 0\nr1 += 1\nif r1 != 0x0 goto pc-2\nr0 = 0\nexit');

describe('verifier log bound', () => {
  it('keeps exactly the end of the full log when it outgrows its buffer', () => {
    for (const logLevel of [1, 2] as const) {
      const full = verify(LOOP, { logLevel, insnLimit: 3000, states: false });
      expect(full.logTruncated).toBeUndefined();
      expect(full.log.length).toBeGreaterThan(20_000);
      const small = verify(LOOP, { logLevel, insnLimit: 3000, states: false, logSize: 4096 });
      expect(small.logTruncated).toBe(true);
      expect(small.log.length).toBeLessThanOrEqual(4096);
      expect(small.log).toBe(full.log.slice(-small.log.length));
      expect(small.error).toBe(full.error);
      expect(small.log).toMatch(/BPF program is too large\. Processed 3001 insn\nprocessed 3001 insns/);
    }
  });

  it("defaults to libbpf's 16 MiB buffer", () => {
    expect(BPF_LOG_BUF_SIZE).toBe(16 * 1024 * 1024 - 1);
    expect(new VLog(1).size).toBe(BPF_LOG_BUF_SIZE);
  });

  it('rolls back to positions that have fallen off by emptying the log', () => {
    const log = new VLog(1, 8);
    log.write('abcdef');
    log.write('ghijkl');
    expect(log.text).toBe('efghijkl');
    expect(log.pos).toBe(12);
    log.reset(10);
    expect(log.text).toBe('efghij');
    log.reset(2);
    expect(log.text).toBe('');
    expect(log.pos).toBe(2);
    log.write('xy');
    expect(log.text).toBe('xy');
  });
});
