/**
 * What the driver runs: an XDP program behind a small hook interface, and the
 * xdp_buff it runs on. The VM adapter (vm_hook.ts) wraps `createVm` from
 * src/vm; the native programs here are reference implementations of the
 * seed samples for the simulator's own unit tests (they are not what the
 * scenarios run once the VM and compiler are available).
 */

export const XDP_ABORTED = 0;
export const XDP_DROP = 1;
export const XDP_PASS = 2;
export const XDP_TX = 3;
export const XDP_REDIRECT = 4;
export const XDP_ACTION_NAMES = ['XDP_ABORTED', 'XDP_DROP', 'XDP_PASS', 'XDP_TX', 'XDP_REDIRECT'] as const;

/**
 * The largest buffer frames may live in: the VM's packet pointers are its
 * offsets plus 2^30 in the low word, and the JIT's pointer arithmetic needs
 * that to stay below 2^31 with the verifier's +-2^29 offsets added
 * (jit.ts, pointerAdd). The configuration keeps page pools and UMEMs within it (config.ts).
 */
export const MAX_FRAME_BUFFER = 1 << 28;

/**
 * The kernel's struct xdp_buff, as offsets into the host page memory:
 * data_hard_start <= data_meta <= data <= data_end <= hard_start + frame_sz.
 * One instance is reused for every packet (no per-packet allocation).
 */
export class XdpBuff {
  /** The whole page pool (the program sees only [hardStart, hardStart + frameSz)). */
  mem: Uint8Array = new Uint8Array(0);
  hardStart = 0;
  data = 0;
  dataMeta = 0;
  dataEnd = 0;
  frameSz = 0;
  rxQueueIndex = 0;
  ingressIfindex = 1;
  /** The CPU running the program (per-CPU maps, bpf_get_smp_processor_id). */
  cpu = 0;
  /** Filled by the hook: eBPF instructions executed, map lookups made. */
  insns = 0;
  mapLookups = 0;
  /** Filled by the hook on XDP_REDIRECT: the per-CPU redirect target (bpf_redirect_info). */
  redirectIfindex = -1;
  redirectMap = -1;
  redirectKey = -1;
  /** A runtime fault in the VM (the kernel would never get there: the verifier rejects such programs). */
  fault: string | undefined = undefined;
}

export interface XdpHook {
  readonly name: string;
  /** How it runs: 'vm' (the eBPF interpreter on real bytecode) or 'native' (a TS reference). */
  readonly engine: 'vm' | 'native';
  /** Run on `x` in place; return the action value (any u32: unknown ones are the driver's problem). */
  run(x: XdpBuff): number;
  /** Map contents for the UI/CLI (e.g. per-protocol counters), if any. */
  mapsSummary?(): Record<string, unknown>;
  /** True only when no run can write packet memory (proven, not assumed): the driver may then skip a DMA of bytes the page already holds. */
  readonly packetReadOnly?: boolean;
}

/**
 * Reference xdp1 (seed 000 patch 06): parse Ethernet (+ up to two VLAN tags),
 * IPv4/IPv6, count packets per IP protocol in a per-CPU array, XDP_DROP.
 * The instruction count is the compiled sample's path length for the frame's
 * headers (measured on clang's output for xdp1_kern.c: ~26 for untagged IPv4).
 */
export function nativeXdp1(): XdpHook {
  const rxcnt = new Float64Array(256);
  return {
    name: 'xdp1 (native reference)',
    engine: 'native',
    run(x: XdpBuff): number {
      const m = x.mem;
      let off = x.data;
      x.mapLookups = 0;
      let insns = 12;
      if (off + 14 > x.dataEnd) {
        x.insns = insns;
        return XDP_DROP;
      }
      let proto = (m[off + 12]! << 8) | m[off + 13]!;
      off += 14;
      for (let i = 0; i < 2 && (proto === 0x8100 || proto === 0x88a8); i++) {
        insns += 6;
        if (off + 4 > x.dataEnd) {
          x.insns = insns;
          return XDP_DROP;
        }
        proto = (m[off + 2]! << 8) | m[off + 3]!;
        off += 4;
      }
      let ipproto = 0;
      if (proto === 0x0800 && off + 20 <= x.dataEnd) ipproto = m[off + 9]!;
      else if (proto === 0x86dd && off + 40 <= x.dataEnd) ipproto = m[off + 6]!;
      insns += 14;
      rxcnt[ipproto]!++;
      x.mapLookups = 1;
      x.insns = insns;
      return XDP_DROP;
    },
    mapsSummary: () => ({ rxcnt: Object.fromEntries([...rxcnt.entries()].filter(([, v]) => v > 0)) }),
  };
}

/** Reference xdp2 (seed 000 patch 12): like xdp1, but swap MACs and XDP_TX UDP; drop the rest. */
export function nativeXdp2(): XdpHook {
  const rxcnt = new Float64Array(256);
  return {
    name: 'xdp2 (native reference)',
    engine: 'native',
    run(x: XdpBuff): number {
      const m = x.mem;
      const d = x.data;
      x.mapLookups = 0;
      if (d + 14 > x.dataEnd) {
        x.insns = 12;
        return XDP_DROP;
      }
      let off = d + 14;
      let proto = (m[d + 12]! << 8) | m[d + 13]!;
      let insns = 12;
      for (let i = 0; i < 2 && (proto === 0x8100 || proto === 0x88a8); i++) {
        insns += 6;
        if (off + 4 > x.dataEnd) {
          x.insns = insns;
          return XDP_DROP;
        }
        proto = (m[off + 2]! << 8) | m[off + 3]!;
        off += 4;
      }
      let ipproto = 0;
      if (proto === 0x0800 && off + 20 <= x.dataEnd) ipproto = m[off + 9]!;
      else if (proto === 0x86dd && off + 40 <= x.dataEnd) ipproto = m[off + 6]!;
      insns += 14;
      rxcnt[ipproto]!++;
      x.mapLookups = 1;
      if (ipproto !== 17) {
        x.insns = insns;
        return XDP_DROP;
      }
      for (let i = 0; i < 6; i++) {
        const t = m[d + i]!;
        m[d + i] = m[d + 6 + i]!;
        m[d + 6 + i] = t;
      }
      x.insns = insns + 13;
      return XDP_TX;
    },
    mapsSummary: () => ({ rxcnt: Object.fromEntries([...rxcnt.entries()].filter(([, v]) => v > 0)) }),
  };
}

/**
 * A program that always returns `action` after `lookups` map lookups (the
 * seed samples count per CPU/queue); `swapMacs` for XDP_TX samples that
 * bounce the frame back.
 */
export function nativeConst(action: number, name = `return ${XDP_ACTION_NAMES[action] ?? action}`, lookups = 1, swapMacs = false): XdpHook {
  let count = 0;
  return {
    name: `${name} (native reference)`,
    engine: 'native',
    run(x: XdpBuff): number {
      count++;
      x.mapLookups = lookups;
      x.insns = 8 + 10 * lookups;
      if (swapMacs && x.data + 12 <= x.dataEnd) {
        const m = x.mem;
        const d = x.data;
        for (let i = 0; i < 6; i++) {
          const t = m[d + i]!;
          m[d + i] = m[d + 6 + i]!;
          m[d + 6 + i] = t;
        }
        x.insns += 13;
      }
      return action;
    },
    mapsSummary: () => ({ count }),
  };
}
