/**
 * The engine's hold on the simulated machine: settings, the attached
 * program, uploaded packets, and stepping in both directions. Stepping back
 * replays from reset to one event earlier, which is exact because the
 * simulation is deterministic (DESIGN.md convention 6).
 */
import type { Attach, SimFactory, SimPort } from './toolchain';
import type { HotPath } from './hotPath';
import type { PacketDetail } from './inspect';
import type { XdpDumpStatus } from './xdpdump';
import type { InputFormat } from './mapInput';
import { DEFAULT_SETTINGS, type MapView, type SimSettings, type SimSnapshot, type StepUnit } from './simTypes';

export type SimReply = { ok: true; snapshot: SimSnapshot } | { ok: false; reason: string };

/** Longest replay a step back will do (about a second of work); beyond it, reset to step from the start. */
export const MAX_REPLAY_EVENTS = 500_000;

export class SimSession {
  private port: SimPort | null = null;
  private settings: SimSettings = structuredClone(DEFAULT_SETTINGS);
  private program: Attach = { reason: 'no program yet' };
  private pcap: Uint8Array[] | null = null;

  constructor(private readonly factory: SimFactory) {}

  /** The machine, built on first use. */
  private sim(): SimPort {
    if (!this.port) {
      this.port = this.factory();
      this.port.reset(this.settings, this.program, this.pcap);
    }
    return this.port;
  }

  private reply(): SimReply {
    const snapshot = this.sim().snapshot();
    snapshot.canStepBack = snapshot.events > 0 && snapshot.events <= MAX_REPLAY_EVENTS + 1;
    return { ok: true, snapshot };
  }

  snapshot(): SimReply {
    return this.reply();
  }

  /** Attach a verified program (or detach, saying why); the machine restarts. */
  attach(program: Attach): SimReply {
    this.program = program;
    return this.reset();
  }

  reset(): SimReply {
    this.sim().reset(this.settings, this.program, this.pcap);
    return this.reply();
  }

  configure(patch: { traffic?: Partial<SimSettings['traffic']>; driver?: Partial<SimSettings['driver']> }): SimReply {
    const next = {
      traffic: { ...this.settings.traffic, ...patch.traffic },
      driver: { ...this.settings.driver, ...patch.driver },
    };
    // A machine the simulator cannot build is refused with its reason; the running one carries on.
    const refused = this.sim().check?.(next);
    if (refused) return { ok: false, reason: `these settings are refused: ${refused}` };
    this.settings = next;
    return this.reset();
  }

  /** Replace generated traffic with these frames (null: back to the traffic profile). */
  usePcap(frames: Uint8Array[] | null): SimReply {
    this.pcap = frames;
    return this.reset();
  }

  step(unit: StepUnit, count = 1): SimReply & { ran?: number } {
    const ran = this.sim().advance(unit, count);
    return { ...this.reply(), ran } as SimReply & { ran: number };
  }

  stepBack(): SimReply {
    const s = this.sim();
    const target = s.eventCount() - 1;
    if (target < 0) return this.reply();
    if (target > MAX_REPLAY_EVENTS) return { ok: false, reason: `stepping back replays the run from the start, and ${target.toLocaleString('en')} events is more than ${MAX_REPLAY_EVENTS.toLocaleString('en')}: reset to step from the beginning` };
    s.reset(this.settings, this.program, this.pcap);
    if (target > 0) s.advance('event', target);
    return this.reply();
  }

  inspect(packet: number | null): PacketDetail | { error: string } {
    const s = this.sim();
    if (!s.inspect) return { error: 'packet inspection is not available in this build' };
    return s.inspect(packet);
  }

  hotPath(): HotPath | { error: string } {
    const s = this.sim();
    return s.hotPath ? s.hotPath() : { error: 'the hot path is not available in this build' };
  }

  /** Run the machine until the packet's buffer is back (bounded); the snapshot after, and the packet. */
  followPacket(packet: number): SimReply & { detail: PacketDetail | { error: string } } {
    const s = this.sim();
    const detail = s.followToEnd ? s.followToEnd(packet) : { error: 'following a packet is not available in this build' };
    return { ...this.reply(), detail };
  }

  xdpdump(cmd: 'start' | 'stop' | 'status'): XdpDumpStatus | { error: string } {
    const s = this.sim();
    return s.xdpdump ? s.xdpdump(cmd) : { error: 'xdpdump is not available in this build' };
  }

  xdpdumpFile(format: 'pcapng' | 'pcap'): { ok: true; bytes: Uint8Array; packets: number; name: string } | { ok: false; reason: string } {
    const s = this.sim();
    return s.xdpdumpFile ? s.xdpdumpFile(format) : { ok: false, reason: 'xdpdump is not available in this build' };
  }

  drainPrintk(): string[] {
    return this.port?.drainPrintk?.() ?? [];
  }

  maps(): { ok: true; maps: MapView[] } | { ok: false; reason: string } {
    return { ok: true, maps: this.sim().maps?.(true) ?? [] };
  }

  updateMap(index: number, key: string, value: string, formats?: { key?: InputFormat; value?: InputFormat }): { ok: true; maps: MapView[] } | { ok: false; reason: string } {
    const s = this.sim();
    if (!s.updateMap) return { ok: false, reason: 'maps cannot be edited in this build' };
    const r = s.updateMap(index, key, value, formats);
    return r.ok ? { ok: true, maps: s.maps?.(true) ?? [] } : r;
  }

  currentSettings(): SimSettings {
    return this.settings;
  }
}
