/**
 * Grading: the learner's C goes through compile → verify (a refusal is a
 * failing grade, with the verifier's explanation) → load with the
 * exercise's map set-up → one BPF_PROG_TEST_RUN per hidden packet, in order,
 * in one program instance. Each packet gets a verdict that names it; bytes
 * are diffed field by field. Predict exercises compare the learner's number
 * with what the simulator measures. Pure and deterministic.
 */
import { createEngine, landedToolchain } from '../../engine';
import { explain } from '../../explain';
import { checkSource, recheckWith } from '../../explain/program';
import { createVm, testRunFrame, type XdpResult } from '../../vm';
import type { BpfMap } from '../../maps';
import { describePacket, fieldAt, hex } from './decode';
import { XDP_ACTION_NAMES, type ByteDiff, type Exercise, type GradeResult, type PacketCase, type PredictExercise, type ProgramExercise, type TestVerdict } from './types';

const actionName = (r: number) => XDP_ACTION_NAMES[r] ?? `action ${r}`;

export function gradeProgram(ex: ProgramExercise, source: string): GradeResult {
  const c = checkSource(source);
  if ('error' in c) return { id: ex.id, pass: false, stage: 'compile', error: c.error, tests: [] };
  if (!c.result.accepted) {
    const explanation = explain(c, { recheck: recheckWith() });
    return { id: ex.id, pass: false, stage: 'verify', error: `the verifier refused the program: ${c.result.error ?? 'rejected'}`, explanation, tests: [] };
  }
  const vm = createVm(c.parsed, { nCpus: 1 });
  if ('error' in vm) return { id: ex.id, pass: false, stage: 'load', error: vm.error, tests: [] };
  const mapNames = (c.parsed.spec.maps ?? []).map((m, i) => m.name ?? `map${i}`);
  const mapByName = (name: string): BpfMap | undefined => vm.maps[mapNames.indexOf(name)];
  for (const e of ex.setup ?? []) {
    const m = mapByName(e.map);
    if (!m) return { id: ex.id, pass: false, stage: 'load', error: `the program has no map called "${e.map}" (the tests fill it in)`, tests: [] };
    const rc = m.userUpdate(e.key, e.value);
    if (rc !== 0) return { id: ex.id, pass: false, stage: 'load', error: `map "${e.map}": user space could not insert key ${hex(e.key)} (errno ${-rc}); check its key and value types`, tests: [] };
  }
  const tests: TestVerdict[] = ex.tests.map((t, i) => {
    const frame = testRunFrame(t.packet);
    if (t.rxQueue !== undefined) frame.rxQueueIndex = t.rxQueue;
    const r = vm.runXdp(frame);
    const out = frame.buf.slice(Math.min(r.dataMeta, r.data), r.dataEnd);
    return packetVerdict(i, t, r, out, mapNames);
  });
  for (const mc of ex.mapChecks ?? []) {
    const m = mapByName(mc.map);
    const got = m ? readValue(m, mc.key) : undefined;
    const want = mc.value;
    const pass = want === null ? got === undefined : got !== undefined && hex(got) === hex(want);
    const show = (v: Uint8Array | undefined | null) => (v ? `${hex(v)} (${leNumber(v)})` : 'absent');
    tests.push({
      name: mc.name,
      pass,
      message: pass ? `${mc.name}: ok` : `${mc.name}: map "${mc.map}" key ${hex(mc.key)}: expected ${show(want)}, got ${show(got)}`,
      expected: { value: show(want) },
      actual: { value: show(got) },
    });
  }
  return { id: ex.id, pass: tests.every((t) => t.pass), tests };
}

/** A map value as user space reads it; per-CPU values summed (little-endian) into one. */
function readValue(m: BpfMap, key: Uint8Array): Uint8Array | undefined {
  const vals = m.userLookup(key);
  if (!vals || vals.length === 0) return undefined;
  if (!m.percpu) return vals[0];
  const out = new Uint8Array(m.valueSize);
  let sum = 0n;
  for (const v of vals) sum += leBig(v);
  for (let i = 0; i < out.length; i++) out[i] = Number((sum >> BigInt(8 * i)) & 0xffn);
  return out;
}

function leBig(v: Uint8Array): bigint {
  let x = 0n;
  for (let i = v.length - 1; i >= 0; i--) x = (x << 8n) | BigInt(v[i]!);
  return x;
}

const leNumber = (v: Uint8Array) => (v.length <= 8 ? leBig(v).toString() : 'bytes');

function packetVerdict(i: number, t: PacketCase, r: XdpResult, out: Uint8Array, mapNames: string[]): TestVerdict {
  const who = `packet ${i + 1} (${t.name})`;
  const got = actionName(r.retval);
  const expected: TestVerdict['expected'] = { action: t.action };
  const actual: TestVerdict['actual'] = { action: got, bytes: hex(out), decoded: describePacket(out) };
  if (r.fault) return { name: t.name, pass: false, message: `${who}: the program faulted: ${r.fault.message}`, expected, actual };
  if (got !== t.action) return { name: t.name, pass: false, message: `${who}: expected ${t.action}, got ${got}`, expected, actual };
  if (t.redirect && r.redirect) {
    const want = 'map' in t.redirect ? `map "${t.redirect.map}" key ${t.redirect.key}` : `ifindex ${t.redirect.ifindex}`;
    const have = 'map' in r.redirect ? `map "${mapNames[r.redirect.map] ?? r.redirect.map}" key ${r.redirect.key}` : `ifindex ${r.redirect.ifindex}`;
    if (want !== have) return { name: t.name, pass: false, message: `${who}: redirected to ${have}, expected ${want}`, expected: { ...expected, value: want }, actual: { ...actual, value: have } };
  } else if (t.redirect) return { name: t.name, pass: false, message: `${who}: XDP_REDIRECT without a target (use bpf_redirect_map)`, expected, actual };
  if (t.out) {
    expected.bytes = hex(t.out);
    expected.decoded = describePacket(t.out);
    const diff = byteDiff(t.out, out);
    if (diff.length) {
      const first = diff[0]!;
      const what = t.out.length !== out.length ? `length ${out.length}, expected ${t.out.length}; ` : '';
      const b = (x: number | null) => (x === null ? 'nothing' : x.toString(16).padStart(2, '0'));
      return { name: t.name, pass: false, message: `${who}: ${got} as expected, but the bytes differ: ${what}${first.field} at offset ${first.offset}: expected ${b(first.expected)}, got ${b(first.actual)}`, expected, actual, diff };
    }
  }
  return { name: t.name, pass: true, message: `${who}: ${got}${t.out ? ', bytes as expected' : ''}`, expected, actual };
}

/** Differing bytes, at most 32, each named by the field it falls in (of the expected frame). */
export function byteDiff(want: Uint8Array, got: Uint8Array): ByteDiff[] {
  const out: ByteDiff[] = [];
  const n = Math.max(want.length, got.length);
  for (let i = 0; i < n && out.length < 32; i++) {
    const e = i < want.length ? want[i]! : null;
    const a = i < got.length ? got[i]! : null;
    if (e !== a) out.push({ offset: i, expected: e, actual: a, field: fieldAt(i < want.length ? want : got, i) });
  }
  return out;
}

/** Run the exercise's machine in the engine and compare the learner's prediction with the measurement. */
export function gradePrediction(ex: PredictExercise, answer: string): GradeResult {
  const a = answer.trim();
  if (a === '') return { id: ex.id, pass: false, stage: 'answer', error: 'no prediction given', tests: [] };
  if (!ex.choices && !Number.isFinite(Number(a))) return { id: ex.id, pass: false, stage: 'answer', error: `"${a}" is not a number`, tests: [] };
  if (ex.choices && !ex.choices.includes(a)) return { id: ex.id, pass: false, stage: 'answer', error: `"${a}" is not one of: ${ex.choices.join(', ')}`, tests: [] };
  const m = measure(ex);
  if ('error' in m) return { id: ex.id, pass: false, stage: 'load', error: m.error, tests: [] };
  const pass = ex.choices ? a === m.value : Math.abs(Number(a) - Number(m.value)) <= Math.abs(Number(m.value)) * (ex.tolerance ?? 0.1);
  const name = ex.question;
  return {
    id: ex.id,
    pass,
    tests: [{ name, pass, message: pass ? `${name}: you predicted ${a}; the simulator shows ${m.shown}` : `${name}: you predicted ${a}, the simulator shows ${m.shown}`, expected: { value: String(m.value) }, actual: { value: a } }],
  };
}

/** What the simulator shows for a predict exercise (memoised: the simulation is deterministic). */
const measured = new Map<string, { value: number | string; shown: string } | { error: string }>();
export function measure(ex: PredictExercise): { value: number | string; shown: string } | { error: string } {
  const hit = measured.get(ex.id);
  if (hit) return hit;
  const engine = createEngine(landedToolchain);
  const src = landedToolchain.examples?.find((e) => e.name === ex.example);
  if (!src) return { error: `this build has no example "${ex.example}"` };
  const setup = (src as { setup?: object }).setup;
  if (setup || ex.settings?.driver) {
    const r = engine.simConfigure({ driver: { ...(setup as object), ...(ex.settings?.driver ?? {}) } });
    if (!r.ok) return { error: r.reason };
  }
  if (ex.settings?.traffic) engine.simConfigure({ traffic: ex.settings.traffic });
  const b = engine.build(src.source);
  if (b.verify.status !== 'ok' || !b.verify.accepted) return { error: `the example "${ex.example}" did not load` };
  const m = ex.observe(engine);
  measured.set(ex.id, m);
  return m;
}

export function grade(ex: Exercise, submission: string): GradeResult {
  return ex.kind === 'program' ? gradeProgram(ex, submission) : gradePrediction(ex, submission);
}
