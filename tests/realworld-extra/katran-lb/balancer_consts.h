/* SPDX-License-Identifier: GPL-2.0 */
/* Constants in the style of katran's balancer_consts.h (written for XDP Lab's generality tests). */
#ifndef __BALANCER_CONSTS_H
#define __BALANCER_CONSTS_H

#define MAX_VIPS 512
#define MAX_REALS 4096
#define RING_SIZE 65
#define IPIP_TTL 64
#define DEFAULT_TOS 0
#define F_IPV6 (1 << 0)
#define F_HASH_NO_SRC_PORT (1 << 0)
#define NO_FLAGS 0
#define MAX_PCKT_SIZE 1514
#define ICMP_TOOBIG_SIZE 98
#define PCKT_FRAGMENTED 65343
#define FURTHER_PROCESSING -1

#ifndef __INLINE__
#define __INLINE__ __attribute__((always_inline))
#endif

#endif
