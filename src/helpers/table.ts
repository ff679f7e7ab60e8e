/**
 * The helper table: every BPF helper id the kernel knows (enum bpf_func_id,
 * include/uapi/linux/bpf.h, Linux 6.18: 0..211) with its name, and for the
 * helpers an XDP program may call (xdp_func_proto + the base protos, as the
 * running kernel answers) the prototype the verifier checks: argument and
 * return kinds (struct bpf_func_proto), which map types each map helper
 * accepts (check_map_func_compatibility), and whether the helper changes
 * packet data (which invalidates every packet pointer the program holds).
 *
 * The verifier reads prototypes from here, the VM binds implementations by
 * id, and the compiler's bpf/bpf_helpers.h declares the same ids.
 */
import { KERNEL_HELPER_NAMES } from '../isa/helper_names';

/** Argument kinds, named after the kernel's enum bpf_arg_type (with its flags folded in). */
export type ArgKind =
  | 'ARG_DONTCARE'
  | 'ARG_ANYTHING' // any initialized value (a pointer too, when privileged)
  | 'ARG_CONST_MAP_PTR'
  | 'ARG_PTR_TO_MAP_KEY'
  | 'ARG_PTR_TO_MAP_VALUE'
  | 'ARG_PTR_TO_UNINIT_MAP_VALUE' // map value written by the helper (pop/peek)
  | 'ARG_PTR_TO_CTX'
  | 'ARG_PTR_TO_MEM' // readable memory, size in the next argument
  | 'ARG_PTR_TO_MEM_OR_NULL'
  | 'ARG_PTR_TO_UNINIT_MEM' // writable memory, may be uninitialized; size in the next argument
  | 'ARG_PTR_TO_FIXED_SIZE_MEM' // argSizes[i] readable bytes
  | 'ARG_PTR_TO_FIXED_SIZE_MEM_U32' // 4 writable, aligned bytes (check_mtu's mtu_len)
  | 'ARG_CONST_SIZE'
  | 'ARG_CONST_SIZE_OR_ZERO'
  | 'ARG_CONST_ALLOC_SIZE_OR_ZERO'
  | 'ARG_PTR_TO_FUNC'
  | 'ARG_PTR_TO_STACK_OR_NULL'
  | 'ARG_PTR_TO_CONST_STR'
  | 'ARG_PTR_TO_LONG'
  | 'ARG_PTR_TO_RINGBUF_MEM'
  | 'ARG_PTR_TO_BTF_ID_SOCK_COMMON'
  | 'ARG_PTR_TO_BTF_ID'
  | 'ARG_PTR_TO_PERCPU_BTF_ID'
  | 'ARG_PTR_TO_SPIN_LOCK'
  | 'ARG_PTR_TO_TIMER'
  | 'ARG_PTR_TO_DYNPTR'
  | 'ARG_PTR_TO_STACK';

/** Return kinds, named after the kernel's enum bpf_return_type. */
export type RetKind =
  | 'RET_INTEGER'
  | 'RET_VOID'
  | 'RET_PTR_TO_MAP_VALUE_OR_NULL'
  | 'RET_PTR_TO_MEM_OR_NULL'
  | 'RET_PTR_TO_SOCKET_OR_NULL'
  | 'RET_PTR_TO_RINGBUF_MEM_OR_NULL'
  | 'RET_PTR_TO_BTF_ID';

export interface HelperProto {
  readonly id: number;
  /** Name without the bpf_ prefix (the kernel's log prints "bpf_" + name). */
  readonly name: string;
  readonly args: readonly ArgKind[];
  readonly ret: RetKind;
  /** bpf_helper_changes_pkt_data(): packet pointers are invalid after the call. */
  readonly changesPktData?: boolean;
  /** For ARG_CONST_MAP_PTR helpers: the map types the kernel allows (check_map_func_compatibility). */
  readonly mapTypes?: readonly string[];
  /** Only when the program is GPL-compatible (the oracle loads as GPL). */
  readonly gplOnly?: boolean;
  /** Needs state the verifier does not model (references, callbacks, BTF objects). */
  readonly unmodelled?: boolean;
  /** ARG_PTR_TO_MEM | MEM_WRITE arguments, by index: the helper may write the memory it reads (bpf_fib_lookup's params). */
  readonly memWrite?: readonly number[];
  /** ARG_PTR_TO_FIXED_SIZE_MEM arguments' sizes (the prototype's arg_size), by argument index. */
  readonly argSizes?: readonly number[];
  /** The kernel refuses it in XDP before looking at arguments with this message. */
  readonly refusal?: string;
}

/**
 * Helpers whose prototype lacks pkt_access, measured against this machine's kernel (6.18) with a bounds-checked
 * packet pointer as their first memory argument: check_func_arg refuses it ("helper access to the packet is not
 * allowed", may_access_direct_pkt_data). The map helpers, bpf_csum_diff, the socket lookups and the raw syncookie
 * helpers take packet memory. Not measured (the oracle cannot make their maps or arguments), so left as they were:
 * bpf_map_push/pop/peek_elem, bpf_dynptr_read/write.
 */
export const NO_PKT_ACCESS: ReadonlySet<string> = new Set([
  'trace_printk', 'get_current_comm', 'perf_event_output', 'perf_event_read_value', 'fib_lookup', 'strtol', 'strtoul',
  'probe_read_user', 'probe_read_kernel', 'probe_read_user_str', 'probe_read_kernel_str', 'get_ns_current_pid_tgid',
  'ringbuf_output', 'trace_vprintk', 'xdp_load_bytes', 'xdp_store_bytes',
]);

/** Every helper name by id (Linux 6.18), as the kernel prints them without "bpf_". */
export const HELPER_NAMES: readonly string[] = KERNEL_HELPER_NAMES;

export const BPF_FUNC = {
  map_lookup_elem: 1,
  map_update_elem: 2,
  map_delete_elem: 3,
  ktime_get_ns: 5,
  trace_printk: 6,
  get_prandom_u32: 7,
  get_smp_processor_id: 8,
  tail_call: 12,
  redirect: 23,
  perf_event_output: 25,
  csum_diff: 28,
  get_numa_node_id: 42,
  xdp_adjust_head: 44,
  redirect_map: 51,
  xdp_adjust_meta: 54,
  xdp_adjust_tail: 65,
  fib_lookup: 69,
  map_push_elem: 87,
  map_pop_elem: 88,
  map_peek_elem: 89,
  jiffies64: 118,
  ktime_get_boot_ns: 125,
  ktime_get_tai_ns: 208,
  ktime_get_coarse_ns: 160,
  send_signal: 109,
  send_signal_thread: 117,
  ringbuf_output: 130,
  ringbuf_reserve: 131,
  ringbuf_submit: 132,
  ringbuf_discard: 133,
  check_mtu: 163,
  trace_vprintk: 177,
  loop: 181,
  xdp_get_buff_len: 188,
  xdp_load_bytes: 189,
  xdp_store_bytes: 190,
  map_lookup_percpu_elem: 195,
} as const;

const REDIRECT_MAP_TYPES = ['devmap', 'devmap_hash', 'cpumap', 'xskmap'] as const;
const PERCPU_MAP_TYPES = ['percpu_array', 'percpu_hash', 'lru_percpu_hash'] as const;
/** Map types with no generic lookup/update/delete from programs. */
const GENERIC_MAP_TYPES = ['array', 'percpu_array', 'hash', 'percpu_hash', 'lru_hash', 'lru_percpu_hash', 'lpm_trie'] as const;
const PERF_EVENT_ARRAY = ['perf_event_array'] as const;
/** Maps whose values are maps: a program only looks an inner map up (user space fills them). */
const MAP_IN_MAP_TYPES = ['array_of_maps', 'hash_of_maps'] as const;
const RINGBUF = ['ringbuf'] as const;
const QUEUE_STACK = ['queue', 'stack'] as const;

type P = Omit<HelperProto, 'name'>;
const A = 'ARG_ANYTHING' as const;
const SOCK: ArgKind = 'ARG_PTR_TO_BTF_ID_SOCK_COMMON';

/** Prototypes of the helpers the kernel offers XDP programs. */
const PROTOS: readonly P[] = [
  { id: 1, args: ['ARG_CONST_MAP_PTR', 'ARG_PTR_TO_MAP_KEY'], ret: 'RET_PTR_TO_MAP_VALUE_OR_NULL', mapTypes: [...GENERIC_MAP_TYPES, 'devmap', 'devmap_hash', 'xskmap', ...MAP_IN_MAP_TYPES] },
  { id: 2, args: ['ARG_CONST_MAP_PTR', 'ARG_PTR_TO_MAP_KEY', 'ARG_PTR_TO_MAP_VALUE', A], ret: 'RET_INTEGER', mapTypes: GENERIC_MAP_TYPES },
  { id: 3, args: ['ARG_CONST_MAP_PTR', 'ARG_PTR_TO_MAP_KEY'], ret: 'RET_INTEGER', mapTypes: GENERIC_MAP_TYPES },
  { id: 5, args: [], ret: 'RET_INTEGER' },
  // The format arguments are not checked: the proto declares only the format string.
  { id: 6, args: ['ARG_PTR_TO_MEM', 'ARG_CONST_SIZE'], ret: 'RET_INTEGER', gplOnly: true },
  { id: 7, args: [], ret: 'RET_INTEGER' },
  { id: 8, args: [], ret: 'RET_INTEGER' },
  { id: 12, args: ['ARG_PTR_TO_CTX', 'ARG_CONST_MAP_PTR', A], ret: 'RET_VOID', mapTypes: ['prog_array'] },
  { id: 14, args: [], ret: 'RET_INTEGER', gplOnly: true },
  { id: 15, args: [], ret: 'RET_INTEGER', gplOnly: true },
  { id: 16, args: ['ARG_PTR_TO_UNINIT_MEM', 'ARG_CONST_SIZE'], ret: 'RET_INTEGER', gplOnly: true },
  { id: 17, args: [], ret: 'RET_INTEGER' },
  { id: 22, args: ['ARG_CONST_MAP_PTR', A], ret: 'RET_INTEGER', mapTypes: PERF_EVENT_ARRAY },
  { id: 23, args: [A, A], ret: 'RET_INTEGER' },
  { id: 25, args: ['ARG_PTR_TO_CTX', 'ARG_CONST_MAP_PTR', A, 'ARG_PTR_TO_MEM', 'ARG_CONST_SIZE_OR_ZERO'], ret: 'RET_INTEGER', mapTypes: PERF_EVENT_ARRAY },
  { id: 28, args: ['ARG_PTR_TO_MEM_OR_NULL', 'ARG_CONST_SIZE_OR_ZERO', 'ARG_PTR_TO_MEM_OR_NULL', 'ARG_CONST_SIZE_OR_ZERO', A], ret: 'RET_INTEGER' },
  { id: 35, args: [], ret: 'RET_INTEGER', gplOnly: true },
  { id: 37, args: ['ARG_CONST_MAP_PTR', A], ret: 'RET_INTEGER', mapTypes: ['cgroup_array'] },
  { id: 42, args: [], ret: 'RET_INTEGER' },
  { id: 44, args: ['ARG_PTR_TO_CTX', A], ret: 'RET_INTEGER', changesPktData: true },
  { id: 51, args: ['ARG_CONST_MAP_PTR', A, A], ret: 'RET_INTEGER', mapTypes: REDIRECT_MAP_TYPES },
  { id: 54, args: ['ARG_PTR_TO_CTX', A], ret: 'RET_INTEGER', changesPktData: true },
  { id: 55, args: ['ARG_CONST_MAP_PTR', A, 'ARG_PTR_TO_UNINIT_MEM', 'ARG_CONST_SIZE'], ret: 'RET_INTEGER', mapTypes: PERF_EVENT_ARRAY },
  { id: 65, args: ['ARG_PTR_TO_CTX', A], ret: 'RET_INTEGER', changesPktData: true },
  { id: 69, args: ['ARG_PTR_TO_CTX', 'ARG_PTR_TO_MEM', 'ARG_CONST_SIZE', A], memWrite: [1], ret: 'RET_INTEGER' },
  { id: 80, args: [], ret: 'RET_INTEGER' },
  { id: 84, args: ['ARG_PTR_TO_CTX', 'ARG_PTR_TO_MEM', 'ARG_CONST_SIZE', A, A], ret: 'RET_PTR_TO_SOCKET_OR_NULL' },
  { id: 85, args: ['ARG_PTR_TO_CTX', 'ARG_PTR_TO_MEM', 'ARG_CONST_SIZE', A, A], ret: 'RET_PTR_TO_SOCKET_OR_NULL' },
  { id: 86, args: [SOCK], ret: 'RET_INTEGER' },
  { id: 87, args: ['ARG_CONST_MAP_PTR', 'ARG_PTR_TO_MAP_VALUE', A], ret: 'RET_INTEGER', mapTypes: [...QUEUE_STACK, 'bloom_filter'] },
  { id: 88, args: ['ARG_CONST_MAP_PTR', 'ARG_PTR_TO_UNINIT_MAP_VALUE'], ret: 'RET_INTEGER', mapTypes: QUEUE_STACK },
  { id: 89, args: ['ARG_CONST_MAP_PTR', 'ARG_PTR_TO_UNINIT_MAP_VALUE'], ret: 'RET_INTEGER', mapTypes: [...QUEUE_STACK, 'bloom_filter'] },
  { id: 93, args: ['ARG_PTR_TO_SPIN_LOCK'], ret: 'RET_VOID' },
  { id: 94, args: ['ARG_PTR_TO_SPIN_LOCK'], ret: 'RET_VOID' },
  { id: 99, args: ['ARG_PTR_TO_CTX', 'ARG_PTR_TO_MEM', 'ARG_CONST_SIZE', A, A], ret: 'RET_PTR_TO_SOCKET_OR_NULL' },
  { id: 100, args: [SOCK, 'ARG_PTR_TO_MEM', 'ARG_CONST_SIZE', 'ARG_PTR_TO_MEM', 'ARG_CONST_SIZE'], ret: 'RET_INTEGER', unmodelled: true },
  { id: 105, args: ['ARG_PTR_TO_MEM', 'ARG_CONST_SIZE', A, 'ARG_PTR_TO_LONG'], ret: 'RET_INTEGER' },
  { id: 106, args: ['ARG_PTR_TO_MEM', 'ARG_CONST_SIZE', A, 'ARG_PTR_TO_LONG'], ret: 'RET_INTEGER' },
  { id: 109, args: [A], ret: 'RET_INTEGER' },
  { id: 110, args: [SOCK, 'ARG_PTR_TO_MEM', 'ARG_CONST_SIZE', 'ARG_PTR_TO_MEM', 'ARG_CONST_SIZE'], ret: 'RET_INTEGER', unmodelled: true },
  { id: 112, args: ['ARG_PTR_TO_UNINIT_MEM', 'ARG_CONST_SIZE_OR_ZERO', A], ret: 'RET_INTEGER', gplOnly: true },
  { id: 113, args: ['ARG_PTR_TO_UNINIT_MEM', 'ARG_CONST_SIZE_OR_ZERO', A], ret: 'RET_INTEGER', gplOnly: true },
  { id: 114, args: ['ARG_PTR_TO_UNINIT_MEM', 'ARG_CONST_SIZE_OR_ZERO', A], ret: 'RET_INTEGER', gplOnly: true },
  { id: 115, args: ['ARG_PTR_TO_UNINIT_MEM', 'ARG_CONST_SIZE_OR_ZERO', A], ret: 'RET_INTEGER', gplOnly: true },
  { id: 117, args: [A], ret: 'RET_INTEGER' },
  { id: 118, args: [], ret: 'RET_INTEGER' },
  { id: 120, args: [A, A, 'ARG_PTR_TO_UNINIT_MEM', 'ARG_CONST_SIZE'], ret: 'RET_INTEGER' },
  { id: 123, args: [A], ret: 'RET_INTEGER' },
  { id: 125, args: [], ret: 'RET_INTEGER' },
  { id: 130, args: ['ARG_CONST_MAP_PTR', 'ARG_PTR_TO_MEM', 'ARG_CONST_SIZE_OR_ZERO', A], ret: 'RET_INTEGER', mapTypes: RINGBUF },
  { id: 131, args: ['ARG_CONST_MAP_PTR', 'ARG_CONST_ALLOC_SIZE_OR_ZERO', A], ret: 'RET_PTR_TO_RINGBUF_MEM_OR_NULL', mapTypes: RINGBUF },
  { id: 132, args: ['ARG_PTR_TO_RINGBUF_MEM', A], ret: 'RET_VOID' },
  { id: 133, args: ['ARG_PTR_TO_RINGBUF_MEM', A], ret: 'RET_VOID' },
  { id: 134, args: ['ARG_CONST_MAP_PTR', A], ret: 'RET_INTEGER', mapTypes: RINGBUF },
  ...[136, 137, 138, 139, 140, 178].map((id): P => ({ id, args: [SOCK], ret: 'RET_PTR_TO_BTF_ID', unmodelled: true })),
  { id: 141, args: ['ARG_PTR_TO_BTF_ID', 'ARG_PTR_TO_UNINIT_MEM', 'ARG_CONST_SIZE_OR_ZERO', A], ret: 'RET_INTEGER', unmodelled: true },
  { id: 148, args: [], ret: 'RET_INTEGER', refusal: 'helper call might sleep in a non-sleepable prog' },
  { id: 149, args: ['ARG_PTR_TO_MEM', 'ARG_CONST_SIZE', 'ARG_PTR_TO_MEM', 'ARG_CONST_SIZE', A], ret: 'RET_INTEGER', unmodelled: true },
  { id: 153, args: ['ARG_PTR_TO_PERCPU_BTF_ID', A], ret: 'RET_PTR_TO_MEM_OR_NULL', unmodelled: true },
  { id: 154, args: ['ARG_PTR_TO_PERCPU_BTF_ID'], ret: 'RET_PTR_TO_MEM_OR_NULL', unmodelled: true },
  { id: 156, args: ['ARG_CONST_MAP_PTR', 'ARG_PTR_TO_BTF_ID', A, A], ret: 'RET_PTR_TO_MAP_VALUE_OR_NULL', mapTypes: ['task_storage'], unmodelled: true },
  { id: 157, args: ['ARG_CONST_MAP_PTR', 'ARG_PTR_TO_BTF_ID'], ret: 'RET_INTEGER', mapTypes: ['task_storage'], unmodelled: true },
  { id: 158, args: [], ret: 'RET_PTR_TO_BTF_ID', unmodelled: true },
  { id: 160, args: [], ret: 'RET_INTEGER' },
  { id: 163, args: ['ARG_PTR_TO_CTX', A, 'ARG_PTR_TO_FIXED_SIZE_MEM_U32', A, A], ret: 'RET_INTEGER' },
  { id: 164, args: ['ARG_CONST_MAP_PTR', 'ARG_PTR_TO_FUNC', 'ARG_PTR_TO_STACK_OR_NULL', A], ret: 'RET_INTEGER', unmodelled: true },
  { id: 165, args: ['ARG_PTR_TO_MEM_OR_NULL', 'ARG_CONST_SIZE_OR_ZERO', 'ARG_PTR_TO_CONST_STR', 'ARG_PTR_TO_MEM_OR_NULL', 'ARG_CONST_SIZE_OR_ZERO'], ret: 'RET_INTEGER', unmodelled: true },
  // bpf_timer_*: the timer lives in a map value whose BTF says where; lab maps carry no BTF, so the verifier
  // refuses every call at its first argument (as the kernel does for a map without BTF) and the VM has no timers.
  { id: 169, args: ['ARG_PTR_TO_TIMER', 'ARG_CONST_MAP_PTR', A], ret: 'RET_INTEGER', unmodelled: true },
  { id: 170, args: ['ARG_PTR_TO_TIMER', 'ARG_PTR_TO_FUNC'], ret: 'RET_INTEGER', unmodelled: true },
  { id: 171, args: ['ARG_PTR_TO_TIMER', A, A], ret: 'RET_INTEGER', unmodelled: true },
  { id: 172, args: ['ARG_PTR_TO_TIMER'], ret: 'RET_INTEGER', unmodelled: true },
  { id: 175, args: ['ARG_PTR_TO_BTF_ID'], ret: 'RET_PTR_TO_BTF_ID', unmodelled: true },
  { id: 176, args: ['ARG_PTR_TO_UNINIT_MEM', 'ARG_CONST_SIZE_OR_ZERO', A], ret: 'RET_INTEGER', unmodelled: true },
  // bpf_trace_vprintk: libbpf's bpf_printk with more than three arguments (their u64s in an array).
  { id: 177, args: ['ARG_PTR_TO_MEM', 'ARG_CONST_SIZE', 'ARG_PTR_TO_MEM_OR_NULL', 'ARG_CONST_SIZE_OR_ZERO'], ret: 'RET_INTEGER', gplOnly: true },
  { id: 180, args: ['ARG_PTR_TO_BTF_ID', A, 'ARG_PTR_TO_FUNC', 'ARG_PTR_TO_STACK_OR_NULL', A], ret: 'RET_INTEGER', unmodelled: true },
  // bpf_loop: the verifier checks it in ../verifier/callback.ts before this entry's flag is read, and the VM
  // runs it outside its helper table (../vm/callbacks.ts); generic helper paths still treat it as unmodelled.
  { id: 181, args: [A, 'ARG_PTR_TO_FUNC', 'ARG_PTR_TO_STACK_OR_NULL', A], ret: 'RET_INTEGER', unmodelled: true },
  { id: 182, args: ['ARG_PTR_TO_MEM', 'ARG_CONST_SIZE', 'ARG_PTR_TO_CONST_STR'], ret: 'RET_INTEGER', unmodelled: true },
  { id: 188, args: ['ARG_PTR_TO_CTX'], ret: 'RET_INTEGER' },
  { id: 189, args: ['ARG_PTR_TO_CTX', A, 'ARG_PTR_TO_UNINIT_MEM', 'ARG_CONST_SIZE'], ret: 'RET_INTEGER' },
  { id: 190, args: ['ARG_PTR_TO_CTX', A, 'ARG_PTR_TO_MEM', 'ARG_CONST_SIZE'], ret: 'RET_INTEGER' },
  { id: 191, args: [], ret: 'RET_INTEGER', refusal: 'helper call might sleep in a non-sleepable prog' },
  { id: 194, args: ['ARG_PTR_TO_SPIN_LOCK', A], ret: 'RET_PTR_TO_BTF_ID', unmodelled: true },
  { id: 195, args: ['ARG_CONST_MAP_PTR', 'ARG_PTR_TO_MAP_KEY', A], ret: 'RET_PTR_TO_MAP_VALUE_OR_NULL', mapTypes: PERCPU_MAP_TYPES },
  { id: 196, args: [SOCK], ret: 'RET_PTR_TO_BTF_ID', unmodelled: true },
  { id: 197, args: ['ARG_PTR_TO_UNINIT_MEM', 'ARG_CONST_SIZE_OR_ZERO', A, 'ARG_PTR_TO_DYNPTR'], ret: 'RET_INTEGER', unmodelled: true },
  { id: 198, args: ['ARG_CONST_MAP_PTR', A, A, 'ARG_PTR_TO_DYNPTR'], ret: 'RET_INTEGER', mapTypes: RINGBUF, unmodelled: true },
  ...[199, 200].map((id): P => ({ id, args: ['ARG_PTR_TO_DYNPTR', A], ret: 'RET_VOID', unmodelled: true })),
  // The dynptr helpers over an initialised dynptr (XDP Lab makes only XDP ones, with bpf_dynptr_from_xdp).
  { id: 201, args: ['ARG_PTR_TO_UNINIT_MEM', 'ARG_CONST_SIZE_OR_ZERO', 'ARG_PTR_TO_DYNPTR', A, A], ret: 'RET_INTEGER' },
  { id: 202, args: ['ARG_PTR_TO_DYNPTR', A, 'ARG_PTR_TO_MEM', 'ARG_CONST_SIZE_OR_ZERO', A], ret: 'RET_INTEGER' },
  { id: 203, args: ['ARG_PTR_TO_DYNPTR', A, 'ARG_CONST_ALLOC_SIZE_OR_ZERO'], ret: 'RET_PTR_TO_MEM_OR_NULL' },
  // The raw SYN-cookie helpers: the IP header is fixed-size memory (sizeof iphdr 20, ipv6hdr 40); gen takes
  // the TCP header with its length, check a fixed-size tcphdr (20).
  { id: 204, args: ['ARG_PTR_TO_FIXED_SIZE_MEM', 'ARG_PTR_TO_MEM', 'ARG_CONST_SIZE'], argSizes: [20], ret: 'RET_INTEGER' },
  { id: 205, args: ['ARG_PTR_TO_FIXED_SIZE_MEM', 'ARG_PTR_TO_MEM', 'ARG_CONST_SIZE'], argSizes: [40], ret: 'RET_INTEGER' },
  { id: 206, args: ['ARG_PTR_TO_FIXED_SIZE_MEM', 'ARG_PTR_TO_FIXED_SIZE_MEM'], argSizes: [20, 20], ret: 'RET_INTEGER' },
  { id: 207, args: ['ARG_PTR_TO_FIXED_SIZE_MEM', 'ARG_PTR_TO_FIXED_SIZE_MEM'], argSizes: [40, 20], ret: 'RET_INTEGER' },
  { id: 208, args: [], ret: 'RET_INTEGER' },
  { id: 209, args: ['ARG_CONST_MAP_PTR', 'ARG_PTR_TO_FUNC', 'ARG_PTR_TO_STACK_OR_NULL', A], ret: 'RET_INTEGER', mapTypes: ['user_ringbuf'], unmodelled: true },
  { id: 210, args: ['ARG_CONST_MAP_PTR', 'ARG_PTR_TO_BTF_ID', A, A], ret: 'RET_PTR_TO_MAP_VALUE_OR_NULL', mapTypes: ['cgrp_storage'], unmodelled: true },
  { id: 211, args: ['ARG_CONST_MAP_PTR', 'ARG_PTR_TO_BTF_ID'], ret: 'RET_INTEGER', mapTypes: ['cgrp_storage'], unmodelled: true },
];

export const HELPERS: readonly HelperProto[] = PROTOS.map((p) => ({ ...p, name: HELPER_NAMES[p.id]! }));

const byId = new Map<number, HelperProto>(HELPERS.map((h) => [h.id, h]));
const byName = new Map<string, HelperProto>(HELPERS.map((h) => [h.name, h]));

/** The prototype of a helper XDP programs may call, or undefined. */
export function helperById(id: number): HelperProto | undefined {
  return byId.get(id);
}

/** Accepts "map_lookup_elem" or "bpf_map_lookup_elem". */
export function helperByName(name: string): HelperProto | undefined {
  return byName.get(name.startsWith('bpf_') ? name.slice(4) : name);
}

/** The kernel's func_id_name(): "bpf_map_lookup_elem", or "unknown". */
export function helperDisplayName(id: number): string {
  const n = id >= 0 && id < HELPER_NAMES.length ? HELPER_NAMES[id] : undefined;
  return n ? `bpf_${n}` : 'unknown';
}

/**
 * Map types a map may hold for each map-only helper: the other direction of
 * check_map_func_compatibility (which helpers a map type allows).
 */
export const MAP_TYPE_HELPERS: Readonly<Record<string, readonly number[] | undefined>> = {
  prog_array: [12],
  devmap: [51, 1],
  devmap_hash: [51, 1],
  cpumap: [51],
  xskmap: [51, 1],
  // A queue or stack has no generic lookup/update/delete: only push, pop and peek.
  queue: [87, 88, 89],
  stack: [87, 88, 89],
  // A bloom filter only adds values and tests them: push and peek (pop would have to remove bits).
  bloom_filter: [87, 89],
  // check_map_func_compatibility: a program only looks an inner map up; user space adds and removes them.
  array_of_maps: [1],
  hash_of_maps: [1],
};

/**
 * resolve_map_arg_type: the argument kind a map-value argument takes for
 * this map. A bloom filter's bpf_map_peek_elem READS the value it is given
 * (a membership test) where a queue's or stack's writes into it, so there
 * it wants initialised memory (ARG_PTR_TO_MAP_VALUE), not uninit.
 */
export function resolveMapArgType(fnId: number, mapType: string | undefined, k: ArgKind): ArgKind {
  if (k === 'ARG_PTR_TO_UNINIT_MAP_VALUE' && fnId === BPF_FUNC.map_peek_elem && mapType === 'bloom_filter') return 'ARG_PTR_TO_MAP_VALUE';
  return k;
}
