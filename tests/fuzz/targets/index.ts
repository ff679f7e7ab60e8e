/** Every fuzz target, by name, in the order `npm run fuzz` runs them. */
import type { AnyTarget, FuzzTarget } from '../types';
import { ccTarget } from './cc';
import { verifierTarget } from './verifier';
import { vmTarget } from './vm';
import { pcapTarget } from './pcap';
import { sharelinkTarget } from './sharelink';

// A target's input type is its own business: the runner only passes inputs back to the target that made them.
const erase = <I>(t: FuzzTarget<I>): AnyTarget => t as unknown as AnyTarget;

export const TARGETS: readonly AnyTarget[] = [erase(ccTarget), erase(verifierTarget), erase(vmTarget), erase(pcapTarget), erase(sharelinkTarget)];

export function findTarget(name: string): AnyTarget | undefined {
  return TARGETS.find((t) => t.name === name);
}
