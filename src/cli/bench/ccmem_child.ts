/**
 * Child process of the 'ccmem' bench: compiles one file with the disk's
 * system headers and prints one JSON line with its own peak RSS (a fresh
 * process, so the figure is this compile's alone).
 */
import { readFileSync } from 'node:fs';
import { compile } from '../../cc';
import { diskFiles, diskSystemHeaders } from '../system_headers';

const file = process.argv[2]!;
const source = readFileSync(file, 'utf8');
const t0 = performance.now();
const r = compile(source, { file: 'big.c', readFile: diskFiles, systemHeaders: diskSystemHeaders });
const ms = performance.now() - t0;
process.stdout.write(`${JSON.stringify({ ok: !!r.spec, ms, maxRssKb: process.resourceUsage().maxRSS, insns: r.spec ? r.spec.insns.length / 16 : 0 })}\n`);
