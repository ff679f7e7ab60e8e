/**
 * The simulation's heartbeat inside the worker. The engine is pure and
 * never looks at a clock; this loop does: it turns wall time into a number
 * of simulated events (speed = events per second, or 'max'), runs them in
 * slices short enough that requests (a rebuild while typing) are answered
 * promptly, and posts at most one snapshot per display frame.
 */
import type { EngineApi, EngineEvent, Speed } from '../engine/api';

export interface LoopHost {
  now(): number;
  schedule(fn: () => void, ms: number): void;
  post(e: EngineEvent): void;
}

/** Work per slice at full speed: long enough to be efficient, short enough to stay responsive. */
export const SLICE_MS = 10;
/**
 * Snapshots at most 30 times a second (DESIGN.md: ≤ 60 Hz): counters and
 * rings read fine at 30 Hz, and it halves the UI thread's work per second.
 */
export const SNAPSHOT_INTERVAL_MS = 1000 / 30;

export class RunLoop {
  running = false;
  speed: Speed = 'max';
  private scheduled = false;
  private last = 0;
  private lastPost = -Infinity;
  /** Fractional events owed at slow speeds. */
  private carry = 0;
  /** Events per SLICE_MS at full speed, learned as we go. */
  private chunk = 200;
  /** The fraction of wall time a full-speed run may take (1: all of it), and until when (host clock) a lower one holds. */
  private share = 1;
  private shareUntil = -Infinity;

  constructor(private readonly engine: EngineApi, private readonly host: LoopHost) {}

  set(running: boolean, speed: Speed): { running: boolean; speed: Speed } {
    this.speed = speed;
    if (running && !this.running) {
      this.running = true;
      this.last = this.host.now();
      this.carry = 0;
      this.kick();
    } else if (!running && this.running) {
      this.running = false;
      // The last slice's snapshot may have been held back by the frame limit: show where the machine stopped.
      this.maybePost(true);
    }
    this.host.post({ type: 'run', running: this.running, speed: this.speed });
    return { running: this.running, speed: this.speed };
  }

  /**
   * Let a full-speed run take at most `share` of the wall clock, for at
   * most `forMs` from now (then all of it again). While the app starts, the
   * editor's 3 MB compile and the first build need the machine's cores more
   * than the simulation needs to be at full speed: on two cores a loop that
   * never sleeps holds one of them from the first snapshot on. The UI lifts
   * it (share 1) once the editor is up; the deadline covers an editor that
   * never comes.
   */
  setShare(share: number, forMs: number): void {
    this.share = Math.min(1, Math.max(0.05, share));
    this.shareUntil = this.share < 1 ? this.host.now() + forMs : -Infinity;
  }

  private kick(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    this.host.schedule(() => {
      this.scheduled = false;
      this.tick();
    }, 0);
  }

  private stop(reason: string): void {
    this.running = false;
    this.host.post({ type: 'run', running: false, speed: this.speed, reason });
  }

  tick(): void {
    if (!this.running) return;
    const start = this.host.now();
    const elapsed = start - this.last;
    this.last = start;
    let ranAny = false;
    if (this.speed === 'max') {
      // Run chunks until the slice is used up; adapt the chunk to the machine.
      while (this.host.now() - start < SLICE_MS) {
        const asked = this.chunk;
        const t0 = this.host.now();
        const r = this.engine.simStep('event', asked);
        if (!r.ok) return this.stop(r.reason);
        const dt = this.host.now() - t0;
        // Aim for chunks of half a slice, so a slice ends close to SLICE_MS.
        this.chunk = dt > 0 ? Math.max(10, Math.min(200_000, Math.round((asked * SLICE_MS) / 2 / dt))) : Math.min(200_000, asked * 2);
        ranAny = true;
        if ((r.ran ?? 0) < asked) return this.finish();
      }
    } else {
      this.carry += (elapsed * this.speed) / 1000;
      const n = Math.floor(this.carry);
      if (n > 0) {
        this.carry -= n;
        const r = this.engine.simStep('event', Math.min(n, this.chunk * 4));
        if (!r.ok) return this.stop(r.reason);
        ranAny = true;
        if ((r.ran ?? 0) < Math.min(n, this.chunk * 4)) return this.finish();
      }
    }
    if (ranAny) this.maybePost(false);
    this.host.schedule(() => this.tick(), this.speed === 'max' ? this.restAfter(start) : Math.max(4, Math.min(100, 1000 / this.speed)));
  }

  /** How long a full-speed slice that began at `start` rests before the next, to keep to the share (0 at a share of 1). */
  private restAfter(start: number): number {
    const now = this.host.now();
    if (this.share >= 1 || now >= this.shareUntil) return 0;
    return ((now - start) * (1 - this.share)) / this.share;
  }

  private finish(): void {
    this.maybePost(true);
    this.stop('the traffic ran out');
  }

  /** Post the current snapshot if a frame has passed (or always, when forced). */
  maybePost(force: boolean): void {
    const now = this.host.now();
    if (!force && now - this.lastPost < SNAPSHOT_INTERVAL_MS) return;
    const r = this.engine.simSnapshot();
    if (!r.ok) return;
    this.lastPost = now;
    this.host.post({ type: 'snapshot', snapshot: r.snapshot });
    const lines = this.engine.drainPrintk();
    if (lines.length) this.host.post({ type: 'log', text: lines.join('').replace(/\n$/, '') });
  }
}
