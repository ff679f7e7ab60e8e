/**
 * Benchmark section 'ccmem': the compiler's memory and time on big sources
 * (issue 17), for four shapes — one huge function, many small functions,
 * big initialised global arrays, deep macro expansion — each at two sizes
 * (1 and 4 MB; 0.25 and 1 MB with --quick) so the figures show whether cost
 * grows linearly with the source.
 *
 * Each compile runs in a fresh node process (peak RSS is per process and
 * never goes down). The child is bundled to plain JavaScript with esbuild
 * when it is available (tsx's on-the-fly module wrapper otherwise adds its
 * own time and memory; the line says which ran). The child first compiles a
 * tiny program with the same headers, so the baseline it subtracts holds
 * node, the compiler's code and the header cache, then reports:
 *   - peak RSS over that baseline (process.resourceUsage().maxRSS) and the
 *     compile time, from a run with nothing else going on;
 *   - the live heap: the most heapUsed + arrayBuffers after a full GC at the
 *     compiler's phase boundaries (CompileOptions.onPhase), from a second run
 *     (forcing GCs lowers the peak, so the two are not measured together).
 * Each figure is printed as a multiple of the source's bytes (target: a
 * small multiple, the same at both sizes).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { CliIO } from '../io';
import type { BenchOpts } from './types';
import { bundleChild, runChild } from './child';

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

/** Global arrays of 1024 initialised words (.data), each read once by the program. */
export function bigArraysSource(bytes: number): string {
  const parts = ['#include <linux/bpf.h>\n#include <bpf/bpf_helpers.h>\n'];
  let n = parts[0]!.length;
  let k = 0;
  for (; n < bytes; k++) {
    const vals: string[] = [];
    for (let j = 0; j < 1024; j++) vals.push(String((j * 2654435761 + k) >>> 20));
    const l = `__u32 tbl${k}[1024] = { ${vals.join(', ')} };\n`;
    parts.push(l);
    n += l.length;
  }
  parts.push('SEC("xdp") int prog(struct xdp_md *ctx) {\n  __u32 x = ctx->ingress_ifindex;\n');
  for (let i = 0; i < k; i++) parts.push(`  x += tbl${i}[x & 1023];\n`);
  parts.push('  return x & 1 ? XDP_PASS : XDP_DROP;\n}\nchar _license[] SEC("license") = "GPL";\n');
  return parts.join('');
}

/**
 * One function of lines that each expand a macro nested five deep (M4 -> M3
 * -> ... -> M0) over a constant: ~90 tokens after expansion for ~7 in the
 * source, folded to one instruction, so the preprocessor and the parser
 * carry the load (and a 4 MB source stays under the 1M-instruction limit).
 */
export function deepMacroSource(bytes: number): string {
  const parts = ['#include <linux/bpf.h>\n#include <bpf/bpf_helpers.h>\n#define M0(x) ((x) * 3 + 1)\n'];
  for (let k = 1; k < 5; k++) parts.push(`#define M${k}(x) M${k - 1}((x) ^ ${k})\n`);
  parts.push('SEC("xdp") int prog(struct xdp_md *ctx) {\n  __u32 x = ctx->ingress_ifindex;\n');
  let n = parts.reduce((a, p) => a + p.length, 0);
  for (let i = 0; n < bytes; i++) {
    const l = `  x += M4(${i});\n`;
    parts.push(l);
    n += l.length;
  }
  parts.push('  return x & 1 ? XDP_PASS : XDP_DROP;\n}\nchar _license[] SEC("license") = "GPL";\n');
  return parts.join('');
}

export const SHAPES = [
  ['one huge function', hugeFunctionSource],
  ['many small functions', manyFunctionsSource],
  ['big initialised arrays', bigArraysSource],
  ['deep macro expansion', deepMacroSource],
] as const;

/** What the child prints (one JSON line). */
export interface ChildResult {
  ok: boolean;
  ms: number;
  insns: number;
  /** Peak RSS over the baseline, bytes (the 'peak' run). */
  peakRss?: number;
  /** Most live heap over the baseline after a GC at a phase boundary, bytes (the 'heap' run). */
  liveHeap?: number;
  /** The phase where the live heap was largest. */
  phase?: string;
}

const MB = 1 << 20;

export async function bench(io: CliIO, opts: BenchOpts): Promise<void> {
  const sizes = opts.quick ? [250_000, 1_000_000] : [1_000_000, 4_000_000];
  const tmp = mkdtempSync(path.join(tmpdir(), 'xdp-lab-ccmem-'));
  try {
    const child = await bundleChild(path.join(here, 'ccmem_child.ts'), tmp);
    io.out(`  (child: ${child.bundled ? 'bundled with esbuild, plain node' : 'through tsx'}; figures over a baseline process that has compiled a tiny program)\n`);
    for (const [name, gen] of SHAPES) {
      const rows: { bytes: number; peak: ChildResult; heap: ChildResult }[] = [];
      for (const bytes of sizes) {
        const file = path.join(tmp, 'big.c');
        const src = gen(bytes);
        writeFileSync(file, src);
        const peak = runChild<ChildResult>(child, [file, 'peak'], ['--expose-gc']);
        const heap = runChild<ChildResult>(child, [file, 'heap'], ['--expose-gc']);
        if (typeof peak === 'string' || typeof heap === 'string') {
          io.out(`  ${name}: ${typeof peak === 'string' ? peak : heap}\n`);
          continue;
        }
        rows.push({ bytes: src.length, peak, heap });
        opts.figure(`${name}.${src.length}.peak_rss_per_source`, peak.peakRss! / src.length);
        opts.figure(`${name}.${src.length}.live_heap_per_source`, heap.liveHeap! / src.length);
        io.out(`  compiler memory, ${name} (${(src.length / 1e6).toFixed(1)} MB source): peak RSS +${(peak.peakRss! / MB).toFixed(0)} MB = ${(peak.peakRss! / src.length).toFixed(0)}x the source, live heap ${(heap.liveHeap! / MB).toFixed(0)} MB = ${(heap.liveHeap! / src.length).toFixed(0)}x (after ${heap.phase}), ${(peak.ms / 1000).toFixed(2)} s, ${peak.ok ? `${peak.insns} insns` : 'did not compile'}\n`);
      }
      if (rows.length === 2) {
        const [a, b] = rows as [typeof rows[0], typeof rows[0]];
        const r = (x: number, y: number): string => (y / x).toFixed(1);
        io.out(`  growth, ${name}, ${r(a.bytes, b.bytes)}x the source: peak RSS ${r(a.peak.peakRss!, b.peak.peakRss!)}x, live heap ${r(a.heap.liveHeap!, b.heap.liveHeap!)}x, time ${r(a.peak.ms, b.peak.ms)}x\n`);
      }
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}
