/**
 * The JIT against the interpreter (the reference) on the real programs of
 * ../shared/realworld-dev, tests/realworld-extra and the kernel selftests'
 * XDP programs (tests/differential/realworld.test.ts compares them with the
 * kernel): each program as XDP Lab compiles it and as clang-19
 * builds it, run by both engines on the compiler's packet set plus the
 * real-world packets, every packet in turn on one instance per engine (so
 * maps carry over between packets, as in the kernel). Retval, packet bytes,
 * the executed count, the fault, r0, the maps, trace_printk output and the
 * event log must be identical. The folder is part of the environment: its
 * absence fails the test rather than skipping it.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { bytesToHex, parseSpec, type ProgramSpec } from '../../src/isa';
import { buildClang, buildOurs, readManifest, REALWORLD_DIR } from '../../src/cli/realworld';
import { clangAvailable } from '../../src/cli/clang';
import { createVm, testRunFrame, type XdpVm } from '../../src/vm';
import { packetSet, realworldPackets } from './cc-packets';
import { realworldSuites } from './realworld-suites';

function pair(spec: ProgramSpec): [XdpVm, XdpVm] | { error: string } {
  const parsed = parseSpec(JSON.parse(JSON.stringify(spec)));
  if ('error' in parsed) return { error: parsed.error };
  const jit = createVm(parsed, { engine: 'jit' });
  const interp = createVm(parsed, { engine: 'interp' });
  if ('error' in jit) return jit;
  if ('error' in interp) return interp;
  return [jit, interp];
}

/** Everything a run shows, per engine. */
function observe(vm: XdpVm, pkt: Uint8Array): unknown {
  const frame = testRunFrame(pkt);
  const r = vm.runXdp(frame);
  return {
    r,
    buf: bytesToHex(frame.buf),
    r0: [vm.machine.lo[0], vm.machine.hi[0]],
    printed: vm.printed.slice(),
    events: vm.log.events.map((e) => [e.kind, e.mapName, e.cpu, bytesToHex(e.data)]),
    maps: vm.maps.map((m) => m.dump()),
  };
}

describe('JIT vs interpreter on the real-world programs', () => {
  it('agrees on every program (our build and clang\'s) over every packet', { timeout: 600_000 }, () => {
    expect(existsSync(path.join(REALWORLD_DIR, 'manifest.json')), `${REALWORLD_DIR}/manifest.json`).toBe(true);
    const packets = [...packetSet(), ...realworldPackets()].filter((p) => p.bytes.length >= 14);
    const withClang = clangAvailable();
    let programs = 0;
    let translated = 0;
    let runs = 0;
    const { suites, fetchFailed } = realworldSuites();
    expect(fetchFailed, 'the kernel selftests\' sources').toBeUndefined();
    for (const { dir, manifest } of suites) for (const p of readManifest(dir, manifest)) {
      const builds: [string, ProgramSpec | undefined][] = [['ours', buildOurs(p, dir).spec]];
      if (withClang) builds.push(['clang', buildClang(p, dir).spec]);
      for (const [who, spec] of builds) {
        if (!spec) continue;
        const vms = pair(spec);
        if ('error' in vms) continue;
        programs++;
        if (vms[0].jitUnavailable === undefined) translated++;
        for (const pkt of packets) {
          const bytes = Uint8Array.from(pkt.bytes);
          const [jit, interp] = vms.map((vm) => observe(vm, bytes));
          const where = `${p.file} (${who}'s build; jit: ${vms[0].jitUnavailable ?? 'yes'}) on ${pkt.name}`;
          if (JSON.stringify(jit) !== JSON.stringify(interp)) expect(jit, where).toEqual(interp);
          runs++;
        }
      }
    }
    console.log(`JIT vs interpreter, real-world: ${programs} builds (${translated} translated), ${runs} runs each`);
    expect(programs).toBeGreaterThan(30);
    expect(translated, 'builds the JIT translated').toBeGreaterThan(programs / 2);
  });
});
