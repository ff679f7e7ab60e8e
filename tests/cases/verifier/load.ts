/**
 * The verifier case suite: data files (*.cases) of small programs in
 * kernel-log assembler syntax, each with the verdict and first error line
 * the kernel gives. Format:
 *
 *   == name of the case
 *   maps: array 4 8 4; hash 4 8 16      (type key_size value_size max_entries [inner=I] [flags=N])
 *   expect: accept | reject <first error line>
 *   r2 = *(u32 *)(r1 +0)
 *   r1 = map[0]                          (an lddw relocated to map 0)
 *   raw: 0f0b000000000000                (one slot as hex, for encodings no assembler writes)
 *   call kfunc bpf_dynptr_from_xdp       (a BPF_PSEUDO_KFUNC_CALL bound by name, as kfunc_relocs binds it)
 *   ...
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { bytesToHex, decodeProgram, encodeProgram, hexToBytes, type Insn } from '../../../src/isa/insn';
import type { MapSpec, MapType, ProgramSpec } from '../../../src/isa/spec';

export interface VerifierCase {
  file: string;
  name: string;
  spec: ProgramSpec;
  expectAccept: boolean;
  expectError?: string;
}

type Assemble = (text: string) => { insns: Insn[]; errors: { line: number; message: string }[] };

const RAW_MARK = 0x7ea000;
const KFUNC_MARK = 0x7eb000;
const here = path.dirname(fileURLToPath(import.meta.url));

export function loadCases(assemble: Assemble, dir = here): VerifierCase[] {
  const out: VerifierCase[] = [];
  for (const f of readdirSync(dir).filter((n) => n.endsWith('.cases')).sort()) {
    const text = readFileSync(path.join(dir, f), 'utf8');
    const blocks = text.split(/^== /m).slice(1);
    for (const b of blocks) {
      const lines = b.split('\n');
      const name = lines[0]!.trim();
      const maps: MapSpec[] = [];
      let expectAccept: boolean | undefined;
      let expectError: string | undefined;
      const asm: string[] = [];
      const mapOrder: (number | null)[] = [];
      const raws: string[] = [];
      const kfuncs: string[] = [];
      const kfuncRelocs: { insn: number; name: string }[] = [];
      for (const raw of lines.slice(1)) {
        const line = raw.replace(/\s+$/, '');
        if (!line.trim() || line.trim().startsWith('#')) continue;
        const m = /^maps:\s*(.*)$/.exec(line);
        if (m) {
          for (const d of m[1]!.split(';')) {
            const [type, k, v, n, ...opts] = d.trim().split(/\s+/);
            const spec: MapSpec = { type: type as MapType, key_size: Number(k), value_size: Number(v), max_entries: Number(n) };
            // A map-in-map names its inner map's template: `inner=I` (an index into the same maps: line); `flags=N`: map_flags.
            for (const o of opts) {
              const im = /^(inner|flags)=(0x[0-9a-f]+|\d+)$/.exec(o);
              if (!im) throw new Error(`${f}: case "${name}": unknown map option '${o}'`);
              if (im[1] === 'inner') spec.inner_map = Number(im[2]);
              else spec.flags = Number(im[2]);
            }
            maps.push(spec);
          }
          continue;
        }
        const e = /^expect:\s*(accept|reject)\s*(.*)$/.exec(line);
        if (e) {
          expectAccept = e[1] === 'accept';
          if (e[2]) expectError = e[2];
          continue;
        }
        const kf = /^call kfunc (\w+)$/.exec(line.trim());
        if (kf) {
          asm.push(`r9 = ${KFUNC_MARK + kfuncs.length}`);
          kfuncs.push(kf[1]!);
          continue;
        }
        const rw = /^raw:\s*([0-9a-fA-F]{16})$/.exec(line.trim());
        if (rw) {
          // A placeholder the assembler accepts, patched to the raw slot below.
          asm.push(`r9 = ${RAW_MARK + raws.length}`);
          raws.push(rw[1]!);
          continue;
        }
        const mm = /map\[(\d+)\]/.exec(line);
        if (mm) {
          mapOrder.push(Number(mm[1]));
          asm.push(line.replace(/map\[\d+\]/, '0 ll'));
        } else {
          if (/\bll\b/.test(line)) mapOrder.push(null);
          asm.push(line);
        }
      }
      if (expectAccept === undefined) throw new Error(`${f}: case "${name}" has no expect: line`);
      const res = assemble(asm.join('\n'));
      if (res.errors.length) throw new Error(`${f}: case "${name}": ${res.errors[0]!.message} (line ${res.errors[0]!.line})`);
      for (let slot = 0; slot < res.insns.length; slot++) {
        const insn = res.insns[slot]!;
        const k = insn.imm - RAW_MARK;
        if (insn.code === 0xb7 && insn.dst === 9 && k >= 0 && k < raws.length) {
          const b = hexToBytes(raws[k]!) as Uint8Array;
          res.insns[slot] = decodeProgram(b).insns[0]!;
        }
        const kk = insn.imm - KFUNC_MARK;
        if (insn.code === 0xb7 && insn.dst === 9 && kk >= 0 && kk < kfuncs.length) {
          res.insns[slot] = { code: 0x85, dst: 0, src: 2, off: 0, imm: 0 };
          kfuncRelocs.push({ insn: slot, name: kfuncs[kk]! });
        }
      }
      const relocs: { insn: number; map: number }[] = [];
      let k = 0;
      for (let slot = 0; slot < res.insns.length; slot++) {
        const insn = res.insns[slot]!;
        if (insn.code !== 0x18) continue;
        const m = mapOrder[k++];
        if (m !== null && m !== undefined) {
          insn.src = 1;
          relocs.push({ insn: slot, map: m });
        }
        slot++;
      }
      const spec: ProgramSpec = { prog_type: 'xdp', insns: bytesToHex(encodeProgram(res.insns)) };
      if (maps.length) {
        spec.maps = maps;
        spec.map_relocs = relocs;
      }
      if (kfuncRelocs.length) spec.kfunc_relocs = kfuncRelocs;
      out.push({ file: f, name, spec, expectAccept, expectError });
    }
  }
  return out;
}

/** Register ids differ between verifiers run for run; compare without them. */
export function normalizeErrorLine(s: string | undefined): string {
  return (s ?? '').replace(/\bid=\d+/g, 'id=N').replace(/0xffff[0-9a-f]{12}/g, 'ADDR').trim();
}

/** The kernel's first error line: the first line after the last instruction/state line. */
export function kernelFirstErrorLine(log: string): string {
  const lines = log.split('\n').filter((l) => l.length > 0);
  let last = -1;
  lines.forEach((l, i) => {
    if (/^\d+: \([0-9a-f]{2}\)/.test(l) || /^\d+: (R\d|fp|frame|safe)/.test(l) || /^from \d+ to \d+/.test(l)) last = i;
  });
  for (let i = last + 1; i < lines.length; i++) {
    const l = lines[i]!;
    if (l.startsWith('; ') || l.startsWith('processed ') || l.startsWith('mark_precise') || /^(caller|callee):$/.test(l)) continue;
    if (l.startsWith('(') && /^\(\d+\) frame/.test(l)) continue;
    // A message the kernel printed without its newline runs into the stats line.
    return l.replace(/processed \d+ insns \(limit.*$/, '');
  }
  return '';
}
