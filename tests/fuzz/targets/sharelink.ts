/**
 * Fuzz target "sharelink": the payload of a #share= link. Inputs are real
 * links (deflate-raw + base64url of a scenario, made here with fflate),
 * scenarios with hostile settings (wrong types, out-of-range numbers,
 * unknown names, __proto__ keys, script in strings), wrong versions,
 * non-object JSON, non-JSON, a deflate bomb, and base64 garbage — then
 * damaged character by character. Properties: decoding never throws and
 * ends within the time budget; it yields either an error the UI can show
 * (non-empty, one line) or a scenario whose every field has its schema's
 * type and range; nothing leaks into Object.prototype.
 * Failing inputs (the payload, one line): tests/fuzz/regressions/sharelink/.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { deflateSync, strToU8 } from 'fflate';
import { EXAMPLES } from '../../../src/examples';
import { HARDWARE_PROFILES } from '../../../src/sim';
import { TRAFFIC_PROFILE_LABELS } from '../../../src/engine/simTypes';
import { below, errorText, pick, type FuzzTarget, type Rng } from '../types';
import { CHECKS_NAMES, decodeLink, MAX_SOURCE_BYTES } from './shareLinkAdapter';

const B64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

function toBase64Url(b: Uint8Array): string {
  let s = '';
  for (let i = 0; i < b.length; i += 0x8000) s += String.fromCharCode(...b.subarray(i, i + 0x8000));
  return btoa(s).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

const link = (json: string): string => toBase64Url(deflateSync(strToU8(json)));

const HOSTILE: unknown[] = ['<img src=x onerror=alert(1)>', '</script><script>alert(1)</script>', 'javascript:alert(1)', '__proto__', 'constructor', '', 'x'.repeat(5000), -1, 0, 1e308, -1e308, 1.5, 2 ** 53, null, true, [], {}, { __proto__: { polluted: 1 } }, [1, 2, 3]];

function value(r: Rng, good: unknown): unknown {
  return r() < 0.6 ? good : pick(r, HOSTILE);
}

function scenarioJson(r: Rng): string {
  const ex = pick(r, EXAMPLES);
  const settings = {
    traffic: { profile: value(r, pick(r, Object.keys(TRAFFIC_PROFILE_LABELS))), ratePps: value(r, below(r, 1e7)), frameSize: value(r, pick(r, [60, 1500, 9000])), mix: value(r, { udp: value(r, 0.5), tcp: value(r, 0.5), icmp: value(r, 0), ipv6: value(r, 0) }) },
    driver: {
      model: value(r, pick(r, Object.keys(HARDWARE_PROFILES))), nic: value(r, pick(r, ['mlx4', 'i40e', 'vmxnet3'])), queues: value(r, 1 + below(r, 8)), ringSize: value(r, pick(r, [64, 128, 512])),
      pageCache: value(r, r() < 0.5), mtu: value(r, 1500), xdpMode: value(r, 'native'), redirect: value(r, 'none'), xsk: value(r, 'off'), entryProg: value(r, 'none'), xskApp: value(r, 'l2fwd'),
    },
  };
  const o: Record<string, unknown> = { v: r() < 0.9 ? 1 : pick(r, [0, 2, '1', null]), source: r() < 0.9 ? ex.source : pick(r, HOSTILE) };
  if (r() < 0.7) o.example = value(r, ex.id);
  if (r() < 0.8) o.settings = r() < 0.9 ? settings : pick(r, HOSTILE);
  let json = JSON.stringify(o);
  // A literal __proto__ key (JSON.stringify drops the object form of it).
  if (r() < 0.1) json = json.replace(/^\{/, '{"__proto__":{"polluted":1},');
  return json;
}

function fresh(r: Rng): string {
  const k = r();
  if (k < 0.6) return link(scenarioJson(r));
  if (k < 0.7) return link(pick(r, ['[]', '1', 'null', '"x"', '{', 'not json', '{"v":1}', '{"v":1,"source":1}', '\u0000\uffff']));
  if (k < 0.75) return link(JSON.stringify({ v: 1, source: 'a'.repeat(pick(r, [MAX_SOURCE_BYTES, MAX_SOURCE_BYTES + 1, 3 * MAX_SOURCE_BYTES, 8 * MAX_SOURCE_BYTES])) })); // a deflate bomb
  if (k < 0.8) return toBase64Url(Uint8Array.from({ length: below(r, 64) }, () => below(r, 256)));
  if (k < 0.85) return toBase64Url(new Uint8Array([0xff, 0xfe, 0x80, 0xc0, 0x00]));
  return Array.from({ length: below(r, 200) }, () => (r() < 0.95 ? pick(r, [...B64URL]) : pick(r, ['=', '%', ' ', '+', '/', '\n', 'é', '\u2028']))).join('');
}

function mutate(s: string, r: Rng): string {
  const at = below(r, s.length + 1);
  switch (below(r, 5)) {
    case 0: return s.slice(0, at) + pick(r, [...B64URL]) + s.slice(at + 1);
    case 1: return s.slice(0, at);
    case 2: return s.slice(0, at) + s.slice(at, at + below(r, 40)) + s.slice(at);
    case 3: return s.slice(0, at) + s.slice(at + 1 + below(r, 8));
    default: return s.slice(0, at) + pick(r, ['=', '%20', ' ', '+', '/', '.', '\u0000']) + s.slice(at);
  }
}

const isNum = (v: unknown, lo: number, hi: number): boolean => typeof v === 'number' && Number.isFinite(v) && v >= lo && v <= hi;

/** The settings schema (src/engine/simTypes.ts SimSettings, ranges as checkSettings enforces): the first field that breaks it. */
function schemaError(s: unknown): string | undefined {
  if (s === undefined) return undefined;
  if (typeof s !== 'object' || s === null) return 'settings is not an object';
  const { traffic: t, driver: d } = s as { traffic?: Record<string, unknown>; driver?: Record<string, unknown> };
  if (!t || !d) return 'settings lacks traffic or driver';
  const mix = t.mix as Record<string, unknown> | undefined;
  const checks: [string, boolean][] = [
    ['traffic.profile', typeof t.profile === 'string' && (!CHECKS_NAMES || t.profile in TRAFFIC_PROFILE_LABELS)],
    ['traffic.ratePps', isNum(t.ratePps, 1, 1e9)],
    ['traffic.frameSize', isNum(t.frameSize, 60, 9018)],
    ['traffic.mix', typeof mix === 'object' && mix !== null && ['udp', 'tcp', 'icmp', 'ipv6'].every((k) => isNum(mix[k], 0, 1))],
    ['driver.model', typeof d.model === 'string' && (!CHECKS_NAMES || Object.hasOwn(HARDWARE_PROFILES, d.model))],
    ['driver.nic', ['mlx4', 'vmxnet3', 'i40e'].includes(d.nic as string)],
    ['driver.queues', isNum(d.queues, 1, 8)],
    ['driver.ringSize', isNum(d.ringSize, 8, 65536)],
    ['driver.pageCache', typeof d.pageCache === 'boolean'],
    ['driver.mtu', isNum(d.mtu, 68, 9000)],
    ['driver.xdpMode', ['native', 'generic'].includes(d.xdpMode as string)],
    ['driver.redirect', ['none', 'cpumap-drop', 'devmap-port', 'devmap-i40e', 'devmap-veth'].includes(d.redirect as string)],
    ['driver.xsk', ['off', 'zc', 'copy', 'skb'].includes(d.xsk as string)],
  ];
  const bad = checks.find(([, ok]) => !ok);
  return bad ? `settings.${bad[0]} breaks the schema: ${JSON.stringify(bad[0].split('.').reduce<unknown>((o, k) => (o as Record<string, unknown>)?.[k], s))?.slice(0, 80)}` : undefined;
}

export const sharelinkTarget: FuzzTarget<string> = {
  name: 'sharelink',
  hangMs: 2000,
  regressionDir: path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../regressions/sharelink'),
  ext: 'txt',
  generate: fresh,
  mutate,
  async run(input) {
    let d;
    try {
      d = await decodeLink(input);
    } catch (e) {
      return { kind: 'failure', why: `uncaught exception: ${errorText(e)}` };
    }
    if (Object.keys(Object.prototype).length) return { kind: 'failure', why: `Object.prototype polluted: ${Object.keys(Object.prototype).join(', ')}` };
    if (!d.ok) return typeof d.error === 'string' && d.error.length > 0 && !d.error.includes('\n') ? { kind: 'expected', why: d.error } : { kind: 'failure', why: `an error the UI cannot show: ${JSON.stringify(d.error)}` };
    if (typeof d.source !== 'string' || d.source.length > MAX_SOURCE_BYTES) return { kind: 'failure', why: `source is not a program of at most ${MAX_SOURCE_BYTES} bytes` };
    if (d.example !== undefined && (typeof d.example !== 'string' || (CHECKS_NAMES && !EXAMPLES.some((e) => e.id === d.example)))) return { kind: 'failure', why: `example ${JSON.stringify(d.example)?.slice(0, 80)} is not an example` };
    const bad = schemaError(d.settings);
    return bad ? { kind: 'failure', why: bad } : { kind: 'ok' };
  },
  // One line: the payload (base64url unless the fuzzer put other characters in; JSON-quoted then).
  encode: (input) => JSON.stringify(input) + '\n',
  decode: (file) => JSON.parse(file) as string,
};
