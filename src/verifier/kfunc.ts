/**
 * Kernel function calls (BPF_PSEUDO_KFUNC_CALL, check_kfunc_call): the
 * kfuncs an XDP program may call — the conntrack set the kernel registers
 * for XDP (net/netfilter/nf_conntrack_bpf.c), bpf_xdp_pull_data and the XDP dynptr kfuncs
 * (bpf_dynptr_from_xdp, bpf_dynptr_slice, _rdwr: ./dynptr.ts) — with their argument kinds and
 * flags (KF_ACQUIRE, KF_RELEASE, KF_RET_NULL, KF_TRUSTED_ARGS). A kfunc is
 * named by the program's kfunc_relocs (the kernel binds it by BTF id); any
 * other name is refused, naming it. Acquired pointers are tracked as the
 * helpers' references are: leaking one refuses the program at exit.
 */
import { Reject, type Env } from './env';
import { checkMemSizeRegFor, clearAllPktPointers } from './call';
import { checkPtrOffReg } from './mem';
import { isNullScalar, isPointer, knownScalar, markUnknown, notInit, pointer, type RegType } from './reg';
import { forEachReg } from './state';
import { checkRegArg } from './regarg';
import { processDynptrFunc } from './dynptr';
import { tnumIsConst } from './tnum';
import { markChainPrecision } from './precision';

/**
 * ctx: the program's context; mem: memory whose size the next (`__sz`) argument gives; size: that size; scalar: any
 * number; dynptr_uninit: a `struct bpf_dynptr *ptr__uninit` the call initialises; dynptr: an initialised
 * `const struct bpf_dynptr *`; buffer_opt: `void *buffer__opt`, memory or NULL, sized by the next argument, szk:
 * `buffer__szk`, a size that must be a constant; the rest: a BTF object.
 */
type KArg = 'ctx' | 'mem' | 'size' | 'scalar' | 'nf_conn' | 'nf_conn___init' | 'dynptr_uninit' | 'dynptr' | 'buffer_opt' | 'szk';

interface KfuncProto {
  args: readonly KArg[];
  /** The returned object (KF_ACQUIRE | KF_RET_NULL for every pointer-returning conntrack kfunc), or a plain result. */
  ret: 'nf_conn' | 'nf_conn___init' | 'scalar' | 'void' | 'slice' | 'slice_rdwr';
  /** is_kfunc_pkt_changing: the call may move the packet, so every packet pointer is invalidated after it. */
  changesPktData?: boolean;
  acquire?: boolean;
  /** KF_RELEASE: argument 0 gives its reference back. */
  release?: boolean;
}

const LOOKUP: KfuncProto = { args: ['ctx', 'mem', 'size', 'mem', 'size'], ret: 'nf_conn', acquire: true };

/** The XDP conntrack kfunc set (nf_ct_kfunc_set, registered for BPF_PROG_TYPE_XDP). */
export const XDP_KFUNCS: Readonly<Record<string, KfuncProto>> = {
  bpf_xdp_ct_lookup: LOOKUP,
  bpf_xdp_ct_alloc: { ...LOOKUP, ret: 'nf_conn___init' },
  bpf_ct_insert_entry: { args: ['nf_conn___init'], ret: 'nf_conn', acquire: true, release: true },
  bpf_ct_release: { args: ['nf_conn'], ret: 'void', release: true },
  bpf_ct_set_timeout: { args: ['nf_conn___init', 'scalar'], ret: 'void' },
  bpf_ct_change_timeout: { args: ['nf_conn', 'scalar'], ret: 'scalar' },
  bpf_ct_set_status: { args: ['nf_conn___init', 'scalar'], ret: 'scalar' },
  bpf_ct_change_status: { args: ['nf_conn', 'scalar'], ret: 'scalar' },
  // union nf_inet_addr *addr (16 bytes), int port, enum nf_nat_manip_type manip.
  bpf_ct_set_nat_info: { args: ['nf_conn___init', 'mem', 'scalar', 'scalar'], ret: 'scalar' },
  // The generic XDP kfunc set (Linux 6.18): pull len bytes of a multi-buffer frame into the linear area; the
  // buffer's geometry may change, so the checks made on packet pointers before the call no longer hold.
  bpf_xdp_pull_data: { args: ['ctx', 'scalar'], ret: 'scalar', changesPktData: true },
  // The generic kfunc set (XDP dynptrs, net/core/filter.c and kernel/bpf/helpers.c): a dynptr over the frame, and
  // KF_RET_NULL slices of it — read-only (PTR_TO_MEM | MEM_RDONLY) or writable, buffer__szk bytes.
  bpf_dynptr_from_xdp: { args: ['ctx', 'scalar', 'dynptr_uninit'], ret: 'scalar' },
  bpf_dynptr_slice: { args: ['dynptr', 'scalar', 'buffer_opt', 'szk'], ret: 'slice' },
  // (This machine's kernel, 6.18.44 build v1300, refuses it to XDP programs with "bpf_dynptr_slice_rdwr() is not
  // allowed", a refusal found nowhere in upstream 6.18's sources; XDP Lab follows upstream, so test_xdp_dynptr.c is accepted here.)
  bpf_dynptr_slice_rdwr: { args: ['dynptr', 'scalar', 'buffer_opt', 'szk'], ret: 'slice_rdwr' },
};

/** The xdp_metadata_kfunc_set (XDP_METADATA_KFUNC_xxx in include/net/xdp.h): the rx metadata a driver may report. */
export const XDP_METADATA_KFUNCS: ReadonlySet<string> = new Set(['bpf_xdp_metadata_rx_timestamp', 'bpf_xdp_metadata_rx_hash', 'bpf_xdp_metadata_rx_vlan_tag']);

/** sizeof(union nf_inet_addr): bpf_ct_set_nat_info's address argument has no size argument. */
const NF_INET_ADDR_SIZE = 16;

/** The kfunc a call slot names, or the refusal the kernel gives a kfunc outside the program type's set. */
export function kfuncAt(env: Env, idx: number): { name: string; proto: KfuncProto } {
  const name = env.kfuncNames.get(idx);
  if (name === undefined) env.reject(`kernel btf_id ${env.insns[idx]!.imm} is not a function`);
  // bpf_dev_bound_kfunc_check: the XDP metadata kfuncs are XDP's, but only for a program loaded for one device
  // (BPF_F_XDP_DEV_BOUND_ONLY, prog_ifindex), which a program here never is; the kernel says so before it verifies.
  if (XDP_METADATA_KFUNCS.has(name)) env.reject('metadata kfuncs require device-bound program');
  const proto = Object.hasOwn(XDP_KFUNCS, name) ? XDP_KFUNCS[name] : undefined;
  if (!proto) env.reject(`calling kernel function ${name} is not allowed`);
  return { name, proto };
}

const orNull = (t: 'nf_conn' | 'nf_conn___init'): RegType => (t === 'nf_conn' ? 'nf_conn_or_null' : 'nf_conn___init_or_null');

/** What check_kfunc_args gathered: the reference a KF_RELEASE argument hands back, the dynptr named, the constant size. */
interface KfuncMeta {
  releaseRef: number;
  dynptrId: number;
  constSize: number;
}

/** check_kfunc_args: each argument against the kfunc's prototype. */
function checkKfuncArgs(env: Env, name: string, proto: KfuncProto): KfuncMeta {
  const meta: KfuncMeta = { releaseRef: 0, dynptrId: 0, constSize: 0 };
  proto.args.forEach((k, i) => {
    const regno = i + 1;
    checkRegArg(env, regno, 'src');
    const reg = env.regs[regno]!;
    switch (k) {
      case 'scalar':
        if (reg.type !== 'scalar') env.reject(`R${regno} is not a scalar`);
        return;
      case 'ctx':
        if (reg.type !== 'ctx') env.reject(`arg#${i} expected pointer to ctx, but got ${reg.type}`);
        checkPtrOffReg(env, reg, regno, false);
        return;
      case 'mem':
        if (!isPointer(reg)) env.reject(`arg#${i} pointer type STRUCT must point to scalar, or struct with scalar`);
        if (proto.args[i + 1] !== 'size') checkMemSizeRegFor(env, regno, NF_INET_ADDR_SIZE);
        return;
      case 'dynptr_uninit':
      case 'dynptr':
        if (reg.type !== 'fp') env.reject(`arg#${i} expected pointer to stack or const struct bpf_dynptr`);
        meta.dynptrId = processDynptrFunc(env, regno, k === 'dynptr_uninit');
        return;
      case 'buffer_opt':
        // KF_ARG_PTR_TO_MEM_SIZE: a NULL buffer (it is optional) needs no memory; any other is checked with its size
        // (read and written, check_kfunc_mem_size_reg) at the szk argument, which refuses what is not memory.
        return;
      case 'szk': {
        const buf = env.regs[regno - 1]!;
        if (reg.type !== 'scalar') env.reject(`R${regno} is not a scalar`);
        if (!isNullScalar(buf)) {
          try {
            checkMemSizeRegFor(env, regno, -1, true);
          } catch (e) {
            // The kernel adds which pair it was checking after the reason.
            if (e instanceof Reject) env.verbose(`arg#${i - 1} arg#${i} memory, len pair leads to invalid memory access\n`);
            throw e;
          }
        }
        if (!tnumIsConst(reg.varOff)) env.reject(`R${regno} must be a known constant`);
        meta.constSize = Number(reg.varOff.value);
        // The slice's size is this value: a state pruned here must have had the same one.
        markChainPrecision(env, regno);
        return;
      }
      case 'size':
        // check_kfunc_mem_size_reg: the memory before it, read and written, for as many bytes as the size may be.
        if (reg.type !== 'scalar') env.reject(`R${regno} is not a scalar`);
        checkMemSizeRegFor(env, regno, -1);
        return;
      default: {
        // KF_TRUSTED_ARGS / KF_RELEASE: a non-null pointer to exactly this struct, unmoved.
        if (reg.type === `${k}_or_null` || isNullScalar(reg)) env.reject(`Possibly NULL pointer passed to trusted arg${i}`);
        if (reg.type !== k) {
          env.reject(`kernel function ${name} args#${i} expected pointer to STRUCT ${k} but R${regno} has a pointer to ${reg.type}`);
        }
        if (reg.off !== 0 || reg.varOff.value !== 0n || reg.varOff.mask !== 0n) {
          env.reject(`R${regno} must have zero offset when passed to release func or trusted arg to kfunc`);
        }
        if (proto.release && i === 0) {
          if (!reg.refObjId) env.reject(`R${regno} must be referenced when passed to release function`);
          meta.releaseRef = reg.refObjId;
        }
      }
    }
  });
  return meta;
}

/** check_kfunc_call for the XDP set: arguments, release, clobbered R1-R5, the result. */
export function checkKfuncCall(env: Env, idx: number): void {
  const { name, proto } = kfuncAt(env, idx);
  const meta = checkKfuncArgs(env, name, proto);
  const releaseRef = meta.releaseRef;
  if (releaseRef) {
    const refs = env.cur.refs ?? [];
    const at = refs.findIndex((r) => r.id === releaseRef);
    if (at < 0) env.reject(`kernel function ${name} reference has not been acquired before`);
    refs.splice(at, 1);
    forEachReg(env.cur, (r) => {
      if (r.refObjId === releaseRef) Object.assign(r, notInit());
    });
  }
  for (let r = 1; r <= 5; r++) {
    env.regs[r] = notInit();
    env.markRegScratched(r);
  }
  if (proto.changesPktData) clearAllPktPointers(env);
  if (proto.ret === 'void') env.regs[0] = notInit();
  else if (proto.ret === 'scalar') {
    env.regs[0] = knownScalar(0n);
    markUnknown(env.regs[0]!);
  } else if (proto.ret === 'slice' || proto.ret === 'slice_rdwr') {
    // PTR_TO_MEM | DYNPTR_TYPE_XDP (| MEM_RDONLY) | PTR_MAYBE_NULL, mem_size = buffer__szk. An XDP program may
    // write packet data (may_access_direct_pkt_data), so the writable slice is allowed.
    const type = proto.ret === 'slice' ? 'rdonly_mem_or_null' : 'mem_or_null';
    env.regs[0] = pointer(type, { id: ++env.idGen, range: meta.constSize, dynptrId: meta.dynptrId, dynptrPkt: true });
  } else {
    // KF_ACQUIRE | KF_RET_NULL: an id for the null check and a reference both copies carry.
    const refId = ++env.idGen;
    env.regs[0] = pointer(orNull(proto.ret), { id: refId, refObjId: refId });
    (env.cur.refs ??= []).push({ id: refId, insn: idx });
  }
}

/**
 * sizeof(struct nf_conn) as Linux 6.18's BTF gives it on x86-64 (bpftool btf
 * dump of /sys/kernel/btf/vmlinux: size=248; status at byte 128, mark at
 * 168): reads of a trusted nf_conn pointer (btf_struct_access) must end
 * inside it. Fields are read-only to XDP Lab programs.
 */
export const NF_CONN_SIZE = 248;
