/**
 * Scenarios: a program plus the machine's settings, as a compact string for
 * share links (deflate-raw + base64url, via the standard CompressionStream
 * that browsers, workers and Node all have). Decoding never throws: a bad or
 * truncated link yields a reason the UI can show.
 */
import { DEFAULT_SETTINGS, type SimSettings } from './simTypes';

export interface Scenario {
  source: string;
  /** The example it started from, if unchanged. */
  example?: string;
  settings?: SimSettings;
}

/** Bumped when the shape changes; old links keep decoding or say why not. */
const VERSION = 1;
/** A share link is for programs, not files: refuse absurd payloads before inflating them. */
export const MAX_SOURCE_BYTES = 256 * 1024;

export async function encodeScenario(s: Scenario): Promise<string> {
  const json = JSON.stringify({ v: VERSION, ...s });
  const bytes = await pipe(new TextEncoder().encode(json), new CompressionStream('deflate-raw'));
  return toBase64Url(bytes);
}

export async function decodeScenario(text: string): Promise<{ scenario: Scenario } | { error: string }> {
  const t = text.trim();
  if (!/^[A-Za-z0-9_-]+$/.test(t)) return { error: 'the link is not valid base64url' };
  const raw = fromBase64Url(t);
  if (!raw) return { error: 'the link is damaged or cut short (it does not decompress)' };
  let json: string;
  try {
    const bytes = await pipe(raw, new DecompressionStream('deflate-raw'), MAX_SOURCE_BYTES * 4);
    json = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return { error: 'the link is damaged or cut short (it does not decompress)' };
  }
  let o: unknown;
  try {
    o = JSON.parse(json);
  } catch {
    return { error: 'the link is damaged (its contents are not JSON)' };
  }
  if (typeof o !== 'object' || o === null) return { error: 'the link holds no scenario' };
  const r = o as Record<string, unknown>;
  if (r.v !== VERSION) return { error: `the link was made by another version of XDP Lab (format ${JSON.stringify(r.v)})` };
  if (typeof r.source !== 'string') return { error: 'the link holds no program' };
  if (r.source.length > MAX_SOURCE_BYTES) return { error: 'the program in the link is too large' };
  const scenario: Scenario = { source: r.source };
  if (typeof r.example === 'string') scenario.example = r.example;
  const settings = checkSettings(r.settings);
  if (settings) scenario.settings = settings;
  return { scenario };
}

/** Keep only well-typed known settings; anything else falls back to the default. */
export function checkSettings(x: unknown): SimSettings | undefined {
  if (typeof x !== 'object' || x === null) return undefined;
  const s = x as { traffic?: Record<string, unknown>; driver?: Record<string, unknown> };
  const d = DEFAULT_SETTINGS;
  const num = (v: unknown, def: number, lo: number, hi: number) => (typeof v === 'number' && Number.isFinite(v) && v >= lo && v <= hi ? v : def);
  const mixIn = (s.traffic?.mix ?? {}) as Record<string, unknown>;
  return {
    traffic: {
      profile: typeof s.traffic?.profile === 'string' ? s.traffic.profile : d.traffic.profile,
      ratePps: num(s.traffic?.ratePps, d.traffic.ratePps, 1, 1e9),
      frameSize: num(s.traffic?.frameSize, d.traffic.frameSize, 60, 9018),
      mix: {
        udp: num(mixIn.udp, d.traffic.mix.udp, 0, 1),
        tcp: num(mixIn.tcp, d.traffic.mix.tcp, 0, 1),
        icmp: num(mixIn.icmp, d.traffic.mix.icmp, 0, 1),
        ipv6: num(mixIn.ipv6, d.traffic.mix.ipv6, 0, 1),
      },
    },
    driver: {
      model: typeof s.driver?.model === 'string' ? s.driver.model : d.driver.model,
      ringSize: num(s.driver?.ringSize, d.driver.ringSize, 8, 65536),
      pageCache: typeof s.driver?.pageCache === 'boolean' ? s.driver.pageCache : d.driver.pageCache,
      mtu: num(s.driver?.mtu, d.driver.mtu, 68, 9000),
      nic: oneOf(s.driver?.nic, ['mlx4', 'vmxnet3', 'i40e'] as const, d.driver.nic),
      queues: num(s.driver?.queues, d.driver.queues, 1, 8),
      xdpMode: oneOf(s.driver?.xdpMode, ['native', 'generic'] as const, d.driver.xdpMode),
      redirect: oneOf(s.driver?.redirect, ['none', 'cpumap-drop', 'devmap-port', 'devmap-i40e', 'devmap-veth'] as const, d.driver.redirect),
      xsk: oneOf(s.driver?.xsk, ['off', 'zc', 'copy', 'skb'] as const, d.driver.xsk),
      entryProg: oneOf(s.driver?.entryProg, ['none', 'flush', 'enqueue'] as const, d.driver.entryProg ?? 'none'),
      xskApp: oneOf(s.driver?.xskApp, ['l2fwd', 'rxdrop', 'txonly'] as const, d.driver.xskApp ?? 'l2fwd'),
    },
  };
}

function oneOf<T extends string>(v: unknown, allowed: readonly T[], def: T): T {
  return typeof v === 'string' && (allowed as readonly string[]).includes(v) ? (v as T) : def;
}

async function pipe(input: Uint8Array<ArrayBuffer>, t: { writable: WritableStream<BufferSource>; readable: ReadableStream<Uint8Array> }, limit = Infinity): Promise<Uint8Array> {
  const writer = t.writable.getWriter();
  const written = writer.write(input).then(() => writer.close());
  // The writer's promise rejects too on corrupt input; the reader reports it.
  written.catch(() => {});
  const chunks: Uint8Array[] = [];
  let n = 0;
  const reader = t.readable.getReader();
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    chunks.push(value);
    n += value.length;
    if (n > limit) {
      void reader.cancel();
      throw new Error('too large');
    }
  }
  await written;
  const out = new Uint8Array(n);
  let p = 0;
  for (const c of chunks) {
    out.set(c, p);
    p += c.length;
  }
  return out;
}

function toBase64Url(b: Uint8Array): string {
  let s = '';
  for (let i = 0; i < b.length; i += 0x8000) s += String.fromCharCode(...b.subarray(i, i + 0x8000));
  return btoa(s).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function fromBase64Url(s: string): Uint8Array<ArrayBuffer> | null {
  try {
    const bin = atob(s.replace(/-/g, '+').replace(/_/g, '/') + '='.repeat((4 - (s.length % 4)) % 4));
    return Uint8Array.from(bin, (c) => c.charCodeAt(0));
  } catch {
    return null;
  }
}
