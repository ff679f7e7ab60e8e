/**
 * Child process of the 'ccmem' bench: compiles one file with the disk's
 * system headers and prints one JSON line (ChildResult in ./ccmem.ts).
 * Mode 'peak': peak RSS over the baseline and the time, nothing else
 * running. Mode 'heap': the live heap after a full GC at each phase
 * boundary, the largest over the baseline. Needs --expose-gc.
 */
import { readFileSync } from 'node:fs';
import { compile, type CompilePhase } from '../../cc';
import { diskFiles, diskSystemHeaders } from '../system_headers';

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with --expose-gc');
const [file, mode] = [process.argv[2]!, process.argv[3]!];
const opts = { readFile: diskFiles, systemHeaders: diskSystemHeaders };
// The baseline: node, the compiler's code (run once, so compiled) and the headers' token cache.
compile('#include <linux/bpf.h>\n#include <bpf/bpf_helpers.h>\nSEC("xdp") int p(struct xdp_md *c) { return XDP_PASS; }\nchar _license[] SEC("license") = "GPL";\n', { ...opts, file: 'warm.c' });
const source = readFileSync(file, 'utf8');
gc();
gc();
const live = (): number => {
  const m = process.memoryUsage();
  return m.heapUsed + m.arrayBuffers;
};
const baseRss = process.memoryUsage().rss;
const baseHeap = live();
let liveHeap = 0;
let phase = '';
const onPhase = mode === 'heap'
  ? (p: CompilePhase): void => {
    gc();
    const h = live() - baseHeap;
    if (h > liveHeap) { liveHeap = h; phase = p; }
  }
  : undefined;
const t0 = performance.now();
const r = compile(source, { ...opts, file: 'big.c', onPhase });
const ms = performance.now() - t0;
const peakRss = process.resourceUsage().maxRSS * 1024 - baseRss;
process.stdout.write(`${JSON.stringify({ ok: !!r.spec, ms, insns: r.spec ? r.spec.insns.length / 16 : 0, ...(mode === 'heap' ? { liveHeap, phase } : { peakRss }) })}\n`);
