/**
 * A simulated routing and neighbour table for bpf_fib_lookup: interfaces
 * (mac, mtu, forwarding), routes (longest prefix match; unicast, blackhole,
 * unreachable, prohibit; a gateway or directly connected) and neighbours
 * (ip -> mac), for IPv4 and IPv6, with defaults a lab starts from and an API
 * the engine and the app set. `fibLookup` fills struct bpf_fib_lookup as
 * net/core/filter.c does and returns its BPF_FIB_LKUP_RET_* codes.
 */

export const AF_INET = 2;
export const AF_INET6 = 10;
/** sizeof(struct bpf_fib_lookup). */
export const FIB_LOOKUP_SIZE = 64;

export const BPF_FIB_LOOKUP_DIRECT = 1;
export const BPF_FIB_LOOKUP_OUTPUT = 2;
export const BPF_FIB_LOOKUP_SKIP_NEIGH = 4;
export const BPF_FIB_LOOKUP_TBID = 8;
export const BPF_FIB_LOOKUP_SRC = 16;

export const BPF_FIB_LKUP_RET_SUCCESS = 0;
export const BPF_FIB_LKUP_RET_BLACKHOLE = 1;
export const BPF_FIB_LKUP_RET_UNREACHABLE = 2;
export const BPF_FIB_LKUP_RET_PROHIBIT = 3;
export const BPF_FIB_LKUP_RET_NOT_FWDED = 4;
export const BPF_FIB_LKUP_RET_FWD_DISABLED = 5;
export const BPF_FIB_LKUP_RET_NO_NEIGH = 7;
export const BPF_FIB_LKUP_RET_FRAG_NEEDED = 8;

export interface FibInterface {
  ifindex: number;
  name: string;
  mac: string;
  mtu: number;
  /** net.ipv4.conf.*.forwarding / net.ipv6.conf.*.forwarding on the ingress device. */
  forwarding: boolean;
}

export interface FibRoute {
  /** "10.0.0.0/24" or "fd00::/64". */
  dst: string;
  ifindex: number;
  /** Next hop; absent for a directly connected network. */
  via?: string;
  type?: 'unicast' | 'blackhole' | 'unreachable' | 'prohibit';
  metric?: number;
}

export interface FibNeighbour {
  addr: string;
  mac: string;
  ifindex: number;
}

export interface FibConfig {
  interfaces: FibInterface[];
  routes: FibRoute[];
  neighbours: FibNeighbour[];
}

/** The lab's default machine: two ports, a connected network on each, a default route out of port 2. */
export function defaultFibConfig(): FibConfig {
  return {
    interfaces: [
      { ifindex: 1, name: 'eth0', mac: '02:00:00:00:00:01', mtu: 1500, forwarding: true },
      { ifindex: 2, name: 'eth1', mac: '02:00:00:00:00:02', mtu: 1500, forwarding: true },
    ],
    routes: [
      { dst: '10.0.0.0/24', ifindex: 1 },
      { dst: '10.0.1.0/24', ifindex: 2 },
      { dst: '0.0.0.0/0', ifindex: 2, via: '10.0.1.254' },
      { dst: '192.0.2.0/24', ifindex: 1, type: 'blackhole' },
      { dst: 'fd00::/64', ifindex: 1 },
      { dst: 'fd00:1::/64', ifindex: 2 },
      { dst: '::/0', ifindex: 2, via: 'fd00:1::fe' },
    ],
    neighbours: [
      { addr: '10.0.0.2', mac: '02:00:00:00:0a:02', ifindex: 1 },
      { addr: '10.0.1.254', mac: '02:00:00:00:fe:fe', ifindex: 2 },
      { addr: 'fd00::2', mac: '02:00:00:00:0a:02', ifindex: 1 },
      { addr: 'fd00:1::fe', mac: '02:00:00:00:fe:fe', ifindex: 2 },
    ],
  };
}

/** Address text to bytes (4 or 16), or undefined. */
export function parseAddr(text: string): Uint8Array | undefined {
  if (text.includes(':')) {
    const [head, tail, extra] = text.split('::');
    if (extra !== undefined) return undefined;
    const words = (s: string | undefined): number[] | undefined => {
      if (!s) return [];
      const out = s.split(':').map((w) => (/^[0-9a-fA-F]{1,4}$/.test(w) ? parseInt(w, 16) : NaN));
      return out.some(Number.isNaN) ? undefined : out;
    };
    const h = words(head);
    const t = words(tail);
    if (!h || !t) return undefined;
    const fill = 8 - h.length - t.length;
    if (fill < 0 || (tail === undefined && fill !== 0)) return undefined;
    const all = [...h, ...Array<number>(tail === undefined ? 0 : fill).fill(0), ...t];
    if (all.length !== 8) return undefined;
    const out = new Uint8Array(16);
    all.forEach((w, i) => {
      out[2 * i] = w >> 8;
      out[2 * i + 1] = w & 0xff;
    });
    return out;
  }
  const parts = text.split('.');
  if (parts.length !== 4 || parts.some((p) => !/^\d{1,3}$/.test(p) || Number(p) > 255)) return undefined;
  return Uint8Array.from(parts.map(Number));
}

function parseMac(text: string): Uint8Array | undefined {
  const p = text.split(':');
  if (p.length !== 6 || p.some((x) => !/^[0-9a-fA-F]{2}$/.test(x))) return undefined;
  return Uint8Array.from(p.map((x) => parseInt(x, 16)));
}

function prefixMatch(a: Uint8Array, b: Uint8Array, bits: number): boolean {
  for (let i = 0; bits > 0; i++, bits -= 8) {
    const mask = bits >= 8 ? 0xff : (0xff << (8 - bits)) & 0xff;
    if ((a[i]! & mask) !== (b[i]! & mask)) return false;
  }
  return true;
}

interface Route {
  addr: Uint8Array;
  len: number;
  ifindex: number;
  via?: Uint8Array;
  type: NonNullable<FibRoute['type']>;
  metric: number;
}

/** The tables, parsed once; `set` replaces them (the engine's and the app's API). */
export class FibTable {
  private ifaces = new Map<number, { mac: Uint8Array; mtu: number; forwarding: boolean }>();
  private routes: Route[] = [];
  private neigh: { addr: Uint8Array; mac: Uint8Array; ifindex: number }[] = [];
  private config: FibConfig = { interfaces: [], routes: [], neighbours: [] };

  constructor(config: FibConfig = defaultFibConfig()) {
    const err = this.set(config);
    if (err) throw new Error(err);
  }

  /** Replace the tables; one line naming the first bad entry (and nothing changed), or undefined. */
  set(config: FibConfig): string | undefined {
    const ifaces = new Map<number, { mac: Uint8Array; mtu: number; forwarding: boolean }>();
    for (const [i, f] of config.interfaces.entries()) {
      const mac = parseMac(f.mac);
      if (!mac || !Number.isInteger(f.ifindex) || f.ifindex <= 0 || !Number.isInteger(f.mtu) || f.mtu < 68) return `interfaces[${i}]: needs ifindex > 0, a mac aa:bb:cc:dd:ee:ff and an mtu >= 68`;
      ifaces.set(f.ifindex, { mac, mtu: f.mtu, forwarding: f.forwarding });
    }
    const routes: Route[] = [];
    for (const [i, r] of config.routes.entries()) {
      const [a, l] = r.dst.split('/');
      const addr = parseAddr(a ?? '');
      const len = Number(l);
      const via = r.via === undefined ? undefined : parseAddr(r.via);
      if (!addr || !Number.isInteger(len) || len < 0 || len > addr.length * 8 || (r.via !== undefined && (!via || via.length !== addr.length))) return `routes[${i}]: bad destination or gateway '${r.dst}'`;
      if (!ifaces.has(r.ifindex)) return `routes[${i}]: no interface ${r.ifindex}`;
      routes.push({ addr, len, ifindex: r.ifindex, via, type: r.type ?? 'unicast', metric: r.metric ?? 0 });
    }
    const neigh: { addr: Uint8Array; mac: Uint8Array; ifindex: number }[] = [];
    for (const [i, n] of config.neighbours.entries()) {
      const addr = parseAddr(n.addr);
      const mac = parseMac(n.mac);
      if (!addr || !mac) return `neighbours[${i}]: bad address or mac`;
      neigh.push({ addr, mac, ifindex: n.ifindex });
    }
    this.ifaces = ifaces;
    this.routes = routes;
    this.neigh = neigh;
    this.config = structuredCloneConfig(config);
    return undefined;
  }

  /** An interface's mtu (L3 bytes), or undefined when no interface has that ifindex. */
  mtu(ifindex: number): number | undefined {
    return this.ifaces.get(ifindex)?.mtu;
  }

  get(): FibConfig {
    return structuredCloneConfig(this.config);
  }

  /**
   * bpf_fib_lookup on the 64 bytes of struct bpf_fib_lookup `p` (in and
   * out), with the helper's flags: the BPF_FIB_LKUP_RET_* code.
   */
  lookup(p: Uint8Array, flags: number): number {
    const dv = new DataView(p.buffer, p.byteOffset, p.byteLength);
    const family = p[0]!;
    const v6 = family === AF_INET6;
    const alen = v6 ? 16 : 4;
    const dst = p.slice(32, 32 + alen);
    const ingress = this.ifaces.get(dv.getUint32(8, true));
    if (!(flags & BPF_FIB_LOOKUP_OUTPUT) && ingress && !ingress.forwarding) return BPF_FIB_LKUP_RET_FWD_DISABLED;
    let best: Route | undefined;
    for (const r of this.routes) {
      if (r.addr.length !== alen || (best && r.len <= best.len)) continue;
      if (prefixMatch(r.addr, dst, r.len)) best = r;
    }
    if (!best) return BPF_FIB_LKUP_RET_NOT_FWDED;
    if (best.type === 'blackhole') return BPF_FIB_LKUP_RET_BLACKHOLE;
    if (best.type === 'unreachable') return BPF_FIB_LKUP_RET_UNREACHABLE;
    if (best.type === 'prohibit') return BPF_FIB_LKUP_RET_PROHIBIT;
    const out = this.ifaces.get(best.ifindex)!;
    // The packet's size (tot_len for IPv4, payload + header for IPv6) against the egress mtu.
    const totLen = dv.getUint16(6, true);
    dv.setUint16(6, out.mtu, true); // mtu_result shares tot_len's place
    if (totLen > out.mtu) return BPF_FIB_LKUP_RET_FRAG_NEEDED;
    dv.setUint32(12, best.metric, true); // rt_metric
    const nexthop = best.via ?? dst;
    if (best.via) p.set(best.via, 32);
    dv.setUint32(8, best.ifindex, true);
    p.set(out.mac, 52);
    dv.setUint32(48, 0, true); // no VLAN
    if (flags & BPF_FIB_LOOKUP_SKIP_NEIGH) return BPF_FIB_LKUP_RET_SUCCESS;
    const n = this.neigh.find((x) => x.ifindex === best!.ifindex && x.addr.length === alen && prefixMatch(x.addr, nexthop, alen * 8));
    if (!n) return BPF_FIB_LKUP_RET_NO_NEIGH;
    p.set(n.mac, 58);
    return BPF_FIB_LKUP_RET_SUCCESS;
  }
}

function structuredCloneConfig(c: FibConfig): FibConfig {
  return { interfaces: c.interfaces.map((x) => ({ ...x })), routes: c.routes.map((x) => ({ ...x })), neighbours: c.neighbours.map((x) => ({ ...x })) };
}
