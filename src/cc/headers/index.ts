/**
 * The editor's completion data (src/ui/editor/headerNames.ts): short
 * headers written for XDP Lab whose facts — struct layouts, constants,
 * helper ids — are the kernel's uapi ones. The compiler no longer reads
 * them: it reads the real system headers (see ../system_headers.ts) and the
 * freestanding C headers of ./freestanding.ts. To be retired once the
 * editor's completion reads the system-header bundle.
 */
import { HELPER_DECLS } from './helper_decls';

const types_h = `#ifndef _LINUX_TYPES_H
#define _LINUX_TYPES_H
typedef signed char __s8;
typedef unsigned char __u8;
typedef short __s16;
typedef unsigned short __u16;
typedef int __s32;
typedef unsigned int __u32;
typedef long long __s64;
typedef unsigned long long __u64;
typedef __u16 __le16;
typedef __u16 __be16;
typedef __u32 __le32;
typedef __u32 __be32;
typedef __u64 __le64;
typedef __u64 __be64;
typedef __u16 __sum16;
typedef __u32 __wsum;
typedef __u8 u8;
typedef __u16 u16;
typedef __u32 u32;
typedef __u64 u64;
typedef __s8 s8;
typedef __s16 s16;
typedef __s32 s32;
typedef __s64 s64;
#endif
`;

const stdint_h = `#ifndef _STDINT_H
#define _STDINT_H
typedef signed char int8_t;
typedef short int16_t;
typedef int int32_t;
typedef long int64_t;
typedef unsigned char uint8_t;
typedef unsigned short uint16_t;
typedef unsigned int uint32_t;
typedef unsigned long uint64_t;
typedef long intptr_t;
typedef unsigned long uintptr_t;
#define UINT8_MAX 255
#define UINT16_MAX 65535
#define UINT32_MAX 4294967295U
#define UINT64_MAX 18446744073709551615UL
#define INT32_MAX 2147483647
#endif
`;

const stddef_h = `#ifndef _STDDEF_H
#define _STDDEF_H
typedef unsigned long size_t;
typedef long ptrdiff_t;
#define NULL ((void *)0)
#define offsetof(type, member) __builtin_offsetof(type, member)
#endif
`;

const stdbool_h = `#ifndef _STDBOOL_H
#define _STDBOOL_H
#define bool _Bool
#define true 1
#define false 0
#endif
`;

const bpf_h = `#ifndef _UAPI__LINUX_BPF_H__
#define _UAPI__LINUX_BPF_H__
#include <linux/types.h>

enum bpf_map_type {
  BPF_MAP_TYPE_UNSPEC,
  BPF_MAP_TYPE_HASH,
  BPF_MAP_TYPE_ARRAY,
  BPF_MAP_TYPE_PROG_ARRAY,
  BPF_MAP_TYPE_PERF_EVENT_ARRAY,
  BPF_MAP_TYPE_PERCPU_HASH,
  BPF_MAP_TYPE_PERCPU_ARRAY,
  BPF_MAP_TYPE_STACK_TRACE,
  BPF_MAP_TYPE_CGROUP_ARRAY,
  BPF_MAP_TYPE_LRU_HASH,
  BPF_MAP_TYPE_LRU_PERCPU_HASH,
  BPF_MAP_TYPE_LPM_TRIE,
  BPF_MAP_TYPE_ARRAY_OF_MAPS,
  BPF_MAP_TYPE_HASH_OF_MAPS,
  BPF_MAP_TYPE_DEVMAP,
  BPF_MAP_TYPE_SOCKMAP,
  BPF_MAP_TYPE_CPUMAP,
  BPF_MAP_TYPE_XSKMAP,
  BPF_MAP_TYPE_SOCKHASH,
  BPF_MAP_TYPE_CGROUP_STORAGE,
  BPF_MAP_TYPE_REUSEPORT_SOCKARRAY,
  BPF_MAP_TYPE_PERCPU_CGROUP_STORAGE,
  BPF_MAP_TYPE_QUEUE,
  BPF_MAP_TYPE_STACK,
  BPF_MAP_TYPE_SK_STORAGE,
  BPF_MAP_TYPE_DEVMAP_HASH,
  BPF_MAP_TYPE_STRUCT_OPS,
  BPF_MAP_TYPE_RINGBUF,
  BPF_MAP_TYPE_INODE_STORAGE,
  BPF_MAP_TYPE_TASK_STORAGE,
  BPF_MAP_TYPE_BLOOM_FILTER,
};

/* flags for BPF_MAP_UPDATE_ELEM */
#define BPF_ANY 0
#define BPF_NOEXIST 1
#define BPF_EXIST 2
#define BPF_F_LOCK 4

/* map_flags */
#define BPF_F_NO_PREALLOC (1U << 0)
#define BPF_F_ZERO_SEED (1U << 6)
#define BPF_F_RDONLY_PROG (1U << 7)
#define BPF_F_WRONLY_PROG (1U << 8)
#define BPF_F_INNER_MAP (1U << 12)

/* bpf_redirect / bpf_redirect_map flags */
#define BPF_F_INGRESS (1ULL << 0)
#define BPF_F_BROADCAST (1ULL << 3)
#define BPF_F_EXCLUDE_INGRESS (1ULL << 4)

enum xdp_action {
  XDP_ABORTED = 0,
  XDP_DROP,
  XDP_PASS,
  XDP_TX,
  XDP_REDIRECT,
};

/* The user-visible view of struct xdp_buff. */
struct xdp_md {
  __u32 data;
  __u32 data_end;
  __u32 data_meta;
  __u32 ingress_ifindex;
  __u32 rx_queue_index;
  __u32 egress_ifindex;
};

enum bpf_func_id {
  BPF_FUNC_unspec,
  BPF_FUNC_map_lookup_elem,
  BPF_FUNC_map_update_elem,
  BPF_FUNC_map_delete_elem,
  BPF_FUNC_ktime_get_ns = 5,
  BPF_FUNC_trace_printk = 6,
  BPF_FUNC_get_prandom_u32 = 7,
  BPF_FUNC_get_smp_processor_id = 8,
  BPF_FUNC_redirect = 23,
  BPF_FUNC_csum_diff = 28,
  BPF_FUNC_xdp_adjust_head = 44,
  BPF_FUNC_redirect_map = 51,
  BPF_FUNC_xdp_adjust_meta = 54,
  BPF_FUNC_xdp_adjust_tail = 65,
};
#endif
`;

const if_ether_h = `#ifndef _UAPI_LINUX_IF_ETHER_H
#define _UAPI_LINUX_IF_ETHER_H
#include <linux/types.h>
#define ETH_ALEN 6
#define ETH_TLEN 2
#define ETH_HLEN 14
#define ETH_ZLEN 60
#define ETH_DATA_LEN 1500
#define ETH_FRAME_LEN 1514
#define ETH_P_LOOP 0x0060
#define ETH_P_IP 0x0800
#define ETH_P_ARP 0x0806
#define ETH_P_8021Q 0x8100
#define ETH_P_IPV6 0x86DD
#define ETH_P_MPLS_UC 0x8847
#define ETH_P_8021AD 0x88A8
#define ETH_P_LLDP 0x88CC
#define ETH_P_QINQ1 0x9100
#define ETH_P_802_3_MIN 0x0600

struct ethhdr {
  unsigned char h_dest[ETH_ALEN];
  unsigned char h_source[ETH_ALEN];
  __be16 h_proto;
} __attribute__((packed));
#endif
`;

const in_h = `#ifndef _UAPI_LINUX_IN_H
#define _UAPI_LINUX_IN_H
#include <linux/types.h>
enum {
  IPPROTO_IP = 0,
  IPPROTO_ICMP = 1,
  IPPROTO_IGMP = 2,
  IPPROTO_IPIP = 4,
  IPPROTO_TCP = 6,
  IPPROTO_EGP = 8,
  IPPROTO_PUP = 12,
  IPPROTO_UDP = 17,
  IPPROTO_IDP = 22,
  IPPROTO_IPV6 = 41,
  IPPROTO_RSVP = 46,
  IPPROTO_GRE = 47,
  IPPROTO_ESP = 50,
  IPPROTO_AH = 51,
  IPPROTO_SCTP = 132,
  IPPROTO_UDPLITE = 136,
  IPPROTO_MPLS = 137,
  IPPROTO_RAW = 255,
  IPPROTO_MAX
};
struct in_addr {
  __be32 s_addr;
};
#endif
`;

const in6_h = `#ifndef _UAPI_LINUX_IN6_H
#define _UAPI_LINUX_IN6_H
#include <linux/types.h>
struct in6_addr {
  union {
    __u8 u6_addr8[16];
    __be16 u6_addr16[8];
    __be32 u6_addr32[4];
  } in6_u;
#define s6_addr in6_u.u6_addr8
#define s6_addr16 in6_u.u6_addr16
#define s6_addr32 in6_u.u6_addr32
};
#define IPPROTO_HOPOPTS 0
#define IPPROTO_ROUTING 43
#define IPPROTO_FRAGMENT 44
#define IPPROTO_ICMPV6 58
#define IPPROTO_NONE 59
#define IPPROTO_DSTOPTS 60
#define IPPROTO_MH 135
#endif
`;

const ip_h = `#ifndef _UAPI_LINUX_IP_H
#define _UAPI_LINUX_IP_H
#include <linux/types.h>
#define IPTOS_TOS_MASK 0x1E
#define IP_CE 0x8000
#define IP_DF 0x4000
#define IP_MF 0x2000
#define IP_OFFSET 0x1FFF
#define IPVERSION 4
#define MAXTTL 255

/* Little-endian bitfield order: the low nibble of the first byte is ihl. */
struct iphdr {
  __u8 ihl:4,
       version:4;
  __u8 tos;
  __be16 tot_len;
  __be16 id;
  __be16 frag_off;
  __u8 ttl;
  __u8 protocol;
  __sum16 check;
  __be32 saddr;
  __be32 daddr;
};
#endif
`;

const ipv6_h = `#ifndef _UAPI_IPV6_H
#define _UAPI_IPV6_H
#include <linux/types.h>
#include <linux/in6.h>
#define IPV6_MIN_MTU 1280

struct ipv6hdr {
  __u8 priority:4,
       version:4;
  __u8 flow_lbl[3];
  __be16 payload_len;
  __u8 nexthdr;
  __u8 hop_limit;
  struct in6_addr saddr;
  struct in6_addr daddr;
};

struct ipv6_opt_hdr {
  __u8 nexthdr;
  __u8 hdrlen;
} __attribute__((packed));

struct frag_hdr {
  __u8 nexthdr;
  __u8 reserved;
  __be16 frag_off;
  __be32 identification;
};
#endif
`;

const udp_h = `#ifndef _UAPI_LINUX_UDP_H
#define _UAPI_LINUX_UDP_H
#include <linux/types.h>
struct udphdr {
  __be16 source;
  __be16 dest;
  __be16 len;
  __sum16 check;
};
#endif
`;

const tcp_h = `#ifndef _UAPI_LINUX_TCP_H
#define _UAPI_LINUX_TCP_H
#include <linux/types.h>
/* Little-endian bitfield order, as on x86 and bpfel. */
struct tcphdr {
  __be16 source;
  __be16 dest;
  __be32 seq;
  __be32 ack_seq;
  __u16 res1:4,
        doff:4,
        fin:1,
        syn:1,
        rst:1,
        psh:1,
        ack:1,
        urg:1,
        ece:1,
        cwr:1;
  __be16 window;
  __sum16 check;
  __be16 urg_ptr;
};
#define TCP_FLAG_FIN 0x00010000U
#define TCP_FLAG_SYN 0x00020000U
#define TCP_FLAG_RST 0x00040000U
#define TCP_FLAG_PSH 0x00080000U
#define TCP_FLAG_ACK 0x00100000U
#define TCP_FLAG_URG 0x00200000U
#endif
`;

const icmp_h = `#ifndef _UAPI_LINUX_ICMP_H
#define _UAPI_LINUX_ICMP_H
#include <linux/types.h>
#define ICMP_ECHOREPLY 0
#define ICMP_DEST_UNREACH 3
#define ICMP_SOURCE_QUENCH 4
#define ICMP_REDIRECT 5
#define ICMP_ECHO 8
#define ICMP_TIME_EXCEEDED 11
#define ICMP_PARAMETERPROB 12
#define ICMP_FRAG_NEEDED 4

struct icmphdr {
  __u8 type;
  __u8 code;
  __sum16 checksum;
  union {
    struct {
      __be16 id;
      __be16 sequence;
    } echo;
    __be32 gateway;
    struct {
      __be16 __unused;
      __be16 mtu;
    } frag;
    __u8 reserved[4];
  } un;
};
#endif
`;

const icmpv6_h = `#ifndef _UAPI_LINUX_ICMPV6_H
#define _UAPI_LINUX_ICMPV6_H
#include <linux/types.h>
struct icmp6hdr {
  __u8 icmp6_type;
  __u8 icmp6_code;
  __sum16 icmp6_cksum;
  union {
    __be32 un_data32[1];
    __be16 un_data16[2];
    __u8 un_data8[4];
    struct icmpv6_echo {
      __be16 identifier;
      __be16 sequence;
    } u_echo;
  } icmp6_dataun;
#define icmp6_identifier icmp6_dataun.u_echo.identifier
#define icmp6_sequence icmp6_dataun.u_echo.sequence
#define icmp6_dataun32 icmp6_dataun.un_data32
};
#define ICMPV6_DEST_UNREACH 1
#define ICMPV6_PKT_TOOBIG 2
#define ICMPV6_TIME_EXCEED 3
#define ICMPV6_ECHO_REQUEST 128
#define ICMPV6_ECHO_REPLY 129
#define NDISC_NEIGHBOUR_SOLICITATION 135
#define NDISC_NEIGHBOUR_ADVERTISEMENT 136
#endif
`;

const bpf_helpers_h = `#ifndef __BPF_HELPERS__
#define __BPF_HELPERS__
#include <bpf/bpf_helper_defs.h>

#define __uint(name, val) int (*name)[val]
#define __type(name, val) typeof(val) *name
#define __array(name, val) typeof(val) *name[]

#define SEC(name) __attribute__((section(name), used))

#undef __always_inline
#define __always_inline inline __attribute__((always_inline))
#ifndef __noinline
#define __noinline __attribute__((noinline))
#endif
#ifndef __weak
#define __weak __attribute__((weak))
#endif

#ifndef likely
#define likely(x) __builtin_expect(!!(x), 1)
#endif
#ifndef unlikely
#define unlikely(x) __builtin_expect(!!(x), 0)
#endif
#ifndef barrier
#define barrier() __asm__ __volatile__("" ::: "memory")
#endif

#ifndef NULL
#define NULL ((void *)0)
#endif

/* The legacy map definition of the "maps" section (samples/bpf era). */
struct bpf_map_def {
  unsigned int type;
  unsigned int key_size;
  unsigned int value_size;
  unsigned int max_entries;
  unsigned int map_flags;
};

/* The format string lives on the stack, as in libbpf's classic bpf_printk. */
#define bpf_printk(fmt, ...) \\
  ({ \\
    char ____fmt[] = fmt; \\
    bpf_trace_printk(____fmt, sizeof(____fmt), ##__VA_ARGS__); \\
  })
#endif
`;

const bpf_endian_h = `#ifndef __BPF_ENDIAN__
#define __BPF_ENDIAN__
/* BPF programs run little endian here (bpfel): network order means a swap. */
#define ___bpf_swab16(x) ((__u16)((((__u16)(x) & (__u16)0x00ffU) << 8) | (((__u16)(x) & (__u16)0xff00U) >> 8)))
#define ___bpf_swab32(x) ((__u32)((((__u32)(x) & (__u32)0x000000ffUL) << 24) | \\
                                  (((__u32)(x) & (__u32)0x0000ff00UL) << 8) | \\
                                  (((__u32)(x) & (__u32)0x00ff0000UL) >> 8) | \\
                                  (((__u32)(x) & (__u32)0xff000000UL) >> 24)))
#define ___bpf_swab64(x) ((__u64)__builtin_bswap64((__u64)(x)))

#define __bpf_constant_htons(x) ___bpf_swab16(x)
#define __bpf_constant_ntohs(x) ___bpf_swab16(x)
#define __bpf_constant_htonl(x) ___bpf_swab32(x)
#define __bpf_constant_ntohl(x) ___bpf_swab32(x)
#define __bpf_constant_cpu_to_be64(x) ___bpf_swab64(x)
#define __bpf_constant_be64_to_cpu(x) ___bpf_swab64(x)

#define bpf_htons(x) (__builtin_constant_p(x) ? __bpf_constant_htons(x) : __builtin_bswap16(x))
#define bpf_ntohs(x) (__builtin_constant_p(x) ? __bpf_constant_ntohs(x) : __builtin_bswap16(x))
#define bpf_htonl(x) (__builtin_constant_p(x) ? __bpf_constant_htonl(x) : __builtin_bswap32(x))
#define bpf_ntohl(x) (__builtin_constant_p(x) ? __bpf_constant_ntohl(x) : __builtin_bswap32(x))
#define bpf_cpu_to_be64(x) __builtin_bswap64(x)
#define bpf_be64_to_cpu(x) __builtin_bswap64(x)
#endif
`;

export const HEADERS: Readonly<Record<string, string>> = {
  'linux/types.h': types_h,
  'linux/bpf.h': bpf_h,
  'linux/if_ether.h': if_ether_h,
  'linux/in.h': in_h,
  'linux/in6.h': in6_h,
  'linux/ip.h': ip_h,
  'linux/ipv6.h': ipv6_h,
  'linux/udp.h': udp_h,
  'linux/tcp.h': tcp_h,
  'linux/icmp.h': icmp_h,
  'linux/icmpv6.h': icmpv6_h,
  'stdint.h': stdint_h,
  'stddef.h': stddef_h,
  'stdbool.h': stdbool_h,
  'bpf/bpf_helpers.h': bpf_helpers_h,
  'bpf/bpf_helper_defs.h': HELPER_DECLS,
  'bpf/bpf_endian.h': bpf_endian_h,
};
