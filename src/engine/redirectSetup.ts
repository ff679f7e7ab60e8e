/**
 * The user-space half of a redirect setup, as the samples' loaders do it:
 * the programs the redirect target runs (the veth peer's XDP_DROP, the
 * devmap entry's program), loaded through the same VM path as the user's
 * program so the whole machine runs real bytecode, and the entries the
 * user's DEVMAP/CPUMAP need for bpf_redirect_map to find the target.
 *
 * The machine has exactly one redirect target, so every entry the setup can
 * fill points at it: a devmap entry holds the target's ifindex
 * (xdp_redirect_map's tx_port[0] = ifindex_out), a cpumap entry a queue size
 * (xdp_redirect_cpu's --qsize; every CPU is made available). A map whose
 * kind does not match the setup stays empty, so bpf_redirect_map returns
 * its flags' action (XDP_ABORTED for 0), as the kernel does on a missing key.
 */
import { scenarioProgramSpec } from './programs';
import type { ParsedSpec } from '../isa';
import type { BpfMap } from '../maps';
import type { ProgramInstance } from './vmHook';
import type { SimSettings } from './simTypes';

/** Loads a verified program into the VM (the engine's loadProgram). */
export type ProgramLoader = (program: ParsedSpec, nCpus: number) => ProgramInstance | { error: string };

/** The target's ifindex as the devmap entry carries it (the ingress port is 1). */
export const TARGET_IFINDEX = 2;
/** xdp_redirect_cpu's default --qsize. */
export const CPUMAP_QSIZE = 192;
/** Entries filled at most per map (a 64-CPU host; max_entries may be larger). */
const MAX_FILLED = 64;

export interface TargetPrograms {
  devmapProgram?: ProgramInstance;
  vethPeerProgram?: ProgramInstance;
}

/** The devmap entry program and veth peer program the setup needs, or why they cannot be loaded. */
export function loadTargetPrograms(d: SimSettings['driver'], load: ProgramLoader, nCpus: number): TargetPrograms | { error: string } {
  const out: TargetPrograms = {};
  const devmap = d.redirect.startsWith('devmap');
  const wantEntry = devmap && (d.entryProg ?? 'none') !== 'none';
  const wantPeer = d.redirect === 'devmap-veth';
  if (!wantEntry && !wantPeer) return out;
  if (wantEntry) {
    const inst = load(scenarioProgramSpec('xdp_redirect_map_egress'), nCpus);
    if ('error' in inst) return { error: `the devmap entry program could not be loaded: ${inst.error}` };
    // The egress port's MAC, as xdp_redirect_map's loader installs it (02:00:00:00:00:02).
    const err = install(inst.maps, 'tx_mac', u32(0), new Uint8Array([0x02, 0, 0, 0, 0, 0x02, 0, 0]));
    if (err) return { error: `the devmap entry program: ${err}` };
    out.devmapProgram = inst;
  }
  if (wantPeer) {
    const inst = load(scenarioProgramSpec('xdp_drop'), nCpus);
    if ('error' in inst) return { error: `the veth peer's program could not be loaded: ${inst.error}` };
    out.vethPeerProgram = inst;
  }
  return out;
}

/** Point the user program's DEVMAP or CPUMAP entries at the setup's target; returns how many entries were filled. */
export function installRedirectEntries(maps: readonly BpfMap[], redirect: SimSettings['driver']['redirect']): number {
  let filled = 0;
  for (const m of maps) {
    const isDevmap = m.type === 'devmap' && redirect.startsWith('devmap');
    const isCpumap = m.type === 'cpumap' && redirect === 'cpumap-drop';
    if (!isDevmap && !isCpumap) continue;
    const value = new Uint8Array(m.valueSize);
    new DataView(value.buffer).setUint32(0, isDevmap ? TARGET_IFINDEX : CPUMAP_QSIZE, true);
    for (let k = 0; k < Math.min(m.maxEntries, MAX_FILLED); k++) if (m.userUpdate(u32(k), value) === 0) filled++;
  }
  return filled;
}

function install(maps: readonly BpfMap[], name: string, key: Uint8Array, value: Uint8Array): string | null {
  const m = maps.find((x) => x.name === name);
  if (!m) return `no map '${name}'`;
  const rc = m.userUpdate(key, value);
  return rc === 0 ? null : `cannot install the ${name} entry (errno ${-rc})`;
}

function u32(v: number): Uint8Array {
  const b = new Uint8Array(4);
  new DataView(b.buffer).setUint32(0, v, true);
  return b;
}
