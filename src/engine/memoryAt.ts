/**
 * The packet inspector's memory view: a replayed run's steps folded into
 * the packet and frame 0's stack as the program saw them after step k. Pure
 * and free of the VM, so the UI thread (the Packet pane) imports it without
 * loading the VM or the simulator.
 */
import type { PacketDetail } from './inspect';

/** The program's view of memory after step k: the packet and frame 0's stack, as written so far. */
export interface MemoryAt {
  /** Packet bytes (hex), starting at data. */
  packetHex: string;
  /** Packet byte offsets written by steps 0..k. */
  packetWritten: Set<number>;
  /** Bytes touched by step k itself: [offset, offset + size) in the packet, or null. */
  packetTouched: [number, number] | null;
  /** frame 0's stack, 8-byte slots written so far, highest first: fp-8, fp-16, … */
  stack: { fpOff: number; hex: string; touched: boolean }[];
}

/**
 * Fold the steps' memory accesses up to step k into the packet and frame
 * 0's stack as the program sees them then (both start as the packet before
 * the run and a zeroed stack). Reads show where the program looked; writes
 * change the bytes. Offsets are from data as the run began: a program that
 * moves data (bpf_xdp_adjust_head) sees them shifted.
 */
export function memoryAt(run: NonNullable<PacketDetail['run']>, k: number): MemoryAt {
  const packet = run.before.hex.match(/../g) ?? [];
  const packetWritten = new Set<number>();
  const stack = new Map<number, string[]>();
  let packetTouched: [number, number] | null = null;
  let touchedSlots = new Set<number>();
  const last = Math.min(k, run.steps.length - 1);
  for (let i = 0; i <= last; i++) {
    const m = run.steps[i]!.mem;
    if (!m) continue;
    const bytes = m.hex.match(/../g) ?? [];
    if (m.kind === 'packet') {
      if (i === last) packetTouched = [m.offset, m.offset + m.size];
      if (!m.write) continue;
      for (let b = 0; b < bytes.length; b++) {
        packet[m.offset + b] = bytes[b]!;
        packetWritten.add(m.offset + b);
      }
    } else if (m.kind === 'stack' && m.region.endsWith('[frame 0]')) {
      if (i === last) touchedSlots = new Set(slotsOf(m.offset, m.size));
      if (!m.write) continue;
      for (let b = 0; b < bytes.length; b++) {
        const at = m.offset + b;
        const slot = Math.floor(at / 8) * 8;
        const cells = stack.get(slot) ?? Array.from({ length: 8 }, () => '00');
        cells[at - slot] = bytes[b]!;
        stack.set(slot, cells);
      }
    }
  }
  return {
    packetHex: packet.join(''),
    packetWritten,
    packetTouched,
    stack: [...stack.entries()].sort((a, b) => b[0] - a[0]).map(([fpOff, cells]) => ({ fpOff, hex: cells.join(''), touched: touchedSlots.has(fpOff) })),
  };
}

function slotsOf(offset: number, size: number): number[] {
  const out: number[] = [];
  for (let s = Math.floor(offset / 8) * 8; s < offset + size; s += 8) out.push(s);
  return out;
}
