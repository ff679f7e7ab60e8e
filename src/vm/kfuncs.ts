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
 */
import type { HelperFn, Machine } from './interp';
import { EINVAL, ENOENT } from '../isa/errno';

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
  xdp(): { data: number; dataEnd: number };
}

/** The kfuncs that need the VM's xdp_buff, made for one VM. */
export function xdpKfuncs(ctx: KfuncXdp): Readonly<Record<string, Kfunc>> {
  return {
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
