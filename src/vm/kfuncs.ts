/**
 * kfuncs (BPF_PSEUDO_KFUNC_CALL): kernel functions a program names through
 * `__ksym` externs, bound by name (ProgramSpec.kfunc_relocs; the kernel
 * binds them by BTF id, which only the running kernel knows). A call to a
 * kfunc not listed here faults.
 *
 * Conntrack (bpf_xdp_ct_lookup, bpf_ct_release): the simulated host has no
 * connection tracking table, so a lookup finds nothing — NULL, with
 * opts->error = -ENOENT — after the argument checks the kernel makes
 * (opts present and of a size it knows, its reserved bytes zero, netns_id
 * at least BPF_F_CURRENT_NETNS, a tuple the size of the IPv4 or the IPv6
 * member of struct bpf_sock_tuple): -EINVAL where they fail. Nothing is
 * ever acquired, so bpf_ct_release has nothing to release.
 *
 * bpf_xdp_pull_data (Linux 6.18): a frame here is one linear buffer (no
 * fragments), so xdp_get_buff_len is data_end - data: a length within it is
 * already pulled (0), a longer one is more than the frame holds (-EINVAL).
 *
 * XDP dynptrs (bpf_dynptr_from_xdp, bpf_dynptr_slice, _rdwr; the helpers
 * bpf_dynptr_read, _write, _data): the 16 bytes of struct bpf_dynptr on the
 * program's stack hold what the kernel's struct bpf_dynptr_kern holds — data
 * (the xdp_md pointer; 0 for a NULL dynptr), size with the type in bits
 * 28-30 and the read-only bit 31, offset — so a copy of the struct is the
 * same dynptr. The size is the frame's length when the dynptr was made;
 * each access checks it (-E2BIG, or NULL for a slice) and then the frame as
 * it is now (bpf_xdp_pointer: -EINVAL past its end, -EFAULT beyond 0xffff).
 * A frame here is one linear buffer, so a slice is always a pointer into
 * the packet and buffer__opt is written only when the frame has shrunk
 * under the dynptr (bpf_xdp_copy_buf copies what the frame still has).
 * bpf_dynptr_data is NULL for XDP dynptrs, as in the kernel.
 */
import type { HelperFn, Machine } from './interp';
import { E2BIG, EINVAL, ENOENT } from '../isa/errno';
import { xdpPointer, type XdpBuffState } from './helpers';

/** A kfunc runs as a helper does: arguments in r1-r5, its result in r0. */
export type Kfunc = HelperFn;

/** struct bpf_ct_opts: 12 bytes (netns_id, error, l4proto, dir, reserved[2]); 16 with the zone fields of later kernels. */
const CT_OPTS_SIZES = new Set([12, 16]);
/** sizeof bpf_sock_tuple.ipv4 and .ipv6. */
const TUPLE_SIZES = new Set([12, 36]);

function ctLookup(m: Machine, pc: number): void {
  const optsLen = m.lo[5]! >>> 0;
  if (m.lo[4] === 0 && m.hi[4] === 0) return m.setReg(0, 0);
  const opts = m.bytesAt(pc, 4, Math.min(optsLen, 16) || 12, true);
  const dv = new DataView(opts.buffer, opts.byteOffset, opts.byteLength);
  const fail = (err: number): void => {
    if (opts.length >= 8) dv.setInt32(4, -err, true);
    m.setReg(0, 0);
  };
  if (!CT_OPTS_SIZES.has(optsLen) || opts[10] !== 0 || opts[11] !== 0) return fail(EINVAL);
  if (dv.getInt32(0, true) < -1) return fail(EINVAL);
  if (!TUPLE_SIZES.has(m.lo[3]! >>> 0)) return fail(EINVAL);
  m.bytesAt(pc, 2, m.lo[3]! >>> 0, false);
  return fail(ENOENT);
}

/** The frame's linear bytes, for the kfuncs that read the xdp_buff (bound per VM: ./xdp.ts). */
export interface KfuncXdp {
  xdp(): XdpBuffState;
}

/** enum bpf_dynptr_type's BPF_DYNPTR_TYPE_XDP, where bpf_dynptr_kern keeps it (DYNPTR_TYPE_SHIFT), and the read-only bit. */
const BPF_DYNPTR_TYPE_XDP = 4;
const DYNPTR_TYPE_SHIFT = 28;
const DYNPTR_SIZE_MASK = 0xffffff;
const DYNPTR_RDONLY_BIT = 0x80000000;
const BPF_DYNPTR_SIZE = 16;

interface DynptrKern {
  /** data != NULL */
  valid: boolean;
  size: number;
  offset: number;
  rdonly: boolean;
}

/** The struct bpf_dynptr register reg points to (16 bytes of the stack). */
function dynptrAt(m: Machine, pc: number, reg: number): DynptrKern {
  const b = m.bytesAt(pc, reg, BPF_DYNPTR_SIZE, false);
  const dv = new DataView(b.buffer, b.byteOffset, b.byteLength);
  const sz = dv.getUint32(8, true);
  return { valid: dv.getUint32(0, true) !== 0 || dv.getUint32(4, true) !== 0, size: sz & DYNPTR_SIZE_MASK, offset: dv.getUint32(12, true), rdonly: (sz & DYNPTR_RDONLY_BIT) !== 0 };
}

/** bpf_dynptr_check_off_len: -E2BIG when [offset, offset+len) is not inside the dynptr, else 0. */
function checkOffLen(d: DynptrKern, offset: bigint, len: bigint): number {
  if (offset > BigInt(d.size) || len > BigInt(d.size) - offset) return -E2BIG;
  return 0;
}

/** bpf_dynptr_slice (rdwr: bpf_dynptr_slice_rdwr): r0 = a pointer to the bytes, or NULL. */
function dynptrSlice(ctx: KfuncXdp, rdwr: boolean): Kfunc {
  return (m, pc) => {
    const d = dynptrAt(m, pc, 1);
    const offset = m.regU64(2);
    const len = m.regU64(4);
    if (!d.valid || (rdwr && d.rdonly) || checkOffLen(d, offset, len)) return m.setReg(0, 0);
    const x = ctx.xdp();
    const off = d.offset + Number(offset);
    const at = xdpPointer(x, off, Number(len));
    if (at >= 0) return m.setPtr(0, x.packet, at);
    if (m.lo[3] === 0 && m.hi[3] === 0) return m.setReg(0, 0);
    // bpf_xdp_copy_buf: the frame is shorter than the dynptr now; what it still has from off is copied.
    const buf = m.bytesAt(pc, 3, Number(len), true);
    if (x.data + off < x.dataEnd) buf.set(x.buf.subarray(x.data + off, Math.min(x.dataEnd, x.data + off + buf.length)));
    m.lo[0] = m.lo[3]!;
    m.hi[0] = m.hi[3]!;
    m.pv[0] = m.pv[3]!;
  };
}

/** The dynptr helpers (BPF_FUNC_dynptr_read, _write, _data) over the VM's xdp_buff, by helper id. */
export function dynptrHelpers(ctx: KfuncXdp): [number, HelperFn][] {
  return [
    [
      201, // long bpf_dynptr_read(void *dst, u32 len, const struct bpf_dynptr *src, u32 offset, u64 flags)
      (m, pc) => {
        const len = m.regU32(2);
        const d = dynptrAt(m, pc, 3);
        const offset = m.regU32(4);
        if (!d.valid || m.regU64(5) !== 0n) return m.setReg(0, -EINVAL);
        const err = checkOffLen(d, BigInt(offset), BigInt(len));
        if (err) return m.setReg(0, err);
        const x = ctx.xdp();
        const at = xdpPointer(x, d.offset + offset, len);
        if (at < 0) return m.setReg(0, at);
        m.bytesAt(pc, 1, len, true).set(x.buf.subarray(at, at + len));
        m.setReg(0, 0);
      },
    ],
    [
      202, // long bpf_dynptr_write(const struct bpf_dynptr *dst, u32 offset, void *src, u32 len, u64 flags)
      (m, pc) => {
        const d = dynptrAt(m, pc, 1);
        const offset = m.regU32(2);
        const len = m.regU32(4);
        if (!d.valid || d.rdonly) return m.setReg(0, -EINVAL);
        const err = checkOffLen(d, BigInt(offset), BigInt(len));
        if (err) return m.setReg(0, err);
        if (m.regU64(5) !== 0n) return m.setReg(0, -EINVAL);
        const x = ctx.xdp();
        const at = xdpPointer(x, d.offset + offset, len);
        if (at < 0) return m.setReg(0, at);
        x.buf.set(m.bytesAt(pc, 3, len, false), at);
        m.setReg(0, 0);
      },
    ],
    // void *bpf_dynptr_data(const struct bpf_dynptr *ptr, u32 offset, u32 len): skb and xdp dynptrs have no
    // direct data here (bpf_dynptr_slice is their way), so NULL.
    [203, (m, pc) => (dynptrAt(m, pc, 1), m.setReg(0, 0))],
  ];
}

/** The kfuncs that need the VM's xdp_buff, made for one VM. */
export function xdpKfuncs(ctx: KfuncXdp): Readonly<Record<string, Kfunc>> {
  return {
    // int bpf_dynptr_from_xdp(struct xdp_md *x, u64 flags, struct bpf_dynptr *ptr__uninit)
    bpf_dynptr_from_xdp: (m, pc) => {
      const b = m.bytesAt(pc, 3, BPF_DYNPTR_SIZE, true);
      const dv = new DataView(b.buffer, b.byteOffset, b.byteLength);
      // bpf_dynptr_set_null: all 16 bytes zero.
      b.fill(0);
      if (m.regU64(2) !== 0n) return m.setReg(0, -EINVAL);
      const x = ctx.xdp();
      dv.setInt32(0, m.lo[1]!, true);
      dv.setInt32(4, m.hi[1]!, true);
      dv.setUint32(8, ((x.dataEnd - x.data) | (BPF_DYNPTR_TYPE_XDP << DYNPTR_TYPE_SHIFT)) >>> 0, true);
      m.setReg(0, 0);
    },
    bpf_dynptr_slice: dynptrSlice(ctx, false),
    bpf_dynptr_slice_rdwr: dynptrSlice(ctx, true),
    bpf_xdp_pull_data: (m) => {
      const x = ctx.xdp();
      m.setReg(0, m.regU32(2) <= x.dataEnd - x.data ? 0 : -EINVAL);
    },
  };
}

export const KFUNCS: Readonly<Record<string, Kfunc>> = {
  bpf_xdp_ct_lookup: ctLookup,
  bpf_skb_ct_lookup: ctLookup,
  bpf_ct_release: (m) => m.setReg(0, 0),
};
