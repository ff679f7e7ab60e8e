/**
 * The guided tours: short lessons whose steps say what to do and what to
 * look at, and tick themselves off when their check holds of the engine's
 * state (the build result and the simulator snapshot the views draw), so a
 * check can only pass when the thing it names really happened. Pure: the
 * CLI, tests and the UI evaluate the same checks.
 *
 * A check compares the state now with the state when the step began (its
 * baseline), and only counts once the learner acted in the step (ran its
 * set-up or changed the program or machine): a lab that already happened to
 * be in the right state does not tick a step nobody did.
 */
import type { BuildResult, SimSettings, SimSnapshot, XdpAction } from '../engine';

/** The engine state a step is checked against (the app's store holds exactly these). */
export interface TourState {
  build: BuildResult | null;
  sim: SimSnapshot | null;
  /** The example the editor holds unchanged (null once edited). */
  exampleName: string | null;
  running: boolean;
  /** The analysis pane on show. */
  tab: string;
}

export interface StepSetup {
  example?: string;
  driver?: Partial<SimSettings['driver']>;
  tab?: 'disasm' | 'verifier' | 'inspector' | 'maps' | 'console';
  run?: boolean;
}

export interface LessonStep {
  text: string;
  /** What to look at once it is set up (one line). */
  look?: string;
  setup?: StepSetup;
  /** Done when this holds of the state now, given the state when the step began; absent: the learner marks it. */
  done?: (s: TourState, base: TourState) => boolean;
}

export interface Lesson {
  id: string;
  title: string;
  summary: string;
  steps: LessonStep[];
}

/** An XDP action counter's value in a snapshot. */
export function action(s: TourState, name: XdpAction): number {
  return s.sim?.actions.find((a) => a.name === name)?.value ?? 0;
}

export function counter(s: TourState, name: string): number {
  return s.sim?.counters.find((c) => c.name === name)?.value ?? 0;
}

/** A counter's current rate (per second of simulated time). */
export function rate(s: TourState, name: string): number {
  return s.sim?.counters.find((c) => c.name === name)?.rate ?? 0;
}

/** How much a counter grew since the baseline (a restarted machine counts from zero). */
function grew(now: number, then: number): number {
  return now >= then ? now - then : now;
}

const attached = (s: TourState, name: string) => s.sim?.attached.ok === true && s.sim.attached.name === name;
const verdict = (s: TourState) => (s.build?.verify.status === 'ok' ? s.build.verify : null);
const dropGrew = (s: TourState, b: TourState, n: number) => grew(action(s, 'DROP'), action(b, 'DROP')) >= n;

/** Did the learner do anything since the step began: a new build, another machine, another pane? */
export function actedSince(s: TourState, base: TourState): boolean {
  return (s.build?.seq ?? -1) !== (base.build?.seq ?? -1) || JSON.stringify(s.sim?.settings ?? null) !== JSON.stringify(base.sim?.settings ?? null) || s.tab !== base.tab || s.running !== base.running;
}

/** Whether step `step` is done now: its check holds and, for a step with a set-up, the learner acted in it. */
export function stepDone(step: LessonStep, s: TourState, base: TourState, setupRan: boolean): boolean {
  if (!step.done) return false;
  // A step with a set-up is about that set-up: it counts once the learner ran it or did the equivalent by hand.
  if (step.setup && !setupRan && !actedSince(s, base)) return false;
  return step.done(s, base);
}

export const LESSONS: Lesson[] = [
  {
    id: 'first-program',
    title: '1. A first XDP program: count, then drop',
    summary: 'xdp1 parses each frame, counts it by IP protocol in a per-CPU array and returns XDP_DROP: the cheapest way to drop a packet in Linux.',
    steps: [
      {
        text: 'Load xdp1 and let traffic run.',
        look: 'The DROP counter climbs at the offered rate; the rx ring cycles between "posted to NIC" and "completed".',
        setup: { example: 'xdp1', run: true },
        done: (s, b) => attached(s, 'xdp_prog1') && dropGrew(s, b, 10_000),
      },
      {
        text: 'Open the Maps pane: the rxcnt map counts packets per IP protocol, one value per CPU.',
        look: 'The entry whose key is 17 (UDP; the map shows the __u32 key\'s bytes, 11 00 00 00) grows: the traffic is UDP.',
        setup: { tab: 'maps' },
        done: (s) => s.tab === 'maps' && attached(s, 'xdp_prog1'),
      },
      {
        text: 'Watch the page cache gauge and the cache counters: a dropped frame\'s page goes into the ring\'s page cache and the refill takes it straight back out, so no page is allocated per packet.',
        look: 'The cache holds only a few pages at any moment (each is reused at once): cache_get climbs with every packet, cache_empty does not move, and "free pages" stays flat.',
        // Now, not since the step began: loading xdp1 restarts the machine, whose first fill counts cache misses once.
        done: (s, b) => attached(s, 'xdp_prog1') && grew(counter(s, 'cache_get'), counter(b, 'cache_get')) >= 5_000 && rate(s, 'cache_get') > 0 && rate(s, 'cache_empty') === 0,
      },
    ],
  },
  {
    id: 'verifier',
    title: '2. The verifier: prove every packet access',
    summary: 'The kernel refuses a program that might read outside the packet. Every access must follow a comparison against data_end.',
    steps: [
      {
        text: 'Load the program that reads the Ethernet header without checking its length.',
        look: 'A red marker on the line that reads eth->h_proto, with the kernel\'s message and an explanation above the editor; the Verifier pane shows the log.',
        setup: { example: 'missing-bounds-check', tab: 'verifier' },
        done: (s) => verdict(s)?.accepted === false && s.exampleName === 'missing-bounds-check',
      },
      {
        text: 'Fix it: before reading eth->h_proto add  if (data + sizeof(*eth) > data_end) return XDP_DROP;  (or press "Apply fix").',
        look: 'The marker goes away, the program attaches and the counters move.',
        done: (s) => s.exampleName === null && verdict(s)?.accepted === true && s.sim?.attached.ok === true && action(s, 'PASS') + action(s, 'DROP') > 0,
      },
    ],
  },
  {
    id: 'xdp-tx',
    title: '3. XDP_TX: bounce frames back out',
    summary: 'xdp2 swaps the MAC addresses of UDP frames and returns XDP_TX: the driver puts the same page on its XDP tx ring, without copying.',
    steps: [
      {
        text: 'Load xdp2.',
        look: 'TX counts up; the XDP tx ring fills between the doorbell and the consumer pointer.',
        setup: { example: 'xdp2', run: true },
        done: (s, b) => attached(s, 'xdp_prog2') && grew(action(s, 'TX'), action(b, 'TX')) >= 5_000,
      },
      {
        text: 'Pause and step one NAPI poll at a time (Alt+N). Frames are written to the tx ring in batches of 8, the doorbell is rung per batch, and the completions come back later.',
        look: 'The "doorbell" pointer jumps by 8, then "cons" catches up as the NIC sends.',
        done: (s, b) => !s.running && attached(s, 'xdp_prog2') && (s.sim?.napiPolls ?? 0) > (b.sim?.napiPolls ?? 0),
      },
    ],
  },
  {
    id: 'page-recycling',
    title: '4. Page recycling: why the page cache matters',
    summary: 'Without recycling, every packet costs a page allocation and a free. mlx4\'s per-ring page cache made XDP_DROP fast.',
    steps: [
      {
        text: 'Turn the page cache off.',
        look: 'The perf profile fills with page allocator functions; free pages drain and refill.',
        setup: { example: 'xdp1', driver: { pageCache: false }, run: true },
        done: (s, b) => s.sim?.settings.driver.pageCache === false && dropGrew(s, b, 10_000),
      },
      {
        text: 'Turn it back on and compare the profile: the allocator disappears from the top.',
        setup: { driver: { pageCache: true }, run: true },
        done: (s, b) => s.sim?.settings.driver.pageCache === true && dropGrew(s, b, 10_000),
      },
    ],
  },
  {
    id: 'one-packet',
    title: '5. Follow one packet',
    summary: 'The packet inspector shows one frame\'s life: DMA, completion, the program, the action, transmission and the page going back.',
    steps: [
      {
        text: 'With xdp2 attached, open the Packet pane and press "Inspect latest packet".',
        look: 'The lifecycle lists each event; the bytes after the program show the swapped MACs.',
        setup: { example: 'xdp2', tab: 'inspector', run: true },
      },
      {
        text: 'Step through the program\'s instructions: each shows the registers, the packet bytes it touched and the stack, beside the verifier\'s view of the same instruction.',
      },
    ],
  },
  {
    id: 'redirect',
    title: '6. XDP_REDIRECT through a devmap',
    summary: 'bpf_redirect_map sends a frame out of another device. Frames wait in a per-CPU bulk queue of 16 and are flushed at the end of the NAPI poll: one doorbell per bulk.',
    steps: [
      {
        text: 'Load xdp_redirect_map (it sets up an i40e machine with a second port in the devmap).',
        look: 'The bulk queue fills up to 16 and empties at each flush; the target\'s tx ring moves.',
        setup: { example: 'xdp_redirect_map', run: true },
        done: (s, b) => !!s.sim?.redirect && grew(action(s, 'REDIRECT'), action(b, 'REDIRECT')) >= 5_000,
      },
    ],
  },
  {
    id: 'af-xdp',
    title: '7. AF_XDP: frames straight to user space',
    summary: 'An AF_XDP socket shares a UMEM with the driver. The fill ring hands it empty chunks, the rx ring returns full ones, and in zero-copy mode nothing is copied.',
    steps: [
      {
        text: 'Load xdpsock (it sets up an i40e machine with a zero-copy socket on queue 0).',
        look: 'UMEM chunks cycle fill → NIC → rx → application → tx → completion → fill.',
        setup: { example: 'xdpsock', run: true },
        done: (s, b) => !!s.sim?.xsk && grew(action(s, 'REDIRECT'), action(b, 'REDIRECT')) >= 5_000,
      },
    ],
  },
];
