/* SPDX-License-Identifier: MIT */
/*
 * The simulator's own faults on the feed: loss, duplication and reordering
 * of data packets, decided per packet after it was built (its sequence
 * numbers assigned, its messages stored for re-requests and recorded).
 *
 *   --drop-rate P     the packet is not sent (its messages exist only in the
 *                     re-request store);
 *   --dup-rate P      it is sent twice, back to back;
 *   --reorder-rate P  it is held and sent right after the next data packet
 *                     (or before a heartbeat / end of session, whichever
 *                     comes first);
 *   --drop-seqs LIST  every data packet holding one of these sequence
 *                     numbers is dropped (deterministic, for tests);
 *   --drop-burst N    losses come N tick packets in a row (a line losing a
 *                     burst), as often as keeps the fraction --drop-rate.
 *
 * Line A's faults and line B's (--b-...) are two instances, each with its
 * own streams: B's seed is derived from --fault-seed and differs from A's.
 *
 * The random faults apply to the packets carrying ticks; --drop-seqs to any
 * data packet, the session's opening and closing system events and
 * directory included.  Each decision has its own splitmix64 stream seeded
 * from --fault-seed, and all three are drawn for every tick packet, so one
 * rate never changes which packets another one picks.  A dropped packet is
 * never also duplicated or held; a held packet that was picked for
 * duplication is sent twice when released.  Only one packet is held at a
 * time: a packet picked while another is held is sent normally (not
 * counted as reordered).
 *
 * Nothing here runs on its own: feed.c asks for a verdict per packet and
 * keeps the held copy here.
 */
#ifndef NETNS_EXSIM_FAULTS_H
#define NETNS_EXSIM_FAULTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "netns/exsim/exsim.h"
#include "proto/moldudp64.h"

#define FAULT_LOG_CAP	(1u << 20)	/* events kept for --fault-log */

/* Verdict bits. */
#define FAULT_DROP	1u
#define FAULT_DUP	2u
#define FAULT_HOLD	4u

/* Event kinds in the log; hostile classes are FAULT_EV_HOSTILE + class. */
enum fault_event {
	FAULT_EV_DROP,
	FAULT_EV_DUP,
	FAULT_EV_REORDER,
	FAULT_EV_HOSTILE,
};

struct fault_rec {
	uint64_t seq;		/* first sequence number of the packet */
	uint16_t count;		/* its message count */
	uint8_t kind;		/* enum fault_event (+ hostile class) */
};

struct fault_stats {
	uint64_t dropped_packets;	/* random and --drop-seqs */
	uint64_t dropped_msgs;
	uint64_t dropped_ticks;
	uint64_t seq_dropped_packets;	/* of which by --drop-seqs */
	uint64_t dup_packets;		/* sent twice */
	uint64_t reordered_packets;	/* held, sent after the next one */
	uint64_t reordered_msgs;
};

struct faults {
	bool active;		/* any fault configured */
	uint64_t drop_thr, dup_thr, reorder_thr; /* probability x 2^64 */
	uint64_t rng_drop, rng_dup, rng_reorder;
	uint32_t burst;			/* packets a random drop takes */
	uint32_t burst_left;		/* of the current burst, still to drop */
	const uint64_t *drop_seqs;	/* sorted, unique */
	size_t ndrop, next_drop;	/* first entry not yet passed */

	/* the held packet */
	bool holding;
	bool held_dup;
	size_t held_len;
	uint64_t held_seq;
	uint16_t held_count;
	uint8_t held[MOLD_MTU_BUDGET];

	struct fault_stats st;
	struct fault_rec *log;	/* NULL unless --fault-log */
	uint64_t log_n;
	uint64_t log_dropped;
};

/*
 * From @f; @log: keep a log of the events (for --fault-log).  Returns 0, or
 * -1 when the log cannot be allocated (errno set).
 */
int faults_init(struct faults *x, const struct fault_cfg *f, bool log);
void faults_destroy(struct faults *x);

/*
 * Verdict for the data packet carrying [seq, seq + count) (@ticks of them
 * trades): FAULT_* bits, 0 = send it once.  @random: a tick packet (the
 * random faults apply).  Counts drops; dup/hold are counted when done.
 */
unsigned int faults_verdict(struct faults *x, uint64_t seq, uint16_t count,
			    unsigned int ticks, bool random);

/* Log one event (no-op without --fault-log). */
void faults_log(struct faults *x, unsigned int kind, uint64_t seq, uint16_t count);

/* Name of an event kind for the log ("drop", "dup", "reorder", or hostile). */
const char *faults_event_name(unsigned int kind);

/* Write the log as CSV event,seq,count.  Returns 0 or -1 (message printed). */
int faults_write_log(const struct faults *x, const char *path);

#endif /* NETNS_EXSIM_FAULTS_H */
