/**
 * bpf/bpf_helper_defs.h: each helper an XDP program may call, declared the
 * way libbpf declares them — a static function pointer initialised with the
 * helper id — so a call compiles to `call ID`. Ids are the kernel's
 * (enum bpf_func_id); prototypes follow include/uapi/linux/bpf.h.
 */
export const HELPER_DECLS = `#ifndef __BPF_HELPER_DEFS__
#define __BPF_HELPER_DEFS__
#include <linux/types.h>
struct xdp_md;
static void *(*bpf_map_lookup_elem)(void *map, const void *key) = (void *) 1;
static long (*bpf_map_update_elem)(void *map, const void *key, const void *value, __u64 flags) = (void *) 2;
static long (*bpf_map_delete_elem)(void *map, const void *key) = (void *) 3;
static __u64 (*bpf_ktime_get_ns)(void) = (void *) 5;
static long (*bpf_trace_printk)(const char *fmt, __u32 fmt_size, ...) = (void *) 6;
static __u32 (*bpf_get_prandom_u32)(void) = (void *) 7;
static __u32 (*bpf_get_smp_processor_id)(void) = (void *) 8;
static long (*bpf_tail_call)(void *ctx, void *prog_array_map, __u32 index) = (void *) 12;
static long (*bpf_redirect)(__u32 ifindex, __u64 flags) = (void *) 23;
static __s64 (*bpf_csum_diff)(__be32 *from, __u32 from_size, __be32 *to, __u32 to_size, __wsum seed) = (void *) 28;
static long (*bpf_get_numa_node_id)(void) = (void *) 42;
static long (*bpf_xdp_adjust_head)(struct xdp_md *xdp_md, int delta) = (void *) 44;
static long (*bpf_redirect_map)(void *map, __u64 key, __u64 flags) = (void *) 51;
static long (*bpf_xdp_adjust_meta)(struct xdp_md *xdp_md, int delta) = (void *) 54;
static long (*bpf_xdp_adjust_tail)(struct xdp_md *xdp_md, int delta) = (void *) 65;
static __u64 (*bpf_jiffies64)(void) = (void *) 118;
static __u64 (*bpf_ktime_get_boot_ns)(void) = (void *) 125;
static __u64 (*bpf_xdp_get_buff_len)(struct xdp_md *xdp_md) = (void *) 188;
static long (*bpf_xdp_load_bytes)(struct xdp_md *xdp_md, __u32 offset, void *buf, __u32 len) = (void *) 189;
static long (*bpf_xdp_store_bytes)(struct xdp_md *xdp_md, __u32 offset, void *buf, __u32 len) = (void *) 190;
#endif
`;
