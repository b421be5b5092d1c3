/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * Shared between the XDP steering program and its user-space loader: the
 * flow table key/value and the per-CPU counters.  Fixed-width fields only.
 */
#ifndef BPF_STEER_H
#define BPF_STEER_H

#ifndef __BPF__
#include <linux/types.h>
#endif

#define STEER_MAX_FLOWS	64
#define STEER_MAX_QUEUES 64

/* Metadata the program puts just before the packet data. */
struct steer_meta {
	__u64 hook_ns;		/* bpf_ktime_get_ns() at the XDP hook (CLOCK_MONOTONIC) */
};

/* A steered flow: destination IPv4 address and UDP port, network order. */
struct steer_flow_key {
	__u32 daddr;
	__u16 dport;
	__u16 pad;		/* must be zero */
};

enum steer_flow_kind {
	STEER_FLOW_FEED = 1,	/* market data */
	STEER_FLOW_REPLY = 2,	/* order-entry replies */
	STEER_FLOW_RETRANS = 3,	/* MoldUDP64 re-request answers */
};

struct steer_flow_val {
	__u32 kind;		/* enum steer_flow_kind */
	__u32 saddr;		/* only this source may use the flow; 0 = any */
};

enum steer_counter {
	STEER_SEEN,		/* every packet the hook saw */
	STEER_STEERED,		/* redirected to the AF_XDP socket */
	STEER_PASSED,		/* handed to the kernel untouched */
	STEER_SHORT,		/* truncated or malformed headers: passed */
	STEER_SPOOFED,		/* configured flow, wrong source: dropped */
	STEER_NO_META,		/* metadata refused: steered without a stamp */
	STEER_NR_COUNTERS,
};

#endif /* BPF_STEER_H */
