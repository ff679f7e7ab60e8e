/** The VM: interpreter, memory regions, XDP context and helpers. */
export { Machine, MAX_CALL_FRAMES, STACK_SIZE, type HelperFn, type TraceEvent, type TraceHook } from './interp';
export { VmFault, RegionTable, type Region, type RegionKind } from './memory';
export { createVm, defaultEnv, testRunFrame, XdpVm, XDP_PACKET_HEADROOM, TEST_RUN_FRAME_SIZE, TEST_RUN_MAX_DATA, type VmEnv, type VmOptions, type XdpFrame, type XdpResult, type VmFaultInfo } from './xdp';
export { XDP_ABORTED, XDP_DROP, XDP_PASS, XDP_TX, XDP_REDIRECT, type RedirectInfo, type HelperEnv } from './helpers';
export { runRaw } from './raw';
export { jitPermitted } from './jit';
export { FibTable, defaultFibConfig, type FibConfig, type FibRoute, type FibNeighbour, type FibInterface } from './fib';
export { MAX_TAIL_CALL_CNT, BPF_F_CURRENT_CPU, EVENTS_KEPT, type VmEvent, type EventLog } from './helpers_objects';
export { formatPrintk } from './printk';
