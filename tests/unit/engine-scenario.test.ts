/** Share-link scenarios: round trip, and honest refusals for damaged links. */
import { describe, expect, it } from 'vitest';
import { decodeScenario, encodeScenario, DEFAULT_SETTINGS } from '../../src/engine';

const SOURCE = 'SEC("xdp")\nint prog(struct xdp_md *ctx)\n{\n\treturn XDP_PASS; /* ünïcode ✓ */\n}\n';

describe('scenario codec', () => {
  it('round-trips program and settings through a URL-safe string', async () => {
    const settings = { ...DEFAULT_SETTINGS, driver: { ...DEFAULT_SETTINGS.driver, ringSize: 1024, pageCache: false } };
    const text = await encodeScenario({ source: SOURCE, example: 'xdp1', settings });
    expect(text).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(await decodeScenario(text)).toEqual({ scenario: { source: SOURCE, example: 'xdp1', settings } });
  });

  it('compresses: a long program makes a much shorter link', async () => {
    const long = SOURCE.repeat(50);
    expect((await encodeScenario({ source: long })).length).toBeLessThan(long.length / 5);
  });

  it('refuses a truncated link with a reason', async () => {
    const text = await encodeScenario({ source: SOURCE.repeat(20) });
    // Every cut, whatever its length mod 4, is refused the same way.
    for (const cut of [1, 2, 3, 4, 5]) {
      const r = await decodeScenario(text.slice(0, Math.floor(text.length / 2) + cut));
      expect(r).toEqual({ error: 'the link is damaged or cut short (it does not decompress)' });
    }
  });

  it('refuses characters outside base64url', async () => {
    expect(await decodeScenario('abc$%')).toEqual({ error: 'the link is not valid base64url' });
  });

  it('drops ill-typed settings instead of trusting them', async () => {
    const text = await encodeScenario({ source: 'x', settings: { traffic: { ratePps: 'fast' }, driver: { ringSize: -4 } } as never });
    const r = await decodeScenario(text);
    expect('scenario' in r && r.scenario.settings).toEqual(DEFAULT_SETTINGS);
  });
});
