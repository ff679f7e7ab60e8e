/**
 * The kernel's own verifier selftests as XDP Lab test cases, built by
 * scripts/fetch-selftests.sh into .cache/selftests/ (git-ignored):
 *
 * - tables.jsonl: test_verifier's `struct bpf_test` tables
 *   (tools/testing/selftests/bpf/verifier/*.c), one case a line, with the map
 *   fixups test_verifier applies; each fixup becomes the same map here.
 * - obj/verifier_*.o: progs/verifier_*.c built by clang-19; every program
 *   (each global function of an executable section) is a case, linked as
 *   libbpf links it: the .text subprograms it calls appended depth first,
 *   calls and callback addresses fixed, maps from .maps, global data
 *   (.data/.bss/.rodata) as array maps with value relocations.
 *
 * Every case is loaded as XDP: the running kernel decides the verdict (not
 * the selftest's own annotation). A case that needs what the oracle cannot
 * create (kfuncs, BTF, map types it lacks) is listed with the reason.
 *
 * The kernel's answers are cached in verifier-selftests.kernel.json (keyed by
 * the case's bytes, for one kernel version), so the comparison runs without
 * the kernel and the kernel is asked only about new cases.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { readDeclTags, readElf, readMaps, type ElfSym } from '../../src/cli/bpf_elf';
import { isMapInMap, type MapReloc, type MapSpec, type ProgramSpec } from '../../src/isa/spec';
import { kernelFirstErrorLine, normalizeErrorLine } from '../cases/verifier/load';

const here = path.dirname(fileURLToPath(import.meta.url));
export const REPO = path.resolve(here, '../..');
export const SELFTESTS_DIR = process.env.XDP_LAB_SELFTESTS_DIR ?? path.join(REPO, '.cache/selftests');
export const CACHE_PATH = path.join(here, 'verifier-selftests.kernel.json');

export interface SelftestCase {
  /** "verifier/<descr>" for a table case, "<object>/<function>" for a program. */
  name: string;
  spec: ProgramSpec;
}

export interface Unsupported {
  name: string;
  why: string;
}

/** test_verifier's maps, as its do_test_fixup creates them (type, key, value, entries, flags). */
const FIXUP_MAPS: Record<string, MapSpec> = {
  map_hash_8b: { type: 'hash', key_size: 8, value_size: 8, max_entries: 1, flags: 1 },
  map_hash_48b: { type: 'hash', key_size: 8, value_size: 48, max_entries: 1, flags: 1 },
  map_hash_16b: { type: 'hash', key_size: 8, value_size: 16, max_entries: 1, flags: 1 },
  map_array_48b: { type: 'array', key_size: 4, value_size: 48, max_entries: 1 },
  map_xskmap: { type: 'xskmap', key_size: 4, value_size: 4, max_entries: 1 },
  prog1: { type: 'prog_array', key_size: 4, value_size: 4, max_entries: 4 },
  prog2: { type: 'prog_array', key_size: 4, value_size: 4, max_entries: 8 },
  map_array_ro: { type: 'array', key_size: 4, value_size: 48, max_entries: 1, flags: 0x80 },
  map_array_wo: { type: 'array', key_size: 4, value_size: 48, max_entries: 1, flags: 0x100 },
  map_array_small: { type: 'array', key_size: 4, value_size: 1, max_entries: 1 },
  map_event_output: { type: 'perf_event_array', key_size: 4, value_size: 4, max_entries: 1 },
  map_ringbuf: { type: 'ringbuf', key_size: 0, value_size: 0, max_entries: 4096 },
};

/** Map types the oracle cannot create (bpf-oracle --help lists what it can). */
const ORACLE_MAP_TYPES = new Set(['array', 'percpu_array', 'hash', 'percpu_hash', 'lru_hash', 'lru_percpu_hash', 'lpm_trie', 'devmap', 'devmap_hash', 'cpumap', 'xskmap', 'prog_array', 'perf_event_array', 'ringbuf']);

interface TableLine {
  descr: string;
  prog_type: number;
  fill: number;
  func_info_cnt: number;
  btf_types: number;
  kfunc: string;
  fixups: Record<string, number[]>;
  insns: string;
}

function tableCases(file: string, out: SelftestCase[], unsupported: Unsupported[]): void {
  const seen = new Map<string, number>();
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (!line) continue;
    const t = JSON.parse(line) as TableLine;
    const n = (seen.get(t.descr) ?? 0) + 1;
    seen.set(t.descr, n);
    const name = `verifier/${t.descr}${n > 1 ? ` #${n}` : ''}`;
    const why: string[] = [];
    if (t.kfunc || t.fixups.kfunc_btf_id) why.push('kfunc (needs a BTF id)');
    if (t.func_info_cnt) why.push('func_info (needs BTF)');
    if (t.btf_types) why.push('its own BTF');
    const maps: MapSpec[] = [];
    const relocs: MapReloc[] = [];
    const bytes = Buffer.from(t.insns, 'hex');
    for (const [kind, slots] of Object.entries(t.fixups)) {
      if (kind === 'kfunc_btf_id') continue;
      const m = FIXUP_MAPS[kind];
      if (!m) {
        why.push(`map fixup ${kind} (the oracle cannot create it)`);
        continue;
      }
      const mi = maps.length;
      maps.push({ ...m });
      for (const s of slots) {
        if (bytes[s * 8] !== 0x18) {
          why.push(`fixup ${kind} on slot ${s}, not an lddw`);
          continue;
        }
        const src = bytes[s * 8 + 1]! >> 4;
        if (src === 2) relocs.push({ insn: s, map: mi, kind: 'value', offset: bytes.readInt32LE((s + 1) * 8 + 4) });
        else relocs.push({ insn: s, map: mi });
      }
    }
    if (why.length) {
      unsupported.push({ name, why: why.join('; ') });
      continue;
    }
    const spec: ProgramSpec = { prog_type: 'xdp', insns: t.insns };
    if (maps.length) {
      spec.maps = maps;
      spec.map_relocs = relocs;
    }
    out.push({ name, spec });
  }
}

const SHF_EXECINSTR = 4;
const SHT_REL = 9;
const STT_FUNC = 2;
const STT_SECTION = 3;
const STB_GLOBAL = 1;
const R_BPF_64_64 = 1;
const R_BPF_64_32 = 10;

interface Rel {
  off: number;
  sym: ElfSym;
  type: number;
}

class Unlinkable extends Error {}


/**
 * A selftest program the oracle cannot load (it uses a map-in-map), with
 * the verdict its source states for a privileged load (test_loader's
 * reading of bpf_misc.h: __success / __failure, each __msg a substring the
 * log must hold, in order; no tag means success).
 */
export interface AnnotatedCase extends SelftestCase {
  expect: { accepted: boolean; msgs: string[]; logLevel: number; flags: string[] };
}

/** The test_loader tags of one program ("comment:N:test_expect_msg=…"). */
function expectationOf(tags: string[]): AnnotatedCase['expect'] {
  const body = tags.map((t) => t.replace(/^comment:(\d+:)?/, ''));
  const value = (key: string): string[] => body.filter((b) => b.startsWith(`${key}=`)).map((b) => b.slice(key.length + 1));
  return {
    accepted: !body.includes('test_expect_failure'),
    msgs: value('test_expect_msg'),
    logLevel: Number(value('test_log_level')[0] ?? 0),
    flags: value('test_prog_flags'),
  };
}

/** Every program of one clang object, linked as libbpf would link it. */
function objectCases(file: string, out: SelftestCase[], unsupported: Unsupported[], annotated: AnnotatedCase[]): void {
  const obj = path.basename(file, '.o');
  const buf = new Uint8Array(readFileSync(file));
  const { sections, syms } = readElf(buf);
  // Section flags are not in readElf's view; read them from the header table.
  const dv0 = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  const shoff = Number(dv0.getBigUint64(0x28, true));
  const flagsOf = (i: number): number => Number(dv0.getBigUint64(shoff + i * 64 + 8, true));
  const badMaps = new Map<string, string>();
  const maps = readMaps(sections as never, syms, (name, type) => badMaps.set(name, `map ${name} of type ${type}`));
  for (const [name, m] of maps) {
    if (!ORACLE_MAP_TYPES.has(m.type)) badMaps.set(name, `map ${name} (${m.type})`);
  }
  const tags = readDeclTags(sections as never);
  let usesMapInMap = false;
  const textIdx = sections.findIndex((s) => s.name === '.text');
  const relsOf = new Map<number, Rel[]>();
  for (const s of sections) {
    if (s.type !== SHT_REL) continue;
    const dv = new DataView(s.data.buffer, s.data.byteOffset, s.data.byteLength);
    const list: Rel[] = [];
    for (let p = 0; p + 16 <= s.data.length; p += 16) {
      const info = dv.getBigUint64(p + 8, true);
      list.push({ off: Number(dv.getBigUint64(p, true)), sym: syms[Number(info >> 32n)]!, type: Number(info & 0xffffffffn) });
    }
    relsOf.set(s.info, list);
  }
  const textFuncs = syms.filter((s) => s.shndx === textIdx && s.type === STT_FUNC).sort((a, b) => a.value - b.value);

  for (let si = 0; si < sections.length; si++) {
    const sec = sections[si]!;
    if (si === textIdx || !(flagsOf(si) & SHF_EXECINSTR) || sec.size === 0) continue;
    const progs = syms.filter((s) => s.shndx === si && s.type === STT_FUNC && s.bind === STB_GLOBAL).sort((a, b) => a.value - b.value);
    for (const prog of progs) {
      const name = `${obj}/${prog.name}`;
      try {
        const spec = linkProgram(prog, si);
        // The oracle cannot load it: the kernel's verdict is the one the selftest states (bpf_misc.h's tags).
        if (usesMapInMap) annotated.push({ name, spec, expect: expectationOf(tags.get(prog.name) ?? []) });
        else out.push({ name, spec });
      } catch (e) {
        if (!(e instanceof Unlinkable)) throw e;
        unsupported.push({ name, why: e.message });
      }
    }
  }

  function linkProgram(prog: ElfSym, secIdx: number): ProgramSpec {
    usesMapInMap = false;
    const chunks: Uint8Array[] = [];
    let slots = 0;
    const specMaps: MapSpec[] = [];
    const mapIdx = new Map<string, number>();
    const relocs: MapReloc[] = [];
    const placed = new Map<ElfSym, number>();
    const fixes: ((all: DataView) => void)[] = [];

    const mapIndex = (key: string, make: () => MapSpec): number => {
      let mi = mapIdx.get(key);
      if (mi === undefined) {
        mi = specMaps.length;
        specMaps.push(make());
        mapIdx.set(key, mi);
      }
      return mi;
    };
    const textFuncAt = (slot: number): ElfSym => {
      const f = textFuncs.find((s) => s.value <= slot * 8 && slot * 8 < s.value + Math.max(s.size, 8));
      if (!f) throw new Unlinkable(`call into .text slot ${slot} outside any function`);
      return f;
    };

    const place = (fn: ElfSym, sIdx: number): void => {
      const base = slots;
      placed.set(fn, base);
      const sec = sections[sIdx]!;
      const code = sec.data.slice(fn.value, fn.value + fn.size);
      chunks.push(code);
      slots += code.length / 8;
      const cdv = new DataView(code.buffer, code.byteOffset, code.byteLength);
      for (const r of relsOf.get(sIdx) ?? []) {
        if (r.off < fn.value || r.off >= fn.value + fn.size) continue;
        const local = (r.off - fn.value) / 8;
        const idx = base + local;
        const p = local * 8;
        const symSec = r.sym.shndx;
        if (symSec === 0) throw new Unlinkable(`extern ${r.sym.name} (kfunc or ksym: needs BTF)`);
        if (r.type === R_BPF_64_32) {
          if (symSec !== textIdx) throw new Unlinkable(`call into section ${sections[symSec]?.name}`);
          const target = r.sym.value / 8 + cdv.getInt32(p + 4, true) + 1;
          const callee = textFuncAt(target);
          if (!placed.has(callee)) place(callee, textIdx);
          const at = placed.get(callee)! + (target - callee.value / 8);
          fixes.push((all) => all.setInt32(idx * 8 + 4, at - (idx + 1), true));
        } else if (r.type === R_BPF_64_64) {
          const target = sections[symSec]!;
          if (symSec === textIdx) {
            // ld_imm64 of a function (a callback for bpf_loop and friends): BPF_PSEUDO_FUNC.
            const tslot = (r.sym.value + cdv.getInt32(p + 4, true)) / 8;
            const callee = textFuncAt(tslot);
            if (!placed.has(callee)) place(callee, textIdx);
            const at = placed.get(callee)! + (tslot - callee.value / 8);
            fixes.push((all) => {
              all.setUint8(idx * 8 + 1, (all.getUint8(idx * 8 + 1) & 0x0f) | 0x40);
              all.setInt32(idx * 8 + 4, at - (idx + 1), true);
            });
          } else if (target.name === '.maps' || target.name === 'maps') {
            const m = maps.get(r.sym.name);
            const template = m && isMapInMap(m.type) ? maps.get(`${r.sym.name}.inner`) : undefined;
            const bad = badMaps.get(r.sym.name);
            // A map-in-map with a template XDP Lab can create: linked (its template after it) for the annotated half.
            if (bad && !(template && !badMaps.has(`${r.sym.name}.inner`))) throw new Unlinkable(`${bad}: the oracle cannot create it`);
            if (!m) throw new Unlinkable(`relocation to unknown map ${r.sym.name}`);
            if (template) usesMapInMap = true;
            const mi = mapIndex(r.sym.name, () => {
              // libbpf's defaults for what a BTF map definition may leave out.
              const mm = { ...m };
              if (['prog_array', 'array_of_maps', 'hash_of_maps', 'perf_event_array'].includes(mm.type)) {
                mm.key_size ||= 4;
                mm.value_size ||= 4;
              }
              return mm;
            });
            if (template) specMaps[mi]!.inner_map = mapIndex(`${r.sym.name}.inner`, () => ({ ...template }));
            fixes.push((all) => {
              all.setUint8(idx * 8 + 1, (all.getUint8(idx * 8 + 1) & 0x0f) | 0x10);
              all.setInt32(idx * 8 + 4, 0, true);
            });
            relocs.push({ insn: idx, map: mi });
          } else if (/^\.(data|bss|rodata)/.test(target.name)) {
            const addend = cdv.getInt32(p + 4, true);
            const offset = (r.sym.type === STT_SECTION ? 0 : r.sym.value) + addend;
            const mi = mapIndex(target.name, () => {
              const m: MapSpec = { type: 'array', key_size: 4, value_size: Math.max(target.size, 1), max_entries: 1, internal: target.name };
              if (target.name.startsWith('.rodata')) {
                m.freeze = true;
                m.flags = 0x80; // BPF_F_RDONLY_PROG, as libbpf creates .rodata
              }
              if (target.type !== 8 && target.size > 0) m.init = [{ key: '00000000', value: Buffer.from(target.data).toString('hex') }];
              return m;
            });
            fixes.push((all) => {
              all.setUint8(idx * 8 + 1, (all.getUint8(idx * 8 + 1) & 0x0f) | 0x20);
              all.setInt32(idx * 8 + 4, 0, true);
              all.setInt32(idx * 8 + 12, offset, true);
            });
            relocs.push({ insn: idx, map: mi, kind: 'value', offset });
          } else throw new Unlinkable(`relocation against section ${target.name}`);
        } else throw new Unlinkable(`relocation type ${r.type}`);
      }
    };

    place(prog, secIdx);
    const bytes = new Uint8Array(slots * 8);
    let o = 0;
    for (const c of chunks) {
      bytes.set(c, o);
      o += c.length;
    }
    const all = new DataView(bytes.buffer);
    for (const f of fixes) f(all);
    const spec: ProgramSpec = { prog_type: 'xdp', insns: Buffer.from(bytes).toString('hex') };
    if (specMaps.length) {
      spec.maps = specMaps;
      spec.map_relocs = relocs;
    }
    return spec;
  }
}

export interface SelftestSuite {
  version: string;
  cases: SelftestCase[];
  unsupported: Unsupported[];
  /** Programs the oracle cannot load (map-in-maps), with the verdicts their sources state. */
  annotated: AnnotatedCase[];
  /** verifier_*.c files clang could not build, with their first error. */
  unbuilt: Unsupported[];
}

export function selftestsReady(dir = SELFTESTS_DIR): boolean {
  return existsSync(path.join(dir, 'READY'));
}

/**
 * Fetch and build the selftests when they are not there yet (scripts/fetch-selftests.sh; it takes a lock, so
 * test files that start it at once wait for one another). Why it failed, or undefined.
 */
export function ensureSelftests(): string | undefined {
  if (selftestsReady()) return undefined;
  const r = spawnSync(path.join(REPO, 'scripts/fetch-selftests.sh'), [], { encoding: 'utf8', timeout: 15 * 60_000 });
  return r.status === 0 ? undefined : `scripts/fetch-selftests.sh failed (exit ${r.status}): ${(r.stderr || r.stdout).trim().split('\n').slice(-3).join(' / ')}`;
}

export function loadSelftests(dir = SELFTESTS_DIR): SelftestSuite {
  const version = readFileSync(path.join(dir, 'READY'), 'utf8').trim();
  const cases: SelftestCase[] = [];
  const unsupported: Unsupported[] = [];
  const unbuilt: Unsupported[] = [];
  const annotated: AnnotatedCase[] = [];
  tableCases(path.join(dir, 'tables.jsonl'), cases, unsupported);
  const objDir = path.join(dir, 'obj');
  for (const f of readdirSync(objDir).filter((n) => n.endsWith('.err')).sort()) {
    const o = path.join(objDir, f.replace(/\.err$/, '.o'));
    if (existsSync(o)) objectCases(o, cases, unsupported, annotated);
    else {
      const err = readFileSync(path.join(objDir, f), 'utf8').split('\n').find((l) => / error: /.test(l)) ?? 'did not build';
      unbuilt.push({ name: f.replace(/\.err$/, ''), why: err.replace(/^.*?error: /, '') });
    }
  }
  return { version, cases, unsupported, annotated, unbuilt };
}

/** What the kernel said about one case. */
export interface KernelVerdict {
  accepted: boolean;
  /** First error line, normalised; '' when accepted. */
  error: string;
  insnsProcessed: number | null;
}

/**
 * Per case digest: [1 accepted | 0 rejected | -1 the oracle could not load it,
 * first error line (or the oracle's reason), processed insns].
 */
export interface VerdictCache {
  kernel: string;
  verdicts: Record<string, [0 | 1 | -1, string, number | null]>;
}

export function caseDigest(spec: ProgramSpec): string {
  return createHash('sha256').update(JSON.stringify(spec)).digest('hex').slice(0, 24);
}

export function readVerdictCache(): VerdictCache {
  if (!existsSync(CACHE_PATH)) return { kernel: '', verdicts: {} };
  return JSON.parse(readFileSync(CACHE_PATH, 'utf8')) as VerdictCache;
}

export function writeVerdictCache(c: VerdictCache): void {
  const sorted: VerdictCache['verdicts'] = {};
  for (const k of Object.keys(c.verdicts).sort()) sorted[k] = c.verdicts[k]!;
  const lines = Object.entries(sorted).map(([k, v]) => `  ${JSON.stringify(k)}: ${JSON.stringify(v)}`);
  writeFileSync(CACHE_PATH, `{\n "kernel": ${JSON.stringify(c.kernel)},\n "verdicts": {\n${lines.join(',\n')}\n }\n}\n`);
}

export interface SuiteRow {
  name: string;
  kernel: KernelVerdict;
  ours: KernelVerdict;
}

export interface SuiteTable {
  cases: number;
  agree: number;
  unsound: SuiteRow[];
  overStrict: SuiteRow[];
  rejectedByBoth: number;
  firstLineEqual: number;
  firstLineDiffs: SuiteRow[];
  acceptedByBoth: number;
  insnCountEqual: number;
  insnCountDiffs: SuiteRow[];
}

export function tabulate(rows: SuiteRow[]): SuiteTable {
  const t: SuiteTable = { cases: rows.length, agree: 0, unsound: [], overStrict: [], rejectedByBoth: 0, firstLineEqual: 0, firstLineDiffs: [], acceptedByBoth: 0, insnCountEqual: 0, insnCountDiffs: [] };
  for (const r of rows) {
    if (r.kernel.accepted === r.ours.accepted) t.agree++;
    else if (r.ours.accepted) t.unsound.push(r);
    else t.overStrict.push(r);
    if (!r.kernel.accepted && !r.ours.accepted) {
      t.rejectedByBoth++;
      if (r.kernel.error === r.ours.error) t.firstLineEqual++;
      else t.firstLineDiffs.push(r);
    }
    if (r.kernel.accepted && r.ours.accepted) {
      t.acceptedByBoth++;
      if (r.kernel.insnsProcessed === r.ours.insnsProcessed) t.insnCountEqual++;
      else t.insnCountDiffs.push(r);
    }
  }
  return t;
}

const pct = (a: number, b: number): string => (b ? ((100 * a) / b).toFixed(1) : '100.0') + '%';

export function formatTable(s: SelftestSuite, t: SuiteTable, kernel: string): string {
  const rows = [
    ['cases', String(t.cases), `(+ ${s.unsupported.length} the oracle cannot create, ${s.unbuilt.length} files that do not build)`],
    ['agree', `${t.agree}/${t.cases}`, pct(t.agree, t.cases)],
    ['unsound', String(t.unsound.length), 'we accept, the kernel rejects'],
    ['over-strict', String(t.overStrict.length), 'we reject, the kernel accepts'],
    ['first line', `${t.firstLineEqual}/${t.rejectedByBoth}`, pct(t.firstLineEqual, t.rejectedByBoth) + ' of rejections'],
    ['insn count', `${t.insnCountEqual}/${t.acceptedByBoth}`, pct(t.insnCountEqual, t.acceptedByBoth) + ' of acceptances'],
  ];
  return `kernel verifier selftests (${s.version}) against kernel ${kernel}:\n` + rows.map(([a, b, c]) => `  ${a!.padEnd(12)} ${b!.padStart(10)}  ${c}`).join('\n') + '\n';
}

/** Minimal view of the oracle connection (tests/differential/oracle.ts). */
interface Asker {
  ask(spec: never): Promise<{ accepted: boolean; errno: number; error: string; verifier_log: string; insns_processed: number | null }>;
}

const ENOSPC = 28;

/**
 * The kernel's answer for one case, as a cache entry. A log that overflows
 * the oracle's 16 MB buffer fails the load with ENOSPC; the verdict and the
 * processed count then come from a load with only the statistics
 * (log_level 4), and the first line stays unknown ('').
 */
export async function askKernel(oracle: Asker, spec: ProgramSpec): Promise<VerdictCache['verdicts'][string]> {
  const k = await oracle.ask({ ...spec, log_level: 1 } as never);
  if (!k.accepted && k.verifier_log === '' && k.error.startsWith('oracle')) return [-1, k.error, null];
  if (!k.accepted && k.errno === ENOSPC) {
    const s = await oracle.ask({ ...spec, log_level: 4 } as never);
    return [s.accepted ? 1 : 0, '', s.insns_processed];
  }
  return [k.accepted ? 1 : 0, k.accepted ? '' : normalizeErrorLine(kernelFirstErrorLine(k.verifier_log)), k.insns_processed];
}

/** Our verifier's answer for one case, in the kernel's terms. */
export function ourVerdict(spec: ProgramSpec, verify: (spec: ProgramSpec) => { accepted: boolean; error?: string; insnsProcessed: number }): KernelVerdict {
  const v = verify(spec);
  return { accepted: v.accepted, error: v.accepted ? '' : normalizeErrorLine(v.error), insnsProcessed: v.insnsProcessed };
}
