/* SPDX-License-Identifier: MIT */
/*
 * Attacks on the feed session itself, sent on the feed socket (so from the
 * feed's own address and port, with good checksums), each a thing real
 * networks and real exchanges do to a receiver that trusts too much:
 *
 *   --junk-first N       before the session's first packet, N packets:
 *                        random bytes (20-200 of them), and well-formed
 *                        MoldUDP64 data packets of another session id
 *                        (JUNKJUNK01) at scattered sequence numbers, each
 *                        one trade of the first symbol at 0.0001.  A
 *                        receiver that adopts the first packet it sees as
 *                        "the session" drops the real one all day.
 *   --stale-end-at K     after tick packet K, an end of session of the real
 *                        session carrying a number 100 behind the next one:
 *                        old, and not the end.
 *   --far-heartbeat-at K after tick packet K, a heartbeat of the real
 *                        session announcing a number a million ahead: a
 *                        hole that can never be filled.
 *   --spoof-from ADDR    before the session's first packet, from ADDR (an
 *                        address of this host), a packet of the real
 *                        session at sequence number 1 whose directory
 *                        names every locate as another stock: a receiver
 *                        that takes feed packets from any source loses the
 *                        real directory to it.
 *
 * None of them takes a sequence number or reaches the record.
 */
#ifndef NETNS_EXSIM_ATTACK_H
#define NETNS_EXSIM_ATTACK_H

#include <stdint.h>

#include "netns/exsim/exsim.h"
#include "netns/exsim/feed.h"

#define ATTACK_SESSION		"JUNKJUNK01"
#define ATTACK_STALE_BEHIND	100
#define ATTACK_FAR_AHEAD	1000000

struct attack_stats {
	uint64_t junk;
	uint64_t spoofed;
	uint64_t stale_end;
	uint64_t far_heartbeat;
	uint64_t send_errors;
};

struct attack {
	const struct exsim_cfg *cfg;
	struct feed *feed;
	uint64_t rng;
	uint64_t packets;	/* tick packets so far */
	struct attack_stats st;
};

void attack_init(struct attack *a, const struct exsim_cfg *c, struct feed *f);
/* The junk, before the session's first packet. */
void attack_before_session(struct attack *a);
/* After each tick packet: the stale end or far heartbeat, when due. */
void attack_after_packet(struct attack *a);

#endif /* NETNS_EXSIM_ATTACK_H */
