/**
 * One scenario's simulated packets per second, tracing off, as the 'sim'
 * bench measures it: in its own process (sim_child.ts) and in the bench's.
 */
import { Simulation, type ProgramResolver, type Scenario } from '../../sim';

export interface ScenarioRate {
  /** Packets the driver finished per wall second. */
  wall: number;
  /** The same per second of this process's CPU time. */
  cpu: number;
  /** Frames the wire offered per CPU second (those the NIC dropped for want of a buffer included). */
  offeredCpu: number;
}

/** Packets per wall second and per second of this process's CPU time, of one scenario's setup, tracing off (its own programs from `programs`).
 * Time-based: after the warm-up it runs 20,000-packet slices until at least `cpuS` seconds of CPU have gone by
 * (a fixed 20k-packet window was too short for steady state: JIT tier-up, ring and page-cache churn, GC),
 * and keeps the best of `rounds` such windows on the same warmed simulation. */
export function scenarioRate(s: Scenario, programs: ProgramResolver, cpuS: number, rounds: number): ScenarioRate {
  const cfg = s.config();
  const devmapProgram = cfg.devmapProg ? programs('xdp_redirect_map_egress') : undefined;
  const vethPeerProgram = cfg.redirectTarget === 'devmap-veth' && (cfg.redirectTargetXdp ?? true) ? programs('xdp_drop') : undefined;
  const sim = new Simulation({ ...cfg, devmapProgram, vethPeerProgram, trace: false, keepTrace: false }, s.program ? programs(s.program) : null);
  sim.run({ packets: Math.min(s.warmup, 20_000) });
  let wall = 0;
  let cpu = 0;
  let offeredCpu = 0;
  for (let round = 0; round < rounds; round++) {
    const done0 = sim.nic.packetsDone;
    const offered0 = sim.offered;
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    let used = 0;
    do {
      sim.run({ packets: 20_000 });
      const c = process.cpuUsage(c0);
      used = (c.user + c.system) / 1e6;
    } while (used < cpuS);
    const wallMs = performance.now() - t0;
    const done = sim.nic.packetsDone - done0;
    wall = Math.max(wall, (done / wallMs) * 1000);
    cpu = Math.max(cpu, done / used);
    offeredCpu = Math.max(offeredCpu, (sim.offered - offered0) / used);
  }
  return { wall, cpu, offeredCpu };
}

