/**
 * The simulated driver: the public API of src/sim.
 *
 *   const sim = new Simulation(config, prog)   // SimConfig: hw profile, rings, traffic, stack, seed
 *   sim.attach(prog | null)                    // XDP attach/replace/detach ({ok} or {ok:false, message})
 *   sim.setMtu(mtu)
 *   sim.step('event' | 'packet' | 'poll', n)   // single-stepping
 *   sim.run({packets, ns})                     // run ahead
 *   sim.snapshot()                             // rings, slots, cache, tx ring, counters, pages, rates, profile
 *   sim.events(from, to)                       // the trace (TraceEvent records)
 *   sim.rewindTo(step)                         // a new Simulation replayed to an earlier step (exact)
 *   sim.markWindow(); sim.rates(); sim.profile(cpu); sim.idlePercent(cpu)
 *   checkInvariants(sim)                       // [] when pages and packets are conserved
 *
 * Programs are XdpHook objects: vmHook(parsedSpec) runs real bytecode in
 * the VM; nativeXdp1/2 are reference implementations for tests.
 * Scenarios (SCENARIOS, runScenario) are the seeds' setups by name; their
 * compiled programs come from the engine's pipeline (src/engine/programs.ts
 * examplePrograms): the sim never imports the compiler.
 */
export { Simulation, type SimSnapshot, type QueueSnapshot, type RingSlotView, type SimRates, type StepKind } from './simulation';
export { resolveConfig, type SimConfig, type StackSinkConfig, type ResolvedConfig, type XskConfig } from './config';
export { HARDWARE_PROFILES, SEED2016_E5, SEED2016_I7, SEED2019_GOLD6140_I40E, SEED2021_I40E, type HardwareProfile } from './hw';
export { COST_STEPS, type CostStep, type CostTable, type ProfileEntry } from './cost';
export { TRACE_KINDS, type TraceKind, type TraceEvent } from './trace';
export { JOURNEY_STAGES, Journey, type JourneyStage, type JourneyRecord } from './journey';
export { PAGE_LOC_NAMES, PAGE_SIZE, type PageLocName } from './page_alloc';
export { XdpBuff, XDP_ABORTED, XDP_DROP, XDP_PASS, XDP_TX, XDP_REDIRECT, XDP_ACTION_NAMES, nativeXdp1, nativeXdp2, nativeConst, type XdpHook } from './program';
export { NAPI_BUDGET, XDP_PACKET_HEADROOM, RxRing, type RingCounters } from './nic/rx_ring';
export { MLX4_EN_CACHE_SIZE, MLX4_EN_DOORBELL_BUDGET, Mlx4En } from './nic/mlx4';
export { FRAG_SZ0 } from './nic/xdp_page_driver';
export { XdpTxRing } from './nic/xdp_tx_ring';
export { checkInvariants } from './invariants';
export { Vmxnet3 } from './nic/vmxnet3';
export { I40e } from './nic/i40e';
export { I40eXsk } from './nic/i40e_xsk';
export { DevmapTarget, DEV_MAP_BULK_SIZE } from './devmap';
export { CpumapTarget, CPU_MAP_BULK_SIZE, type CpumapBulkQueue } from './cpumap';
export * from './xsk';
export type { NicDriver, AttachResult, MtuResult, RedirectHandler, RedirectTarget, AfXdpSocket } from './nic/driver';
export { PagePool, PP_ALLOC_CACHE_SIZE } from './page_pool';
export { vmHook, type VmHook, type VmHookOptions } from './vm_hook';
export { SCENARIOS, findScenario, runScenario, nativePrograms, type Scenario, type ScenarioResult, type ScenarioProgram, type ProgramResolver } from './scenarios';
