/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PCKT_PARSING_H
#define __PCKT_PARSING_H

#include <linux/ip.h>
#include <linux/in.h>
#include <linux/tcp.h>
#include <linux/udp.h>
#include <stdbool.h>
#include "balancer_structs.h"

__attribute__((__always_inline__)) static inline bool parse_udp(void *data, void *data_end, __u64 off, struct packet_description *pckt)
{
	struct udphdr *udp = data + off;

	if ((void *)(udp + 1) > data_end)
		return false;
	pckt->flow.port16[0] = udp->source;
	pckt->flow.port16[1] = udp->dest;
	return true;
}

__attribute__((__always_inline__)) static inline bool parse_tcp(void *data, void *data_end, __u64 off, struct packet_description *pckt)
{
	struct tcphdr *tcp = data + off;

	if ((void *)(tcp + 1) > data_end)
		return false;
	pckt->flow.port16[0] = tcp->source;
	pckt->flow.port16[1] = tcp->dest;
	return true;
}

#endif
