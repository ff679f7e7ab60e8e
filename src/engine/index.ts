/** The engine façade: Session = compile + verify + attach + simulate. */
export * from './types';
export * from './simTypes';
export * from './api';
export * from './toolchain';
export { Session } from './session';
export { SimSession, type SimReply } from './simSession';
export { createEngine } from './engine';
export { landedToolchain } from './stages';
export { lineOfPc } from './build';
export { encodeScenario, decodeScenario, checkSettings, type Scenario } from './scenario';
export type { PacketDetail, LifecycleStep, InsnStep } from './inspect';
export type { XdpDumpStatus } from './xdpdump';
export { compileWorkspace, compileProgram, compileSource, specProgram, verifyProgram, loadProgram as loadHook, loadChecked, buildHook, firstProblem, singleFileWorkspace, type Workspace } from './pipeline';
export { examplePrograms, exampleSpec, scenarioProgramSpec } from './programs';
