/**
 * The share-link codec (src/ui/shareLink.ts) and the schema behind it
 * (src/ui/schema.ts): v2 workspaces round-trip, v1 links still open, and
 * every kind of bad or hostile payload gives a reason or a warning — never an
 * exception, never an unknown name used.
 */
import { describe, expect, it } from 'vitest';
import { deflateSync, strToU8 } from 'fflate';
import { decodeShareLink, encodeShareLink, MAX_INFLATED_BYTES } from '../../src/ui/shareLink';
import { parseCcFlags } from '../../src/cc/flags';
import { checkSettings, checkWorkspace, parseFlagsText, pathProblem } from '../../src/ui/schema';
import { encodeScenario } from '../../src/engine/scenario';
import { DEFAULT_SETTINGS } from '../../src/engine/simTypes';

const WS = {
  files: [
    { path: 'packet01-parsing/xdp_prog_kern.c', text: '#include "../common/parsing_helpers.h"\nint x;\n' },
    { path: 'common/parsing_helpers.h', text: '#pragma once\n' },
  ],
  main: 'packet01-parsing/xdp_prog_kern.c',
  flags: ['-Icommon', '-DDEBUG=1'],
};

/** A payload of any JSON, encoded as the app encodes links. */
function raw(o: unknown): string {
  return Buffer.from(deflateSync(strToU8(JSON.stringify(o)))).toString('base64url');
}

describe('share links', () => {
  it('round-trips a multi-file workspace with its flags, example and settings', () => {
    const settings = { ...DEFAULT_SETTINGS, driver: { ...DEFAULT_SETTINGS.driver, queues: 4 } };
    const r = decodeShareLink(encodeShareLink({ workspace: WS, example: 'xdp1', settings }));
    expect(r).toEqual({ ok: true, version: 2, workspace: WS, example: 'xdp1', settings, speed: null, warnings: [] });
  });

  it('keeps the speed the link was made at, and drops a speed that is none', () => {
    const at = (speed: unknown) => decodeShareLink(raw({ v: 2, ...WS, speed }));
    const slow = decodeShareLink(encodeShareLink({ workspace: WS, example: null, settings: null, speed: 1000 }));
    expect(slow.ok && slow.speed).toBe(1000);
    expect(at('max')).toMatchObject({ ok: true, speed: 'max', warnings: [] });
    for (const bad of [0, -5, 1.5, 1e12, 'fast', { n: 1 }]) {
      const r = at(bad);
      expect(r.ok && r.speed).toBe(null);
      expect(r.ok && r.warnings.join()).toMatch(/is not a speed/);
    }
  });

  it('opens a v1 link (one source, made with CompressionStream) as a one-file workspace', async () => {
    const link = await encodeScenario({ source: 'int v1;\n', example: 'xdp2' });
    const r = decodeShareLink(link);
    expect(r.ok && r.version).toBe(1);
    if (!r.ok) throw new Error(r.error);
    expect(r.workspace).toEqual({ files: [{ path: 'prog.c', text: 'int v1;\n' }], main: 'prog.c', flags: [] });
    expect(r.example).toBe('xdp2');
  });

  it('refuses damaged links with a reason', () => {
    const good = encodeShareLink({ workspace: WS, example: null, settings: null });
    for (const bad of ['', '!!!', good.slice(0, good.length - 10), good.slice(0, 5), `${good.slice(0, 20)}A${good.slice(21)}`, raw('hello'), raw({ v: 3 }), raw({ v: 2, files: [] }), raw({ v: 1 })]) {
      const r = decodeShareLink(bad);
      expect(r.ok, bad).toBe(false);
      if (!r.ok) expect(r.error).toMatch(/^the link/);
    }
  });

  it('stops inflating a decompression bomb at its bound', () => {
    const bomb = Buffer.from(deflateSync(new Uint8Array(MAX_INFLATED_BYTES * 4))).toString('base64url');
    expect(bomb.length).toBeLessThan(40_000);
    expect(decodeShareLink(bomb)).toEqual({ ok: false, error: 'the link expands to more than a workspace may hold' });
  });

  it('drops hostile names and bad settings, keeping only the program', () => {
    const r = decodeShareLink(raw({
      v: 2,
      files: [...WS.files, { path: '<img src=x onerror=alert(1)>.h', text: 'x' }, { path: '../../etc/passwd', text: 'y' }, { path: '/abs.h', text: 'z' }],
      main: WS.main,
      flags: ['-I', 'common', '--evil'],
      example: '<script>alert(1)</script>',
      settings: { driver: { model: 'x"><script>', nic: 'e1000', queues: 1e9, pageCache: 'yes' }, traffic: { profile: 'flood<b>', ratePps: -1 }, extra: 1 },
    }));
    if (!r.ok) throw new Error(r.error);
    expect(r.workspace).toEqual({ files: WS.files, main: WS.main, flags: [] });
    expect(r.example).toBeNull();
    expect(r.settings).toEqual(DEFAULT_SETTINGS);
    expect(r.warnings.join('\n')).toMatch(/left out[\s\S]*build flags were dropped[\s\S]*unknown example[\s\S]*unknown hardware model[\s\S]*unknown driver/);
    expect(r.warnings).toHaveLength(11);
  });

  it('never throws on arbitrary text', () => {
    let seed = 7;
    const rnd = () => ((seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32);
    const alphabet = 'AZaz09-_=+/ \n\u00e9';
    for (let i = 0; i < 2000; i++) {
      const s = Array.from({ length: Math.floor(rnd() * 80) }, () => alphabet[Math.floor(rnd() * alphabet.length)]).join('');
      const r = decodeShareLink(s);
      expect(typeof r.ok).toBe('boolean');
      if (!r.ok) expect(r.error).not.toMatch(/internal/);
    }
  });
});

describe('the workspace and settings schema', () => {
  it('accepts the paths a folder upload gives and refuses the rest', () => {
    expect(pathProblem('packet01-parsing/xdp_prog_kern.c')).toBeNull();
    expect(pathProblem('common/parsing_helpers.h')).toBeNull();
    for (const p of ['', '/x.c', 'a/../b.c', './a.c', 'a//b.c', 'a b.c', 'x<y>.c', 'x'.repeat(300), 5]) expect(pathProblem(p), String(p)).not.toBeNull();
  });

  it('picks a .c main file when the named one is missing, and refuses a workspace without one', () => {
    const r = checkWorkspace({ files: WS.files, main: 'gone.c' });
    expect(r.ok && r.value.main).toBe('packet01-parsing/xdp_prog_kern.c');
    expect(checkWorkspace({ files: [{ path: 'a.h', text: '' }], main: 'b.c' }).ok).toBe(false);
  });

  it('parses the flags field and names what is wrong', () => {
    expect(parseFlagsText('-I common -DX=1 "-DMSG=a b" -std=gnu11 -include common/x.h -UY')).toEqual({
      flags: ['-I', 'common', '-DX=1', '"-DMSG=a b"', '-std=gnu11', '-include', 'common/x.h', '-UY'], errors: [],
    });
    expect(parseCcFlags(parseFlagsText('-DMSG="a b" -Dq=\\"').flags).macros).toEqual([{ define: 'MSG', value: 'a b' }, { define: 'q', value: '"' }]);
    expect(parseFlagsText('-std=c99x -I').errors).toEqual(["invalid value 'c99x' in '-std=c99x'", "argument to '-I' is missing (expected 1 value)"]);
    expect(parseFlagsText('--frobnicate').errors).toEqual(["unknown argument: '--frobnicate'"]);
  });

  it('keeps good settings and drops unknown names with a warning each', () => {
    const good = { ...DEFAULT_SETTINGS, driver: { ...DEFAULT_SETTINGS.driver, nic: 'i40e' as const, model: 'seed2021-i40e-10g' } };
    expect(checkSettings(good)).toEqual({ settings: good, warnings: [] });
    const r = checkSettings({ driver: { model: 'nonexistent' }, traffic: { profile: 'nope' } });
    expect(r.settings.driver.model).toBe(DEFAULT_SETTINGS.driver.model);
    expect(r.settings.traffic.profile).toBe(DEFAULT_SETTINGS.traffic.profile);
    expect(r.warnings).toEqual(['unknown traffic profile "nope" ignored', 'unknown hardware model "nonexistent" ignored']);
  });
});
