/**
 * The seeds' mechanisms as predict-then-observe exercises: the learner
 * commits to a number or a choice, then the simulator runs the machine and
 * its own counters, ring pointers, flush sizes and profile give the answer.
 */
import type { EngineApi, SimSnapshot } from '../../engine';
import type { PredictExercise } from './types';

function snap(e: EngineApi, packets: number): SimSnapshot | { error: string } {
  const r = e.simStep('packet', packets);
  return r.ok ? r.snapshot : { error: r.reason };
}

/** The most frequent value of a list (the smallest on a tie). */
function mode(xs: number[]): number | undefined {
  const n = new Map<number, number>();
  for (const x of xs) n.set(x, (n.get(x) ?? 0) + 1);
  let best: number | undefined;
  for (const [x, c] of n) if (best === undefined || c > n.get(best)! || (c === n.get(best)! && x < best)) best = x;
  return best;
}

const IDLE = /idle|cpuidle|poll_idle/;

export const MECHANISMS: PredictExercise[] = [
  {
    kind: 'predict', id: 'predict-page-cache', title: 'Predict: XDP_DROP without the page cache', topic: 'mechanisms',
    statement: 'xdp1 drops every frame on mlx4. Normally a dropped frame\'s page goes straight back into the rx ring\'s page cache. Turn the page cache off: every frame now costs a page allocation and a free. Which kernel function will be the busiest (apart from idle) in the profile?',
    question: 'busiest non-idle function with the page cache off',
    choices: ['mlx4_en_process_rx_cq', 'get_page_from_freelist', 'bpf_prog_run_xdp', 'mlx4_en_xmit_frame'],
    hints: ['Which work is new per packet when pages are not recycled?', 'The buddy allocator\'s fast path is get_page_from_freelist.'],
    solution: 'Without recycling, each refill of the rx ring goes to the page allocator: get_page_from_freelist (and the free on the other side) climbs above the driver\'s own rx completion handler. This is why mlx4\'s page cache made XDP_DROP fast.',
    example: 'xdp1', settings: { driver: { pageCache: false } },
    observe: (e) => {
      const s = snap(e, 20_000);
      if ('error' in s) return s;
      const top = s.profile.find((p) => !IDLE.test(p.symbol));
      return top ? { value: top.symbol, shown: `${top.symbol} at ${top.percent.toFixed(1)} % of CPU time` } : { error: 'empty profile' };
    },
    wrongAnswer: 'bpf_prog_run_xdp', rightAnswer: 'get_page_from_freelist',
  },
  {
    kind: 'predict', id: 'predict-doorbell', title: 'Predict: the XDP_TX doorbell batch', topic: 'mechanisms',
    statement: 'xdp2 bounces UDP frames with XDP_TX on mlx4. Writing the doorbell register (an MMIO write across PCIe) is expensive, so the driver does not ring it for every frame it posts on the XDP tx ring. How many frames does the ring\'s doorbell pointer usually advance by each time it is rung?',
    question: 'frames per doorbell', unit: 'frames', tolerance: 0,
    hints: ['Step one event at a time and watch the tx ring\'s "doorbell" pointer.', 'The driver rings it every few frames and at the end of the NAPI poll.'],
    solution: 'The doorbell moves 8 frames at a time: mlx4 rings it once per batch of 8 posted XDP_TX descriptors (and once more for a partial batch at the end of the poll).',
    example: 'xdp2',
    observe: (e) => {
      const warm = snap(e, 500);
      if ('error' in warm) return warm;
      let last = -1;
      const jumps: number[] = [];
      for (let i = 0; i < 2000 && jumps.length < 60; i++) {
        const r = e.simStep('event', 1);
        if (!r.ok) return { error: r.reason };
        const tx = r.snapshot.rings.find((g) => g.kind === 'tx');
        const db = tx?.pointers.find((p) => p.name === 'doorbell')?.index;
        if (!tx || db === undefined) return { error: 'this machine has no XDP tx ring' };
        if (last >= 0 && db !== last) jumps.push((db - last + tx.size) % tx.size);
        last = db;
      }
      const m = mode(jumps);
      return m === undefined ? { error: 'the doorbell never moved' } : { value: m, shown: `${m} frames per doorbell (over ${jumps.length} doorbells)` };
    },
    wrongAnswer: '1', rightAnswer: '8',
  },
  {
    kind: 'predict', id: 'predict-devmap-bulk', title: 'Predict: the devmap bulk queue', topic: 'mechanisms',
    statement: 'xdp_redirect_map redirects every frame through a devmap to a second i40e port. Redirected frames wait in a per-CPU bulk queue that is flushed when it is full and at the end of each NAPI poll (xdp_do_flush). At 2 Mpps, what is the most frequent number of frames per flush?',
    question: 'most frequent frames per devmap flush', unit: 'frames', tolerance: 0,
    hints: ['The bulk queue holds DEV_MAP_BULK_SIZE frames.', 'A full queue is flushed at once; what is left at the end of the poll goes out too.'],
    solution: 'Most flushes carry 16 frames: DEV_MAP_BULK_SIZE. The smaller ones are the remainders flushed by xdp_do_flush at the end of a NAPI poll.',
    example: 'xdp_redirect_map',
    observe: (e) => {
      const s = snap(e, 5000);
      if ('error' in s) return s;
      const sizes = s.redirect?.flushSizes ?? [];
      if (!sizes.length) return { error: 'no redirect view on this machine' };
      const best = sizes.reduce((a, b) => (b.count > a.count ? b : a));
      return { value: best.size, shown: `${best.size} frames in ${best.count} of ${sizes.reduce((n, x) => n + x.count, 0)} flushes` };
    },
    wrongAnswer: '64', rightAnswer: '16',
  },
  {
    kind: 'predict', id: 'predict-aligned-chunks', title: 'Predict: aligned AF_XDP chunks', topic: 'mechanisms',
    statement: 'xdpsock\'s UMEM is in aligned mode: it is cut into equal chunks and the kernel masks any address user space gives it down to the start of its chunk (in unaligned mode it would use the address as given). User space puts the address 5000 on the fill ring. At which UMEM address does the frame\'s chunk start?',
    question: 'chunk start for fill address 5000', unit: 'bytes', tolerance: 0,
    hints: ['Look up the socket\'s chunk size in the AF_XDP view.', 'Aligned mode: addr & ~(chunk_size - 1).'],
    solution: 'With 2048-byte chunks, 5000 lies in chunk 2, which starts at 4096: aligned mode rounds down to the chunk (xsk_umem chunk mask). Unaligned mode (XDP_UMEM_UNALIGNED_CHUNK_FLAG) would use 5000 itself.',
    example: 'xdpsock',
    observe: (e) => {
      const s = snap(e, 200);
      if ('error' in s) return s;
      const u = s.xsk?.umem;
      if (!u) return { error: 'no AF_XDP socket on this machine' };
      const start = u.unaligned ? 5000 : Math.floor(5000 / u.chunkSize) * u.chunkSize;
      return { value: start, shown: `${start} (chunk size ${u.chunkSize}, ${u.unaligned ? 'unaligned' : 'aligned'} mode, ${u.frames} chunks)` };
    },
    wrongAnswer: '5000', rightAnswer: '4096',
  },
  {
    kind: 'predict', id: 'predict-vmxnet3-data-ring', title: 'Predict: vmxnet3\'s data ring for small frames', topic: 'mechanisms',
    statement: 'On vmxnet3 the hypervisor copies frames smaller than 128 bytes into an rx data ring instead of the posted buffer, and the driver must copy them out again into a page before XDP runs. Run xdp_redirect_cpu with 60-byte frames: which function shows up in the profile that 1000-byte frames do not need?',
    question: 'the function only small frames need',
    choices: ['memcpy_erms', 'get_page_from_freelist', 'mlx4_en_xmit_doorbell', 'xsk_rcv'],
    hints: ['Small frames take an extra copy.', 'Compare the profile at 60 and at 1000 bytes per frame.'],
    solution: 'memcpy_erms: vmxnet3_process_xdp_small copies each small frame out of the data ring into a page_pool page. Large frames arrive in the posted page itself and need no copy.',
    example: 'xdp_redirect_cpu', settings: { traffic: { frameSize: 60 } },
    observe: (e) => {
      const small = snap(e, 3000);
      if ('error' in small) return small;
      const r = e.simConfigure({ traffic: { frameSize: 1000 } });
      if (!r.ok) return { error: r.reason };
      const big = snap(e, 3000);
      if ('error' in big) return big;
      const inBig = new Set(big.profile.filter((p) => p.percent >= 0.5).map((p) => p.symbol));
      const only = small.profile.find((p) => p.percent >= 1 && !inBig.has(p.symbol) && !IDLE.test(p.symbol));
      return only ? { value: only.symbol, shown: `${only.symbol} at ${only.percent.toFixed(1)} % with 60-byte frames, absent with 1000-byte frames` } : { error: 'no difference in the profile' };
    },
    wrongAnswer: 'get_page_from_freelist', rightAnswer: 'memcpy_erms',
  },
];
