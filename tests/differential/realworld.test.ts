/**
 * Real XDP programs, unchanged (../shared/realworld-dev, read in place; the
 * programs written here in other projects' style, tests/realworld-extra; the
 * XDP programs of the kernel's BPF selftests, from the linux-source
 * scripts/fetch-selftests.sh unpacks, tests/realworld-selftests): for each
 * program of the manifest,
 *  - XDP Lab compiles it with the Makefile's flags (+ -I/usr/include/x86_64-linux-gnu);
 *  - clang-19 -O2 -g -target bpf builds it too; where the kernel oracle can
 *    load clang's object, the kernel accepts ours exactly when it accepts
 *    clang's, both give the same return value, packet bytes and maps on
 *    every packet of cc-packets (plus realworldPackets), and our VM running
 *    clang's bytecode gives what the kernel gives;
 *  - where the oracle cannot load it (global data, perf event arrays,
 *    map-in-map, kfuncs), our VM on clang's bytecode and our VM on ours give
 *    the same results.
 * A table of every program is printed; the test asserts all of them pass.
 * Without the kernel oracle (`bpf-oracle --probe` fails) the suite is
 * skipped with the loud KERNEL ORACLE UNAVAILABLE banner, as every
 * differential test is.
 *
 * Two kinds of bytes are not the program's to decide, and only those are
 * masked: what bpf_ktime_get_ns (and its kin) returned, which differs run to
 * run in the kernel and between the kernel and the VM, and BTF type ids
 * (`bpf_core_type_id_local`), which are numbered by each compiler's own BTF.
 * Which bytes those are is measured, never listed: our build runs twice in
 * our VM, once with a clock starting at 0x01020304050607 and type ids from 1,
 * once with a clock at 0x1ffdfcfbfaf9f8 and type ids from 0xa5a5a5a5 (every
 * byte of either differs); the packet and map bytes that change between the
 * two runs are derived from them and are left out of every comparison. The
 * table's "mask" column counts them.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { parseSpec, type MapSpec, type ParsedSpec, type ProgramSpec } from '../../src/isa';
import { verify } from '../../src/verifier';
import { buildClang, buildOurs, possibleCpus, readManifest, slots, type RealworldProgram } from '../../src/cli/realworld';
import { clangAvailable } from '../../src/cli/clang';
import { createVm, testRunFrame } from '../../src/vm';
import { helperNotOffered, Oracle, oracleAvailable, oracleFib, warnHelperNotOffered, type OracleResult } from './oracle';
import { packetSet, realworldPackets, toHex } from './cc-packets';
import { realworldSuites } from './realworld-suites';

interface RunOut { retval: number; data: string; fault?: string; error?: string }
/** A map's entries: key hex → value hex (per-CPU values joined with '|'). */
type Entries = Map<string, string>;
interface Outcome { accepted?: boolean; log?: string; runs: RunOut[]; maps: Record<string, { type: string; entries: Entries }> }
/** Bytes left out of the comparison: per packet, byte indexes of the output; per map and key, byte indexes of the value. */
interface Mask { data: Set<number>[]; maps: Map<string, Map<string, Set<number>>>; count: number }
const NO_MASK: Mask = { data: [], maps: new Map(), count: 0 };

const ARRAY_LIKE = new Set(['array', 'percpu_array', 'devmap', 'cpumap', 'xskmap', 'prog_array']);

/** The maps worth comparing, by name: user maps, and writable global data (.data, .bss). */
function mapKey(m: MapSpec): string | undefined {
  if (m.internal) return m.internal.startsWith('.rodata') ? undefined : m.internal;
  if (m.type === 'perf_event_array' || m.type === 'ringbuf') return undefined;
  return m.name;
}

function mapsOf(spec: ProgramSpec, dumps: { type: string; entries: { key: string; value: string | string[] }[] }[] | undefined): Outcome['maps'] {
  const out: Outcome['maps'] = {};
  (spec.maps ?? []).forEach((m, i) => {
    const k = mapKey(m);
    const d = dumps?.[i];
    if (k !== undefined && d) out[k] = { type: m.type, entries: new Map(d.entries.map((e) => [e.key, Array.isArray(e.value) ? e.value.join('|') : e.value])) };
  });
  return out;
}

/** Hex with the masked bytes replaced by '??' ('|' separators of per-CPU values kept, each CPU's value masked alike). */
function maskHex(hex: string, mask: Set<number> | undefined): string {
  if (!mask || mask.size === 0) return hex;
  return hex.split('|').map((v) => v.replace(/../g, (b, off: number) => (mask.has(off / 2) ? '??' : b))).join('|');
}

/** A map's entries as compared: masked, sorted by key, an array's all-zero slots dropped (the VM lists non-zero ones only). */
function normMap(m: { type: string; entries: Entries }, mask: Map<string, Set<number>> | undefined): string {
  const kept = [...m.entries].map(([k, v]) => [k, maskHex(v, mask?.get(k))] as const).filter(([, v]) => !(ARRAY_LIKE.has(m.type) && /^[0|]*$/.test(v)));
  return JSON.stringify(kept.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)));
}

function fromKernel(spec: ProgramSpec, r: OracleResult): Outcome {
  return { accepted: r.accepted, log: r.verifier_log, runs: (r.runs ?? []).map((x) => (x.error ? { retval: x.retval, data: x.data_out, error: x.error } : { retval: x.retval, data: x.data_out })), maps: mapsOf(spec, r.maps) };
}

/** The VM's clocks for the two measuring runs (every byte differs; both below 2^53). */
const CLOCK_A = 0x01020304050607;
const CLOCK_B = 0x1ffdfcfbfaf9f8;
const BTF_BASE_B = 0xa5a5a5a5;

function inVm(spec: ProgramSpec, packets: string[], nCpus: number, clock = CLOCK_A): Outcome | { error: string } {
  const parsed = parseSpec(JSON.parse(JSON.stringify(spec)));
  if ('error' in parsed) return { error: parsed.error };
  let t = clock;
  const vm = createVm(parsed, { nCpus, env: { ktimeNs: () => (t += 1000) }, fib: oracleFib() });
  if ('error' in vm) return { error: vm.error };
  const runs = packets.map((hex) => {
    const frame = testRunFrame(Uint8Array.from(Buffer.from(hex, 'hex')));
    const r = vm.runXdp(frame);
    const out: RunOut = { retval: r.retval, data: Buffer.from(frame.buf.subarray(Math.min(r.dataMeta, r.data), r.dataEnd)).toString('hex') };
    if (r.fault) out.fault = r.fault.message;
    return out;
  });
  return { runs, maps: mapsOf(spec, vm.maps.map((m) => m.dump())) };
}

/** Byte indexes where two hex strings differ (over the shorter one's length). */
function diffBytes(a: string, b: string): Set<number> {
  const out = new Set<number>();
  for (let i = 0; i < Math.min(a.length, b.length) / 2; i++) if (a.slice(2 * i, 2 * i + 2) !== b.slice(2 * i, 2 * i + 2)) out.add(i);
  return out;
}

/** The bytes derived from the clock and from BTF type ids, measured on our build (see the header). */
function measureMask(p: RealworldProgram, dir: string, spec: ProgramSpec, packets: string[], nCpus: number): Mask | { error: string } {
  const b = buildOurs(p, dir, { btfTypeIdBase: BTF_BASE_B });
  if (!b.spec) return { error: 'our build with other BTF type ids failed' };
  const ra = inVm(spec, packets, nCpus, CLOCK_A), rb = inVm(b.spec, packets, nCpus, CLOCK_B);
  if ('error' in ra) return ra;
  if ('error' in rb) return rb;
  const mask: Mask = { data: [], maps: new Map(), count: 0 };
  ra.runs.forEach((x, i) => {
    const d = diffBytes(x.data, rb.runs[i]?.data ?? '');
    mask.data[i] = d;
    mask.count += d.size;
  });
  for (const [name, m] of Object.entries(ra.maps)) {
    const other = rb.maps[name];
    if (!other) continue;
    const per = new Map<string, Set<number>>();
    for (const [k, v] of m.entries) {
      const w = other.entries.get(k);
      if (w === undefined) continue;
      const d = new Set<number>();
      v.split('|').forEach((cpu, c) => diffBytes(cpu, w.split('|')[c] ?? '').forEach((x) => d.add(x)));
      if (d.size) { per.set(k, d); mask.count += d.size; }
    }
    if (per.size) mask.maps.set(name, per);
  }
  return mask;
}

/** The first difference between two outcomes, in words; '' when they agree. */
function differ(a: Outcome, b: Outcome, what: string, names: string[], mask: Mask): string {
  for (let i = 0; i < Math.max(a.runs.length, b.runs.length); i++) {
    const x = a.runs[i], y = b.runs[i];
    if (!x || !y) return `${what}: no run for packet ${names[i]} in the ${x ? 'second' : 'first'}`;
    if (x.fault || y.fault) return `${what}: packet ${names[i]}: fault ${x.fault ?? y.fault}`;
    if (x.error || y.error) return `${what}: packet ${names[i]}: test run error ${x.error ?? y.error}`;
    if (x.retval !== y.retval) return `${what}: packet ${names[i]}: retval ${x.retval} vs ${y.retval}`;
    if (maskHex(x.data, mask.data[i]) !== maskHex(y.data, mask.data[i])) {
      const d = [...diffBytes(x.data, y.data)].filter((j) => !mask.data[i]?.has(j));
      return `${what}: packet ${names[i]}: packet bytes differ${x.data.length !== y.data.length ? ` (length ${x.data.length / 2} vs ${y.data.length / 2})` : ` at ${d.slice(0, 8).join(',')}`}`;
    }
  }
  for (const k of new Set([...Object.keys(a.maps), ...Object.keys(b.maps)])) {
    const x = a.maps[k], y = b.maps[k];
    // Global data only one build keeps (a variable never written may fold to a constant) is not an observable map.
    if ((x === undefined || y === undefined) && k.startsWith('.')) continue;
    if (x === undefined || y === undefined) return `${what}: map ${k} only in ${x === undefined ? 'the second' : 'the first'}`;
    if (normMap(x, mask.maps.get(k)) !== normMap(y, mask.maps.get(k))) return `${what}: map ${k} differs`;
  }
  return '';
}

/**
 * Rows that do not pass yet, each with the failure it must still show (a
 * different failure, or a pass, fails the test: the list can only shrink).
 * Printed as KNOWN GAP, loudly, never counted as passing.
 */
const KNOWN_GAPS: Record<string, { cause: RegExp; why: string }> = {};

interface Row { file: string; ours: string; clang: string; ratio: string; mode: string; verdict: string; mask: string; status: string; why: string }

const oracle = oracleAvailable();
// The selftests' sources are fetched only where the suites run (a missing folder then fails its suite).
const { suites, fetchFailed } = realworldSuites(oracle.ok);
if (fetchFailed) console.error(fetchFailed);

for (const { label, dir, manifest: manifestFile } of suites) describe.skipIf(!oracle.ok)(`real XDP programs, unchanged (${label}): XDP Lab vs clang-19 in the kernel and the VM`, () => {
  const rows: Row[] = [];
  const o = oracle.ok ? new Oracle() : undefined;
  // BPF_PROG_TEST_RUN refuses frames shorter than an Ethernet header (EINVAL): those are not runs to compare.
  const packets = [...packetSet(), ...realworldPackets()].filter((p) => p.bytes.length >= 14);
  const hex = packets.map((p) => toHex(p.bytes));
  const names = packets.map((p) => p.name);
  const nCpus = possibleCpus();
  let manifest: RealworldProgram[] = [];
  try {
    manifest = readManifest(dir, manifestFile);
  } catch (e) {
    it('reads the folder', () => {
      throw new Error(`cannot read ${manifestFile ?? `${dir}/manifest.json`}: ${(e as Error).message}`);
    });
  }

  afterAll(() => {
    o?.close();
    const w = Math.max(8, ...rows.map((r) => r.file.length));
    const head = `${'program'.padEnd(w)}  ours  clang  ratio  mode    verdict  mask  status  why`;
    const lines = rows.map((r) => `${r.file.padEnd(w)}  ${r.ours.padStart(4)}  ${r.clang.padStart(5)}  ${r.ratio.padStart(5)}  ${r.mode.padEnd(6)}  ${r.verdict.padEnd(7)}  ${r.mask.padStart(4)}  ${r.status.padEnd(6)}  ${r.why}`);
    const pass = rows.filter((r) => r.status === 'PASS').length;
    const gaps = rows.filter((r) => r.status === 'GAP');
    const gapText = gaps.length ? `\n*** ${gaps.length} KNOWN GAP${gaps.length > 1 ? 'S' : ''} (NOT passing): ${gaps.map((r) => `${r.file}: ${KNOWN_GAPS[r.file]!.why}`).join('; ')} ***` : '';
    console.log(`\n${label} (${packets.length} packets)\n${head}\n${lines.join('\n')}\n${pass}/${rows.length} programs pass${gapText}\n`);
  });

  it('has clang-19', () => {
    expect(clangAvailable()).toBe(true);
  });

  for (const p of manifest) {
    it(p.file, async () => {
      const row: Row = { file: p.file, ours: '-', clang: '-', ratio: '-', mode: '-', verdict: '-', mask: '-', status: 'FAIL', why: '' };
      rows.push(row);
      const gap = KNOWN_GAPS[p.file];
      const fail = (why: string): never => {
        row.why = why;
        if (gap && gap.cause.test(why)) {
          row.status = 'GAP';
          console.warn(`\n*** KNOWN GAP, NOT PASSING: ${p.file}: ${why} (${gap.why}) ***\n`);
          throw new KnownGap();
        }
        throw new Error(`${p.file}: ${why}`);
      };
      try {
        await compare(row, fail);
      } catch (e) {
        if (!(e instanceof KnownGap)) throw e;
        return;
      }
      if (gap) throw new Error(`${p.file} passes now: remove it from KNOWN_GAPS`);
    });
  }

  async function compare(row: Row, fail: (why: string) => never): Promise<void> {
    const p = manifest.find((m) => m.file === row.file)!;
    const countDiffs: string[] = [];
    {
      const ours = buildOurs(p, dir);
      const clang = buildClang(p, dir);
      if (clang.spec) row.clang = String(slots(clang.spec));
      if (ours.spec) row.ours = String(slots(ours.spec));
      if (ours.spec && clang.spec) row.ratio = (slots(ours.spec) / slots(clang.spec)).toFixed(2);
      if (!clang.spec) fail(`clang: ${clang.error}`);
      if (!ours.spec) {
        const e = ours.diagnostics.find((d) => d.severity === 'error');
        fail(`compile: ${e ? `${e.span.file}:${e.span.line}: ${e.message}` : 'failed'}`);
      }
      const a = ours.spec!, b = clang.spec!;
      if (clang.unsupported.length > 0 && p.kernel_with_clang === 'rejected') {
        // The oracle cannot load it (kfuncs: no BTF), and the kernel refuses it as libbpf loads it: so must our
        // verifier, both builds, with the kernel's message where the manifest records it.
        for (const [who, s] of [['ours', a], ['clang\'s', b]] as const) {
          const parsed = parseSpec(JSON.parse(JSON.stringify(s)));
          if ('error' in parsed) fail(`${who}: ${parsed.error}`);
          const v = verify(parsed as ParsedSpec, { states: false });
          if (v.accepted) fail(`our verifier accepts ${who} build, the kernel refuses clang's${p.kernel_error ? `: ${p.kernel_error}` : ''}`);
          if (p.kernel_error !== undefined && v.error !== p.kernel_error) fail(`our verifier refuses ${who} build with '${v.error}', the kernel with '${p.kernel_error}'`);
        }
        row.mode = 'ours';
        row.verdict = 'REJ/REJ';
        row.status = 'PASS';
        return;
      }
      // The oracle cannot load these (kfuncs, callbacks: it passes no BTF), and the kernel accepts
      // them as their projects ship them: our verifier stands in and must accept both builds.
      if (p.kernel_with_clang === 'oracle-cannot-load') ourVerifierAccepts(a, b, fail);
      const m = measureMask(p, dir, a, hex, nCpus);
      const mask = 'error' in m ? NO_MASK : m;
      row.mask = String(mask.count);
      if (clang.unsupported.length === 0 && o) {
        row.mode = 'kernel';
        const ask = (s: ProgramSpec) => o.ask({ insns: s.insns, maps: s.maps as never, map_relocs: s.map_relocs as never, runs: hex.map((data) => ({ data })), dump_maps: true, log_level: 1 });
        const ra = await ask(a);
        const rb = await ask(b);
        const ka = fromKernel(a, ra);
        const kb = fromKernel(b, rb);
        // Our verifier walks as many instructions as the kernel's on each build it accepts (the same pruning,
        // precision and stack liveness): checked last, so a known gap here leaves the other checks in force.
        for (const [who, s, r] of [['ours', a, ra], ['clang\'s', b, rb]] as const) {
          if (!r.accepted) continue;
          const parsed = parseSpec(JSON.parse(JSON.stringify(s)));
          if ('error' in parsed) continue;
          const v = verify(parsed as ParsedSpec, { states: false });
          if (v.accepted && v.insnsProcessed !== r.insns_processed) countDiffs.push(`${who} build: ours ${v.insnsProcessed}, kernel ${r.insns_processed}`);
        }
        row.verdict = `${ka.accepted ? 'acc' : 'REJ'}/${kb.accepted ? 'acc' : 'REJ'}`;
        const absent = p.kernel_with_clang === 'accepted' && !kb.accepted ? helperNotOffered(kb.log) : undefined;
        if (absent) {
          // This machine's kernel build leaves a helper out of XDP that the manifest's kernel offers (this
          // sandbox's kernel refuses bpf_xdp_adjust_meta): it cannot judge this program here. The manifest's
          // verdict stands; our verifier must accept both builds and our VM run both alike, as without the oracle.
          warnHelperNotOffered(p.file, absent, "the manifest's kernel accepted clang's build: judged by the manifest, our verifier and the VM, not the kernel");
          row.why = `kernel here lacks ${absent}`;
          ourVerifierAccepts(a, b, fail);
          vmOnly(a, b, m, row, fail);
          return;
        }
        if (p.kernel_with_clang !== 'oracle-cannot-load' && kb.accepted !== (p.kernel_with_clang === 'accepted')) fail(`the kernel ${kb.accepted ? 'accepts' : 'rejects'} clang's build, the manifest says ${p.kernel_with_clang}`);
        if (ka.accepted !== kb.accepted) fail(`kernel: ours ${ka.accepted ? 'accepted' : `rejected: ${ka.log?.trim().split('\n').slice(-2).join(' | ')}`}, clang's ${kb.accepted ? 'accepted' : 'rejected'}`);
        if (kb.accepted) {
          if ('error' in m) fail(`measuring the clock's and BTF ids' bytes: ${m.error}`);
          const d1 = differ(ka, kb, 'kernel ours vs clang', names, mask);
          if (d1) fail(d1);
          const vb = inVm(b, hex, nCpus);
          if ('error' in vb) fail(`VM on clang's bytecode: ${vb.error}`);
          const d2 = differ(vb as Outcome, kb, 'VM vs kernel on clang\'s bytecode', names, mask);
          if (d2) fail(d2);
        }
        if (countDiffs.length) fail(`processed insns differ: ${countDiffs.join('; ')}`);
      } else {
        row.verdict = clang.unsupported.join(', ').slice(0, 7);
        vmOnly(a, b, m, row, fail);
        return;
      }
      row.status = 'PASS';
    }
  }

  /** Without the kernel as the judge: our VM on our build and on clang's give the same results. */
  function vmOnly(a: ProgramSpec, b: ProgramSpec, m: ReturnType<typeof measureMask>, row: Row, fail: (why: string) => never): void {
    row.mode = 'vm';
    if ('error' in m) fail(`measuring the clock's and BTF ids' bytes: ${m.error}`);
    const mask = 'error' in m ? NO_MASK : m;
    const va = inVm(a, hex, nCpus), vb = inVm(b, hex, nCpus);
    if ('error' in va) fail(`VM on ours: ${va.error}`);
    if ('error' in vb) fail(`VM on clang's: ${vb.error}`);
    const d = differ(va as Outcome, vb as Outcome, 'VM ours vs VM clang', names, mask);
    if (d) fail(d);
    row.status = 'PASS';
  }

  /** The manifest's kernel accepted clang's build: our verifier must accept both builds. */
  function ourVerifierAccepts(a: ProgramSpec, b: ProgramSpec, fail: (why: string) => never): void {
    for (const [who, s] of [['ours', a], ['clang\'s', b]] as const) {
      const parsed = parseSpec(JSON.parse(JSON.stringify(s)));
      if ('error' in parsed) fail(`${who}: ${parsed.error}`);
      const v = verify(parsed as ParsedSpec, { states: false });
      if (!v.accepted) fail(`our verifier refuses ${who} build: ${v.error}`);
    }
  }
});

/** Thrown by a known gap's expected failure: reported loudly, not a pass. */
class KnownGap extends Error {}
