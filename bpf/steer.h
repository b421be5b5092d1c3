/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * Shared between the XDP steering program and its user-space loader: the
 * flow tables' keys and values and the per-CPU counters.  Fixed-width
 * fields only.
 */
#ifndef BPF_STEER_H
#define BPF_STEER_H

#ifndef __BPF__
#include <linux/types.h>
#endif

#define STEER_MAX_FLOWS	64
#define STEER_MAX_TCP	8	/* order connections (one live, a few closing) */
#define STEER_MAX_FRAGS	16	/* host pairs whose fragments are dropped */
#define STEER_MAX_QUEUES 64	/* receive queues per interface the hook tells apart */
#define STEER_MAX_IFS	2	/* interfaces: one per feed line */
#define STEER_LINES	2	/* feed lines: A and B */
#define STEER_SESSION_LEN 10	/* MoldUDP64 session id */
#define STEER_MOLD_HDR	20	/* session, sequence number, message count */

/*
 * What the program puts in front of every steered packet: the socket
 * receives the stamp, then the frame as it arrived.  The stamp goes into
 * the packet's headroom (bpf_xdp_adjust_head()) rather than into XDP
 * metadata: some kernels refuse bpf_xdp_adjust_meta() to XDP programs
 * (docs/platform.md), and a prefix reaches the socket in copy and
 * zero-copy mode alike.
 */
struct steer_stamp {
	__u64 hook_ns;		/* bpf_ktime_get_ns() at the XDP hook (CLOCK_MONOTONIC) */
};

#define STEER_STAMP_LEN 8	/* sizeof(struct steer_stamp) */

#ifndef __BPF__
#include <stdint.h>
#include <string.h>

/* The hook's stamp at the start of a steered frame of at least STEER_STAMP_LEN bytes. */
static inline uint64_t steer_frame_stamp(const uint8_t *frame)
{
	uint64_t t;

	memcpy(&t, frame, sizeof(t));
	return t;
}
#endif

/* A steered flow: destination IPv4 address and UDP port, network order. */
struct steer_flow_key {
	__u32 daddr;
	__u16 dport;
	__u16 pad;		/* must be zero */
};

enum steer_flow_kind {
	STEER_FLOW_FEED = 1,	/* market data */
	STEER_FLOW_RETRANS = 3,	/* MoldUDP64 re-request answers */
};

/*
 * A TCP connection the gateway terminates itself (the order session): the
 * exchange's segments to it, by their 4-tuple, network order.  Every one
 * of them goes to the socket, so the kernel, which has no such connection,
 * never answers one with a reset.
 */
struct steer_tcp_key {
	__u32 saddr;		/* the exchange */
	__u32 daddr;		/* us */
	__u16 sport;
	__u16 dport;
};

/*
 * The order connection's map value: the interface its segments arrive on.
 * The same 4-tuple on another interface (line B's) is not the connection's.
 */
struct steer_tcp_val {
	__u32 ifindex;
};

/*
 * A host pair whose fragments the hook drops: a steered flow's fragment
 * carries no port to match (after the first), and the kernel would
 * reassemble it into a datagram or segment the gateway never sees.
 * saddr 0 matches any source.
 */
struct steer_frag_key {
	__u32 saddr;
	__u32 daddr;
	__u8 proto;
	__u8 pad[3];		/* must be zero */
};

struct steer_flow_val {
	__u32 kind;		/* enum steer_flow_kind */
	__u32 saddr;		/* only this source may use the flow; 0 = any */
	__u32 line;		/* feed: 0 = line A, 1 = line B */
	__u32 pad;
};

/*
 * A/B arbitration (a global of the program, shared memory with the
 * loader): the session the gateway decodes and the next sequence number
 * nothing has delivered yet.  User space writes the session and its own
 * next expected number when it adopts a session (armed = 1), and moves
 * next forward when its decoding passes it (after a gap is filled); the
 * hook moves next forward, atomically, for every packet that starts at or
 * below it and ends beyond it.  A feed packet wholly below next was already
 * delivered by the other line: dropped in the hook.  One beyond it (a gap)
 * goes on to the gateway's gap logic without moving next.
 */
struct steer_arb {
	__u64 next;
	__u32 armed;
	__u8 session[STEER_SESSION_LEN];
	__u8 pad[2];
};

/* Per line, the arbitration's outcome for each feed packet. */
enum steer_line_counter {
	STEER_LINE_TAKEN,	/* moved next: this line delivered it first */
	STEER_LINE_DUP,		/* wholly below next: dropped in the hook */
	STEER_LINE_AHEAD,	/* beyond next: passed on to the gap logic */
	STEER_LINE_OTHER,	/* not arbitrated: not armed, another session,
				   heartbeat, end of session, implausible count */
	STEER_LINE_NR,
};

/*
 * The counters' names, beside the enums so that the gateway's counter table
 * (gateway/counters.h) names them at compile time; the loader's
 * steer_counter_names[] and steer_line_counter_names[] are made from the
 * same lists.  Macros only: nothing here for the BPF program to compile.
 */
#define STEER_LINE_COUNTER_NAMES(X) \
	X(STEER_LINE_TAKEN, "taken") \
	X(STEER_LINE_DUP, "dup_dropped") \
	X(STEER_LINE_AHEAD, "ahead") \
	X(STEER_LINE_OTHER, "other")

enum steer_counter {
	STEER_SEEN,		/* every packet the hook saw */
	STEER_STEERED,		/* redirected to the AF_XDP socket of its queue */
	STEER_PASSED,		/* handed to the kernel untouched */
	STEER_SHORT,		/* truncated or malformed headers: passed */
	STEER_SPOOFED,		/* configured flow, wrong source: dropped */
	STEER_NO_META,		/* no headroom for the stamp: dropped */
	STEER_TCP,		/* order-connection segments, steered or unserved */
	STEER_UNSERVED,		/* a steered flow on a queue with no socket: dropped */
	STEER_FRAGMENT,		/* an IP fragment of a steered flow: dropped */
	STEER_TCP_WRONG_IF,	/* the order connection's 4-tuple on another
				   interface: dropped */
	STEER_NR_COUNTERS,
};

#define STEER_COUNTER_NAMES(X) \
	X(STEER_SEEN, "seen") \
	X(STEER_STEERED, "steered") \
	X(STEER_PASSED, "passed") \
	X(STEER_SHORT, "short") \
	X(STEER_SPOOFED, "spoofed") \
	X(STEER_NO_META, "no_stamp_room") \
	X(STEER_TCP, "tcp") \
	X(STEER_UNSERVED, "unserved") \
	X(STEER_FRAGMENT, "fragments") \
	X(STEER_TCP_WRONG_IF, "tcp_wrong_if")

/*
 * Where each steered packet arrived: per interface slot, receive queue and
 * class of flow, how many went to the queue's socket and how many found
 * none there and were dropped.  RSS (or, on the rig, the sender's transmit
 * queue) decides the queue; these counts say which flow lands where.
 */
enum steer_class {
	STEER_CLASS_FEED,	/* the feed (line A on slot 0, line B on slot 1) */
	STEER_CLASS_RETRANS,	/* re-request answers */
	STEER_CLASS_TCP,	/* the order connection */
	STEER_CLASS_NR,
};

#define STEER_CLASS_NAMES(X) \
	X(STEER_CLASS_FEED, "feed") \
	X(STEER_CLASS_RETRANS, "retrans") \
	X(STEER_CLASS_TCP, "orders")

struct steer_queue_stats {
	__u64 steered[STEER_MAX_IFS][STEER_MAX_QUEUES][STEER_CLASS_NR];
	__u64 unserved[STEER_MAX_IFS][STEER_MAX_QUEUES][STEER_CLASS_NR];
};

#endif /* BPF_STEER_H */
