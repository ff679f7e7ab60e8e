/**
 * Benchmark section 'ccmem': the compiler's peak memory and time on huge
 * sources (issue 17). Two generated sources of the same size (5 MB, 1 MB
 * with --quick): one XDP program whose body is a single huge function, and
 * many small static functions beside a tiny program. Each is compiled in a
 * fresh node process (peak RSS is per process and never goes down), which
 * reports its own process.resourceUsage().maxRSS; the line prints peak RSS
 * as a multiple of the source size (target: a small multiple).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { CliIO } from '../io';

const here = path.dirname(fileURLToPath(import.meta.url));

/** One XDP function of `bytes` source: a long chain of branches on one variable. */
export function hugeFunctionSource(bytes: number): string {
  const parts = ['#include <linux/bpf.h>\n#include <bpf/bpf_helpers.h>\nSEC("xdp") int prog(struct xdp_md *ctx) {\n  int x = ctx->data_end - ctx->data;\n'];
  let n = parts[0]!.length;
  for (let i = 0; n < bytes; i++) {
    const l = `  if (x > ${i}) x = x * 3 + ${i}; else x ^= ${i};\n`;
    parts.push(l);
    n += l.length;
  }
  parts.push('  return x & 1 ? XDP_PASS : XDP_DROP;\n}\nchar _license[] SEC("license") = "GPL";\n');
  return parts.join('');
}

/** Many small static functions (unused, as in a big header-heavy unit) and a tiny program. */
export function manyFunctionsSource(bytes: number): string {
  const parts = ['#include <linux/bpf.h>\n#include <bpf/bpf_helpers.h>\n'];
  let n = parts[0]!.length;
  for (let i = 0; n < bytes; i++) {
    const l = `static __attribute__((unused)) int f${i}(int a, int b) { int x = a * ${i} + b; if (x > ${i}) x -= b; else x += a; return x ^ ${i}; }\n`;
    parts.push(l);
    n += l.length;
  }
  parts.push('SEC("xdp") int prog(struct xdp_md *ctx) { return XDP_PASS; }\nchar _license[] SEC("license") = "GPL";\n');
  return parts.join('');
}

export async function bench(io: CliIO, opts: { quick: boolean }): Promise<void> {
  const bytes = opts.quick ? 1_000_000 : 5_000_000;
  const tmp = mkdtempSync(path.join(tmpdir(), 'xdp-lab-ccmem-'));
  try {
    for (const [name, gen] of [['one huge function', hugeFunctionSource], ['many small functions', manyFunctionsSource]] as const) {
      const file = path.join(tmp, 'big.c');
      const src = gen(bytes);
      writeFileSync(file, src);
      const r = spawnSync(process.execPath, ['--import', 'tsx', path.join(here, 'ccmem_child.ts'), file], { encoding: 'utf8', maxBuffer: 1 << 20 });
      const line = r.stdout.trim().split('\n').pop() ?? '';
      let res: { ok: boolean; ms: number; maxRssKb: number; insns: number } | undefined;
      try {
        res = JSON.parse(line) as typeof res;
      } catch {
        res = undefined;
      }
      if (!res) {
        io.out(`  ${name}: the child process failed (${r.status}): ${(r.stderr || line).slice(0, 200)}\n`);
        continue;
      }
      const mb = src.length / 1e6;
      io.out(`  compiler memory, ${name} (${mb.toFixed(1)} MB source): peak RSS ${(res.maxRssKb / 1024).toFixed(0)} MB = ${(res.maxRssKb * 1024 / src.length).toFixed(0)}x the source, ${(res.ms / 1000).toFixed(1)} s, ${res.ok ? `${res.insns} insns` : 'did not compile'}\n`);
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}
