/**
 * Lessons: short guided tours through XDP, each a list of steps. A step
 * says what to do and what to look at; "Set up" puts the lab in the state
 * the step needs (an example, driver settings, a pane); the step is done
 * when its check holds of the app's state — the same state the views draw,
 * so a check can only pass when the thing it names really happened.
 * Steps without a check are for reading and looking; the user ticks them.
 */
import type { SimSettings, XdpAction } from '../../engine';
import type { AppState, PaneTab } from '../../store';

export interface StepSetup {
  example?: string;
  driver?: Partial<SimSettings['driver']>;
  tab?: PaneTab;
  run?: boolean;
}

export interface LessonStep {
  text: string;
  /** What to look at once it is set up (one line). */
  look?: string;
  setup?: StepSetup;
  /** Done when this holds; absent: the user marks the step done. */
  done?: (s: AppState) => boolean;
}

export interface Lesson {
  id: string;
  title: string;
  summary: string;
  steps: LessonStep[];
}

/** An XDP action counter's value in the latest snapshot. */
export function action(s: AppState, name: XdpAction): number {
  return s.sim?.actions.find((a) => a.name === name)?.value ?? 0;
}

const attached = (s: AppState, name: string) => s.sim?.attached.ok === true && s.sim.attached.name === name;
const verdict = (s: AppState) => (s.build?.verify.status === 'ok' ? s.build.verify : null);

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
        done: (s) => attached(s, 'xdp_prog1') && action(s, 'DROP') >= 10_000,
      },
      {
        text: 'Open the Maps pane: the rxcnt map counts packets per IP protocol, one value per CPU.',
        look: 'Key 0x11 (17, UDP) grows: the traffic is UDP.',
        setup: { tab: 'maps' },
        done: (s) => s.tab === 'maps',
      },
      {
        text: 'Watch the page cache gauge: a dropped frame\'s page goes straight back to the ring\'s cache and is posted again, so no page is allocated per packet.',
        look: 'The cache level stays high and "free pages" stays flat.',
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
        look: 'A red marker on the line that reads eth->h_proto, with the kernel\'s message; the Verifier pane shows the log.',
        setup: { example: 'missing-bounds-check', tab: 'verifier' },
        done: (s) => verdict(s)?.accepted === false && /invalid access to packet/.test(verdict(s)?.error ?? ''),
      },
      {
        text: 'Fix it: before reading eth->h_proto add  if (data + sizeof(*eth) > data_end) return XDP_DROP;',
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
        done: (s) => attached(s, 'xdp_prog2') && action(s, 'TX') >= 5_000,
      },
      {
        text: 'Pause and step one NAPI poll at a time (Alt+N). Frames are written to the tx ring in a batch, the doorbell is rung, and the completions come back later.',
        look: 'The "doorbell" pointer jumps, then "cons" catches up as the NIC sends.',
        done: (s) => !s.running && attached(s, 'xdp_prog2') && (s.sim?.napiPolls ?? 0) > 0,
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
        done: (s) => s.sim?.settings.driver.pageCache === false && action(s, 'DROP') >= 10_000,
      },
      {
        text: 'Turn it back on and compare the profile: the allocator disappears from the top.',
        setup: { driver: { pageCache: true }, run: true },
        done: (s) => s.sim?.settings.driver.pageCache === true && action(s, 'DROP') >= 10_000,
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
        done: (s) => s.sim?.redirect !== null && s.sim?.redirect !== undefined && action(s, 'REDIRECT') >= 5_000,
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
        done: (s) => !!s.sim?.xsk && action(s, 'REDIRECT') >= 5_000,
      },
    ],
  },
];
