/**
 * Session: the engine façade (compile + verify + attach + simulate). One
 * Session holds one program and one simulated machine; every method is
 * synchronous and deterministic, so the same Session runs in the Web Worker,
 * on the main thread in tests, and under Node.
 */
import { runBuild } from './build';
import { SimSession } from './simSession';
import type { Attach, Example, Toolchain } from './toolchain';
import type { BuildResult } from './types';
import type { ParsedSpec } from '../isa';
import { singleFileWorkspace, type Workspace } from '../cc/workspace';

export class Session {
  private seq = 0;
  private lastBuild: BuildResult | null = null;
  private program: ParsedSpec | null = null;
  readonly sim: SimSession;

  constructor(private readonly tc: Toolchain) {
    this.sim = new SimSession(tc.sim);
  }

  examples(): readonly Example[] {
    return this.tc.examples;
  }

  /**
   * Compile and verify `source`; the result replaces the previous build. A
   * program the verifier accepts is attached to the simulated NIC at once;
   * one it rejects is not (the kernel would refuse to load it), so the NIC
   * runs without XDP until the program is fixed.
   */
  build(program: string | Workspace): BuildResult {
    const { result, attach } = this.check(program);
    this.sim.attach(attach);
    return result;
  }

  /**
   * Compile and verify without touching the machine; says what to attach.
   * The app runs this in a separate build worker, so a compiler or verifier
   * that takes too long can be stopped without stopping the simulation.
   */
  check(program: string | Workspace): { result: BuildResult; attach: Attach } {
    const ws = typeof program === 'string' ? singleFileWorkspace(program) : program;
    const { result, parsed } = runBuild(this.tc, ++this.seq, ws);
    this.lastBuild = result;
    this.program = parsed;
    return { result, attach: this.attachable() && parsed ? { program: parsed } : { reason: detachReason(result) } };
  }

  currentBuild(): BuildResult | null {
    return this.lastBuild;
  }

  /** Whether the current program passed the verifier and may be attached. */
  attachable(): boolean {
    const v = this.lastBuild?.verify;
    return !!this.program && v?.status === 'ok' && v.accepted;
  }
}

/** Why a build leaves the NIC without an XDP program, in the words the sim view shows. */
function detachReason(b: BuildResult): string {
  if (b.compile.status !== 'ok') return 'the program does not compile';
  if (b.verify.status !== 'ok') return b.verify.message;
  return 'the verifier rejected the program';
}
