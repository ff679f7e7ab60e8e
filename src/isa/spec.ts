/**
 * The program spec: the one JSON format shared by the compiler, verifier,
 * VM, CLI and the kernel oracle (../shared/oracle/bpf-oracle). A spec the
 * compiler writes can be handed to the oracle unchanged.
 *
 *   {"prog_type":"xdp","insns":"<hex, 8 bytes a slot>",
 *    "maps":[{"name","type","key_size","value_size","max_entries"}],
 *    "map_relocs":[{"insn":N,"map":I}], line_info?, btf?, source?}
 */
import { decodeProgram, hexToBytes, type Insn } from './insn';
import { BPF_PSEUDO_MAP_FD, BPF_PSEUDO_MAP_VALUE } from './opcodes';

/** Map types by the oracle's names, with the kernel's enum bpf_map_type values. */
export const MAP_TYPES = {
  hash: 1,
  array: 2,
  prog_array: 3,
  percpu_hash: 5,
  percpu_array: 6,
  lru_hash: 9,
  devmap: 14,
  cpumap: 16,
  xskmap: 17,
  devmap_hash: 25,
  // Added for real-world programs (issue 13); same names as bpf-oracle.
  perf_event_array: 4,
  lpm_trie: 11,
  array_of_maps: 12,
  hash_of_maps: 13,
  lru_percpu_hash: 10,
  ringbuf: 27,
  // Issue 17: bpf_map_push/pop/peek_elem's maps (no key; FIFO and LIFO).
  queue: 22,
  stack: 23,
  // No key: bpf_map_push_elem sets a value's bits, bpf_map_peek_elem tests them.
  bloom_filter: 30,
} as const;
export type MapType = keyof typeof MAP_TYPES;

/** BPF_MAP_TYPE_ARRAY_OF_MAPS / HASH_OF_MAPS: a map whose values are maps (created from an inner map's template). */
export const isMapInMap = (t: string): boolean => t === 'array_of_maps' || t === 'hash_of_maps';

export interface MapSpec {
  name?: string;
  type: MapType;
  key_size: number;
  value_size: number;
  max_entries: number;
  flags?: number;
  /**
   * BPF_MAP_CREATE's map_extra (libbpf: `__uint(map_extra, N)`): a bloom
   * filter's number of hash functions in its low 4 bits (0: 5). Any other
   * map type must leave it 0.
   */
  map_extra?: number;
  /** Initial entries (oracle format: hex key and value). */
  init?: { key: string; value: string }[];
  /** BPF_MAP_FREEZE after init (libbpf freezes .rodata). */
  freeze?: boolean;
  /**
   * Global data: the ELF section this internal map stands for (".data",
   * ".bss", ".rodata", ".rodata.str1.1", ".kconfig"); max_entries is 1 and
   * the value is the section's bytes.
   */
  internal?: string;
  /** Map-in-map (array_of_maps / hash_of_maps): index of the inner map's template in maps. */
  inner_map?: number;
  /** prog_array: the initial slots user space fills, slot index -> index into ProgramSpec.programs. */
  prog_slots?: { slot: number; prog: number }[];
}

export interface MapReloc {
  /** Slot index of the lddw whose imm refers to the map. */
  insn: number;
  /** Index into maps. */
  map: number;
  /**
   * "fd" (default): BPF_PSEUDO_MAP_FD, the map itself. "value":
   * BPF_PSEUDO_MAP_VALUE, the address of byte `offset` of the map's value 0
   * (global data, as libbpf relocates .data/.bss/.rodata); the oracle takes
   * the same shape.
   */
  kind?: 'fd' | 'value';
  offset?: number;
}

/** For each instruction slot, the C span it came from (compiler output). */
/** A kfunc call: slot and name. */
export interface KfuncReloc {
  insn: number;
  name: string;
}

export interface LineInfo {
  insn: number;
  file?: string;
  line: number;
  col: number;
  endLine?: number;
  endCol?: number;
}

export interface ProgramSpec {
  prog_type: 'xdp';
  insns: string;
  maps?: MapSpec[];
  map_relocs?: MapReloc[];
  line_info?: LineInfo[];
  /** Types for pretty printing (compiler-defined shape). */
  btf?: unknown;
  /** The C source, when compiled from C. */
  source?: string;
  /** Function boundaries (compiler output): name and first slot. */
  funcs?: { name: string; insn: number }[];
  /** kfunc calls (BPF_PSEUDO_KFUNC_CALL): the slot and the kernel function it names (libbpf resolves its BTF id). */
  kfunc_relocs?: KfuncReloc[];
  /** The ELF section of the entry program ("xdp", "xdp.frags", ...). */
  section?: string;
  /**
   * The other programs of the same object file (tail-call targets): each is
   * a complete program over the SAME maps array (map indices are shared),
   * with its own insns, map_relocs and line_info. PROG_ARRAY slots refer
   * to them by index (MapSpec.prog_slots).
   */
  programs?: { name: string; section?: string; insns: string; map_relocs?: MapReloc[]; line_info?: LineInfo[]; funcs?: { name: string; insn: number }[] }[];
}

export interface ParsedSpec {
  spec: ProgramSpec;
  insns: Insn[];
}

/**
 * Check a spec from untrusted JSON. Returns the decoded slots, or one line
 * naming the first problem (never throws).
 */
export function parseSpec(json: unknown): ParsedSpec | { error: string } {
  if (typeof json !== 'object' || json === null || Array.isArray(json)) return { error: 'spec must be a JSON object' };
  const o = json as Record<string, unknown>;
  if (o.prog_type !== undefined && o.prog_type !== 'xdp') return { error: `unsupported prog_type ${JSON.stringify(o.prog_type)} (only "xdp")` };
  if (typeof o.insns !== 'string') return { error: 'spec.insns must be a hex string' };
  const bytes = hexToBytes(o.insns);
  if (typeof bytes === 'string') return { error: `spec.insns: ${bytes}` };
  if (bytes.length === 0) return { error: 'spec.insns is empty' };
  const dec = decodeProgram(bytes);
  if (dec.error) return { error: `spec.insns: ${dec.error}` };
  const maps: MapSpec[] = [];
  if (o.maps !== undefined) {
    if (!Array.isArray(o.maps)) return { error: 'spec.maps must be a list' };
    for (const [i, m] of (o.maps as unknown[]).entries()) {
      if (typeof m !== 'object' || m === null) return { error: `spec.maps[${i}] must be an object` };
      const mm = m as Record<string, unknown>;
      if (typeof mm.type !== 'string' || !(mm.type in MAP_TYPES)) {
        return { error: `spec.maps[${i}]: unknown map type ${JSON.stringify(mm.type)} (known: ${Object.keys(MAP_TYPES).join(', ')})` };
      }
      for (const f of ['key_size', 'value_size', 'max_entries'] as const) {
        const v = mm[f];
        if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v > 0x7fffffff) {
          return { error: `spec.maps[${i}].${f} must be a non-negative integer` };
        }
      }
      if (mm.map_extra !== undefined && (typeof mm.map_extra !== 'number' || !Number.isSafeInteger(mm.map_extra) || mm.map_extra < 0)) {
        return { error: `spec.maps[${i}].map_extra must be a non-negative integer` };
      }
      maps.push(mm as unknown as MapSpec);
    }
    // A map-in-map is created from its inner map's template (BPF_MAP_CREATE's inner_map_fd; EBADF without one):
    // the verifier types the outer lookup's result by it.
    for (const [i, m] of maps.entries()) {
      const outer = isMapInMap(m.type);
      if (m.inner_map === undefined ? outer : !outer || !Number.isInteger(m.inner_map) || m.inner_map < 0 || m.inner_map >= maps.length || m.inner_map === i) {
        return { error: `spec.maps[${i}].inner_map: ${outer ? 'an array_of_maps or hash_of_maps needs the index of its inner map\'s template' : 'only an array_of_maps or hash_of_maps has one'}` };
      }
    }
  }
  const relocs: MapReloc[] = [];
  if (o.map_relocs !== undefined) {
    if (!Array.isArray(o.map_relocs)) return { error: 'spec.map_relocs must be a list' };
    for (const [i, r] of (o.map_relocs as unknown[]).entries()) {
      const rr = r as Record<string, unknown> | null;
      if (!rr || typeof rr.insn !== 'number' || typeof rr.map !== 'number') return { error: `spec.map_relocs[${i}] must be {insn, map}` };
      if (rr.map < 0 || rr.map >= maps.length) return { error: `spec.map_relocs[${i}]: map ${rr.map} does not exist` };
      if (dec.insns[rr.insn]?.code !== 0x18) return { error: `spec.map_relocs[${i}]: slot ${rr.insn} is not an lddw` };
      if (rr.kind !== undefined && rr.kind !== 'fd' && rr.kind !== 'value') return { error: `spec.map_relocs[${i}].kind must be "fd" or "value"` };
      if (rr.offset !== undefined && (typeof rr.offset !== 'number' || !Number.isInteger(rr.offset) || rr.offset < 0)) return { error: `spec.map_relocs[${i}].offset must be a non-negative integer` };
      relocs.push({ insn: rr.insn, map: rr.map, ...(rr.kind === 'value' ? { kind: 'value' as const, offset: (rr.offset as number | undefined) ?? 0 } : {}) });
    }
  }
  return { spec: { ...(o as unknown as ProgramSpec), prog_type: 'xdp', maps, map_relocs: relocs }, insns: dec.insns };
}

/**
 * The instructions as the kernel receives them after the loader's
 * relocation (libbpf, bpf-oracle): each relocated lddw carries its pseudo
 * kind in src_reg (BPF_PSEUDO_MAP_FD, or BPF_PSEUDO_MAP_VALUE with the
 * offset in the second slot's imm), whatever those fields held before. The
 * verifier and the VM both start from this (a copy only when something changes).
 */
export function relocatedInsns(parsed: ParsedSpec): Insn[] {
  let insns = parsed.insns;
  for (const r of parsed.spec.map_relocs ?? []) {
    const first = insns[r.insn];
    const second = insns[r.insn + 1];
    if (!first || !second) continue;
    const src = r.kind === 'value' ? BPF_PSEUDO_MAP_VALUE : BPF_PSEUDO_MAP_FD;
    const off = r.kind === 'value' ? (r.offset ?? 0) : second.imm;
    if (first.src === src && second.imm === off && (first.imm2 === undefined || first.imm2 === off)) continue;
    if (insns === parsed.insns) insns = insns.slice();
    insns[r.insn] = { ...first, src, ...(first.imm2 !== undefined ? { imm2: off } : {}) };
    insns[r.insn + 1] = { ...second, imm: off };
  }
  return insns;
}
