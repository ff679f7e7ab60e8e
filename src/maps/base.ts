/**
 * What the map classes share (src/maps/index.ts, lpm.ts, bloom_filter.ts):
 * the attributes every map has from its spec (type, sizes, flags, the
 * per-CPU layout), the split of a user-space value into per-CPU values, the
 * dump user space reads back, and the refusals of maps whose elements a
 * program reaches only through their own helpers. A module of its own so
 * that the map kinds in other files can extend it without an import cycle
 * through index.ts.
 */
import type { MapType, MapSpec } from '../isa/spec';
import { bytesToHex } from '../isa/insn';
import { EINVAL } from '../isa/errno';
import type { MapDumpEntry } from './index';

export const PERCPU: ReadonlySet<MapType> = new Set(['percpu_array', 'percpu_hash', 'lru_percpu_hash']);

/** Per-cpu values are laid out 8-byte aligned, as the kernel copies them. */
export const stride = (vs: number): number => Math.ceil(vs / 8) * 8;
const isZero = (b: Uint8Array): boolean => b.every((x) => x === 0);

export abstract class MapBase {
  readonly type: MapType;
  readonly name: string;
  readonly keySize: number;
  readonly valueSize: number;
  readonly maxEntries: number;
  readonly percpu: boolean;
  readonly flags: number;
  frozen = false;
  innerCheck?: (value: Uint8Array) => number;
  constructor(
    spec: MapSpec,
    readonly nCpus: number,
  ) {
    this.type = spec.type;
    this.name = spec.name ?? spec.type;
    this.keySize = spec.key_size;
    this.valueSize = spec.value_size;
    this.maxEntries = spec.max_entries;
    this.percpu = PERCPU.has(spec.type);
    this.flags = spec.flags ?? 0;
  }
  abstract keys(): Uint8Array[];
  abstract userLookup(key: Uint8Array): Uint8Array[] | undefined;

  /** Split a user-space value into per-cpu values (one value fills every cpu). */
  protected perCpuValues(value: Uint8Array): Uint8Array[] | undefined {
    if (!this.percpu) return value.length === this.valueSize ? [value] : undefined;
    if (value.length === this.valueSize) return Array.from({ length: this.nCpus }, () => value);
    const s = stride(this.valueSize);
    if (value.length !== s * this.nCpus) return undefined;
    return Array.from({ length: this.nCpus }, (_, c) => value.subarray(c * s, c * s + this.valueSize));
  }

  dump(): { type: MapType; entries: MapDumpEntry[] } {
    const entries: MapDumpEntry[] = [];
    const arrays = this.type === 'array' || this.type === 'percpu_array';
    for (const k of this.keys()) {
      const vals = this.userLookup(k);
      if (!vals) continue;
      if (arrays && vals.every(isZero)) continue;
      entries.push({ key: bytesToHex(k), value: this.percpu ? vals.map((v) => bytesToHex(v)) : bytesToHex(vals[0]!) });
    }
    return { type: this.type, entries };
  }
}

export /**
 * Maps whose elements a program reaches only through their own helpers:
 * the generic lookup, update and delete find nothing and refuse (the
 * verifier refuses those calls on them; the kernel's ops return NULL / -EINVAL).
 */
abstract class HelperOnlyMap extends MapBase {
  lookup(): Uint8Array | undefined {
    return undefined;
  }
  update(): number {
    return -EINVAL;
  }
  delete(): number {
    return -EINVAL;
  }
}

