/**
 * What the verifier and VM targets share: the corpus programs compiled
 * once (with their maps), packets that reach past the parsers (built from
 * real headers, then damaged), and instruction-level mutations.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { compile } from '../../../src/cc';
import { bytesToHex, decodeProgram, encodeProgram, hexToBytes, type Insn, type ProgramSpec } from '../../../src/isa';
import { buildPacket, type PacketSpec } from '../../../src/net';
import { EXAMPLES } from '../../../src/examples';
import { HELPER_SEEDS } from './helper_seeds';
import { below, pick, type Rng } from '../types';

const corpusDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../corpus');
let compiled: ProgramSpec[] | undefined;

/** Every corpus program, example and helper seed (./helper_seeds.ts) that compiles, as its spec (maps included). */
export function corpusSpecs(): ProgramSpec[] {
  if (compiled) return compiled;
  const sources = readdirSync(corpusDir).filter((f) => f.endsWith('.c')).sort().map((f) => readFileSync(path.join(corpusDir, f), 'utf8')).concat(EXAMPLES.map((e) => e.source), HELPER_SEEDS);
  compiled = [];
  for (const src of sources) {
    const r = compile(src, { file: 'corpus.c' });
    if (r.spec && !r.diagnostics.some((d) => d.severity === 'error')) {
      const { btf: _btf, source: _src, line_info: _li, ...spec } = r.spec;
      compiled.push(spec as ProgramSpec);
    }
  }
  return compiled;
}

/** A frame: a real header stack most of the time (so parsers go deep), sometimes cut short or random. */
export function randomPacket(r: Rng): Uint8Array {
  const k = r();
  if (k < 0.15) {
    const b = new Uint8Array(below(r, 80));
    for (let i = 0; i < b.length; i++) b[i] = below(r, 256);
    return b;
  }
  const spec: PacketSpec = {
    l3: pick(r, ['ipv4', 'ipv4', 'ipv6', 'arp'] as const),
    l4: pick(r, ['udp', 'tcp', 'icmp', 'none'] as const),
    vlans: r() < 0.2 ? (r() < 0.5 ? [below(r, 4096)] : [below(r, 4096), below(r, 4096)]) : [],
    ttl: pick(r, [0, 1, 64, 255]),
    sport: below(r, 65536),
    dport: pick(r, [53, 80, 443, 4789, below(r, 65536)]),
    tcpFlags: below(r, 256),
    frameLen: pick(r, [60, 64, 128, 512, 1500]),
  };
  let b = buildPacket(spec);
  if (k < 0.35) b = b.slice(0, below(r, b.length + 1)); // cut short: every bounds check matters
  if (r() < 0.3) for (let n = 1 + below(r, 4); n > 0; n--) if (b.length) b[below(r, b.length)] = below(r, 256);
  return b;
}

export function decodeInsns(hex: string): Insn[] {
  const bytes = hexToBytes(hex);
  if (typeof bytes === 'string') return [];
  return decodeProgram(bytes).insns;
}

export const encodeInsns = (insns: Insn[]): string => bytesToHex(encodeProgram(insns));

const WILD_IMM = [0, 1, -1, 2, 4, 8, 14, 16, 31, 32, 63, 64, 0x7fffffff, -0x80000000, 0xffff, 4096, -4096, -512, 512];
const WILD_OFF = [0, 1, -1, 2, 4, 8, -8, -16, -512, -513, 512, 14, 32, 0x7fff, -0x8000];
/** Opcodes of every class, including the newer ones (may_goto, load-acquire, 8/16-bit atomics, sign-extending loads). */
const OPCODES = [0x07, 0x0f, 0x17, 0x1f, 0x27, 0x2f, 0x37, 0x3f, 0x47, 0x4f, 0x57, 0x5f, 0x67, 0x6f, 0x77, 0x7f, 0x87, 0x97, 0x9f, 0xa7, 0xaf, 0xb7, 0xbf, 0xc7, 0xcf, 0xd4, 0xdc, 0xd7, 0x04, 0x0c, 0x14, 0x1c, 0x24, 0x2c, 0x34, 0x3c, 0xb4, 0xbc, 0x61, 0x69, 0x71, 0x79, 0x81, 0x89, 0x91, 0x62, 0x6a, 0x72, 0x7a, 0x63, 0x6b, 0x73, 0x7b, 0xc3, 0xdb, 0xd3, 0xcb, 0x05, 0x06, 0x15, 0x1d, 0x25, 0x2d, 0x35, 0x3d, 0x45, 0x4d, 0x55, 0x5d, 0x65, 0x6d, 0x75, 0x7d, 0xa5, 0xad, 0xb5, 0xbd, 0xc5, 0xcd, 0xd5, 0xdd, 0xe5, 0x16, 0x1e, 0x26, 0x2e, 0x56, 0x5e, 0x85, 0x95, 0x8d];

/** Change 1–3 instructions: a field, a whole instruction, an insertion, a deletion, a swap, a loop or a call. */
export function mutateInsns(insns: Insn[], r: Rng): Insn[] {
  const out = insns.map((x) => ({ ...x }));
  if (!out.length) return [{ code: 0xb7, dst: 0, src: 0, off: 0, imm: 2 }, { code: 0x95, dst: 0, src: 0, off: 0, imm: 0 }];
  for (let n = 1 + below(r, 3); n > 0 && out.length; n--) {
    const k = below(r, out.length);
    const x = out[k]!;
    // Keep lddw pairs whole most of the time (a split one is only a parse error).
    if ((x.code === 0x18 || (k > 0 && out[k - 1]!.code === 0x18)) && r() < 0.9) continue;
    switch (below(r, 12)) {
      case 0: x.src = r() < 0.8 ? below(r, 11) : below(r, 16); break;
      case 1: x.dst = r() < 0.8 ? below(r, 11) : below(r, 16); break;
      case 2: x.off = r() < 0.5 ? pick(r, WILD_OFF) : x.off + below(r, 17) - 8; break;
      case 3: x.imm = r() < 0.5 ? pick(r, WILD_IMM) : (x.imm + below(r, 17) - 8) | 0; break;
      case 4: x.code = r() < 0.7 ? pick(r, OPCODES) : below(r, 256); break;
      case 5: out.splice(k, 1); break;
      case 6: out.splice(k, 0, { code: pick(r, OPCODES), dst: below(r, 11), src: below(r, 11), off: pick(r, WILD_OFF), imm: pick(r, WILD_IMM) }); break;
      case 7: { const j = below(r, out.length); [out[k], out[j]] = [out[j]!, out[k]!]; break; }
      case 8: out[k] = { code: 0x05, dst: 0, src: 0, off: -1 - below(r, Math.max(1, k)), imm: 0 }; break; // a backward jump: a loop
      case 9: out[k] = { code: 0x85, dst: 0, src: 0, off: 0, imm: below(r, 220) }; break; // a helper call
      case 10: out[k] = { code: 0xe5, dst: 0, src: 0, off: below(r, 5) - 2, imm: 0 }; break; // may_goto
      default: out[k] = { code: pick(r, [0xc3, 0xdb, 0xd3, 0xcb]), dst: 10, src: below(r, 10), off: -8 * (1 + below(r, 8)), imm: pick(r, [0x00, 0x01, 0x40, 0x41, 0x50, 0x51, 0xa0, 0xa1, 0xe1, 0xf1, 0x100, 0x110]) }; break;
    }
  }
  return out.length ? out : [{ code: 0x95, dst: 0, src: 0, off: 0, imm: 0 }];
}
