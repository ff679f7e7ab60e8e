/* SPDX-License-Identifier: GPL-2.0 */
/* Shared helpers of a multi-program project (written for XDP Lab's generality tests). */
#pragma once

#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <bpf/bpf_helpers.h>

#if __has_include(<bpf/bpf_endian.h>)
#include <bpf/bpf_endian.h>
#else
#error "libbpf's bpf_endian.h is needed"
#endif

#ifndef __maybe_unused
#define __maybe_unused __attribute__((__unused__))
#endif

#define DEBUG_PRINT(fmt, ...) ((void)(0 __VA_OPT__(,) __VA_ARGS__))
#define CONCAT_(a, b) a##b
#define CONCAT(a, b) CONCAT_(a, b)
#define ARRAY_SIZE(x) (sizeof(x) / sizeof((x)[0]))

static __always_inline void swap_src_dst_mac(struct ethhdr *eth)
{
	__u8 h_tmp[ETH_ALEN];

	__builtin_memcpy(h_tmp, eth->h_source, ETH_ALEN);
	__builtin_memcpy(eth->h_source, eth->h_dest, ETH_ALEN);
	__builtin_memcpy(eth->h_dest, h_tmp, ETH_ALEN);
}
