/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __BALANCER_MAPS_H
#define __BALANCER_MAPS_H

#include "balancer_consts.h"
#include "balancer_structs.h"

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, struct vip_definition);
	__type(value, struct vip_meta);
	__uint(max_entries, MAX_VIPS);
	__uint(map_flags, NO_FLAGS);
} vip_map SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, __u32);
	__uint(max_entries, MAX_VIPS * RING_SIZE);
} ch_rings SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, struct real_definition);
	__uint(max_entries, MAX_REALS);
} reals SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, struct lb_stats);
	__uint(max_entries, MAX_VIPS * 2);
} stats SEC(".maps");

#endif
