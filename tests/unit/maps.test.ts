import { describe, expect, it } from 'vitest';
import { createMap, BPF_ANY, BPF_EXIST, BPF_NOEXIST, E2BIG, EEXIST, EINVAL, ENOENT, MapMemory, type BpfMap } from '../../src/maps';
import type { MapSpec } from '../../src/isa';

const u32 = (n: number): Uint8Array => new Uint8Array(new Uint32Array([n]).buffer);
const u64 = (n: number): Uint8Array => new Uint8Array(new BigUint64Array([BigInt(n)]).buffer);
function make(spec: MapSpec, nCpus = 2): BpfMap {
  const m = createMap(spec, { nCpus });
  if ('error' in m) throw new Error(m.error);
  return m;
}

describe('maps follow the kernel', () => {
  it('array: every element exists; NOEXIST is -EEXIST, out of range -E2BIG, delete -EINVAL', () => {
    const m = make({ type: 'array', key_size: 4, value_size: 8, max_entries: 4 });
    expect(m.update(u32(1), u64(5), BPF_NOEXIST, 0)).toBe(-EEXIST);
    expect(m.update(u32(4), u64(5), BPF_ANY, 0)).toBe(-E2BIG);
    expect(m.update(u32(1), u64(5), 3, 0)).toBe(-EINVAL);
    expect(m.update(u32(1), u64(5), BPF_EXIST, 0)).toBe(0);
    expect(m.delete(u32(1))).toBe(-EINVAL);
    expect(m.lookup(u32(4), 0)).toBeUndefined();
    m.lookup(u32(3), 0)![0] = 9; // the lookup is the live value
    expect(m.dump()).toEqual({ type: 'array', entries: [{ key: '01000000', value: '0500000000000000' }, { key: '03000000', value: '0900000000000000' }] });
  });

  it('percpu_array: a program writes its cpu; user space fills every cpu', () => {
    const m = make({ type: 'percpu_array', key_size: 4, value_size: 4, max_entries: 2 });
    expect(m.update(u32(0), u32(7), BPF_ANY, 1)).toBe(0);
    expect(m.dump().entries).toEqual([{ key: '00000000', value: ['00000000', '07000000'] }]);
    expect(m.userUpdate(u32(1), u32(3))).toBe(0);
    expect(m.dump().entries[1]).toEqual({ key: '01000000', value: ['03000000', '03000000'] });
  });

  it('hash: NOEXIST/EXIST, full map -E2BIG, missing delete -ENOENT', () => {
    const m = make({ type: 'hash', key_size: 4, value_size: 8, max_entries: 2 });
    expect(m.update(u32(1), u64(1), BPF_EXIST, 0)).toBe(-ENOENT);
    expect(m.update(u32(1), u64(1), BPF_NOEXIST, 0)).toBe(0);
    expect(m.update(u32(1), u64(2), BPF_NOEXIST, 0)).toBe(-EEXIST);
    expect(m.update(u32(2), u64(2), BPF_ANY, 0)).toBe(0);
    expect(m.update(u32(3), u64(3), BPF_ANY, 0)).toBe(-E2BIG);
    expect(m.update(u32(2), u64(4), BPF_ANY, 0)).toBe(0); // replacing works when full
    expect(m.delete(u32(9))).toBe(-ENOENT);
    expect(m.delete(u32(1))).toBe(0);
    expect(m.lookup(u32(1), 0)).toBeUndefined();
    expect(m.dump().entries).toEqual([{ key: '02000000', value: '0400000000000000' }]);
  });

  it('lru_hash: a full map evicts the least recently used entry', () => {
    const m = make({ type: 'lru_hash', key_size: 4, value_size: 8, max_entries: 2 });
    m.update(u32(1), u64(1), BPF_ANY, 0);
    m.update(u32(2), u64(2), BPF_ANY, 0);
    m.lookup(u32(1), 0); // 2 is now the oldest
    expect(m.update(u32(3), u64(3), BPF_ANY, 0)).toBe(0);
    expect(m.lookup(u32(2), 0)).toBeUndefined();
    expect(m.keys().map((k) => k[0])).toEqual([1, 3]);
  });

  it('devmap: programs cannot update; user space can; missing entries are absent', () => {
    const m = make({ type: 'devmap', key_size: 4, value_size: 4, max_entries: 4 });
    expect(m.update(u32(0), u32(1), BPF_ANY, 0)).toBe(-EINVAL);
    expect(m.userUpdate(u32(2), u32(7))).toBe(0);
    expect(m.lookup(u32(0), 0)).toBeUndefined();
    expect(m.dump().entries).toEqual([{ key: '02000000', value: '07000000' }]);
    expect(m.delete(u32(2))).toBe(0);
    expect(m.delete(u32(2))).toBe(-ENOENT);
  });

  it('rejects bad map specs and init entries with a reason', () => {
    expect(createMap({ type: 'array', key_size: 8, value_size: 4, max_entries: 1 })).toEqual({ error: 'map array: key_size must be 4 (EINVAL)' });
    expect(createMap({ type: 'hash', key_size: 4, value_size: 4, max_entries: 0 })).toEqual({ error: 'map hash: max_entries must be > 0 (EINVAL)' });
    expect(createMap({ type: 'hash', key_size: 4, value_size: 4, max_entries: 1, init: [{ key: 'zz', value: '00000000' }] })).toMatchObject({ error: expect.stringMatching(/init\[0\]\.key/) });
  });
});

describe('map limits (issue 17 item 2)', () => {
  it('refuses what BPF_MAP_CREATE refuses, with the errno', () => {
    const err = (spec: MapSpec): string => {
      const m = createMap(spec);
      return 'error' in m ? m.error : 'created';
    };
    expect(err({ type: 'array', key_size: 4, value_size: 0x7fffffff, max_entries: 0x7fffffff })).toMatch(/value_size 2147483647 is larger than 4194304 \(E2BIG\)/);
    expect(err({ type: 'percpu_array', key_size: 4, value_size: 40000, max_entries: 1 })).toMatch(/\(E2BIG\)/);
    expect(err({ type: 'hash', key_size: 513, value_size: 8, max_entries: 1 })).toMatch(/key_size 513 is larger than 512 \(E2BIG\)/);
    expect(err({ type: 'array', key_size: 8, value_size: 8, max_entries: 1 })).toMatch(/key_size must be 4 \(EINVAL\)/);
    // 4 GiB of legal-looking array: over the per-map budget, refused at once instead of allocating.
    expect(err({ name: 'big', type: 'array', key_size: 4, value_size: 4096, max_entries: 1 << 20 })).toBe(
      'map big: needs 4096 MiB, more than the 64 MiB a map may use (ENOMEM: Cannot allocate memory)',
    );
    expect(err({ type: 'hash', key_size: 4, value_size: 8, max_entries: 2 << 20 })).toMatch(/ENOMEM/);
  });

  it('charges every map of a program to one total budget', () => {
    const memory = new MapMemory(64 << 20, 100 << 20);
    const spec: MapSpec = { name: 'a', type: 'array', key_size: 4, value_size: 1024, max_entries: 40 << 10 }; // 40 MiB
    expect('error' in createMap(spec, { memory })).toBe(false);
    expect('error' in createMap(spec, { memory })).toBe(false);
    const third = createMap(spec, { memory });
    expect('error' in third && third.error).toBe('map a: needs 40 MiB, but only 20 MiB of the 100 MiB for all maps is left (ENOMEM: Cannot allocate memory)');
  });

  it('a large legal array allocates nothing until touched, and dumps only what was written', () => {
    const before = process.memoryUsage().arrayBuffers;
    const m = make({ type: 'array', key_size: 4, value_size: 64, max_entries: 1_000_000 }, 1); // 64 MB if allocated
    expect(process.memoryUsage().arrayBuffers - before).toBeLessThan(1 << 20);
    expect(m.update(u32(999_999), u64(7), BPF_ANY, 0)).toBe(0);
    expect(m.lookup(u32(999_999), 0)![0]).toBe(7);
    expect(m.lookup(u32(5), 0)).toEqual(new Uint8Array(64));
    expect(m.dump().entries).toEqual([{ key: '3f420f00', value: '07' + '00'.repeat(63) }]);
    expect(process.memoryUsage().arrayBuffers - before).toBeLessThan(1 << 20);
  });
});

describe('hash maps: preallocated slots, an open-addressing index, no allocation per operation', () => {
  const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');
  /** A reference: a JS Map in insertion order, LRU moves to the end on use, values per cpu. */
  function reference(lru: boolean, max: number, cpus: number) {
    const t = new Map<string, Uint8Array[]>();
    const use = (k: string): void => {
      if (!lru) return;
      const v = t.get(k)!;
      t.delete(k);
      t.set(k, v);
    };
    return {
      t,
      lookup(k: string, cpu: number): string | undefined {
        const v = t.get(k);
        if (!v) return undefined;
        use(k);
        return hex(v[cpu % cpus]!);
      },
      update(k: string, value: Uint8Array, flags: number, cpu: number): number {
        const old = t.get(k);
        if (old && flags === BPF_NOEXIST) return -EEXIST;
        if (!old && flags === BPF_EXIST) return -ENOENT;
        if (old) {
          use(k);
          old[cpu % cpus]!.set(value);
          return 0;
        }
        if (t.size >= max) {
          if (!lru) return -E2BIG;
          t.delete(t.keys().next().value!);
        }
        const vals = Array.from({ length: cpus }, () => new Uint8Array(value.length));
        vals[cpu % cpus]!.set(value);
        t.set(k, vals);
        return 0;
      },
      delete(k: string): number {
        return t.delete(k) ? 0 : -ENOENT;
      },
    };
  }

  for (const [type, cpus] of [['hash', 1], ['lru_hash', 1], ['percpu_hash', 3], ['lru_percpu_hash', 2]] as const) {
    it(`${type}: 20,000 random lookups, updates and deletes on 64 keys and 40 slots agree with a reference model (order included)`, () => {
      const max = 40;
      const m = make({ type, key_size: 6, value_size: 5, max_entries: max }, cpus);
      const ref = reference(type.startsWith('lru'), max, cpus);
      let seed = 12345;
      const rnd = (n: number): number => {
        seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
        return (seed >>> 8) % n;
      };
      const keyOf = (i: number): Uint8Array => new Uint8Array([i, 0, 0, i & 1, 0, 7]);
      for (let step = 0; step < 20_000; step++) {
        const key = keyOf(rnd(64));
        const k = hex(key);
        const cpu = rnd(cpus);
        const op = rnd(10);
        if (op < 4) {
          const v = m.lookup(key, cpu);
          expect(v ? hex(v) : undefined, `step ${step}`).toBe(ref.lookup(k, cpu));
        } else if (op < 8) {
          const value = new Uint8Array([step & 0xff, step >> 8, 1, 2, 3]);
          const flags = [BPF_ANY, BPF_ANY, BPF_NOEXIST, BPF_EXIST][rnd(4)]!;
          expect(m.update(key, value, flags, cpu), `step ${step}`).toBe(ref.update(k, value, flags, cpu));
        } else expect(m.delete(key), `step ${step}`).toBe(ref.delete(k));
      }
      expect(m.keys().map(hex)).toEqual([...ref.t.keys()]);
      for (const [k, vals] of ref.t) expect(m.userLookup(Buffer.from(k, 'hex'))!.map(hex)).toEqual(vals.map(hex));
    });
  }

  it('reuses a deleted element\'s slot, zeroed, and hands out the same value buffers: 200,000 insert/delete cycles make no new ones', () => {
    const m = make({ type: 'hash', key_size: 4, value_size: 8, max_entries: 4 }, 1);
    const seen = new Set<Uint8Array>();
    const key = new Uint8Array(4);
    const value = new Uint8Array(8).fill(0xee);
    let failed = '';
    for (let i = 0; i < 200_000 && !failed; i++) {
      key.set([i & 0xff, (i >> 8) & 0xff, i >> 16, 1]);
      if (m.update(key, value, BPF_NOEXIST, 0) !== 0) failed = `insert ${i}`;
      const v = m.lookup(key, 0)!;
      seen.add(v);
      if (i % 10_000 === 0) {
        const k2 = new Uint8Array([9, 9, 9, 9]);
        m.update(k2, new Uint8Array(8), BPF_ANY, 0);
        if (hex(m.lookup(k2, 0)!) !== '0000000000000000') failed = `a reused slot was not zeroed at ${i}`;
        m.delete(k2);
      }
      if (m.delete(key) !== 0) failed = `delete ${i}`;
    }
    expect(failed).toBe('');
    expect(seen.size).toBeLessThanOrEqual(4);
    expect(m.keys()).toEqual([]);
  });
});
