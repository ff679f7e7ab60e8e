/**
 * Helpers that ask about the world around the program (issue 17): the
 * current task and its cgroup, perf counters, kernel and user memory,
 * sockets, and two string parsers. XDP runs in the NAPI softirq, on the way
 * out of the NIC's interrupt; on the lab's otherwise idle cpus the task it
 * interrupts is the idle task, swapper/<cpu>. So the task helpers answer as
 * the kernel does for that task, which makes them machine-independent
 * (BPF_PROG_TEST_RUN would report the calling process instead, whose pid,
 * uid and cgroup differ per machine):
 *
 * - bpf_get_current_pid_tgid, bpf_get_current_uid_gid: 0 (pid 0, root);
 * - bpf_get_current_comm: "swapper/<cpu>", NUL-padded to the size (strscpy_pad);
 * - bpf_get_cgroup_classid: 0 (no net_cls class);
 * - bpf_get_current_cgroup_id: 1, the cgroup v2 root's id;
 *   bpf_get_current_ancestor_cgroup_id(level): 1 for level 0, else 0 (the
 *   root has no ancestors above level 0);
 * - bpf_get_ns_current_pid_tgid: the idle task lives in the initial pid
 *   namespace (inode PROC_PID_INIT_INO, on the nsfs device NSFS_DEV, the
 *   device `stat -L /proc/self/ns/pid` shows on the reference machine): a
 *   match writes pid 0 and tgid 0; anything else is -EINVAL with the
 *   struct zeroed, as is a size other than sizeof(struct bpf_pidns_info);
 * - bpf_get_current_task: a simulated, fixed kernel address per cpu (the real
 *   one changes with every boot); the lab has no kernel memory behind it.
 *
 * bpf_current_task_under_cgroup needs a cgroup_array, which no lab map is:
 * an empty slot is -EAGAIN, an index past the end -E2BIG.
 *
 * bpf_perf_event_read(_value): the lab attaches no counters to a
 * perf_event_array (the oracle's is empty too), so a slot in range is
 * -ENOENT; flags outside BPF_F_INDEX_MASK are -EINVAL, an index past the
 * end -E2BIG; _value zeroes its buffer on any error and wants exactly
 * sizeof(struct bpf_perf_event_value).
 *
 * bpf_probe_read_kernel(_str): an address inside one of the VM's memory
 * regions (stack, packet, map value, ring buffer record) is read as the
 * kernel would read that object; a user-space or non-canonical address is
 * -ERANGE (copy_from_kernel_nofault_allowed, canonical by the CPU's virtual
 * address width: HelperEnv.virtAddrBits); any other kernel address is
 * -EFAULT, there being no kernel memory to read. bpf_probe_read_user(_str)
 * is -EFAULT always: the idle task has no user address space
 * (nmi_uaccess_okay fails). Each zeroes the destination on failure; the
 * _str variants copy up to the NUL or size - 1 bytes, terminate, and
 * return the bytes copied with the NUL; size 0 copies nothing and returns 0.
 *
 * bpf_sk_lookup_tcp/udp, bpf_skc_lookup_tcp: the lab's host has no sockets,
 * so every lookup returns NULL; bpf_sk_release (never reached: no socket is
 * ever handed out) returns 0.
 *
 * bpf_strtol / bpf_strtoul: the kernel's parser exactly (kernel/bpf/helpers.c,
 * lib/kstrtox.c): leading whitespace, one '-', base 0/8/10/16 with the 0 and
 * 0x prefixes, at most 63 characters after the sign, -ERANGE on overflow,
 * -EINVAL on no digits or bad flags; *res is zeroed on every error (Linux 6.12+).
 * All values checked against BPF_PROG_TEST_RUN on Linux 6.18 where the
 * context allows (tests/unit/vm-helpers-context.test.ts).
 */
import type { BpfMap } from '../maps';
import type { HelperFn, Machine } from './interp';
import { LO_BASE } from './memory';
import { E2BIG, EAGAIN, EFAULT, EINVAL, ENOENT, ERANGE } from '../isa/errno';


/** The idle task's ids (pid 0 in the initial namespaces, uid and gid 0). */
export const IDLE_PID = 0;
/** cgroup_id() of the cgroup v2 root: its kernfs node id. */
export const ROOT_CGROUP_ID = 1;
/** PROC_PID_INIT_INO: the initial pid namespace's inode number. */
export const PROC_PID_INIT_INO = 0xeffffffc;
/** The nsfs superblock's device (simulated: the reference machine's; it depends on mount order). */
export const NSFS_DEV = 4;
/** Where the lab says the idle task of cpu 0 lives (simulated; one task_struct-sized stride per cpu). */
export const IDLE_TASK_BASE = 0xffff888004000000n;
const TASK_STRUCT_STRIDE = 0x4000n;
/** sizeof(struct bpf_perf_event_value): counter, enabled, running. */
const PERF_EVENT_VALUE_SIZE = 24;
/** BPF_F_INDEX_MASK */
const INDEX_MASK = 0xffffffffn;
const CURRENT_CPU = 0xffffffffn;

export interface ContextHelperContext {
  maps: readonly BpfMap[];
  cpu(): number;
  /** HelperEnv.virtAddrBits: the width canonical addresses are checked against. */
  virtAddrBits(): 48 | 57;
  mapIndexOf(m: Machine, pc: number, reg: number): number;
}

/** The comm of the idle task on `cpu` (TASK_COMM_LEN 16 with its NUL). */
export function idleComm(cpu: number): string {
  return `swapper/${cpu}`.slice(0, 15);
}

/** The bytes at a 64-bit address, when it is inside one of the VM's memory regions. */
function vmBytes(m: Machine, addr: bigint): { bytes: Uint8Array; at: number; end: number } | undefined {
  const hi = Number(BigInt.asIntN(32, addr >> 32n));
  const r = m.regions.byHi(hi);
  if (!r || !r.direct) return undefined;
  const at = Number(addr & 0xffffffffn) - LO_BASE;
  if (at < r.start || at >= r.end) return undefined;
  return { bytes: r.bytes, at, end: r.end };
}

/** copy_from_kernel_nofault_allowed on x86_64 (48-bit virtual addresses): no user-space and no non-canonical addresses. */
function kernelAddressAllowed(addr: bigint, virtBits: 48 | 57): boolean {
  // TASK_SIZE_MAX + PAGE_SIZE is 1 << (bits - 1): everything below is user space or its guard page.
  const top = BigInt(virtBits - 1);
  if (addr < 1n << top) return false;
  // Canonical: bits 63 .. bits-1 all set (__is_canonical_address).
  return addr >> top === (1n << (64n - top)) - 1n;
}

export function contextHelpers(ctx: ContextHelperContext, h: Map<number, HelperFn>): void {
  h.set(14, (m) => m.setReg(0, IDLE_PID)); // get_current_pid_tgid: tgid << 32 | pid
  h.set(15, (m) => m.setReg(0, 0)); // get_current_uid_gid: gid << 32 | uid
  h.set(16, (m, pc) => {
    // get_current_comm(buf, size): strscpy_pad, so the name is cut to size - 1 and the rest zeroed.
    const size = m.regNum(2);
    const buf = m.bytesAt(pc, 1, size, true);
    buf.fill(0);
    const name = idleComm(ctx.cpu());
    for (let i = 0; i < name.length && i < size - 1; i++) buf[i] = name.charCodeAt(i);
    m.setReg(0, 0);
  });
  h.set(17, (m) => m.setReg(0, 0)); // get_cgroup_classid
  h.set(35, (m) => m.setReg(0, IDLE_TASK_BASE + BigInt(ctx.cpu()) * TASK_STRUCT_STRIDE)); // get_current_task
  h.set(37, (m, pc) => {
    // current_task_under_cgroup(cgroup_array, index)
    const map = ctx.maps[ctx.mapIndexOf(m, pc, 1)]!;
    m.setReg(0, m.regU32(2) >= map.maxEntries ? -E2BIG : -EAGAIN);
  });
  h.set(80, (m) => m.setReg(0, ROOT_CGROUP_ID)); // get_current_cgroup_id
  h.set(123, (m) => m.setReg(0, m.regU32(1) === 0 ? ROOT_CGROUP_ID : 0)); // get_current_ancestor_cgroup_id(int level)
  h.set(120, (m, pc) => {
    // get_ns_current_pid_tgid(dev, ino, nsdata, size): dev must fit a dev_t (u32).
    const size = m.regNum(4);
    const buf = m.bytesAt(pc, 3, size, true);
    const dev = m.regU64(1);
    const ino = m.regU64(2);
    buf.fill(0);
    if (size !== 8 || dev !== BigInt(NSFS_DEV) || ino !== BigInt(PROC_PID_INIT_INO)) return m.setReg(0, -EINVAL);
    // pid and tgid of the idle task in that namespace: 0 and 0, already written.
    m.setReg(0, 0);
  });

  const perfCounter = (m: Machine, pc: number): number => {
    const map = ctx.maps[ctx.mapIndexOf(m, pc, 1)]!;
    const flags = m.regU64(2);
    if (flags & ~INDEX_MASK) return -EINVAL;
    const index = flags === CURRENT_CPU ? BigInt(ctx.cpu()) : flags;
    if (index >= BigInt(map.maxEntries)) return -E2BIG;
    return -ENOENT;
  };
  h.set(22, (m, pc) => m.setReg(0, perfCounter(m, pc)));
  h.set(55, (m, pc) => {
    // perf_event_read_value(map, flags, buf, size)
    const size = m.regNum(4);
    const buf = m.bytesAt(pc, 3, size, true);
    buf.fill(0);
    m.setReg(0, size !== PERF_EVENT_VALUE_SIZE ? -EINVAL : perfCounter(m, pc));
  });

  const probeRead = (kernel: boolean, str: boolean) => (m: Machine, pc: number) => {
    const size = m.regNum(2);
    const dst = m.bytesAt(pc, 1, size, true);
    // strncpy_from_*_nofault return 0 for a zero count before looking at the address.
    if (size === 0 && str) return m.setReg(0, 0);
    const fail = (err: number): void => {
      dst.fill(0);
      m.setReg(0, -err);
    };
    if (!kernel) return fail(EFAULT);
    const addr = m.regU64(3);
    if (!kernelAddressAllowed(addr, ctx.virtAddrBits())) {
      const src = vmBytes(m, addr);
      if (!src) return fail(ERANGE);
      return copyFrom(m, src, dst, size, str, fail);
    }
    fail(EFAULT);
  };
  h.set(112, probeRead(false, false));
  h.set(113, probeRead(true, false));
  h.set(114, probeRead(false, true));
  h.set(115, probeRead(true, true));

  // Socket lookups: no sockets on the lab's host. sk_release: nothing was ever acquired.
  h.set(84, (m) => m.setReg(0, 0));
  h.set(85, (m) => m.setReg(0, 0));
  h.set(99, (m) => m.setReg(0, 0));
  h.set(86, (m) => m.setReg(0, 0));

  h.set(105, strto(true));
  h.set(106, strto(false));
}

/** Copy from a VM region for probe_read_kernel(_str); past the region's end is a fault (no memory there in the lab). */
function copyFrom(
  m: Machine,
  src: { bytes: Uint8Array; at: number; end: number },
  dst: Uint8Array,
  size: number,
  str: boolean,
  fail: (err: number) => void,
): void {
  if (!str) {
    if (src.at + size > src.end) return fail(EFAULT);
    dst.set(src.bytes.subarray(src.at, src.at + size));
    return m.setReg(0, 0);
  }
  // strncpy_from_kernel_nofault: bytes up to and with the NUL, at most size; the last one is always NUL.
  let n = 0;
  for (;;) {
    if (src.at + n >= src.end) return fail(EFAULT);
    const c = src.bytes[src.at + n]!;
    dst[n++] = c;
    if (c === 0 || n >= size) break;
  }
  dst[n - 1] = 0;
  m.setReg(0, n);
}

/** isspace() in the kernel's ctype table (Latin-1: NBSP too). */
const isSpace = (c: number): boolean => c === 0x20 || (c >= 9 && c <= 13) || c === 0xa0;

/** strtol (signed) / strtoul: (buf, buf_len, flags, res*) -> characters consumed or a negative errno. */
function strto(signed: boolean): HelperFn {
  return (m, pc) => {
    const len = m.regNum(2);
    const buf = m.bytesAt(pc, 1, len, false);
    const flags = m.regU64(3);
    const res = m.bytesAt(pc, 4, 8, true);
    const put = (v: bigint): void => {
      for (let i = 0; i < 8; i++) res[i] = Number((v >> BigInt(8 * i)) & 0xffn);
    };
    put(0n);
    const r = parseStrtox(buf, flags);
    if (typeof r === 'number') return m.setReg(0, -r);
    let v: bigint;
    if (signed) {
      if (r.negative) {
        // (long long)-res > 0: the magnitude is beyond -LLONG_MIN.
        v = BigInt.asIntN(64, -r.value);
        if (v > 0n) return m.setReg(0, -ERANGE);
      } else {
        v = BigInt.asIntN(64, r.value);
        if (v < 0n) return m.setReg(0, -ERANGE);
      }
    } else {
      if (r.negative) return m.setReg(0, -EINVAL);
      v = r.value;
    }
    put(BigInt.asUintN(64, v));
    m.setReg(0, r.consumed);
  };
}

/** __bpf_strtoull: the value (as unsigned 64 bits), its sign and the characters consumed, or a positive errno. */
export function parseStrtox(buf: Uint8Array, flags: bigint): { value: bigint; negative: boolean; consumed: number } | number {
  let base = Number(flags & 0x1fn);
  if (buf.length === 0) return EINVAL;
  if (base !== 0 && base !== 8 && base !== 10 && base !== 16) return EINVAL;
  if (flags & ~0x1fn) return EINVAL;
  let i = 0;
  while (i < buf.length && isSpace(buf[i]!)) i++;
  const negative = i < buf.length && buf[i] === 0x2d;
  if (negative) i++;
  if (i === buf.length) return EINVAL;
  // At most 63 characters, NUL-terminated (the kernel copies them into a char[64]).
  const str = Array.from(buf.subarray(i, i + 63));
  str.push(0);
  let s = 0;
  const lower = (c: number): number => c | 0x20;
  const isXdigit = (c: number): boolean => (c >= 0x30 && c <= 0x39) || (lower(c) >= 0x61 && lower(c) <= 0x66);
  if (base === 0) {
    if (str[0] === 0x30) base = str[1] !== undefined && lower(str[1]) === 0x78 && isXdigit(str[2] ?? 0) ? 16 : 8;
    else base = 10;
  }
  if (base === 16 && str[0] === 0x30 && str[1] !== undefined && lower(str[1]) === 0x78) s = 2;
  let value = 0n;
  let overflow = false;
  const start = s;
  const b = BigInt(base);
  for (; s < str.length; s++) {
    const c = str[s]!;
    let d: number;
    if (c >= 0x30 && c <= 0x39) d = c - 0x30;
    else if (lower(c) >= 0x61 && lower(c) <= 0x66) d = lower(c) - 0x61 + 10;
    else break;
    if (d >= base) break;
    const next = value * b + BigInt(d);
    if (next > 0xffffffffffffffffn) overflow = true;
    value = BigInt.asUintN(64, next);
  }
  if (overflow) return ERANGE;
  if (s === start) return EINVAL;
  return { value, negative, consumed: i + s };
}
