/**
 * Simulation configuration: one plain JSON-able object (plus the program
 * hook), so the UI, the CLI and the scenario registry describe a run the
 * same way, and a replay rebuilds the same machine from it.
 */
import type { TrafficSpec } from '../net/traffic';
import type { HardwareProfile } from './hw';
import { MAX_FRAME_BUFFER, type XdpHook } from './program';
import { MAX_ORDER, PAGE_STRIDE } from './page_alloc';
import { HARDWARE_PROFILES, SEED2016_E5 } from './hw';

/** What the network stack does with an skb (XDP_PASS, or every packet without XDP). */
export type StackSinkConfig =
  /** iptables -t raw -j DROP: the seed's baseline; the skb is freed in the softirq. */
  | { kind: 'iptables-raw-drop' }
  /** A UDP socket drained by an application on another CPU at `appPps`; rcvbuf holds `rcvbufPackets`. */
  | { kind: 'socket'; appPps: number; rcvbufPackets: number };

/** An AF_XDP socket bound to queue 0 (seed 001) and its application, xdpsock, on a CPU of its own. */
export interface XskConfig {
  mode: 'zc' | 'copy' | 'skb';
  app: 'rxdrop' | 'txonly' | 'l2fwd';
  /** UMEM chunk size: 2048 or 4096 (unaligned: any size in 2048..4096). */
  chunkSize: number;
  /** UMEM frame headroom (XDP_UMEM's headroom; xdpsock's default 0). */
  headroom: number;
  unaligned: boolean;
  /** UMEM frames (xdpsock's NUM_FRAMES 4096). */
  frames: number;
  /** Entries per ring (XSK_RING_{PROD,CONS}__DEFAULT_NUM_DESCS 2048). */
  ringSize: number;
}

export interface SimConfig {
  /** An AF_XDP socket on queue 0 (i40e only); adds the application's CPU. */
  xsk?: Partial<XskConfig> & Pick<XskConfig, 'mode'>;
  /** The NIC driver model (default mlx4: seed 000/003; vmxnet3: seed 004; i40e: seed 001/002). */
  driver?: Driver;
  /**
   * Where XDP_REDIRECT goes when no handler is set: nowhere (redirect error),
   * a cpumap whose CPU drops (seed 004's xdp_redirect_cpu -e drop), or a
   * devmap entry for a second port of the same NIC ('devmap-port'), an i40e
   * port ('devmap-i40e') or a veth whose peer runs XDP_DROP ('devmap-veth').
   */
  redirectTarget?: RedirectTarget;
  /** A program on the devmap entry (BPF_XDP_DEVMAP; seed 002's "2nd xdp_prog"). */
  devmapProg?: boolean;
  /** The devmap entry's program, required with devmapProg (runScenario passes its resolver's 'xdp_redirect_map_egress'). */
  devmapProgram?: XdpHook;
  /** The veth peer's program, required with 'devmap-veth' unless redirectTargetXdp is false (runScenario passes its resolver's 'xdp_drop'). */
  vethPeerProgram?: XdpHook;
  /** Seed 002's patch: the devmap program runs when the bulk queue is flushed (default) instead of at enqueue. */
  devmapFlushPatch?: boolean;
  /** Whether the devmap target can send XDP frames (default true; false: every redirect fails with -ENXIO). */
  redirectTargetXdp?: boolean;
  /** How a program attaches: 'native' (in the driver) or 'generic' (skb mode, after the skb is built). */
  xdpMode?: 'native' | 'generic';
  /** Hardware profile name (HARDWARE_PROFILES) or a full profile. */
  hw?: string | HardwareProfile;
  /** rx queues, one per CPU (RSS spreads flows over them). */
  queues?: number;
  /** rx descriptor ring size (power of two). Small by default so every slot is visible. */
  rxRingSize?: number;
  /** XDP tx ring size (power of two). */
  txRingSize?: number;
  mtu?: number;
  /** ethtool -C rx-frames / rx-usecs (default: the hardware profile's, mlx4's 44 frames / 16 us). */
  rxCoalFrames?: number;
  rxCoalUsecs?: number;
  /** mlx4's per-ring page cache (seed 000 patch 07). */
  pageCache?: boolean;
  /**
   * rx buffers with a program attached: 'order0' (one page per packet, as
   * merged) or 'frags' (order-3 fragments, the series before patch 07:
   * no XDP_TX, no page cache possible).
   */
  xdpRxMode?: 'order0' | 'frags';
  /** Host memory in 4 KiB pages (multiple of 8). */
  memoryPages?: number;
  traffic: TrafficSpec;
  stack?: StackSinkConfig;
  seed?: number;
  /** Record events (off is faster; counters and profile are always kept). */
  trace?: boolean;
  /** Keep trace records in memory (else only hash and count them). */
  keepTrace?: boolean;
}

export type Driver = 'mlx4' | 'vmxnet3' | 'i40e';
export type RedirectTarget = 'none' | 'cpumap-drop' | 'devmap-port' | 'devmap-i40e' | 'devmap-veth';

export interface ResolvedConfig {
  xsk: XskConfig | null;
  driver: Driver;
  xdpMode: 'native' | 'generic';
  redirectTarget: RedirectTarget;
  devmapProg: boolean;
  devmapProgram: XdpHook | null;
  vethPeerProgram: XdpHook | null;
  devmapFlushPatch: boolean;
  redirectTargetXdp: boolean;
  hw: HardwareProfile;
  queues: number;
  rxRingSize: number;
  txRingSize: number;
  mtu: number;
  rxCoalFrames: number;
  rxCoalUsecs: number;
  pageCache: boolean;
  xdpRxMode: 'order0' | 'frags';
  memoryPages: number;
  traffic: TrafficSpec;
  stack: StackSinkConfig;
  seed: number;
  trace: boolean;
  keepTrace: boolean;
}

function pow2(n: number): boolean {
  return Number.isInteger(n) && n >= 2 && (n & (n - 1)) === 0;
}

/** The page pool's limit: frames live in buffers of at most MAX_FRAME_BUFFER bytes (program.ts). */
export const MAX_MEMORY_PAGES = (Math.floor(MAX_FRAME_BUFFER / PAGE_STRIDE) >> MAX_ORDER) << MAX_ORDER;

/** Fill defaults and check ranges; throws Error with one line naming the problem. */
export function resolveConfig(c: SimConfig): ResolvedConfig {
  const hw = typeof c.hw === 'object' ? c.hw : HARDWARE_PROFILES[c.hw ?? SEED2016_E5.name];
  if (!hw) throw new Error(`unknown hardware profile '${String(c.hw)}' (known: ${Object.keys(HARDWARE_PROFILES).join(', ')})`);
  const r: ResolvedConfig = {
    xsk: c.xsk ? { app: 'l2fwd', chunkSize: 2048, headroom: 0, unaligned: false, frames: 4096, ringSize: 2048, ...c.xsk } : null,
    driver: c.driver ?? 'mlx4',
    xdpMode: c.xdpMode ?? 'native',
    redirectTarget: c.redirectTarget ?? 'none',
    devmapProg: c.devmapProg ?? false,
    devmapProgram: c.devmapProgram ?? null,
    vethPeerProgram: c.vethPeerProgram ?? null,
    devmapFlushPatch: c.devmapFlushPatch ?? true,
    redirectTargetXdp: c.redirectTargetXdp ?? true,
    hw,
    queues: c.queues ?? 1,
    rxRingSize: c.rxRingSize ?? 16,
    txRingSize: c.txRingSize ?? 16,
    mtu: c.mtu ?? 1500,
    // A teaching-size ring smaller than the moderation target would overflow
    // while the timer runs; default it to a quarter of the ring instead.
    rxCoalFrames: c.rxCoalFrames ?? Math.max(1, Math.min(hw.rxCoalFrames, (c.rxRingSize ?? 16) >> 2)),
    rxCoalUsecs: c.rxCoalUsecs ?? hw.rxCoalUsecs,
    pageCache: c.pageCache ?? true,
    xdpRxMode: c.xdpRxMode ?? 'order0',
    memoryPages: c.memoryPages ?? 4096,
    traffic: c.traffic,
    stack: c.stack ?? { kind: 'iptables-raw-drop' },
    seed: c.seed ?? 1,
    trace: c.trace ?? true,
    keepTrace: c.keepTrace ?? c.trace ?? true,
  };
  if (r.driver !== 'mlx4' && r.driver !== 'vmxnet3' && r.driver !== 'i40e') throw new Error(`unknown driver '${String(r.driver)}' (known: mlx4, vmxnet3, i40e)`);
  if (r.xdpMode === 'generic' && r.driver === 'mlx4') throw new Error('generic (skb-mode) XDP is modelled on the vmxnet3 and i40e drivers only');
  if (r.redirectTarget.startsWith('devmap') && r.driver === 'vmxnet3') throw new Error(`redirect target '${r.redirectTarget}' is modelled on the mlx4 and i40e drivers only`);
  if (r.xsk && r.driver !== 'i40e') throw new Error('AF_XDP is modelled on the i40e driver only');
  if (r.devmapProg && r.redirectTarget.startsWith('devmap') && !r.devmapProgram) throw new Error('devmapProg needs devmapProgram: the program to run on the devmap entry');
  if (r.redirectTarget === 'devmap-veth' && r.redirectTargetXdp && !r.vethPeerProgram) throw new Error("redirect target 'devmap-veth' needs vethPeerProgram: the veth peer's XDP program (or redirectTargetXdp: false)");
  if (r.xsk && c.queues !== undefined && c.queues !== 1) throw new Error('AF_XDP: one queue (the socket is bound to queue 0)');
  if (!Number.isInteger(r.queues) || r.queues < 1 || r.queues > 64) throw new Error(`queues must be 1..64, got ${r.queues}`);
  if (!pow2(r.rxRingSize) || r.rxRingSize > 8192) throw new Error(`rxRingSize must be a power of two up to 8192, got ${r.rxRingSize}`);
  if (!pow2(r.txRingSize) || r.txRingSize > 8192) throw new Error(`txRingSize must be a power of two up to 8192, got ${r.txRingSize}`);
  if (!Number.isInteger(r.mtu) || r.mtu < 68 || r.mtu > 9600) throw new Error(`mtu must be 68..9600, got ${r.mtu}`);
  if (!Number.isInteger(r.rxCoalFrames) || r.rxCoalFrames < 1) throw new Error(`rxCoalFrames must be a positive integer, got ${r.rxCoalFrames}`);
  if (!(r.rxCoalUsecs >= 0)) throw new Error(`rxCoalUsecs must be >= 0, got ${r.rxCoalUsecs}`);
  if (!Number.isInteger(r.memoryPages) || r.memoryPages < 64 || r.memoryPages % 8 !== 0 || r.memoryPages > MAX_MEMORY_PAGES) throw new Error(`memoryPages must be a multiple of 8 from 64 to ${MAX_MEMORY_PAGES}, got ${r.memoryPages}`);
  if (r.xsk && !(r.xsk.frames * r.xsk.chunkSize <= MAX_FRAME_BUFFER)) throw new Error(`xsk: a UMEM of ${r.xsk.frames} frames of ${r.xsk.chunkSize} bytes is over the ${MAX_FRAME_BUFFER} bytes the VM takes frames in`);
  if (r.xdpRxMode === 'frags' && r.pageCache) r.pageCache = false; // the cache only holds whole order-0 pages
  return r;
}
