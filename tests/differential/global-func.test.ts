/**
 * The compiler's warning on global functions (cc-global-func) against the
 * kernel: clang-19's object, loaded as libbpf loads it (bpftool prog load,
 * BTF included), is refused when the noinline helper is global, because the
 * kernel verifies a global function on its own and gives its callers a
 * return value it knows nothing of ("Func#1 ('slot_of') is global and
 * assumed valid"), and accepted when the same helper is static. XDP Lab
 * warns about the first and not the second. Its verifier (like the kernel
 * given the bare instructions, as bpf-oracle loads them) checks both with
 * the caller's values and accepts both: that gap is what the warning says.
 * Needs root and bpffs, as the kernel oracle does: skipped loudly with it.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { compile } from '../../src/cc';
import { parseSpec } from '../../src/isa';
import { verify } from '../../src/verifier';
import { CLANG, CLANG_FLAGS } from '../../src/cli/clang';
import { oracleAvailable } from './oracle';

const source = (linkage: string): string => `#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
${linkage} __attribute__((noinline)) int slot_of(__u32 q) { return q & 3; }
SEC("xdp") int queue_weight(struct xdp_md *ctx)
{
	char tbl[4] = {1, 2, 3, 0};
	return tbl[slot_of(ctx->rx_queue_index)];
}
char _license[] SEC("license") = "GPL";
`;

const BPFTOOL = ['/usr/sbin/bpftool', 'bpftool'].find((b) => spawnSync(b, ['version']).status === 0) ?? 'bpftool';

/** clang-19's object loaded by bpftool (libbpf, with BTF): accepted, and the verifier log. */
function kernelWithBtf(src: string): { accepted: boolean; log: string } {
  const dir = mkdtempSync(path.join(tmpdir(), 'xdp-lab-gf-'));
  const pin = `/sys/fs/bpf/xdp-lab-gf-${process.pid}-${Date.now()}`;
  try {
    writeFileSync(path.join(dir, 'prog.c'), src);
    const cc = spawnSync(CLANG, [...CLANG_FLAGS, '-c', 'prog.c', '-o', 'prog.o'], { cwd: dir, encoding: 'utf8' });
    if (cc.status !== 0) throw new Error(`clang: ${cc.stderr}`);
    const r = spawnSync(BPFTOOL, ['prog', 'load', path.join(dir, 'prog.o'), pin, 'type', 'xdp'], { encoding: 'utf8' });
    return { accepted: r.status === 0, log: `${r.stdout}${r.stderr}` };
  } finally {
    rmSync(pin, { force: true });
    rmSync(dir, { recursive: true, force: true });
  }
}

function ours(src: string): { warned: boolean; accepted: boolean } {
  const r = compile(src, { file: 'prog.c' });
  if (!r.spec) throw new Error(r.diagnostics.map((d) => d.message).join('; '));
  const parsed = parseSpec(JSON.parse(JSON.stringify(r.spec)));
  if ('error' in parsed) throw new Error(parsed.error);
  return { warned: r.diagnostics.some((d) => d.code === 'cc-global-func'), accepted: verify(parsed, { states: false }).accepted };
}

const oracle = oracleAvailable();

describe.skipIf(!oracle.ok)('global functions: the warning against the kernel with BTF', () => {
  it('bpffs is mounted for bpftool', () => {
    const t = spawnSync('stat', ['-f', '-c', '%T', '/sys/fs/bpf'], { encoding: 'utf8' });
    if (t.stdout.trim() !== 'bpf_fs') spawnSync('mount', ['-t', 'bpf', 'bpf', '/sys/fs/bpf']);
    expect(spawnSync('stat', ['-f', '-c', '%T', '/sys/fs/bpf'], { encoding: 'utf8' }).stdout.trim()).toBe('bpf_fs');
  });

  it('global: the kernel refuses it (verified on its own), XDP Lab warns', () => {
    const k = kernelWithBtf(source(''));
    expect(k.accepted).toBe(false);
    expect(k.log).toContain("Func#1 ('slot_of') is global and assumed valid.");
    expect(ours(source(''))).toEqual({ warned: true, accepted: true });
  });

  it('static: the kernel accepts it (verified with its caller), no warning', () => {
    const k = kernelWithBtf(source('static'));
    expect(k.accepted, k.log).toBe(true);
    expect(ours(source('static'))).toEqual({ warned: false, accepted: true });
  });
});
