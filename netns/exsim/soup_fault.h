/* SPDX-License-Identifier: MIT */
/*
 * Faults of the order server, for the tests of a client's recovery: when a
 * connection must stop, after which sequenced message, and how.
 *
 *   --drop-after N[:fin|rst]   every connection is dropped after the Nth
 *                              sequenced message sent on it (replayed ones
 *                              count): a session that keeps trading drops
 *                              again and again
 *   --drop-at LIST[:fin|rst]   the connection that sends message number S
 *                              of the session (S in LIST) is dropped right
 *                              after it, once per S: "the session dropped
 *                              three times in the day" is --drop-at
 *                              100,300,500
 *   --silent-after N           after the Nth sequenced message sent on a
 *                              connection it sends nothing more (no
 *                              heartbeat either) and reads nothing: the
 *                              client's 15 s rule must find it
 *   --late-replies PCT:MS      an order, with probability PCT %, holds the
 *                              connection's replies (its own and those
 *                              after it) for MS: a matching engine that
 *                              sometimes answers late; the order's ACK
 *                              comes with the reply, as from a server
 *                              whose kernel delays it
 *
 * A drop by FIN is shutdown(): the peer reads everything sent, then the
 * end.  A drop by RST (SO_LINGER 0) waits until the peer has acknowledged
 * every byte (at most SOUP_RST_WAIT_NS), since a reset throws away what
 * the socket still holds: the Nth message is always the last one the
 * peer gets.
 *
 * The plan is pure: given what a connection has sent, the number of its
 * next message and the session's place in LIST, the last number it may
 * send and what happens then.
 */
#ifndef NETNS_EXSIM_SOUP_FAULT_H
#define NETNS_EXSIM_SOUP_FAULT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SOUP_RST_WAIT_NS	(500ull * 1000 * 1000)
#define SOUP_MAX_DROP_AT	1024

enum soup_fault_kind {
	SOUP_FAULT_NONE,
	SOUP_FAULT_FIN,
	SOUP_FAULT_RST,
	SOUP_FAULT_SILENT,
};

extern const char *const soup_fault_names[];	/* "none", "fin", "rst", "silent" */

struct soup_fault_cfg {
	uint64_t drop_after;		/* 0: off */
	uint8_t drop_after_how;		/* SOUP_FAULT_FIN or _RST */
	uint64_t drop_at[SOUP_MAX_DROP_AT];	/* sorted, unique */
	size_t ndrop_at;
	uint8_t drop_at_how;
	uint64_t silent_after;		/* 0: off */
	bool refuse_login;
	uint32_t rcvbuf;		/* SO_RCVBUF of the connections; 0: the system's */
	uint64_t read_pause_ns;		/* after each read of a connection */
	double late_frac;		/* --late-replies: the orders held, 0-1 */
	uint64_t late_ns;		/* ... for this long */
	uint64_t late_seed;		/* the draw's seed (--fault-seed) */
};

struct soup_fault_plan {
	uint64_t last;			/* the last number that may go (UINT64_MAX: any) */
	uint8_t kind;			/* enum soup_fault_kind, once last has gone */
	bool drop_at;			/* ... because of LIST[*@at]: consume it then */
};

/*
 * The plan of a connection that has sent @sent sequenced messages and
 * sends number @next next, the session at LIST[*@at] (entries below @next
 * are passed over: *@at moves on, the return value says how many).
 */
size_t soup_fault_plan(const struct soup_fault_cfg *f, uint64_t sent, uint64_t next,
		       size_t *at, struct soup_fault_plan *p);

/* "N[:fin|rst]" or "LIST[:fin|rst]" of the command line.  0, or -1 with @why. */
int soup_fault_parse_after(struct soup_fault_cfg *f, const char *arg, char *why, size_t n);
int soup_fault_parse_at(struct soup_fault_cfg *f, const char *arg, char *why, size_t n);
/* "PCT:MS" of --late-replies.  0, or -1 with @why. */
int soup_fault_parse_late(struct soup_fault_cfg *f, const char *arg, char *why, size_t n);

#endif /* NETNS_EXSIM_SOUP_FAULT_H */
