/**
 * createEngine: binds a Session to the EngineApi surface. Pure; the worker
 * and tests both go through here.
 */
import type { EngineApi } from './api';
import { Session } from './session';
import type { Toolchain } from './toolchain';

export function createEngine(tc: Toolchain): EngineApi & { session: Session } {
  const session = new Session(tc);
  const sim = session.sim;
  return {
    session,
    hello: () => ({ capabilities: session.capabilities(), examples: [...session.examples()] }),
    build: (source) => session.build(source),
    simSnapshot: () => sim.snapshot(),
    simStep: (unit, count) => sim.step(unit, count),
    simStepBack: () => sim.stepBack(),
    simReset: () => sim.reset(),
    simConfigure: (patch) => sim.configure(patch),
    simUsePcap: (frames) => sim.usePcap(frames),
  };
}
