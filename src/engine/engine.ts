/**
 * createEngine: binds a Session to the EngineApi surface. Pure; the worker
 * and tests both go through here.
 */
import type { EngineApi } from './api';
import { jitPermitted } from '../vm';
import { Session } from './session';
import type { Toolchain } from './toolchain';

export function createEngine(tc: Toolchain): EngineApi & { session: Session } {
  const session = new Session(tc);
  const sim = session.sim;
  return {
    session,
    hello: () => ({ examples: [...session.examples()], jit: jitPermitted() }),
    build: (program) => session.build(program),
    check: (program) => session.check(program),
    attach: (a) => sim.attach(a),
    simSnapshot: () => sim.snapshot(),
    simStep: (unit, count) => sim.step(unit, count),
    simStepBack: () => sim.stepBack(),
    simReset: () => sim.reset(),
    simConfigure: (patch) => sim.configure(patch),
    drainPrintk: () => sim.drainPrintk(),
    inspectPacket: (p) => sim.inspect(p),
    followPacket: (p) => sim.followPacket(p),
    hotPath: () => sim.hotPath(),
    xdpdump: (cmd) => sim.xdpdump(cmd),
    xdpdumpFile: (format) => sim.xdpdumpFile(format),
    mapsRead: () => sim.maps(),
    mapUpdate: (i, k, v, f) => sim.updateMap(i, k, v, f),
    simLoadPcap: (file) => {
      if (file === null) return sim.usePcap(null);
      const r = tc.readPcap(file);
      if ('error' in r) return { ok: false, reason: `not a pcap file this lab can read: ${r.error}` };
      const runts = r.runts ? ` (${r.runts} record${r.runts === 1 ? '' : 's'} shorter than an Ethernet header left out)` : '';
      if (r.frames.length === 0) return { ok: false, reason: `the pcap file holds no packets${runts}` };
      return { ...sim.usePcap(r.frames), frames: r.frames.length, ...(r.runts ? { runts: r.runts } : {}) };
    },
  };
}
