/**
 * The VM's address space: a table of regions (ctx, packet, stack frames, map
 * values, raw memory), each with bounds and a write permission. A pointer is
 * a 64-bit value whose high word tags the region and whose low word is
 * LO_BASE + offset, so a load or store resolves in O(1) and pointer
 * arithmetic, comparison and subtraction behave as on real addresses.
 * Region tags are spaced 8 apart so that a carry or borrow out of the low
 * word lands on no region and faults instead of silently moving to another.
 */

export type RegionKind = 'ctx' | 'packet' | 'stack' | 'map_value' | 'map' | 'mem';

export interface Region {
  readonly id: number;
  readonly kind: RegionKind;
  /** Human name for faults: "packet", "stack[frame 1]", "map_value(counters)". */
  readonly name: string;
  bytes: Uint8Array;
  dv: DataView;
  /** Accessible byte range [start, end) within bytes (the packet's moves with adjust_head/tail). */
  start: number;
  end: number;
  writable: boolean;
  /** A map value of a BPF_F_WRONLY_PROG map: the program may write but not read it. */
  noRead: boolean;
  /** Plain bytes a load or store may touch directly (not ctx, whose loads are rewritten, nor a map, which has no bytes). */
  readonly direct: boolean;
  /** For kind 'map': the map's index in the program's map list. */
  mapIndex?: number;
  /**
   * Lowest byte offset written since the last clearStack (every write path
   * lowers it: the interpreter's and the JIT's stores, resolve for writes,
   * bytesAt for helpers), so a stack frame is re-zeroed only where it was used.
   */
  dirtyLo: number;
  /** Stacks only: per 8-byte slot, the provenance (region id) of a pointer spilled there, else 0. */
  spill: Int32Array | undefined;
}

/** Zero the bytes a run may have written ([dirtyLo, end)): each run's stack frames start zeroed. */
export function clearStack(r: Region): void {
  const n = r.bytes.length;
  if (r.dirtyLo < n) {
    r.bytes.fill(0, r.dirtyLo);
    if (r.spill) r.spill.fill(0, r.dirtyLo >> 3);
    r.dirtyLo = n;
  }
}

export const HI_BASE = 0x7f000000;
export const LO_BASE = 0x40000000;
const TAG_STEP = 8;

/** Raised inside the interpreter; the run loop turns it into a result, never lets it escape. */
export class VmFault extends Error {
  constructor(
    readonly pc: number,
    readonly kind: 'oob' | 'invalid_ptr' | 'readonly' | 'ctx' | 'budget' | 'call_depth' | 'invalid_insn' | 'helper',
    message: string,
    readonly reg?: number,
    readonly region?: string,
  ) {
    super(message);
  }
}

export class RegionTable {
  /** By id; slot 0 is no region. Read directly by the JIT's inline pointer checks (the same test as byHi). */
  readonly regions: (Region | undefined)[] = [undefined];
  private readonly byBuffer = new WeakMap<Uint8Array, Region>();

  add(kind: RegionKind, name: string, bytes: Uint8Array, writable: boolean): Region {
    const r: Region = {
      id: this.regions.length,
      kind,
      name,
      bytes,
      dv: new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength),
      start: 0,
      end: bytes.length,
      writable,
      noRead: false,
      direct: kind !== 'ctx' && kind !== 'map',
      // Present from the start so every region has one shape (the JIT's inline checks stay monomorphic).
      mapIndex: undefined,
      // Unknown contents: the first clearStack zeroes it all.
      dirtyLo: 0,
      spill: undefined,
    };
    this.regions.push(r);
    return r;
  }

  /** The region for a live buffer (map values), created once per buffer. */
  forBuffer(kind: RegionKind, name: string, bytes: Uint8Array, writable: boolean): Region {
    let r = this.byBuffer.get(bytes);
    if (!r) {
      r = this.add(kind, name, bytes, writable);
      this.byBuffer.set(bytes, r);
    }
    return r;
  }

  /**
   * Point an existing region at a new buffer (the packet page of each run).
   * A caller that cycles through a fixed set of buffers (the simulator's
   * pages) passes each one's DataView, made once, so a run allocates nothing;
   * it must view exactly `bytes` (not checked here: DataView's buffer,
   * byteOffset and byteLength are getters, too slow for every packet).
   */
  rebind(r: Region, bytes: Uint8Array, dv?: DataView): void {
    if (r.bytes === bytes) return;
    r.bytes = bytes;
    r.dirtyLo = 0;
    r.dv = dv ?? new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  /** The region a pointer's high word tags, or undefined for a scalar. */
  byHi(hi: number): Region | undefined {
    const d = hi - HI_BASE;
    if (d <= 0 || (d & (TAG_STEP - 1)) !== 0) return undefined;
    return this.regions[d >> 3];
  }

  get(id: number): Region | undefined {
    return this.regions[id];
  }
}

export function hiOf(r: Region): number {
  return (HI_BASE + r.id * TAG_STEP) | 0;
}

/** The pointer (lo word) to byte `off` of a region. */
export function loOf(off: number): number {
  return (LO_BASE + off) | 0;
}
