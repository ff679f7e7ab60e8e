/** xdp-lab sim and bench sim: output contracts and one-line errors. */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main';
import { buildPacket, writePcap } from '../../src/net';

async function cli(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await main(argv, { out: (t) => (out += t), err: (t) => (err += t) });
  return { code, out, err };
}

describe('xdp-lab sim', () => {
  it('--list names the seed scenarios', async () => {
    const r = await cli('sim', '--list');
    expect(r.code).toBe(0);
    for (const n of ['seed000-xdp1-drop', 'seed000-xdp1-drop-nocache', 'seed000-xdp2-tx', 'seed000-order3-baseline', 'seed000-xdp-pass-order0']) expect(r.out).toContain(n);
  });

  it('--scenario runs every program of the setup as verified bytecode and names each with its engine', async () => {
    const r = await cli('sim', '--scenario', 'seed002-flush-i40e-veth-native-devprog', '--verify', '--packets', '5000');
    expect(r.code).toBe(0);
    expect(r.out).toContain('program: xdp_redirect_map [vm]   devmap entry: xdp_redirect_map_egress [vm]   veth peer: xdp_drop on the veth peer [vm]');
    const n = await cli('sim', '--scenario', 'seed004-64-tx-native', '--native', '--packets', '5000');
    expect(n.out).toContain('program: xdp_rxq_info -a XDP_TX (native reference) [native]');
    const v = await cli('sim', '--scenario', 'seed004-64-tx-native', '--verify', '--packets', '5000');
    expect(v.out).toContain('program: xdp_rxq_info -a XDP_TX [vm]');
  });

  it('--scenario NAME --json prints the contract fields', async () => {
    const r = await cli('sim', '--scenario', 'seed000-xdp1-drop', '--json', '--packets', '50000');
    expect(r.code).toBe(0);
    const j = JSON.parse(r.out);
    expect(j.scenario).toBe('seed000-xdp1-drop');
    expect(j.rate_pps).toBeGreaterThan(19e6);
    expect(j.idle_percent).toBeGreaterThan(20);
    expect(j.profile[0]).toEqual({ symbol: expect.any(String), percent: expect.any(Number) });
    expect(j.counters.xdp_drop).toBeGreaterThan(0);
  });

  it('--prog with a pcap replays its frames', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'xdp-lab-sim-'));
    const f = join(dir, 'x.pcap');
    writeFileSync(f, writePcap(Array.from({ length: 100 }, (_, i) => ({ tsNs: i * 1000, data: buildPacket({ sport: i }) }))));
    const r = await cli('sim', '--prog', 'xdp2', '--pcap', f, '--json', '--rx-ring', '64');
    expect(r.code).toBe(0);
    const j = JSON.parse(r.out);
    expect(j.counters.offered).toBe(100);
    expect(j.counters.xdp_tx).toBe(100);
  });

  it.each([
    [['sim', '--scenario', 'nope'], "xdp-lab sim: unknown scenario 'nope' (see: xdp-lab sim --list)\n"],
    [['sim', '--prog', 'xdp1', '--traffic', 'warp'], /^xdp-lab sim: unknown traffic profile 'warp' \(known: .*\)\n$/],
    [['sim', '--prog', 'xdp1', '--rx-ring', '100'], /^xdp-lab sim: rxRingSize must be a power of two up to 8192, got 100\n$/],
    [['sim', '--prog', 'xdp1', '--packets', '-3'], "xdp-lab sim: --packets must be an integer 1..1000000000, got '-3'\n"],
    [['sim', '--prog', 'xdp1', '--pcap', '/nonexistent.pcap'], 'xdp-lab sim: cannot read /nonexistent.pcap: no such file\n'],
    [['sim'], 'xdp-lab sim: give --prog FILE (or --scenario NAME, or --list)\n'],
    [['sim', '--bogus'], 'xdp-lab sim: unknown option --bogus\n'],
  ])('%j fails with one line, exit 2', async (argv, msg) => {
    const r = await cli(...(argv as string[]));
    expect(r.code).toBe(2);
    if (typeof msg === 'string') expect(r.err).toBe(msg);
    else expect(r.err).toMatch(msg);
    expect(r.out).toBe('');
  });

  it('a pcap with another link type is refused naming it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'xdp-lab-sim-'));
    const f = join(dir, 'sll.pcap');
    const b = writePcap([{ tsNs: 0, data: buildPacket({}) }]);
    new DataView(b.buffer).setUint32(20, 113, true);
    writeFileSync(f, b);
    const r = await cli('sim', '--prog', 'xdp1', '--pcap', f);
    expect(r.code).toBe(2);
    expect(r.err).toBe(`xdp-lab sim: ${f}: unsupported pcap link type 113 (LINUX_SLL): only Ethernet (1) can be fed to the NIC\n`);
  });
});

describe('xdp-lab bench --json', () => {
  it('prints the figures as JSON on stdout (the text goes to stderr as progress), the same verdicts as the text', async () => {
    const j = await cli('bench', 'seeds', '--quick', '--json');
    expect(j.code).toBe(0);
    expect(j.err).toContain('== seeds ==');
    const o = JSON.parse(j.out) as { quick: boolean; sections: { seeds: Record<string, number | boolean | null> } };
    expect(o.quick).toBe(true);
    const s = o.sections.seeds;
    const oks = Object.entries(s).filter(([k]) => k.endsWith('.ok'));
    expect(oks.length).toBe(s.total);
    expect(oks.filter(([, v]) => v === true).length).toBe(s.within_tolerance);
    expect(s['seed000-xdp1-drop.rate.published']).toBe(20_200_000);
    const t = await cli('bench', 'seeds', '--quick');
    expect(t.out).toContain(`${s.within_tolerance} of ${s.total} published figures within tolerance`);
  });

  it('refuses an unknown section before running any', async () => {
    const r = await cli('bench', 'seeds', 'nosuch', '--json');
    expect(r).toEqual({ code: 2, out: '', err: "xdp-lab bench: unknown section 'nosuch' (sections: vm, cc, ccmem, verifier, sim, seeds, realworld, browser)\n" });
  });
});

describe('bench sim: a target scenario in its own process', () => {
  it('the child (bundled as the bench runs it) reports the scenario\'s rates as one JSON line', async () => {
    const { bundleChild, runChild } = await import('../../src/cli/bench/child');
    const { mkdtempSync, rmSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const path = await import('node:path');
    const dir = mkdtempSync(path.join(tmpdir(), 'xdp-lab-simchild-'));
    try {
      const child = await bundleChild(path.resolve('src/cli/bench/sim_child.ts'), dir);
      expect(child.bundled).toBe(true);
      const r = runChild<{ wall: number; cpu: number; offeredCpu: number }>(child, ['seed000-xdp2-tx', '0.02', '1']);
      if (typeof r === 'string') throw new Error(r);
      // XDP_TX at 20 Mpps offered: the NIC drops what the CPU cannot take, so the wire offers more than the driver finishes.
      expect(r.cpu).toBeGreaterThan(1e5);
      expect(r.wall).toBeGreaterThan(1e5);
      expect(r.offeredCpu).toBeGreaterThan(r.cpu);
      const bad = runChild(child, ['no-such-scenario', '0.02', '1']);
      expect(bad).toMatch(/^the child process failed \(1\): .*no scenario no-such-scenario/s);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
