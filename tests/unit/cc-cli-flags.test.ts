/**
 * clang's flags on xdp-lab's command line: a project laid out in folders
 * compiles with its Makefile's flags pasted unchanged, includes read from
 * disk beside the including file and through -I; a missing header names the
 * search path; an unknown flag is one line and exit 2.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main';
import { splitCcFlags } from '../../src/cli/ccflags';

async function cli(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await main(argv, { out: (t) => (out += t), err: (t) => (err += t) });
  return { code, out, err };
}

function project(): string {
  const dir = mkdtempSync(join(tmpdir(), 'xdp-lab-flags-'));
  mkdirSync(join(dir, 'common'));
  mkdirSync(join(dir, 'include', 'xdp'), { recursive: true });
  mkdirSync(join(dir, 'lesson'));
  writeFileSync(join(dir, 'common', 'parsing.h'), '#pragma once\n#include <linux/if_ether.h>\nstatic __always_inline int eth_ok(void *d, void *e) { return d + sizeof(struct ethhdr) <= e; }\n');
  writeFileSync(join(dir, 'include', 'xdp', 'verdict.h'), '#ifndef VERDICT_H\n#define VERDICT_H\n#define GOOD XDP_PASS\n#endif\n');
  writeFileSync(join(dir, 'lesson', 'prog.c'), [
    '#include <linux/bpf.h>',
    '#include <bpf/bpf_helpers.h>',
    '#include "../common/parsing.h"',
    '#include <xdp/verdict.h>',
    'SEC("xdp") int prog(struct xdp_md *ctx) {',
    '  void *d = (void *)(long)ctx->data, *e = (void *)(long)ctx->data_end;',
    '  return eth_ok(d, e) ? GOOD : BAD;',
    '}',
    'char _license[] SEC("license") = "GPL";',
  ].join('\n'));
  return dir;
}

describe('clang flags on the command line', () => {
  it('compiles a project with its Makefile flags and includes from disk', async () => {
    const dir = project();
    const r = await cli('compile', '-O2', '-g', '-target', 'bpf', '-Wall', `-I${join(dir, 'include')}`, '-D', 'BAD=XDP_DROP', '-I/usr/include/x86_64-linux-gnu', join(dir, 'lesson', 'prog.c'));
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out).insns.length).toBeGreaterThan(0);
    const v = await cli('verify', `-I${join(dir, 'include')}`, '-DBAD=1', join(dir, 'lesson', 'prog.c'), '--json');
    expect(v.code).toBe(0);
    expect(JSON.parse(v.out).accepted).toBe(true);
  });

  it('prints the preprocessed source with -E', async () => {
    const dir = project();
    const r = await cli('compile', '-E', `-I${join(dir, 'include')}`, '-DBAD=XDP_DROP', join(dir, 'lesson', 'prog.c'));
    expect(r.code).toBe(0);
    expect(r.out).toContain('return eth_ok(d, e) ? XDP_PASS : XDP_DROP;');
    expect(r.out).toContain('__attribute__((section("xdp"), used)) int prog(struct xdp_md *ctx)');
  });

  it('writes to -o OUT what it would print, as clang writes its object there (-o - is standard output)', async () => {
    const dir = project();
    const flags = [`-I${join(dir, 'include')}`, '-DBAD=XDP_DROP', join(dir, 'lesson', 'prog.c')];
    const printed = await cli('compile', ...flags);
    const out = join(dir, 'prog.json');
    const r = await cli('compile', '-O2', '-c', ...flags, '-o', out);
    expect(r).toEqual({ code: 0, out: '', err: '' });
    expect(readFileSync(out, 'utf8')).toBe(printed.out);
    const asm = join(dir, 'prog.s');
    expect((await cli('compile', '--asm', ...flags, '-o', asm)).out).toBe('');
    expect(readFileSync(asm, 'utf8')).toContain('<prog>:');
    expect((await cli('compile', ...flags, '-o', '-')).out).toBe(printed.out);
    const pre = join(dir, 'prog.i');
    await cli('compile', '-E', ...flags, '-o', pre);
    expect(readFileSync(pre, 'utf8')).toContain('return eth_ok(d, e) ? XDP_PASS : XDP_DROP;');
    const bad = await cli('compile', ...flags, '-o', join(dir, 'no', 'such', 'dir', 'x.json'));
    expect(bad.code).toBe(2);
    expect(bad.err.trim().split('\n')).toEqual([`xdp-lab compile: cannot write ${join(dir, 'no', 'such', 'dir', 'x.json')}: no such directory`]);
    expect(existsSync(join(dir, 'no'))).toBe(false);
  });

  it('names the search path when a header is missing, like clang', async () => {
    const dir = project();
    const r = await cli('compile', '-DBAD=1', join(dir, 'lesson', 'prog.c'));
    expect(r.code).toBe(1);
    expect(r.err).toContain(`'xdp/verdict.h' file not found (searched: the freestanding C headers, the system headers)`);
    expect(r.err).toContain('#include <xdp/verdict.h>');
  });

  it('refuses an unknown flag in one line with exit 2, and keeps its own options apart', async () => {
    const r = await cli('compile', '-frobnicate', '--bogus-thing', 'x.c');
    expect(r.code).toBe(2);
    expect(r.err.trim().split('\n')).toHaveLength(1);
    expect(await cli('compile', '-I')).toMatchObject({ code: 2, err: "xdp-lab compile: argument to '-I' is missing (expected 1 value)\n" });
    expect(splitCcFlags(['prog.c', '-I', 'inc', '--packets', '-3', '-DX', '--json'])).toEqual({ ccFlags: ['-I', 'inc', '-DX'], rest: ['prog.c', '--packets', '-3', '--json'] });
  });
});
