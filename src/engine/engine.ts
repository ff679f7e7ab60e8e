/**
 * createEngine: binds a Session to the EngineApi surface. Pure; the worker
 * and tests both go through here.
 */
import type { EngineApi } from './api';
import { Session } from './session';
import type { Toolchain } from './toolchain';

export function createEngine(tc: Toolchain): EngineApi & { session: Session } {
  const session = new Session(tc);
  return {
    session,
    hello: () => ({ capabilities: session.capabilities(), examples: [...session.examples()] }),
    build: (source) => session.build(source),
  };
}
