/**
 * BPF_MAP_TYPE_LPM_TRIE (kernel/bpf/lpm_trie.c) as a program and user space
 * see it: keys are struct bpf_lpm_trie_key_u8 (a host-order u32 prefix
 * length, then the address bytes in network order); a lookup returns the
 * value of the longest stored prefix that covers the key's first
 * `prefixlen` bits; update and delete act on the exact prefix. Errors are
 * the kernel's: -EINVAL for a prefix longer than the data, -EEXIST/-ENOENT
 * for BPF_NOEXIST/BPF_EXIST, -ENOSPC when full, -ENOENT to delete a
 * missing prefix. Entries are few in the programs this serves (routing
 * tables of a lab), so a linear scan is the trie.
 */
import type { MapSpec } from '../isa/spec';
import type { BpfMap } from './index';
import { MapBase } from './base';
import { EEXIST, EINVAL, ENOENT, ENOSPC } from '../isa/errno';

const BPF_NOEXIST = 1;
const BPF_EXIST = 2;

interface Node {
  prefixlen: number;
  key: Uint8Array;
  value: Uint8Array;
}

/** The number of leading bits a and b share, up to `max` bits (the data part of two keys). */
function commonBits(a: Uint8Array, b: Uint8Array, max: number): number {
  let n = 0;
  for (let i = 4; n < max; i++) {
    const x = a[i]! ^ b[i]!;
    if (x === 0) {
      n += 8;
      continue;
    }
    return Math.min(max, n + Math.clz32(x) - 24);
  }
  return Math.min(n, max);
}

const prefixOf = (k: Uint8Array): number => (k[0]! | (k[1]! << 8) | (k[2]! << 16) | (k[3]! << 24)) >>> 0;

export class LpmTrie extends MapBase implements BpfMap {
  private readonly nodes: Node[] = [];
  private readonly maxPrefix: number;

  constructor(spec: MapSpec, nCpus: number) {
    super(spec, nCpus);
    this.maxPrefix = (spec.key_size - 4) * 8;
  }

  lookup(key: Uint8Array): Uint8Array | undefined {
    const want = Math.min(prefixOf(key), this.maxPrefix);
    let best: Node | undefined;
    for (const n of this.nodes) {
      if (n.prefixlen > want || (best && n.prefixlen <= best.prefixlen)) continue;
      if (commonBits(n.key, key, n.prefixlen) >= n.prefixlen) best = n;
    }
    return best?.value;
  }

  private find(key: Uint8Array): number {
    const p = prefixOf(key);
    return this.nodes.findIndex((n) => n.prefixlen === p && commonBits(n.key, key, p) >= p);
  }

  update(key: Uint8Array, value: Uint8Array, flags: number): number {
    if (flags > BPF_EXIST) return -EINVAL;
    const p = prefixOf(key);
    if (p > this.maxPrefix) return -EINVAL;
    const i = this.find(key);
    if (i >= 0 && flags === BPF_NOEXIST) return -EEXIST;
    if (i < 0 && flags === BPF_EXIST) return -ENOENT;
    if (i < 0 && this.nodes.length >= this.maxEntries) return -ENOSPC;
    const node: Node = { prefixlen: p, key: key.slice(0, this.keySize), value: value.slice(0, this.valueSize) };
    if (i >= 0) {
      // Replaced in place: a value a program holds stays live, as the kernel's RCU-freed node would until the program ends.
      this.nodes[i]!.value.set(node.value);
      this.nodes[i]!.key = node.key;
    } else this.nodes.push(node);
    return 0;
  }

  delete(key: Uint8Array): number {
    const i = this.find(key);
    if (i < 0) return -ENOENT;
    this.nodes.splice(i, 1);
    return 0;
  }

  userUpdate(key: Uint8Array, value: Uint8Array, flags = 0): number {
    if (this.frozen) return -1;
    if (key.length !== this.keySize || value.length !== this.valueSize) return -EINVAL;
    return this.update(key, value, flags);
  }

  userLookup(key: Uint8Array): Uint8Array[] | undefined {
    const v = this.lookup(key);
    return v ? [v] : undefined;
  }

  keys(): Uint8Array[] {
    return this.nodes.map((n) => n.key);
  }
}
