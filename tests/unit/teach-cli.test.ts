/** The teaching CLI: `exercises`, `grade` (exit 0 / 1 / 2) and `verify --explain [--json]`. */
import { describe, expect, it } from 'vitest';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { main } from '../../src/cli/main';
import { exerciseById } from '../../src/lessons/exercises';

const here = path.dirname(fileURLToPath(import.meta.url));
const dir = mkdtempSync(path.join(tmpdir(), 'xdp-teach-'));

async function cli(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await main(argv, { out: (t) => void (out += t), err: (t) => void (err += t) });
  return { code, out, err };
}

function file(name: string, text: string): string {
  const p = path.join(dir, name);
  writeFileSync(p, text);
  return p;
}

describe('teaching CLI', () => {
  it('exercises --json lists {id, title, topic, kind}', async () => {
    const r = await cli('exercises', '--json');
    expect(r.code).toBe(0);
    const list = JSON.parse(r.out) as { id: string; title: string; topic: string; kind: string }[];
    expect(list.length).toBeGreaterThanOrEqual(30);
    expect(Object.keys(list[0]!).sort()).toEqual(['id', 'kind', 'title', 'topic']);
  });

  it('grade exits 0 when all pass, 1 when any fails, 2 on bad input', async () => {
    const ex = exerciseById('udp-port');
    if (ex?.kind !== 'program') throw new Error('udp-port');
    const good = await cli('grade', 'udp-port', file('good.c', ex.solution), '--json');
    expect(good.code).toBe(0);
    expect((JSON.parse(good.out) as { pass: boolean }).pass).toBe(true);
    const bad = await cli('grade', 'udp-port', file('bad.c', ex.solution.replace('port <= 5010', 'port < 5010')));
    expect(bad.code).toBe(1);
    expect(bad.out).toMatch(/FAIL {2}packet 2 \(UDP to 5010\): expected XDP_DROP, got XDP_PASS/);
    expect((await cli('grade', 'no-such-exercise', file('x.c', ''))).code).toBe(2);
    expect((await cli('grade', 'udp-port', path.join(dir, 'missing.c'))).code).toBe(2);
    expect((await cli('grade', 'predict-devmap-bulk', file('answer.txt', 'sixteen'))).code).toBe(2);
  });

  it('verify --explain --json adds the explanation with line, path and fix', async () => {
    const r = await cli('verify', path.resolve(here, '../cases/explain/pkt_access.c'), '--explain', '--json');
    expect(r.code).toBe(1);
    const j = JSON.parse(r.out) as { accepted: boolean; explanation: { kind: string; line: number; column: number; summary: string; detail: string; path: number[]; fix: { line: number; insert: string } } };
    expect(j.accepted).toBe(false);
    expect(j.explanation.kind).toBe('pkt-access');
    expect(j.explanation.line).toBe(18);
    // Line 14 (data_end, never read) emits nothing, as in clang's build: the path starts at data.
    expect(j.explanation.path).toEqual([15, 18]);
    expect(j.explanation.fix.line).toBe(18);
    expect(j.explanation.fix.insert).toMatch(/if \(\(void \*\)\(eth \+ 1\) > data_end\)/);
    const text = await cli('verify', path.resolve(here, '../cases/explain/pkt_access.c'), '--explain');
    expect(text.out).toMatch(/fix: insert before line 18/);
  });

  it('verify --no-perfmon (CAP_BPF + CAP_NET_ADMIN): an uninitialised key is refused and explained; as root it is accepted', async () => {
    const f = path.resolve(here, '../cases/explain/uninit_key.c');
    expect((await cli('verify', f)).code).toBe(0);
    for (const flag of ['--no-perfmon', '--unprivileged']) {
      const r = await cli('verify', f, flag, '--explain', '--json');
      expect(r.code).toBe(1);
      const j = JSON.parse(r.out) as { error: string; explanation: { kind: string; line: number; fix: { line: number; insert: string } } };
      expect(j.error).toBe('invalid read from stack R2 off=-8 size=4');
      expect(j.explanation.kind).toBe('uninit-stack');
      expect(j.explanation.line).toBe(21);
      expect(j.explanation.fix.insert).toMatch(/__u32 key = 0;/);
    }
  });
});
