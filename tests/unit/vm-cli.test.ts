import { describe, expect, it } from 'vitest';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { main } from '../../src/cli/main';

async function cli(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await main(argv, { out: (t) => void (out += t), err: (t) => void (err += t) });
  return { code, out, err };
}

const dir = mkdtempSync(path.join(tmpdir(), 'xdp-lab-cli-'));
const file = (name: string, text: string): string => {
  const p = path.join(dir, name);
  writeFileSync(p, text);
  return p;
};

describe('xdp-lab asm / disasm / run / conformance', () => {
  it('asm prints hex, --spec a spec; disasm reads it back', async () => {
    const src = file('p.s', 'mov %r0, 2\nexit\n');
    expect(await cli('asm', src)).toEqual({ code: 0, out: 'b700000002000000\n9500000000000000\n', err: '' });
    const spec = await cli('asm', src, '--spec');
    expect(JSON.parse(spec.out)).toEqual({ prog_type: 'xdp', insns: 'b7000000020000009500000000000000', maps: [], map_relocs: [] });
    const specFile = file('p.json', spec.out);
    expect((await cli('disasm', specFile)).out).toBe('0: (b7) r0 = 2\n1: (95) exit\n');
    expect((await cli('disasm', 'b7000000020000009500000000000000', '--style', 'llvm')).out).toBe('0: r0 = 0x2\n1: exit\n');
  });

  it('run prints per-packet retval and data_out, then the maps, in the oracle shape', async () => {
    const src = file('swap.s', 'ldxw %r2, [%r1+0]\nldxw %r3, [%r1+4]\nmov %r4, %r2\nadd %r4, 2\njgt %r4, %r3, +4\nldxb %r5, [%r2+0]\nstxb [%r2+1], %r5\nmov %r0, 3\nexit\nmov %r0, 1\nexit\n');
    const spec = file('swap.json', (await cli('asm', src, '--spec')).out);
    const pkts = file('pkts.json', JSON.stringify(['0a0b0c', '01']));
    const r = await cli('run', spec, '--packets', pkts, '--json');
    expect(r.code).toBe(0);
    const j = JSON.parse(r.out);
    expect(j.runs.map((x: { retval: number; data_out: string }) => [x.retval, x.data_out])).toEqual([[3, '0a0a0c'], [1, '01']]);
    expect(j.maps).toEqual([]);
  });

  it('bad input: one line naming the problem, exit 2', async () => {
    const cases: [string[], RegExp][] = [
      [['disasm', 'b70000000200'], /^xdp-lab disasm: bytecode: program length 6 is not a multiple of 8 bytes\n$/],
      [['disasm', '18010000000000000000'], /^xdp-lab disasm: bytecode: program length 10/],
      [['asm', file('bad.s', 'mov %r0, 1\nfrob\n')], /bad\.s:2:1: unknown instruction 'frob'\n$/],
      [['run', file('u.json', '{"insns":"b7000000020000009500000000000000","maps":[{"type":"sockmap","key_size":4,"value_size":4,"max_entries":1}]}'), '--packets', file('p1.json', '["00"]')], /unknown map type "sockmap"/],
      [['run', file('ok.json', '{"insns":"b7000000020000009500000000000000"}'), '--packets', file('p2.json', '["0g"]')], /^xdp-lab run: packets\[0\]: invalid hex character 'g' at position 1\n$/],
      [['run', file('t.json', '{"insns":"18010000"}'), '--packets', file('p3.json', '[]')], /odd|multiple of 8/],
      [['conformance', path.join(dir, 'nope')], /^xdp-lab conformance: cannot read .*nope: no such directory\n$/],
    ];
    for (const [argv, re] of cases) {
      const r = await cli(...argv);
      expect(r.code, argv.join(' ')).toBe(2);
      expect(r.err, argv.join(' ')).toMatch(re);
      expect(r.err.trim().split('\n'), argv.join(' ')).toHaveLength(1);
    }
  });

  it('conformance prints N passed, M failed', async () => {
    const d = mkdtempSync(path.join(tmpdir(), 'xdp-lab-conf-'));
    writeFileSync(path.join(d, 'ok.data'), '-- asm\nmov %r0, 1\nexit\n-- result\n0x1\n');
    writeFileSync(path.join(d, 'bad.data'), '-- asm\nmov %r0, 1\nexit\n-- result\n0x2\n');
    const r = await cli('conformance', d);
    expect(r.code).toBe(1);
    expect(r.out).toBe('FAIL bad.data: expected 0x2, got 0x1\n1 passed, 1 failed\n');
  });
});

describe('xdp-lab run: faults, invalid programs, limits, repeat (issues 16, 17)', () => {
  it('a faulting program is XDP_ABORTED (retval 0) with the fault shown', async () => {
    // r0 = 2 (XDP_PASS) before the fault: the action must not be what r0 held.
    const spec = file('fault.json', (await cli('asm', file('fault.s', 'mov %r0, 2\nldxw %r2, [%r1+0]\nldxw %r3, [%r2+4000]\nexit\n'), '--spec')).out);
    const pkts = file('fp.json', JSON.stringify(['00112233']));
    const j = JSON.parse((await cli('run', spec, '--packets', pkts, '--json')).out);
    expect(j.runs[0].retval).toBe(0);
    expect(j.runs[0].fault).toMatch(/^pc 2: out-of-bounds read from packet through R2/);
    const text = await cli('run', spec, '--packets', pkts);
    expect(text.out).toMatch(/^packet 0: XDP_ABORTED \(3 insns\)  FAULT: pc 2: out-of-bounds read from packet through R2/);
  });

  it('an invalid program and an over-budget map are refused in one line, exit 2', async () => {
    const pkts = file('p5.json', '["00"]');
    const r13 = await cli('run', file('r13.json', '{"insns":"b70d0000050000009500000000000000"}'), '--packets', pkts);
    expect(r13).toEqual({ code: 2, out: '', err: 'xdp-lab run: invalid program: insn 0: R13 is invalid\n' });
    const huge = await cli('run', file('huge.json', JSON.stringify({ insns: 'b7000000020000009500000000000000', maps: [{ name: 'm', type: 'array', key_size: 4, value_size: 0x7fffffff, max_entries: 0x7fffffff }] })), '--packets', pkts);
    expect(huge.code).toBe(2);
    expect(huge.err).toBe('xdp-lab run: map array: value_size 2147483647 is larger than 4194304 (E2BIG)\n');
  });

  it('--repeat runs each packet N times on one buffer and reports duration_ns', async () => {
    // count: *(u64 *)map[0] += 1 per run, then XDP_DROP.
    const src = file('cnt.s', 'mov %r1, 0\nstxw [%r10-4], %r1\nmov %r2, %r10\nadd %r2, -4\nlddw %r1, 0\ncall 1\njeq %r0, 0, +3\nldxdw %r1, [%r0+0]\nadd %r1, 1\nstxdw [%r0+0], %r1\nmov %r0, 1\nexit\n');
    const asm = JSON.parse((await cli('asm', src, '--spec')).out);
    const spec = file('cnt.json', JSON.stringify({ ...asm, maps: [{ name: 'c', type: 'array', key_size: 4, value_size: 8, max_entries: 1 }], map_relocs: [{ insn: 4, map: 0 }] }));
    const r = await cli('run', spec, '--packets', file('p6.json', JSON.stringify(['00', { data: '01', repeat: 5 }])), '--repeat', '1000', '--json');
    expect(r.code).toBe(0);
    const j = JSON.parse(r.out);
    expect(j.runs.map((x: { retval: number }) => x.retval)).toEqual([1, 1]);
    for (const x of j.runs) expect(Number.isInteger(x.duration_ns) && x.duration_ns >= 0).toBe(true);
    expect(j.maps[0].entries).toEqual([{ key: '00000000', value: 'ed03000000000000' }]); // 1000 + 5 runs
  });
});
