/**
 * The helper table: each BPF helper an XDP program may call, with the
 * kernel's id (enum bpf_func_id order in include/uapi/linux/bpf.h), its
 * prototype as the verifier checks it (struct bpf_func_proto: argument and
 * return kinds), and whether it changes packet data (which invalidates
 * every packet pointer the program holds).
 *
 * The verifier reads prototypes from here, the VM binds implementations by
 * id, and the compiler's bpf/bpf_helpers.h declares the same ids.
 */

/** Argument kinds, named after the kernel's enum bpf_arg_type. */
export type ArgKind =
  | 'ARG_DONTCARE'
  | 'ARG_ANYTHING' // any initialized scalar (or pointer, when privileged)
  | 'ARG_CONST_MAP_PTR'
  | 'ARG_PTR_TO_MAP_KEY'
  | 'ARG_PTR_TO_MAP_VALUE'
  | 'ARG_PTR_TO_CTX'
  | 'ARG_PTR_TO_MEM' // readable memory, size in the next argument
  | 'ARG_PTR_TO_MEM_OR_NULL'
  | 'ARG_PTR_TO_UNINIT_MEM' // writable memory, may be uninitialized; size in the next argument
  | 'ARG_CONST_SIZE'
  | 'ARG_CONST_SIZE_OR_ZERO'
  | 'ARG_PTR_TO_LONG' // pointer to 8 writable bytes
  | 'ARG_PTR_TO_FUNC'
  | 'ARG_PTR_TO_STACK_OR_NULL'
  | 'ARG_PTR_TO_CONST_STR';

/** Return kinds, named after the kernel's enum bpf_return_type. */
export type RetKind = 'RET_INTEGER' | 'RET_VOID' | 'RET_PTR_TO_MAP_VALUE_OR_NULL' | 'RET_PTR_TO_MEM_OR_NULL';

export interface HelperProto {
  readonly id: number;
  /** Name without the bpf_ prefix, as the kernel's log prints it (e.g. "map_lookup_elem"). */
  readonly name: string;
  readonly args: readonly ArgKind[];
  readonly ret: RetKind;
  /** bpf_helper_changes_pkt_data(): packet pointers are invalid after the call. */
  readonly changesPktData?: boolean;
  /** For ARG_CONST_MAP_PTR helpers: the map types the kernel allows (check_map_func_compatibility). */
  readonly mapTypes?: readonly string[];
  /** Only when the program is GPL-compatible (the oracle loads as GPL). */
  readonly gplOnly?: boolean;
}

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
  ringbuf_output: 130,
  ringbuf_reserve: 131,
  ringbuf_submit: 132,
  ringbuf_discard: 133,
  check_mtu: 163,
  loop: 181,
  xdp_get_buff_len: 188,
  xdp_load_bytes: 189,
  xdp_store_bytes: 190,
} as const;

const REDIRECT_MAP_TYPES = ['devmap', 'devmap_hash', 'cpumap', 'xskmap'] as const;

export const HELPERS: readonly HelperProto[] = [
  { id: 1, name: 'map_lookup_elem', args: ['ARG_CONST_MAP_PTR', 'ARG_PTR_TO_MAP_KEY'], ret: 'RET_PTR_TO_MAP_VALUE_OR_NULL' },
  { id: 2, name: 'map_update_elem', args: ['ARG_CONST_MAP_PTR', 'ARG_PTR_TO_MAP_KEY', 'ARG_PTR_TO_MAP_VALUE', 'ARG_ANYTHING'], ret: 'RET_INTEGER' },
  { id: 3, name: 'map_delete_elem', args: ['ARG_CONST_MAP_PTR', 'ARG_PTR_TO_MAP_KEY'], ret: 'RET_INTEGER' },
  { id: 5, name: 'ktime_get_ns', args: [], ret: 'RET_INTEGER' },
  { id: 6, name: 'trace_printk', args: ['ARG_PTR_TO_MEM', 'ARG_CONST_SIZE', 'ARG_ANYTHING', 'ARG_ANYTHING', 'ARG_ANYTHING'], ret: 'RET_INTEGER', gplOnly: true },
  { id: 7, name: 'get_prandom_u32', args: [], ret: 'RET_INTEGER' },
  { id: 8, name: 'get_smp_processor_id', args: [], ret: 'RET_INTEGER' },
  { id: 23, name: 'redirect', args: ['ARG_ANYTHING', 'ARG_ANYTHING'], ret: 'RET_INTEGER' },
  { id: 28, name: 'csum_diff', args: ['ARG_PTR_TO_MEM_OR_NULL', 'ARG_CONST_SIZE_OR_ZERO', 'ARG_PTR_TO_MEM_OR_NULL', 'ARG_CONST_SIZE_OR_ZERO', 'ARG_ANYTHING'], ret: 'RET_INTEGER' },
  { id: 42, name: 'get_numa_node_id', args: [], ret: 'RET_INTEGER' },
  { id: 44, name: 'xdp_adjust_head', args: ['ARG_PTR_TO_CTX', 'ARG_ANYTHING'], ret: 'RET_INTEGER', changesPktData: true },
  { id: 51, name: 'redirect_map', args: ['ARG_CONST_MAP_PTR', 'ARG_ANYTHING', 'ARG_ANYTHING'], ret: 'RET_INTEGER', mapTypes: REDIRECT_MAP_TYPES },
  { id: 54, name: 'xdp_adjust_meta', args: ['ARG_PTR_TO_CTX', 'ARG_ANYTHING'], ret: 'RET_INTEGER', changesPktData: true },
  { id: 65, name: 'xdp_adjust_tail', args: ['ARG_PTR_TO_CTX', 'ARG_ANYTHING'], ret: 'RET_INTEGER', changesPktData: true },
  { id: 118, name: 'jiffies64', args: [], ret: 'RET_INTEGER' },
  { id: 125, name: 'ktime_get_boot_ns', args: [], ret: 'RET_INTEGER' },
  { id: 188, name: 'xdp_get_buff_len', args: ['ARG_PTR_TO_CTX'], ret: 'RET_INTEGER' },
  { id: 189, name: 'xdp_load_bytes', args: ['ARG_PTR_TO_CTX', 'ARG_ANYTHING', 'ARG_PTR_TO_UNINIT_MEM', 'ARG_CONST_SIZE'], ret: 'RET_INTEGER' },
  { id: 190, name: 'xdp_store_bytes', args: ['ARG_PTR_TO_CTX', 'ARG_ANYTHING', 'ARG_PTR_TO_MEM', 'ARG_CONST_SIZE'], ret: 'RET_INTEGER' },
];

const byId = new Map<number, HelperProto>(HELPERS.map((h) => [h.id, h]));
const byName = new Map<string, HelperProto>(HELPERS.map((h) => [h.name, h]));

export function helperById(id: number): HelperProto | undefined {
  return byId.get(id);
}

/** Accepts "map_lookup_elem" or "bpf_map_lookup_elem". */
export function helperByName(name: string): HelperProto | undefined {
  return byName.get(name.startsWith('bpf_') ? name.slice(4) : name);
}
