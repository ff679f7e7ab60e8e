/**
 * The schema of everything the app reads back from outside its own memory —
 * share links and localStorage: workspaces (file paths, sizes, the main file,
 * clang flags) and machine settings. Pure functions, no DOM: untrusted input
 * goes in, a well-typed value comes out with one warning per thing that was
 * dropped (an unknown driver model or example name is never used, it is
 * replaced by the default and the learner is told). Nothing here throws.
 */
import { parseCcFlags, shellSplit } from '../cc/flags';
import type { Workspace, WorkspaceFile } from '../cc/workspace';
import { DEFAULT_SETTINGS, TRAFFIC_PROFILE_LABELS, type SimSettings } from '../engine/simTypes';
import { HARDWARE_PROFILES } from '../sim/hw';
import { EXAMPLES } from '../examples';
import type { Speed } from '../engine/api';

/** A workspace is a program, not a project archive: these bound what a link or storage may hold. */
export const MAX_FILES = 64;
export const MAX_WORKSPACE_BYTES = 1024 * 1024;
export const MAX_PATH_LENGTH = 200;
export const MAX_FLAGS = 64;

/** The example ids the app ships (an example name from outside must be one of these). */
export const EXAMPLE_IDS: readonly string[] = EXAMPLES.map((e) => e.id);

/** A short, quoted rendering of untrusted text for a message (never interpreted, only shown). */
export function quote(x: unknown): string {
  const s = typeof x === 'string' ? x : JSON.stringify(x) ?? String(x);
  return JSON.stringify(s.length > 40 ? `${s.slice(0, 40)}…` : s);
}

/**
 * Why `p` is not a workspace path, or null when it is one: POSIX, relative to
 * the workspace root, no `.`/`..` segments (a folder upload keeps
 * "common/parsing_helpers.h" and the including file's "../common/…" resolves
 * inside the workspace), plain file-name characters only.
 */
export function pathProblem(p: unknown): string | null {
  if (typeof p !== 'string' || p === '') return 'a file has no name';
  if (p.length > MAX_PATH_LENGTH) return `the file name ${quote(p)} is too long`;
  if (p.startsWith('/')) return `the file name ${quote(p)} is absolute (paths are relative to the workspace)`;
  for (const seg of p.split('/')) {
    if (seg === '' || seg === '.' || seg === '..') return `the file name ${quote(p)} has an empty, '.' or '..' folder`;
    if (!/^[A-Za-z0-9_.+@~-]+$/.test(seg)) return `the file name ${quote(p)} has characters other than letters, digits and _ . + @ ~ -`;
  }
  return null;
}

/**
 * The flags a text typed in the build-flags field gives, and what is wrong
 * with them (empty: fine). The compiler splits an element holding whitespace
 * like a shell (a Makefile variable pasted whole), so a quoted word with a
 * space stays quoted in its element; `flagsText` shows them as typed.
 */
export function parseFlagsText(text: string): { flags: string[]; errors: string[] } {
  const flags = shellSplit(text).map((w) => (/\s/.test(w) ? `"${w.replace(/["\\]/g, (c) => `\\${c}`)}"` : w));
  return { flags, errors: flagErrors(flags) };
}

export function flagsText(flags: readonly string[]): string {
  return flags.join(' ');
}

export function flagErrors(flags: readonly string[]): string[] {
  if (flags.length > MAX_FLAGS) return [`too many flags (${flags.length}; at most ${MAX_FLAGS})`];
  return parseCcFlags(flags).errors;
}

export type Checked<T> = { ok: true; value: T; warnings: string[] } | { ok: false; error: string };

/**
 * A workspace from untrusted data. Bad files are dropped with a warning;
 * no usable main file, or nothing at all, is an error.
 */
export function checkWorkspace(x: unknown): Checked<Workspace> {
  if (typeof x !== 'object' || x === null) return { ok: false, error: 'it holds no workspace' };
  const r = x as Record<string, unknown>;
  if (!Array.isArray(r.files)) return { ok: false, error: 'it holds no files' };
  const warnings: string[] = [];
  const files: WorkspaceFile[] = [];
  const seen = new Set<string>();
  let bytes = 0;
  for (const f of r.files as unknown[]) {
    if (files.length >= MAX_FILES) { warnings.push(`only the first ${MAX_FILES} files were kept`); break; }
    const fo = (typeof f === 'object' && f !== null ? f : {}) as Record<string, unknown>;
    const problem = pathProblem(fo.path);
    if (problem) { warnings.push(`${problem}: that file was left out`); continue; }
    const path = fo.path as string;
    if (typeof fo.text !== 'string') { warnings.push(`the file ${quote(path)} has no text: it was left out`); continue; }
    if (seen.has(path)) { warnings.push(`the file ${quote(path)} appears twice: the second was left out`); continue; }
    bytes += fo.text.length;
    if (bytes > MAX_WORKSPACE_BYTES) return { ok: false, error: `the files are larger than ${MAX_WORKSPACE_BYTES >> 10} KiB in all` };
    seen.add(path);
    files.push({ path, text: fo.text });
  }
  if (files.length === 0) return { ok: false, error: 'it holds no usable file' };
  let main = typeof r.main === 'string' && seen.has(r.main) ? r.main : null;
  if (main === null) {
    const c = files.find((f) => f.path.endsWith('.c'));
    if (!c) return { ok: false, error: 'it names no main file that it holds' };
    warnings.push(`the main file ${quote(r.main)} is not among the files; ${quote(c.path)} is compiled instead`);
    main = c.path;
  }
  let flags: string[] = [];
  if (r.flags !== undefined) {
    const fl = Array.isArray(r.flags) && r.flags.every((f) => typeof f === 'string' && f.length <= 1024) ? (r.flags as string[]) : null;
    const errs = fl ? flagErrors(fl) : ['they are not a list of strings'];
    if (errs.length) warnings.push(`the build flags were dropped (${errs.join('; ')})`);
    else flags = fl!;
  }
  return { ok: true, value: { files, main, flags }, warnings };
}

/** An example name from untrusted data: one the app ships, else null with a warning. */
export function checkExample(x: unknown, warnings: string[]): string | null {
  if (x === undefined || x === null) return null;
  if (typeof x === 'string' && EXAMPLE_IDS.includes(x)) return x;
  warnings.push(`unknown example ${quote(x)} ignored`);
  return null;
}

/**
 * Machine settings from untrusted data: every field checked against the
 * settings' schema (enums, the hardware profiles and traffic profiles the app
 * has, number ranges). A bad field keeps its default, with a warning.
 */
export function checkSettings(x: unknown): { settings: SimSettings; warnings: string[] } {
  const warnings: string[] = [];
  const d = DEFAULT_SETTINGS;
  const obj = (v: unknown, what: string): Record<string, unknown> => {
    if (v === undefined) return {};
    if (typeof v === 'object' && v !== null && !Array.isArray(v)) return v as Record<string, unknown>;
    warnings.push(`${what} ${quote(v)} ignored`);
    return {};
  };
  const s = obj(x, 'settings');
  const t = obj(s.traffic, 'traffic settings');
  const dr = obj(s.driver, 'driver settings');
  const mix = obj(t.mix, 'traffic mix');
  const num = (v: unknown, def: number, lo: number, hi: number, what: string, int = false): number => {
    if (v === undefined) return def;
    if (typeof v === 'number' && Number.isFinite(v) && v >= lo && v <= hi && (!int || Number.isInteger(v))) return v;
    warnings.push(`${what} ${quote(v)} ignored (${lo}…${hi})`);
    return def;
  };
  const oneOf = <T extends string>(v: unknown, allowed: readonly T[], def: T, what: string): T => {
    if (v === undefined) return def;
    if (typeof v === 'string' && (allowed as readonly string[]).includes(v)) return v as T;
    warnings.push(`unknown ${what} ${quote(v)} ignored`);
    return def;
  };
  const bool = (v: unknown, def: boolean, what: string): boolean => {
    if (v === undefined) return def;
    if (typeof v === 'boolean') return v;
    warnings.push(`${what} ${quote(v)} ignored`);
    return def;
  };
  const settings: SimSettings = {
    traffic: {
      profile: oneOf(t.profile, Object.keys(TRAFFIC_PROFILE_LABELS), d.traffic.profile, 'traffic profile'),
      ratePps: num(t.ratePps, d.traffic.ratePps, 1, 1e9, 'packet rate'),
      frameSize: num(t.frameSize, d.traffic.frameSize, 60, 9018, 'frame size', true),
      mix: {
        udp: num(mix.udp, d.traffic.mix.udp, 0, 1, 'UDP share'),
        tcp: num(mix.tcp, d.traffic.mix.tcp, 0, 1, 'TCP share'),
        icmp: num(mix.icmp, d.traffic.mix.icmp, 0, 1, 'ICMP share'),
        ipv6: num(mix.ipv6, d.traffic.mix.ipv6, 0, 1, 'IPv6 share'),
      },
    },
    driver: {
      model: oneOf(dr.model, Object.keys(HARDWARE_PROFILES), d.driver.model, 'hardware model'),
      nic: oneOf(dr.nic, ['mlx4', 'vmxnet3', 'i40e'] as const, d.driver.nic, 'driver'),
      queues: num(dr.queues, d.driver.queues, 1, 8, 'queue count', true),
      ringSize: num(dr.ringSize, d.driver.ringSize, 8, 65536, 'ring size', true),
      pageCache: bool(dr.pageCache, d.driver.pageCache, 'page cache switch'),
      mtu: num(dr.mtu, d.driver.mtu, 68, 9000, 'MTU', true),
      xdpMode: oneOf(dr.xdpMode, ['native', 'generic'] as const, d.driver.xdpMode, 'XDP mode'),
      redirect: oneOf(dr.redirect, ['none', 'cpumap-drop', 'devmap-port', 'devmap-i40e', 'devmap-veth'] as const, d.driver.redirect, 'redirect target'),
      xsk: oneOf(dr.xsk, ['off', 'zc', 'copy', 'skb'] as const, d.driver.xsk, 'AF_XDP mode'),
      entryProg: oneOf(dr.entryProg, ['none', 'flush', 'enqueue'] as const, d.driver.entryProg ?? 'none', 'devmap entry program'),
      xskApp: oneOf(dr.xskApp, ['l2fwd', 'rxdrop', 'txonly'] as const, d.driver.xskApp ?? 'l2fwd', 'xdpsock mode'),
    },
  };
  return { settings, warnings };
}

/**
 * A simulation speed from untrusted data: 'max' (full speed) or events per
 * wall-clock second, a whole number from 1 to 10^7; anything else is
 * dropped with a warning (null) and the learner's speed stays.
 */
export function checkSpeed(x: unknown, warnings: string[]): Speed | null {
  if (x === undefined || x === null) return null;
  if (x === 'max') return 'max';
  if (typeof x === 'number' && Number.isInteger(x) && x >= 1 && x <= 10_000_000) return x;
  warnings.push(`speed ${quote(x)} is not a speed (full speed or 1 to 10,000,000 events per second)`);
  return null;
}
