/**
 * The share-link codec: a workspace, the example it came from and the
 * machine's settings, as the text after `#share=` (JSON, raw DEFLATE,
 * base64url). Pure and synchronous, no DOM: `decodeShareLink` takes any
 * string and never throws — it returns the checked content (every field
 * validated by ./schema.ts, with a warning per dropped field) or one line
 * saying why the link cannot be opened. Inflating is bounded, so a small
 * link cannot expand into gigabytes.
 *
 * Formats: v2 {v:2, files:[{path,text}], main, flags, example?, settings?};
 * v1 {v:1, source, example?, settings?} (links made before workspaces) opens
 * as a one-file workspace.
 */
import { deflateSync, Inflate, strToU8 } from 'fflate';
import { singleFileWorkspace, type Workspace } from '../cc/workspace';
import type { SimSettings } from '../engine/simTypes';
import { checkExample, checkSettings, checkSpeed, checkWorkspace, MAX_WORKSPACE_BYTES } from './schema';
import type { Speed } from '../engine/api';

export const SHARE_VERSION = 2;
/** Every warning about the link's settings starts so (the app then keeps the learner's settings). */
export const SETTINGS_WARNING_PREFIX = 'settings: ';
/** The payload text itself (URLs this long already fail in some browsers and servers). */
export const MAX_PAYLOAD_CHARS = 2 * 1024 * 1024;
/** Inflated JSON: the workspace limit plus room for JSON escapes and settings. */
export const MAX_INFLATED_BYTES = 4 * MAX_WORKSPACE_BYTES;
/** The v1 format's own limit on its one source. */
const V1_MAX_SOURCE = 256 * 1024;

export interface SharedProgram {
  workspace: Workspace;
  /** The shipped example the program is, unchanged (null: edited or none). */
  example: string | null;
  /** The machine's settings (null: the link carried none). */
  settings: SimSettings | null;
  /** The simulation's speed (null or absent: the link carried none). */
  speed?: Speed | null;
}

export type DecodedShareLink =
  | ({ ok: true; version: 1 | 2; warnings: string[] } & SharedProgram)
  | { ok: false; error: string };

export function encodeShareLink(p: SharedProgram): string {
  const body: Record<string, unknown> = { v: SHARE_VERSION, files: p.workspace.files, main: p.workspace.main, flags: p.workspace.flags };
  if (p.example) body.example = p.example;
  if (p.settings) body.settings = p.settings;
  if (p.speed !== undefined && p.speed !== null) body.speed = p.speed;
  return toBase64Url(deflateSync(strToU8(JSON.stringify(body)), { level: 9 }));
}

export function decodeShareLink(payload: string): DecodedShareLink {
  try {
    return decode(payload);
  } catch (e) {
    // Not expected (every step below checks its input); kept so a bug here is a message, never a blank app.
    return { ok: false, error: `internal error reading the link (${(e as Error)?.message ?? String(e)})` };
  }
}

function decode(payload: string): DecodedShareLink {
  if (typeof payload !== 'string') return { ok: false, error: 'the link holds no text' };
  if (payload.length > MAX_PAYLOAD_CHARS) return { ok: false, error: 'the link is too long' };
  const t = payload.trim();
  if (t === '') return { ok: false, error: 'the link is empty' };
  if (!/^[A-Za-z0-9_-]+$/.test(t)) return { ok: false, error: 'the link is not valid base64url' };
  if (t.length % 4 === 1) return { ok: false, error: 'the link is cut short (its base64url length is impossible)' };
  const raw = fromBase64Url(t);
  const bytes = inflateBounded(raw, MAX_INFLATED_BYTES);
  if (bytes === 'too large') return { ok: false, error: 'the link expands to more than a workspace may hold' };
  if (bytes === null) return { ok: false, error: 'the link is damaged or cut short (it does not decompress)' };
  let json: string;
  try {
    json = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return { ok: false, error: 'the link is damaged (its contents are not UTF-8 text)' };
  }
  let o: unknown;
  try {
    o = JSON.parse(json);
  } catch {
    return { ok: false, error: 'the link is damaged (its contents are not JSON)' };
  }
  if (typeof o !== 'object' || o === null || Array.isArray(o)) return { ok: false, error: 'the link holds no program' };
  const r = o as Record<string, unknown>;
  const warnings: string[] = [];
  let workspace: Workspace;
  if (r.v === 1) {
    if (typeof r.source !== 'string') return { ok: false, error: 'the link holds no program' };
    if (r.source.length > V1_MAX_SOURCE) return { ok: false, error: 'the program in the link is too large' };
    workspace = singleFileWorkspace(r.source);
  } else if (r.v === 2) {
    const w = checkWorkspace(r);
    if (!w.ok) return { ok: false, error: `the link's workspace cannot be used: ${w.error}` };
    workspace = w.value;
    warnings.push(...w.warnings);
  } else {
    return { ok: false, error: `the link was made by another version of XDP Lab (format ${JSON.stringify(r.v) ?? 'none'})` };
  }
  const example = checkExample(r.example, warnings);
  let settings: SimSettings | null = null;
  if (r.settings !== undefined) {
    const s = checkSettings(r.settings);
    settings = s.settings;
    warnings.push(...s.warnings.map((w) => `${SETTINGS_WARNING_PREFIX}${w}`));
  }
  const speed = checkSpeed(r.speed, warnings);
  return { ok: true, version: r.v === 1 ? 1 : 2, workspace, example, settings, speed, warnings };
}

/** Raw DEFLATE, stopping as soon as the output passes `limit`; null when the data is corrupt or cut short. */
function inflateBounded(data: Uint8Array, limit: number): Uint8Array | null | 'too large' {
  const chunks: Uint8Array[] = [];
  let n = 0;
  let over = false;
  let ended = false;
  const inf = new Inflate((chunk, final) => {
    n += chunk.length;
    if (n > limit) over = true;
    else chunks.push(chunk);
    if (final) ended = true;
  });
  try {
    // Small input steps: one step of raw DEFLATE expands at most ~1000× (a 1 KiB step to ~1 MiB).
    const STEP = 1024;
    for (let i = 0; i < data.length && !over; i += STEP) inf.push(data.subarray(i, i + STEP), i + STEP >= data.length);
  } catch {
    return over ? 'too large' : null;
  }
  if (over) return 'too large';
  if (!ended) return null;
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

/** base64url without padding → bytes (the alphabet and length were checked by the caller). */
function fromBase64Url(s: string): Uint8Array {
  const val = (c: number): number => (c >= 65 && c <= 90 ? c - 65 : c >= 97 && c <= 122 ? c - 71 : c >= 48 && c <= 57 ? c + 4 : c === 45 ? 62 : 63);
  const out = new Uint8Array(Math.floor((s.length * 3) / 4));
  let o = 0;
  let acc = 0;
  let bits = 0;
  for (let i = 0; i < s.length; i++) {
    acc = (acc << 6) | val(s.charCodeAt(i));
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out[o++] = (acc >> bits) & 0xff;
    }
    acc &= 0xff;
  }
  return out.subarray(0, o);
}
