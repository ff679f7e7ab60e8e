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
      [['run', file('u.json', '{"insns":"b7000000020000009500000000000000","maps":[{"type":"queue","key_size":0,"value_size":4,"max_entries":1}]}'), '--packets', file('p1.json', '["00"]')], /unknown map type "queue"/],
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
