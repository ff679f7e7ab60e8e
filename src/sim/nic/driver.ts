/**
 * What the simulation needs from a driver model, whichever NIC it is: the
 * NIC side (a frame arrives), the CPU side (one NAPI step), control
 * (attach/MTU), and enough introspection for snapshots and the invariant
 * checker (every page reference the driver holds).
 */
import type { Cpu } from '../machine';
import type { PageLoc } from '../page_alloc';
import type { XdpBuff, XdpHook } from '../program';
import type { SocketQueue } from '../stack';
import type { RxRing } from './mlx4';

export type RedirectHandler = (cpu: Cpu, ring: RxRing, x: XdpBuff, page: number, packet: number) => boolean;
export type AttachResult = { ok: true; restarted: boolean } | { ok: false; message: string };
export type MtuResult = { ok: true } | { ok: false; message: string };

export interface NicDriver {
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
  nicReceive(ring: number, frame: Uint8Array, packet: number, t: number): void;
  step(cpu: Cpu): void;
  setXdp(prog: XdpHook | null): AttachResult;
  changeMtu(mtu: number): MtuResult;
  /** Visit every page reference held (rings, caches, pools, queues) for the invariant checker. */
  forEachPageRef(visit: (page: number, loc: PageLoc, what: string) => void): void;
  /** The ring's page recycling store for the UI: mlx4's page cache, or the page_pool (cache + ptr_ring). */
  cacheView(ring: number): { kind: 'mlx4_page_cache' | 'page_pool'; size: number; level: number; pages: number[] };
  /** Checks beyond pages and packets (AF_XDP: every UMEM chunk in exactly one place). */
  extraInvariants?(): string[];
  /** Frames inside the driver that have a verdict but no final fate yet, beyond the tx rings (e.g. redirect queues). */
  framesInTransit(): number;
}
