/**
 * What the simulation needs from a driver model, whichever NIC it is: its
 * rx rings and where a received frame's bytes go (the NIC side of an
 * arrival is napi.ts nic_receive, on the ring), the CPU side (one NAPI
 * step), control (attach/MTU), and enough introspection for snapshots, the
 * engine's views (the redirect target, the AF_XDP socket) and the
 * invariant checker (every page reference the driver holds). Callers never
 * need to know which driver class they hold.
 */
import type { Cpu } from '../machine';
import type { PageLoc } from '../page_alloc';
import type { XdpBuff, XdpHook } from '../program';
import type { SocketQueue } from '../stack';
import type { DevmapTarget } from '../devmap';
import type { CpumapTarget } from '../cpumap';
import type { XskConfig } from '../config';
import type { XdpUmem, XskQueue, xsk_statistics } from '../xsk';
import type { RxRing } from './rx_ring';
import type { RxDma } from './napi';

export type RedirectHandler = (cpu: Cpu, ring: RxRing, x: XdpBuff, page: number, packet: number) => boolean;
export type AttachResult = { ok: true; restarted: boolean } | { ok: false; message: string };
export type MtuResult = { ok: true } | { ok: false; message: string };

/** Where XDP_REDIRECT sends frames: a devmap entry (a port or a veth) or a cpumap (a remote CPU). */
export type RedirectTarget = DevmapTarget | CpumapTarget;

/** An AF_XDP socket bound to a queue, as views read it: the UMEM, its four rings and the chunks the driver holds. */
export interface AfXdpSocket {
  readonly xsk: XskConfig;
  readonly umem: XdpUmem;
  readonly fq: XskQueue;
  readonly rx: XskQueue;
  readonly tx: XskQueue;
  readonly cq: XskQueue;
  /** XDP_STATISTICS. */
  statistics(): ReturnType<typeof xsk_statistics>;
  /** Zero-copy: times the driver found the fill ring empty when posting rx buffers. */
  fillRingEmpty(): number;
  /** UMEM chunks on no ring: on a NIC rx or tx descriptor, or the application's. */
  forEachHeldChunk(visit: (addr: number, where: 'nic_rx' | 'nic_tx' | 'app') => void): void;
}

/** A frame arriving is the NIC's (napi.ts nic_receive on the ring); the driver says only where its bytes go (RxDma). */
export interface NicDriver extends RxDma {
  readonly kind: 'mlx4' | 'vmxnet3' | 'i40e';
  /** The rx rings (one per queue/CPU), each with its XDP tx ring. */
  readonly rings: RxRing[];
  /** The rx buffer scheme in use (for the UI): e.g. 'frags', 'order0', 'skb', 'page_pool'. */
  readonly mode: string;
  readonly mtu: number;
  readonly warnings: string[];
  readonly sockets: SocketQueue | null;
  readonly prog: XdpHook | null;
  /** Packets the driver has finished with (for stepping by packet). */
  packetsDone: number;
  redirect: RedirectHandler | null;
  step(cpu: Cpu): void;
  setXdp(prog: XdpHook | null): AttachResult;
  changeMtu(mtu: number): MtuResult;
  /** Visit every page reference held (rings, caches, pools, queues) for the invariant checker. */
  forEachPageRef(visit: (page: number, loc: PageLoc, what: string) => void): void;
  /** The ring's page recycling store for the UI: a page cache (mlx4's, i40e's page reuse), or the page_pool (cache + ptr_ring). */
  cacheView(ring: number): { kind: 'mlx4_page_cache' | 'i40e_page_reuse' | 'page_pool'; size: number; level: number; pages: number[] };
  /** Checks beyond pages and packets (AF_XDP: every UMEM chunk in exactly one place). */
  extraInvariants?(): string[];
  /** Frames inside the driver that have a verdict but no final fate yet, beyond the tx rings (e.g. redirect queues). */
  framesInTransit(): number;
  /** XDP_REDIRECT's target (read only, for views), or null when redirects have nowhere to go. */
  redirectTarget(): RedirectTarget | null;
  /** The AF_XDP socket bound to the NIC (read only, for views), or null. */
  afXdp(): AfXdpSocket | null;
}
