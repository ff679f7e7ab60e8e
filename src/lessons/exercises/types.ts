/**
 * The shape of a graded exercise. A program exercise is C the learner
 * writes, graded by running hidden packets through it (BPF_PROG_TEST_RUN
 * semantics, one program instance, packets in order) and comparing the
 * action, the output bytes, the redirect target and map contents. A
 * predict exercise asks for a number before the simulator shows it, and is
 * graded on the simulator's own counters.
 */
import type { EngineApi, SimSettings } from '../../engine';
import type { Explanation } from '../../explain';

export type Topic = 'basics' | 'parsing' | 'rewriting' | 'maps' | 'actions' | 'redirect' | 'af_xdp' | 'advanced' | 'mechanisms';

export const XDP_ACTION_NAMES = ['XDP_ABORTED', 'XDP_DROP', 'XDP_PASS', 'XDP_TX', 'XDP_REDIRECT'] as const;
export type ActionName = (typeof XDP_ACTION_NAMES)[number];

export interface PacketCase {
  /** What the packet is, as the verdict names it ("IPv4 UDP to port 53"). */
  name: string;
  packet: Uint8Array;
  action: ActionName;
  /** The frame the program must leave (data_meta..data_end), when it matters; default: unchanged for PASS/DROP is not checked. */
  out?: Uint8Array;
  /** For XDP_REDIRECT: where to. */
  redirect?: { map: string; key: number } | { ifindex: number };
  /** rx queue the packet arrives on (ctx->rx_queue_index). */
  rxQueue?: number;
}

export interface MapEntry {
  map: string;
  key: Uint8Array;
  value: Uint8Array;
}

export interface MapCheck {
  /** What it checks, as the verdict names it. */
  name: string;
  map: string;
  key: Uint8Array;
  /** Expected value (per-CPU maps: the sum over CPUs, little-endian, of the value's size); null: the key must be absent. */
  value: Uint8Array | null;
}

export interface ProgramExercise {
  kind: 'program';
  id: string;
  title: string;
  topic: Topic;
  statement: string;
  starter: string;
  solution: string;
  hints: string[];
  /** Map contents user space puts in before the packets (a blocklist, a devmap slot). */
  setup?: MapEntry[];
  tests: PacketCase[];
  mapChecks?: MapCheck[];
}

export interface PredictExercise {
  kind: 'predict';
  id: string;
  title: string;
  topic: Topic;
  statement: string;
  /** What to predict, and its unit. */
  question: string;
  unit?: string;
  /** Multiple choice: the answer is the chosen text; otherwise a number. */
  choices?: string[];
  hints: string[];
  /** Shown after answering: why the number is what it is. */
  solution: string;
  /** The example program and machine the simulator runs. */
  example: string;
  settings?: { driver?: Partial<SimSettings['driver']>; traffic?: Partial<SimSettings['traffic']> };
  /** Measure the answer on the running engine (steps it as needed). */
  observe: (engine: EngineApi) => { value: number | string; shown: string } | { error: string };
  /** Accepted relative error for numeric answers (0.1 = ±10 %). */
  tolerance?: number;
  /** A plausible wrong prediction (CI checks it is graded wrong). */
  wrongAnswer: string;
  /** The answer the simulator gives (CI checks it is graded right). */
  rightAnswer: string;
}

export type Exercise = ProgramExercise | PredictExercise;

export interface ByteDiff {
  offset: number;
  expected: number | null;
  actual: number | null;
  /** The header field at that offset ("ipv4.ttl"). */
  field: string;
}

/** One test's verdict, structured-clone safe (it crosses the worker boundary). */
export interface TestVerdict {
  name: string;
  pass: boolean;
  /** One line naming the failing packet and what differed. */
  message: string;
  expected?: { action?: string; bytes?: string; decoded?: string; value?: string };
  actual?: { action?: string; bytes?: string; decoded?: string; value?: string };
  diff?: ByteDiff[];
}

export interface GradeResult {
  id: string;
  pass: boolean;
  /** Why nothing ran: the program did not compile or the verifier refused it. */
  stage?: 'compile' | 'verify' | 'load' | 'answer';
  error?: string;
  /** The verifier's explanation when it refused the program. */
  explanation?: Explanation | null;
  tests: TestVerdict[];
}
