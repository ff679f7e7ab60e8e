/**
 * xdpdump in the lab: a capture of what the attached program saw and did.
 * While capturing, every run of the program is kept (the frame before and
 * after, the verdict) and matched with the driver's xdp_run trace record
 * of the same run (the packet, its queue, CPU and time: both are made in
 * the order the program runs, one each per run). The file is pcapng with
 * two interfaces like xdpdump's `--rx-capture entry,exit` (the frame at
 * the program's entry and at its exit), each packet commented with its
 * number and the program's verdict; or classic pcap, the same frames
 * without comments.
 */
import { writePcap, writePcapng, type PcapngPacket } from '../net';
import type { TraceEvent } from '../sim';
import type { RunRecord } from './vmHook';

/** Most runs one capture keeps (a capture left on at full speed stops growing here). */
export const XDPDUMP_MAX_PACKETS = 20_000;

const ACTIONS = ['XDP_ABORTED', 'XDP_DROP', 'XDP_PASS', 'XDP_TX', 'XDP_REDIRECT'];

export interface XdpDumpStatus {
  capturing: boolean;
  /** Runs captured (each is two frames in the file: entry and exit). */
  packets: number;
  /** The capture reached XDPDUMP_MAX_PACKETS and stopped growing. */
  full: boolean;
}

export interface XdpDumpMeta {
  /** The device as the file names it (e.g. mlx4). */
  ifname: string;
  program: string;
  cyclesPerNs: number;
}

export class XdpDumpCapture {
  private readonly runs: RunRecord[] = [];
  private readonly seen: Pick<TraceEvent, 'packet' | 'cycle' | 'cpu' | 'queue'>[] = [];
  capturing = true;

  /** The trace record after the last one looked at. */
  constructor(public traceSeq: number) {}

  get full(): boolean {
    return this.runs.length >= XDPDUMP_MAX_PACKETS;
  }

  /** A run of the program (from the instance's tap). */
  run(rec: RunRecord): void {
    if (this.capturing && !this.full) this.runs.push(rec);
  }

  /** Trace records since the last look: each xdp_run is the driver's side of one run. */
  see(events: readonly TraceEvent[]): void {
    for (const e of events) {
      if (e.seq < this.traceSeq) continue;
      this.traceSeq = e.seq + 1;
      if (e.kind === 'xdp_run' && this.seen.length < this.runs.length) this.seen.push({ packet: e.packet, cycle: e.cycle, cpu: e.cpu, queue: e.queue });
    }
  }

  status(): XdpDumpStatus {
    return { capturing: this.capturing, packets: Math.min(this.runs.length, this.seen.length), full: this.full };
  }

  /** The capture as a file. */
  file(format: 'pcapng' | 'pcap', meta: XdpDumpMeta): { bytes: Uint8Array; packets: number } {
    const n = Math.min(this.runs.length, this.seen.length);
    if (format === 'pcap') {
      const recs = [];
      for (let i = 0; i < n; i++) {
        const tsNs = this.seen[i]!.cycle / meta.cyclesPerNs;
        recs.push({ tsNs, data: this.runs[i]!.before }, { tsNs, data: this.runs[i]!.after });
      }
      return { bytes: writePcap(recs), packets: n };
    }
    const packets: PcapngPacket[] = [];
    for (let i = 0; i < n; i++) {
      const r = this.runs[i]!;
      const e = this.seen[i]!;
      const tsNs = e.cycle / meta.cyclesPerNs;
      const verdict = ACTIONS[r.retval] ?? `unknown action ${r.retval}`;
      packets.push({ iface: 0, tsNs, data: r.before, comment: `packet #${e.packet} rx queue ${e.queue} cpu ${e.cpu}: entry of ${meta.program}` });
      packets.push({ iface: 1, tsNs, data: r.after, comment: `packet #${e.packet}: ${verdict} (${r.retval}) after ${r.insns} instructions${r.fault ? `, fault: ${r.fault}` : ''}` });
    }
    const bytes = writePcapng([{ name: `${meta.ifname}@entry` }, { name: `${meta.ifname}@exit` }], packets, { comment: `xdpdump (XDP Lab): ${meta.program}, --rx-capture entry,exit; simulated time` });
    return { bytes, packets: n };
  }
}
