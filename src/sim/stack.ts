/**
 * The network stack as the driver sees it: a consumer of skbs that frees
 * their pages sooner or later. Two models, both from the seeds' setups:
 * the iptables raw-table drop (the skb dies inside the softirq, paid for by
 * the NAPI CPU) and a UDP socket drained by an application on another CPU
 * (the page stays with the stack until the application has read it; a full
 * receive buffer drops).
 */
import type { StackSinkConfig } from './config';

export class SocketQueue {
  /** Pages held by queued skbs, FIFO. */
  pages: number[] = [];
  packets: number[] = [];
  freeAt: number[] = [];
  head = 0;
  lastFreeAt = 0;
  constructor(
    readonly cfg: Extract<StackSinkConfig, { kind: 'socket' }>,
    readonly cyclesPerPacket: number,
  ) {}

  get length(): number {
    return this.pages.length - this.head;
  }

  /** Queue an skb at time `now`; false when the receive buffer is full. */
  enqueue(page: number, packet: number, now: number): boolean {
    if (this.length >= this.cfg.rcvbufPackets) return false;
    const at = Math.max(now, this.lastFreeAt) + this.cyclesPerPacket;
    this.lastFreeAt = at;
    this.pages.push(page);
    this.packets.push(packet);
    this.freeAt.push(at);
    return true;
  }

  /** Pop the next skb the application has consumed by `now`, or -1. */
  reap(now: number): number {
    if (this.head >= this.pages.length || this.freeAt[this.head]! > now) return -1;
    const p = this.pages[this.head]!;
    this.head++;
    if (this.head > 4096 && this.head * 2 > this.pages.length) {
      this.pages = this.pages.slice(this.head);
      this.packets = this.packets.slice(this.head);
      this.freeAt = this.freeAt.slice(this.head);
      this.head = 0;
    }
    return p;
  }

  peekPacket(): number {
    return this.packets[this.head] ?? -1;
  }

  held(): number[] {
    return this.pages.slice(this.head);
  }
}
