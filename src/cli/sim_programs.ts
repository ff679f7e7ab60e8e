/**
 * Programs for `xdp-lab sim` and the sim bench: the seed samples by name,
 * and program files. Real bytecode runs in the VM once src/vm and src/cc
 * are available; until then the simulator's native reference programs
 * stand in, and the output says so ([native]).
 */
import { UsageError } from './io';
import { nativePrograms, type ProgramResolver, type XdpHook } from '../sim';

export async function scenarioPrograms(): Promise<ProgramResolver> {
  return nativePrograms;
}

export async function loadProgramHook(file: string): Promise<XdpHook> {
  throw new UsageError(`cannot run ${file}: running program files needs the VM (src/vm), which this build does not have yet; use --prog xdp1|xdp2|xdp_pass`);
}
